"""What only the PostgreSQL room store does (the common contract is
tests/test_room_store.py, run on both stores): schema versions across
processes, LISTEN/NOTIFY between stores, a listener that survives losing
its connection, and bounded failures when the server is gone."""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Callable, Iterator

import pytest

psycopg = pytest.importorskip("psycopg")

from _postgres import PostgresServer, find_bindir, unavailable  # noqa: E402
from koudian import KoudianError  # noqa: E402
from koudian.rooms.schema import SCHEMA_VERSION  # noqa: E402
from koudian.rooms.store import EventRow, RoomRow, RoomStoreError, open_store  # noqa: E402
from koudian.rooms.store_postgres import PostgresStore  # noqa: E402

LISTENER = "koudian-pg-listen"
HANDS_AT_ONCE = 100


def room(n: int) -> RoomRow:
    return RoomRow(f"room{n}", f"CODE{n:02d}", bytes(32), "{}", 1.0 + n, "open", 1.0 + n)


def ev(room_id: str, seq: int) -> EventRow:
    return EventRow(room_id, seq, "ready", f'{{"seat": {seq % 4}}}', 2.0 + seq)


class Heard:
    """Collects (room_id, seq) callbacks; waits for one with a deadline."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, int]] = []
        self._cond = threading.Condition()

    def __call__(self, room_id: str, seq: int) -> None:
        with self._cond:
            self.calls.append((room_id, seq))
            self._cond.notify_all()

    def wait_for(self, pred: Callable[[list[tuple[str, int]]], bool], timeout: float = 10) -> bool:
        with self._cond:
            return self._cond.wait_for(lambda: pred(self.calls), timeout)


@pytest.fixture
def stores(postgres_url: str) -> Iterator[tuple[PostgresStore, PostgresStore]]:
    """Two stores on one database: as two server processes would be."""
    a, b = PostgresStore(postgres_url), PostgresStore(postgres_url)
    try:
        yield a, b
    finally:
        a.close()
        b.close()


def _listeners() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == LISTENER and t.is_alive()]


def test_open_store_picks_postgres_and_records_the_version(postgres_url: str) -> None:
    s = open_store(postgres_url)
    try:
        assert isinstance(s, PostgresStore)
    finally:
        s.close()
    with psycopg.connect(postgres_url) as conn:
        row = conn.execute("SELECT value FROM koudian_meta WHERE key='schema_version'").fetchone()
    assert row == (str(SCHEMA_VERSION),)


def test_a_newer_schema_is_refused_naming_the_database(postgres_url: str) -> None:
    PostgresStore(postgres_url).close()
    with psycopg.connect(postgres_url, autocommit=True) as conn:
        conn.execute("UPDATE koudian_meta SET value = '99' WHERE key = 'schema_version'")
    with pytest.raises(RoomStoreError, match=r"schema version 99.*newer") as e:
        PostgresStore(postgres_url)
    assert isinstance(e.value, KoudianError)
    assert "postgresql://" in str(e.value)


def test_servers_starting_at_once_migrate_once(postgres_url: str) -> None:
    """Several processes opening a new database together: one creates the
    schema, the others wait for it and find it (no duplicate-table error)."""
    errors: list[BaseException] = []
    opened: list[PostgresStore] = []
    lock = threading.Lock()

    def opener() -> None:
        try:
            s = PostgresStore(postgres_url)
            with lock:
                opened.append(s)
        except BaseException as e:
            errors.append(e)

    threads = [threading.Thread(target=opener) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    for s in opened:
        s.close()
    assert not errors, errors
    assert len(opened) == 6


def test_another_store_hears_each_commit_but_not_its_own(
    stores: tuple[PostgresStore, PostgresStore],
) -> None:
    a, b = stores
    a.create_room(room(0))
    heard = Heard()
    b.listen(heard)
    assert a.append("room0", [ev("room0", 0)])
    # Heard through NOTIFY, or through the listener's first resync: either
    # way it listens from then on.
    assert heard.wait_for(lambda c: ("room0", 0) in c)
    assert b.append("room0", [ev("room0", 1)])  # b's own: not reported
    assert a.append("room0", [ev("room0", 2), ev("room0", 3)])  # one batch, its last seq
    assert heard.wait_for(lambda c: ("room0", 3) in c)
    assert ("room0", 1) not in heard.calls
    assert ("room0", 2) not in heard.calls
    # A refused append (seq taken) rolls back its NOTIFY with it.
    assert not a.append("room0", [ev("room0", 4), ev("room0", 3)])
    assert a.append("room0", [ev("room0", 4)])
    assert heard.wait_for(lambda c: ("room0", 4) in c)
    assert [s for r, s in heard.calls if r == "room0" and s > 0] == [3, 4]


def test_a_failing_callback_does_not_stop_the_listening(
    stores: tuple[PostgresStore, PostgresStore],
) -> None:
    a, b = stores
    a.create_room(room(0))
    heard = Heard()

    def bad(room_id: str, seq: int) -> None:
        raise RuntimeError("a bug in the service")

    b.listen(bad)
    b.listen(heard)
    for seq in range(3):
        assert a.append("room0", [ev("room0", seq)])
        assert heard.wait_for(lambda c, s=seq: ("room0", s) in c)  # type: ignore[misc]


def test_the_listener_reconnects_and_resyncs(
    stores: tuple[PostgresStore, PostgresStore], postgres_url: str
) -> None:
    """The listener's connection is cut (as by a database restart or a
    network fault): it reconnects, and what was committed while it was
    away is reported as each open room's last seq."""
    a, b = stores
    a.create_room(room(0))
    a.create_room(room(1))
    heard = Heard()
    b.listen(heard)
    assert a.append("room0", [ev("room0", 0)])
    assert heard.wait_for(lambda c: ("room0", 0) in c)
    with psycopg.connect(postgres_url, autocommit=True) as admin:
        killed = admin.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            "WHERE application_name = 'koudian-listen' AND datname = current_database()"
        ).fetchall()
        assert killed == [(True,)]
        # Committed while the listener is (probably) away.
        assert a.append("room1", [ev("room1", 0), ev("room1", 1)])
    assert heard.wait_for(lambda c: ("room1", 1) in c, timeout=20)
    # And it listens again.
    assert a.append("room0", [ev("room0", 1)])
    assert heard.wait_for(lambda c: ("room0", 1) in c, timeout=20)
    assert len(_listeners()) >= 1


