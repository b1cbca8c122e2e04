"""The room store's contract (``koudian.rooms.store.Store``), run against
every backend (``tests/room_stores.py``): SQLite files, and PostgreSQL
through the ``postgres_url`` fixture."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from koudian import KoudianError
from koudian.rooms.schema import SCHEMA_VERSION
from koudian.rooms.store import EventRow, RoomRow, RoomStoreError, Store, open_store
from room_stores import STORE_KINDS, store_url


@pytest.fixture(params=STORE_KINDS)
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    return store_url(request, request.param, tmp_path)


@pytest.fixture
def store(db_url: str) -> Iterator[Store]:
    s = open_store(db_url)
    try:
        yield s
    finally:
        s.close()


def room(n: int = 0, status: str = "open") -> RoomRow:
    return RoomRow(
        id=f"room{n}",
        code=f"CODE{n:02d}",
        secret=bytes(range(32)),
        config_json='{"preset": "shanxi"}',
        created=1000.0 + n,
        status=status,
        updated=1000.0 + n,
    )


def ev(room_id: str, seq: int, kind: str = "ready") -> EventRow:
    return EventRow(room_id, seq, kind, f'{{"seat": {seq % 4}}}', 2000.0 + seq)


def test_rooms_round_trip(store: Store) -> None:
    r = room(1)
    store.create_room(r)
    assert store.room("room1") == r
    assert store.room_by_code("CODE01") == r
    assert store.room("nope") is None
    assert store.room_by_code("NOPE") is None
    with pytest.raises(RoomStoreError):
        store.create_room(r)  # the id and code are taken
    with pytest.raises(RoomStoreError):
        store.create_room(RoomRow("other", "CODE01", b"x" * 32, "{}", 1.0))


def test_open_rooms_and_status(store: Store) -> None:
    for n in range(3):
        store.create_room(room(n))
    store.set_status("room1", "closed", 5000.0)
    assert [r.id for r in store.open_rooms()] == ["room0", "room2"]
    closed = store.room("room1")
    assert closed is not None and closed.status == "closed" and closed.updated == 5000.0


def test_append_is_all_or_nothing(store: Store) -> None:
    store.create_room(room(0))
    assert store.append("room0", [ev("room0", 0), ev("room0", 1)])
    assert [e.seq for e in store.events("room0")] == [0, 1]
    # seq 1 is taken: nothing of the batch is written, not even seq 2
    assert not store.append("room0", [ev("room0", 2), ev("room0", 1, "act")])
    assert [e.seq for e in store.events("room0")] == [0, 1]
    assert store.events("room0")[1] == ev("room0", 1)
    assert store.append("room0", [ev("room0", 2)])
    assert [e.seq for e in store.events("room0", after=0)] == [1, 2]
    assert store.events("room0", after=2) == []
    assert store.append("room0", [])


def test_append_to_a_missing_room_is_refused(store: Store) -> None:
    with pytest.raises(RoomStoreError):
        store.append("ghost", [ev("ghost", 0)])
    store.create_room(room(0))
    with pytest.raises(RoomStoreError):
        store.append("room0", [ev("other", 0)])


def test_one_writer_wins_each_seq(store: Store, db_url: str) -> None:
    """Writers on several threads (each its own connection) race for the
    same seqs: every seq is written exactly once, by one of them."""
    store.create_room(room(0))
    won: list[tuple[int, int]] = []
    lock = threading.Lock()

    def writer(w: int) -> None:
        s = open_store(db_url)
        try:
            for _ in range(40):
                last = s.events("room0")
                seq = last[-1].seq + 1 if last else 0
                if s.append("room0", [EventRow("room0", seq, "w", f'{{"w": {w}}}', 1.0)]):
                    with lock:
                        won.append((seq, w))
        finally:
            s.close()

    threads = [threading.Thread(target=writer, args=(w,)) for w in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    events = store.events("room0")
    assert [e.seq for e in events] == list(range(len(events)))
    assert sorted(won) == [(e.seq, int(e.body[6:-1])) for e in events]
    assert len(events) >= 40


def test_many_threads_append_to_many_rooms_and_each_lands_exactly(store: Store) -> None:
    """One store shared by many threads (as the service's room workers
    share it), racing for the seqs of several rooms, some in batches: an
    append told True is there exactly, one told False left nothing."""
    rooms = [f"room{n}" for n in range(6)]
    for n in range(len(rooms)):
        store.create_room(room(n))
    told: list[tuple[bool, str, list[EventRow]]] = []
    lock = threading.Lock()

    def writer(w: int) -> None:
        for i in range(25):
            rid = rooms[(w + i) % len(rooms)]
            last = store.events(rid)
            seq = last[-1].seq + 1 if last else 0
            rows = [
                EventRow(rid, seq + k, "w", f'{{"w": {w}, "i": {i}, "k": {k}}}', float(i))
                for k in range(1 + (w + i) % 2)
            ]
            ok = store.append(rid, rows)
            with lock:
                told.append((ok, rid, rows))

    threads = [threading.Thread(target=writer, args=(w,)) for w in range(24)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert not any(t.is_alive() for t in threads)
    assert len(told) == 24 * 25
    stored = {rid: store.events(rid) for rid in rooms}
    for events in stored.values():
        assert [e.seq for e in events] == list(range(len(events)))  # each seq once
    kept = {(e.room_id, e.seq): e for events in stored.values() for e in events}
    won = [e for ok, _, rows in told if ok for e in rows]
    assert sorted(won, key=lambda e: (e.room_id, e.seq)) == sorted(
        kept.values(), key=lambda e: (e.room_id, e.seq)
    )
    bodies = {e.body for e in kept.values()}
    for ok, _, rows in told:
        if not ok:
            assert not any(e.body in bodies for e in rows)  # nothing of a refused batch


def test_sqlite_commits_the_appends_waiting_together(tmp_path: Path) -> None:
    """Appends that wait while another write holds the database are
    committed together, one transaction (one sync to the disk) for all:
    a taken seq refuses its own append alone, a missing room its own."""
    from koudian.rooms.store_sqlite import SQLiteStore

    store = SQLiteStore(tmp_path / "r.db")
    try:
        for n in range(2):
            store.create_room(room(n))
        out: dict[str, object] = {}

        def append(name: str, rid: str, body: str) -> None:
            try:
                out[name] = store.append(rid, [EventRow(rid, 0, "w", body, 1.0)])
            except RoomStoreError as e:
                out[name] = e

        jobs = [("x", "room0", '{"x": 1}'), ("y", "room0", '{"y": 1}'), ("z", "room1", "{}")]
        jobs.append(("ghost", "ghost", "{}"))
        before = store.commits
        with store._writing:  # another write holds the database meanwhile
            threads = [threading.Thread(target=append, args=job) for job in jobs]
            for t in threads:
                t.start()
            for _ in range(500):
                if store.waiting() == len(jobs):
                    break
                threading.Event().wait(0.01)
            assert store.waiting() == len(jobs)
        for t in threads:
            t.join(30)
        assert store.commits == before + 1  # one transaction for the four
        assert sorted([out["x"], out["y"]]) == [False, True]  # (x, y) one of the two won seq 0
        assert out["z"] is True and isinstance(out["ghost"], RoomStoreError)
        body = store.events("room0")[0].body
        assert body == ('{"x": 1}' if out["x"] else '{"y": 1}')
        assert [e.body for e in store.events("room1")] == ["{}"]
    finally:
        store.close()


def test_hands(store: Store) -> None:
    store.create_room(room(0))
    store.save_hand("room0", 0, '{"a": 1}\n', "key0")
    store.save_hand("room0", 1, '{"b": 2}\n', "key1")
    store.save_hand("room0", 0, "another log", "other")  # a second writer: kept the first
    assert [h.hand for h in store.hands("room0")] == [0, 1]
    h = store.hand_by_key("key0")
    assert h is not None and h.log == '{"a": 1}\n' and h.room_id == "room0"
    assert store.hand_by_key("other") is None
    assert store.hand_by_key("nope") is None


def test_text_round_trips_exactly(store: Store) -> None:
    body = '{"name": "张三 🀄 \\u0000 \'quote\'"}'
    store.create_room(room(0))
    assert store.append("room0", [EventRow("room0", 0, "join", body, 1.5)])
    assert store.events("room0")[0].body == body
    assert store.room("room0") == room(0)


def test_reopened_store_keeps_everything(db_url: str) -> None:
    s = open_store(db_url)
    s.create_room(room(0))
    assert s.append("room0", [ev("room0", 0)])
    s.close()
    s = open_store(db_url)
    try:
        assert s.events("room0") == [ev("room0", 0)]
        assert s.room("room0") == room(0)
    finally:
        s.close()


# ---------------------------------------------------------------- SQLite only


def test_sqlite_is_wal_and_full_sync(tmp_path: Path) -> None:
    path = tmp_path / "r.db"
    s = open_store(path)
    s.create_room(room(0))
    s.close()
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    version = conn.execute("SELECT value FROM koudian_meta WHERE key='schema_version'").fetchone()
    assert version == (str(SCHEMA_VERSION),)
    conn.close()


def test_sqlite_refuses_a_newer_schema(tmp_path: Path) -> None:
    path = tmp_path / "r.db"
    open_store(path).close()
    conn = sqlite3.connect(path)
    conn.execute("UPDATE koudian_meta SET value = '99' WHERE key = 'schema_version'")
    conn.commit()
    conn.close()
    with pytest.raises(RoomStoreError, match=r"schema version 99.*newer") as e:
        open_store(path)
    assert isinstance(e.value, KoudianError) and str(path) in str(e.value)


def test_sqlite_migrates_an_empty_database(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    sqlite3.connect(path).close()  # an empty file: version 0
    s = open_store(f"sqlite:///{path}")
    s.create_room(room(0))
    s.close()


def test_sqlite_refuses_what_is_not_a_database(tmp_path: Path) -> None:
    (tmp_path / "junk.db").write_bytes(b"this is not a database" * 100)
    with pytest.raises(RoomStoreError, match=r"junk\.db"):
        open_store(tmp_path / "junk.db")
    with pytest.raises(RoomStoreError, match="directory"):
        open_store(tmp_path)
    with pytest.raises(RoomStoreError):
        open_store(tmp_path / "missing" / "dir" / "r.db")


def test_sqlite_urls(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    for url, path in (
        ("sqlite:///rel.db", tmp_path / "rel.db"),
        (f"sqlite:///{tmp_path / 'abs.db'}", tmp_path / "abs.db"),
        ("plain.db", tmp_path / "plain.db"),
    ):
        s = open_store(url)
        s.create_room(room(0))
        s.close()
        assert path.is_file(), url
    s = open_store("sqlite://")  # a throwaway store in memory
    s.create_room(room(0))
    assert s.room("room0") == room(0)
    s.close()