def test_close_stops_the_listener_and_its_connection(postgres_url: str) -> None:
    before = len(_listeners())
    s = PostgresStore(postgres_url)
    heard = Heard()
    s.listen(heard)
    assert len(_listeners()) == before + 1
    t0 = time.monotonic()
    s.close()
    assert time.monotonic() - t0 < 10
    assert len(_listeners()) == before
    with psycopg.connect(postgres_url) as admin:
        n = admin.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE application_name LIKE 'koudian%' "
            "AND datname = current_database()"
        ).fetchone()
    assert n == (0,)
    with pytest.raises(RoomStoreError, match="closed"):
        s.room("room0")
    with pytest.raises(RoomStoreError, match="closed"):
        s.listen(heard)


def test_an_unreachable_server_is_a_clear_error_without_the_password() -> None:
    url = "postgresql://koudian:hunter2@/koudian?host=/nonexistent-koudian-dir&connect_timeout=3"
    t0 = time.monotonic()
    with pytest.raises(RoomStoreError) as e:
        open_store(url)
    assert time.monotonic() - t0 < 10
    assert "hunter2" not in str(e.value)
    assert "postgresql://koudian:***@" in str(e.value)


def test_a_lost_server_fails_calls_in_bounded_time_and_close_still_returns() -> None:
    """The database goes away under a running store: calls raise
    ``RoomStoreError`` (no hang), the listener keeps retrying, and close
    ends it promptly."""
    bindir = find_bindir()
    if bindir is None:
        unavailable("PostgreSQL is not installed (apt-get install postgresql)")
        return
    server = PostgresServer(bindir)
    before = len(_listeners())
    with server:
        s = PostgresStore(server.url)
        s.create_room(room(0))
        s.listen(Heard())
        assert s.room("room0") == room(0)
        proc = server._proc
        assert proc is not None
        # Immediate shutdown: every backend ends at once, no goodbye to clients.
        proc.send_signal(signal.SIGQUIT)
        proc.wait(timeout=10)
        t0 = time.monotonic()
        with pytest.raises(RoomStoreError):
            s.append("room0", [ev("room0", 0)])
        with pytest.raises(RoomStoreError):
            s.room("room0")
        assert time.monotonic() - t0 < 30
        t0 = time.monotonic()
        s.close()
        assert time.monotonic() - t0 < 15
        assert len(_listeners()) == before


def test_many_threads_share_a_bounded_pool(postgres_url: str) -> None:
    """A server calls the store from a worker thread per room: the store
    opens at most ``pool`` connections whatever the number of threads."""
    s = PostgresStore(postgres_url, pool=3)
    errors: list[BaseException] = []

    def worker(n: int) -> None:
        try:
            s.create_room(room(n))
            for seq in range(10):
                assert s.append(f"room{n}", [ev(f"room{n}", seq)])
                assert s.events(f"room{n}", seq - 1)[0].seq == seq
        except BaseException as e:
            errors.append(e)

    try:
        threads = [threading.Thread(target=worker, args=(n,)) for n in range(16)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        assert not errors, errors[:3]
        with psycopg.connect(postgres_url) as admin:
            n = admin.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'koudian' "
                "AND datname = current_database()"
            ).fetchone()
        assert n is not None and 1 <= n[0] <= 3
        assert len(s.open_rooms()) == 16
    finally:
        s.close()


def test_a_restarted_server_is_reconnected_to() -> None:
    """The database restarts under a running store (its idle connections
    and its listener's are cut): the next calls work on new connections,
    and what was committed meanwhile by another process is heard."""
    bindir = find_bindir()
    if bindir is None:
        unavailable("PostgreSQL is not installed (apt-get install postgresql)")
        return
    with PostgresServer(bindir) as server:
        a, b = PostgresStore(server.url), PostgresStore(server.url)
        try:
            a.create_room(room(0))
            heard = Heard()
            b.listen(heard)
            assert a.append("room0", [ev("room0", 0)])
            assert heard.wait_for(lambda c: ("room0", 0) in c)
            assert b.room("room0") == room(0)  # b's pool holds an idle connection now
            server.restart()
            assert b.room("room0") == room(0)
            assert a.append("room0", [ev("room0", 1)])  # a's idle connection was cut too
            assert b.append("room0", [ev("room0", 2)])
            assert [e.seq for e in b.events("room0")] == [0, 1, 2]
            # Heard as a's NOTIFY of seq 1, or (the listener back after both
            # appends) as the resync's last seq, 2.
            assert heard.wait_for(lambda c: any(r == "room0" and q >= 1 for r, q in c), 20)
        finally:
            a.close()
            b.close()


def test_processes_finishing_the_same_hand_at_once_both_succeed(postgres_url: str) -> None:
    """Processes finishing one hand together all save it (the same log
    under the same derived replay key): none fails, one row is kept."""
    stores = [PostgresStore(postgres_url) for _ in range(6)]
    try:
        stores[0].create_room(room(0))
        errors: list[BaseException] = []
        for hand in range(HANDS_AT_ONCE):
            gate = threading.Barrier(len(stores))

            def save(s: PostgresStore, hand: int = hand, gate: threading.Barrier = gate) -> None:
                try:
                    gate.wait(10)
                    s.save_hand("room0", hand, f"log {hand}\n", f"key{hand}")
                except BaseException as e:
                    errors.append(e)

            threads = [threading.Thread(target=save, args=(s,)) for s in stores]
            for t in threads:
                t.start()
            for t in threads:
                t.join(30)
        assert not errors, errors[:3]
        assert [h.hand for h in stores[1].hands("room0")] == list(range(HANDS_AT_ONCE))
        # A replay key that is another hand's is still refused.
        with pytest.raises(RoomStoreError, match="another hand"):
            stores[2].save_hand("room0", HANDS_AT_ONCE, "log\n", "key0")
    finally:
        for s in stores:
            s.close()
