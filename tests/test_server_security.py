"""The play server against a hostile client (issue 35, items 7 and 9-13),
always a real uvicorn server on 127.0.0.1 started by the test (in a
thread, or `koudian serve` in a subprocess): hidden tiles stay hidden
(no hand can be rebuilt from anything a client outside the table can
fetch; a client cannot read its own seed from the clock), one table's
bots never hold up another client, a bad message is answered and changes
nothing, only the server's own Host and Origin are served, one client
cannot take every table, bot process or message, and `koudian serve`
refuses bad numbers at start, prints the real port, refuses a busy port
and stops within seconds of a signal."""

from __future__ import annotations

import asyncio
import http.client
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

import koudian
import pytest
from koudian.web.tables import MAX_HANDS
from web_support import live_server

websockets = pytest.importorskip("websockets")
pytest.importorskip("uvicorn")

BOTS = Path(__file__).parent / "bots"
SLOW = f"{sys.executable} {BOTS / 'slow_bot.py'}"
FIRST = f"{sys.executable} {BOTS / 'first_legal_bot.py'}"
MASK = (1 << 64) - 1
GAMMA = 0x9E3779B97F4A7C15


def _ws(base: str) -> str:
    return base.replace("http", "ws") + "/ws"


def _get(base: str, path: str, host: str | None = None) -> tuple[int, str]:
    """GET ``path`` (with the ``Host`` header ``host``): status and body."""
    hostport = base.split("//", 1)[1]
    name, port = hostport.rsplit(":", 1)
    c = http.client.HTTPConnection(name, int(port), timeout=10)
    try:
        c.putrequest("GET", path, skip_host=True)
        c.putheader("Host", host if host is not None else hostport)
        c.endheaders()
        r = c.getresponse()
        return r.status, r.read().decode("utf-8", "replace")
    finally:
        c.close()


async def _recv(ws: Any, timeout: float = 30) -> dict[str, Any]:
    return dict(json.loads(await asyncio.wait_for(ws.recv(), timeout)))


async def _play_to_end(ws: Any, m: dict[str, Any]) -> dict[str, Any]:
    """Plays the first legal action at every request until the hand ends."""
    while m["type"] == "act":
        await ws.send(json.dumps({"id": m["id"], "index": m["legal_actions"][0]["index"]}))
        m = await _recv(ws)
    assert m["type"] == "end", m
    return m


# ------------------------------------------------------------------ item 7


def _unmix(h: int, index: int) -> int:
    """The match seed ``m`` with ``koudian.mix_seed(m, index) == h``
    (SplitMix64 is invertible: what an attacker does with a hand seed)."""

    def unxorshift(y: int, k: int) -> int:
        x = y
        for _ in range(64 // k + 1):
            x = y ^ (x >> k)
        return x

    z = unxorshift(h, 31)
    z = (z * pow(0x94D049BB133111EB, -1, 1 << 64)) & MASK
    z = unxorshift(z, 27)
    z = (z * pow(0xBF58476D1CE4E5B9, -1, 1 << 64)) & MASK
    z = unxorshift(z, 30)
    return (z - (index + 1) * GAMMA) & MASK


def test_unmix_inverts_mix_seed() -> None:
    for m in (0, 7, 123456789, MASK):
        for i in (0, 1, 15):
            assert _unmix(koudian.mix_seed(m, i), i) == m


def _seed_candidates(texts: list[str]) -> set[int]:
    """Every hand seed an attacker can derive from the numbers in ``texts``:
    each number as a hand seed, and every hand of the match it would be
    hand ``i`` of."""
    numbers = {int(x) for t in texts for x in re.findall(r"\d{6,20}", t) if int(x) <= MASK}
    out = set(numbers)
    for x in numbers:
        for i in range(MAX_HANDS):
            m = _unmix(x, i)
            out.update(koudian.mix_seed(m, j) for j in range(MAX_HANDS))
    return out


def test_an_outsider_cannot_rebuild_a_hand_from_anything_it_can_fetch() -> None:
    async def run(base: str) -> None:
        url = _ws(base)
        async with websockets.connect(url) as victim:
            await victim.send(json.dumps({"type": "new", "hands": 3, "opponents": ["greedy"] * 3}))
            await _play_to_end(victim, await _recv(victim))
            await victim.send('{"type": "next"}')
            second = await _recv(victim)  # hand 2 is dealt, not yet played
            # The outsider: every public page, every replay it can name, and
            # everything of its own table (its own finished hand and logs).
            fetched = [_get(base, p)[1] for p in ("/", "/api/info")]
            for n in range(0, 40):
                fetched += [_get(base, f"/replay/{n}")[1], _get(base, f"/replay/{n}/log")[1]]
            async with websockets.connect(url) as outsider:
                await outsider.send(json.dumps({"type": "new", "opponents": ["greedy"] * 3}))
                end = await _play_to_end(outsider, await _recv(outsider))
                fetched.append(json.dumps(end))
                if end.get("replay"):
                    fetched += [_get(base, end["replay"])[1], _get(base, end["replay"] + "/log")[1]]
            candidates = _seed_candidates(fetched)
            # The victim's hand 2, once over, names its seed (a deal is a
            # function of its seed: koudian.replay refuses a header whose
            # seed does not deal its wall).
            end2 = await _play_to_end(victim, second)
            assert end2["replay"], end2
            status, log = _get(base, end2["replay"] + "/log")
            assert status == 200
            seed = koudian.replay(log).seed
            assert seed is not None
            assert seed not in candidates, "an outsider rebuilt the victim's next hand"

    with live_server(log_path=None) as (base, _server):
        asyncio.run(run(base))


def test_a_client_cannot_read_its_seeds_from_the_clock_or_its_last_hand() -> None:
    async def run(base: str) -> None:
        async with websockets.connect(_ws(base)) as ws:
            t0 = time.time_ns() % (1 << 53)
            await ws.send(json.dumps({"type": "new", "hands": 2, "opponents": ["greedy"] * 3}))
            first = await _recv(ws)
            t1 = time.time_ns() % (1 << 53)
            end = await _play_to_end(ws, first)
            h0 = koudian.replay(_get(base, end["replay"] + "/log")[1]).seed
            assert h0 is not None
            match_seed = _unmix(h0, 0)
            assert not t0 <= match_seed <= t1, "the match seed is the clock"
            predicted = koudian.mix_seed(match_seed, 1)
            await ws.send('{"type": "next"}')
            end = await _play_to_end(ws, await _recv(ws))
            h1 = koudian.replay(_get(base, end["replay"] + "/log")[1]).seed
            assert h1 != predicted, "hand 2's seed follows from hand 1's"

    with live_server(log_path=None) as (base, _server):
        asyncio.run(run(base))


def test_replays_are_links_given_only_to_their_table_once_the_hand_is_over() -> None:
    async def run(base: str) -> None:
        async with websockets.connect(_ws(base)) as ws:
            await ws.send(json.dumps({"type": "new", "opponents": ["greedy"] * 3}))
            m = await _recv(ws)
            assert "replay" not in m  # no link while the hand is played
            end = await _play_to_end(ws, m)
            link = end["replay"]
            token = link.rsplit("/", 1)[1]
            assert len(token) >= 20 and not token.isdigit(), link  # not a counter
            assert _get(base, link)[0] == 200
            status, log = _get(base, link + "/log")
            assert status == 200 and koudian.replay(log).done
        for n in range(0, 5):
            assert _get(base, f"/replay/{n}")[0] == 404
            assert _get(base, f"/replay/{n}/log")[0] == 404
        assert _get(base, "/replay/" + token[:-1] + "A")[0] == 404

    with live_server(log_path=None) as (base, _server):
        asyncio.run(run(base))


def test_a_client_seed_needs_the_operator_and_then_deals_its_match() -> None:
    from koudian.web.tables import Table, TableConfig

    new = json.dumps({"type": "new", "seed": 7, "hands": 2, "opponents": ["greedy"] * 3})
    refused = Table(TableConfig({"greedy": "greedy"})).handle(new)
    assert refused[0]["type"] == "error" and "seed" in refused[0]["error"]
    table = Table(TableConfig({"greedy": "greedy"}, client_seeds=True))
    assert table.handle(new)[-1]["type"] in ("act", "end")
    assert table.game is not None and table.game.seed == koudian.mix_seed(7, 0)


# ------------------------------------------------------------------ item 9


def test_hanging_bots_at_several_tables_never_hold_up_another_client() -> None:
    async def run(base: str) -> list[float]:
        url = _ws(base)
        hung = [await websockets.connect(url) for _ in range(8)]
        try:
            for ws in hung:  # seat 3: the dealer's bot (seat 0) hangs at once
                await ws.send(json.dumps({"type": "new", "seat": 3, "opponents": ["slow"] * 3}))
            await asyncio.sleep(1.0)
            waits = []
            async with websockets.connect(url) as other:
                for msg in ('{"type": "state"}', json.dumps({"type": "new", "seat": 1})):
                    t = time.monotonic()
                    await other.send(msg)
                    await _recv(other, timeout=15)
                    waits.append(time.monotonic() - t)
            t = time.monotonic()
            assert _get(base, "/api/info")[0] == 200
            waits.append(time.monotonic() - t)
            return waits
        finally:
            for ws in hung:
                await ws.close()

    with live_server(log_path=None, bots={"slow": SLOW}, bot_timeout=20.0, client_tables=20) as (
        base,
        _server,
    ):
        waits = asyncio.run(run(base))
    print(f"\nanother client's requests with 8 tables hanging: {[f'{w:.3f}' for w in waits]} s")
    assert max(waits) < 1.0, waits  # a hanging table holds 20 s per decision


# ------------------------------------------------------------------ item 10


@pytest.mark.parametrize(
    ("message", "error"),
    [
        ("[" * 4000, "nested"),
        ('{"type": "act", "index": ' + "[" * 2000 + "]" * 2000 + "}", "nested"),
        ('{"type": "new", "options": {"name": "x"}}', "name"),
        ('{"type": "new", "options": {"base_stake": "x"}}', "base_stake"),
        ('{"type": "new", "colour": "red"}', "colour"),
        ('{"type": "state", "verbose": true}', "verbose"),
        ('{"index": 0, "comment": "x"}', "comment"),
        ('{"type": "hint", "agent": "greedy", "depth": 9}', "depth"),
    ],
)
def test_any_bad_message_gets_an_error_and_the_match_survives(message: str, error: str) -> None:
    async def run(base: str) -> None:
        async with websockets.connect(_ws(base)) as ws:
            await ws.send(json.dumps({"type": "new", "hands": 2, "opponents": ["greedy"] * 3}))
            first = await _recv(ws)
            assert first["type"] == "act"
            await ws.send(message)
            reply = await _recv(ws)
            assert reply["type"] == "error" and error in reply["error"], reply
            await ws.send('{"type": "state"}')
            again = await _recv(ws)
            assert (again["id"], again["legal_actions"]) == (first["id"], first["legal_actions"])
            end = await _play_to_end(ws, again)
            assert end["match"]["hands_played"] == 1

    with live_server(log_path=None) as (base, _server):
        asyncio.run(run(base))


def test_a_log_that_fails_later_is_reported_and_the_table_plays_on(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "served.jsonl"

    async def run(base: str) -> None:
        async with websockets.connect(_ws(base)) as ws:
            await ws.send(json.dumps({"type": "new", "hands": 2, "opponents": ["greedy"] * 3}))
            await _play_to_end(ws, await _recv(ws))
            written = log.read_text(encoding="utf-8")
            log.unlink()
            log.mkdir()  # every later write fails (IsADirectoryError)
            await ws.send('{"type": "next"}')
            end = await _play_to_end(ws, await _recv(ws))
            assert end["match"]["done"] and end["replay"]
            assert _get(base, end["replay"] + "/log")[0] == 200
            await ws.send(json.dumps({"type": "new", "opponents": ["greedy"] * 3}))
            assert (await _recv(ws))["type"] in ("act", "end")
            assert koudian.replay(written).done

    with live_server(log_path=log) as (base, _server):
        asyncio.run(run(base))
    err = capfd.readouterr().err
    assert "could not write" in err and str(log) in err, err


# ------------------------------------------------------------------ item 11


def _raw_ws_status(base: str, host: str, origin: str | None) -> int:
    """The HTTP status of a WebSocket handshake with these headers."""
    name, port = base.split("//", 1)[1].rsplit(":", 1)
    with socket.create_connection((name, int(port)), timeout=10) as s:
        lines = [
            "GET /ws HTTP/1.1",
            f"Host: {host}",
            "Upgrade: websocket",
            "Connection: Upgrade",
            "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==",
            "Sec-WebSocket-Version: 13",
        ]
        if origin is not None:
            lines.append(f"Origin: {origin}")
        s.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
        head = s.recv(4096).decode("latin-1")
    return int(head.split()[1])


def test_only_the_servers_own_host_and_origin_are_served() -> None:
    with live_server(log_path=None) as (base, _server):
        port = base.rsplit(":", 1)[1]
        own = [f"127.0.0.1:{port}", f"localhost:{port}", "localhost"]
        for host in own:
            assert _get(base, "/", host=host)[0] == 200, host
            assert _raw_ws_status(base, host, None) == 101
        for host in ("evil.example", f"evil.example:{port}", "127.0.0.1.evil.example"):
            assert _get(base, "/", host=host)[0] in (400, 421), host
            assert _get(base, "/api/info", host=host)[0] in (400, 421), host
            assert _raw_ws_status(base, host, None) in (400, 403, 421), host
        for origin in (f"http://127.0.0.1:{port}", f"http://localhost:{port}"):
            assert _raw_ws_status(base, f"127.0.0.1:{port}", origin) == 101, origin
        for origin in ("https://evil.example", "null", f"http://evil.example:{port}"):
            assert _raw_ws_status(base, f"127.0.0.1:{port}", origin) == 403, origin

        async def hijack() -> None:
            with pytest.raises(websockets.InvalidStatus):
                async with websockets.connect(_ws(base), origin="https://evil.example") as ws:
                    await ws.send(json.dumps({"type": "new"}))
                    await ws.recv()

        asyncio.run(hijack())


def test_other_hosts_and_origins_only_when_configured() -> None:
    cfg = {"allow_hosts": ["play.example"], "allow_origins": ["https://play.example"]}
    with live_server(log_path=None, **cfg) as (base, _server):
        assert _get(base, "/", host="play.example")[0] == 200
        assert _get(base, "/", host="evil.example")[0] in (400, 421)
        assert _raw_ws_status(base, "play.example", "https://play.example") == 101
        assert _raw_ws_status(base, "play.example", "https://evil.example") == 403


# ------------------------------------------------------------------ item 12


def test_one_client_cannot_hold_every_table() -> None:
    async def run(base: str) -> None:
        url = _ws(base)
        a = await websockets.connect(url)
        b = await websockets.connect(url)
        try:
            with pytest.raises(websockets.InvalidStatus):
                async with websockets.connect(url) as c:
                    await asyncio.wait_for(c.recv(), 5)
            # Another client (another loopback address) still gets a table.
            async with websockets.connect(url, local_addr=("127.0.0.2", 0)) as other:
                await other.send(json.dumps({"type": "new"}))
                assert (await _recv(other))["type"] in ("act", "end")
        finally:
            await a.close()
            await b.close()

    with live_server(log_path=None, max_tables=20, client_tables=2) as (base, _server):
        asyncio.run(run(base))


def test_one_client_cannot_start_more_bot_processes_than_its_share() -> None:
    async def run(base: str) -> None:
        url = _ws(base)
        async with websockets.connect(url) as a, websockets.connect(url) as b:
            await a.send(json.dumps({"type": "new", "opponents": ["first"] * 3}))
            assert (await _recv(a))["type"] in ("act", "end")
            await b.send(json.dumps({"type": "new", "opponents": ["first", "greedy", "greedy"]}))
            reply = await _recv(b)
            assert reply["type"] == "error" and "bot processes" in reply["error"], reply
            # A table's own bots are given back when it starts another match.
            await a.send(json.dumps({"type": "new", "opponents": ["greedy", "greedy", "first"]}))
            assert (await _recv(a))["type"] in ("act", "end")
            await b.send(json.dumps({"type": "new", "opponents": ["first", "first", "greedy"]}))
            assert (await _recv(b))["type"] in ("act", "end")

    with live_server(log_path=None, bots={"first": FIRST}, client_bots=3) as (base, _server):
        asyncio.run(run(base))


def test_messages_per_connection_are_limited_over_time_whatever_new_does() -> None:
    rate, burst, seconds = 10.0, 20, 3.0

    async def run(base: str) -> int:
        async with websockets.connect(_ws(base), close_timeout=1) as ws:
            replies = 0

            async def send() -> None:
                n = 0
                while True:  # a new match resets no limit
                    await ws.send(
                        '{"type": "new", "seat": 1}' if n % 50 == 0 else '{"type": "state"}'
                    )
                    n += 1
                    await asyncio.sleep(0)

            async def count() -> None:
                nonlocal replies
                while True:
                    await ws.recv()
                    replies += 1

            tasks = [asyncio.create_task(send()), asyncio.create_task(count())]
            await asyncio.sleep(seconds)
            for t in tasks:
                t.cancel()
            return replies

    with live_server(log_path=None, message_rate=rate, message_burst=burst) as (base, _server):
        replies = asyncio.run(run(base))
    # Each `new` is answered by one message, each `state` by one.
    print(f"\n{replies} replies to a flood in {seconds:g} s (rate {rate:g}/s, burst {burst})")
    assert replies <= burst + rate * (seconds + 1), replies


# ------------------------------------------------------------------ item 13


def _serve(*argv: str, **kw: Any) -> subprocess.Popen[str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(Path(koudian.__file__).resolve().parents[1])
    return subprocess.Popen(
        [sys.executable, "-m", "koudian", "serve", *argv],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        **kw,
    )


@contextmanager
def _serving(*argv: str) -> Iterator[tuple[subprocess.Popen[str], str]]:
    """`koudian serve --port 0 ARGV` and the base URL it printed."""
    proc = _serve("--port", "0", *argv)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        m = re.search(r"http://([\d.]+):(\d+)/", line)
        assert m, (line, proc.stderr.read() if proc.poll() is not None else "")
        yield proc, f"http://{m.group(1)}:{m.group(2)}"
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait(timeout=10)


@pytest.mark.parametrize(
    "argv",
    [
        ["--bot-timeout", "nan"],
        ["--bot-timeout", "-1"],
        ["--bot-timeout", "0"],
        ["--bot-timeout", "1e9"],
        ["--idle", "nan"],
        ["--idle", "-1"],
        ["--idle", "0"],
        ["--idle", "inf"],
        ["--max-tables", "0"],
        ["--max-tables", "-5"],
        ["--port", "70000"],
    ],
)
def test_bad_serve_numbers_are_refused_at_start(argv: list[str], tmp_path: Path) -> None:
    proc = _serve("--port", "0", "--log", str(tmp_path / "log.jsonl"), *argv)
    try:
        out, err = proc.communicate(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        pytest.fail(f"koudian serve {argv} started")
    assert proc.returncode == 2, (out, err)
    assert "http://" not in out
    assert argv[0] in err, err


@pytest.mark.parametrize("kind", ["directory", "under a file"])
def test_an_unwritable_log_is_refused_at_start(kind: str, tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x")
    log = tmp_path if kind == "directory" else tmp_path / "file" / "log.jsonl"
    proc = _serve("--port", "0", "--log", str(log))
    try:
        out, err = proc.communicate(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        pytest.fail("koudian serve started with a log it cannot write")
    assert proc.returncode == 2 and "http://" not in out, (out, err)
    assert "--log" in err and str(log) in err, err


def test_port_0_prints_the_real_port_and_a_busy_port_fails_before_serving(
    tmp_path: Path,
) -> None:
    with _serving("--log", str(tmp_path / "a.jsonl")) as (proc, base):
        port = int(base.rsplit(":", 1)[1])
        assert port != 0
        assert _get(base, "/")[0] == 200
        busy = _serve("--port", str(port), "--log", str(tmp_path / "b.jsonl"))
        out, err = busy.communicate(timeout=20)
        assert busy.returncode not in (0, None)
        assert "http://" not in out, out
        assert str(port) in err and "in use" in err, err
        assert proc.poll() is None


def test_a_huge_replay_number_is_not_found() -> None:
    with live_server(log_path=None) as (base, _server):
        for path in ("/replay/" + "9" * 5000, "/replay/" + "9" * 5000 + "/log", "/replay/-1"):
            status, body = _get(base, path)
            assert status == 404, (path, status, body[:200])


_PID_BOT = """\
import os, sys, time
with open(sys.argv[1], "a") as f:
    f.write(f"{os.getpid()}\\n")
for _line in sys.stdin:
    time.sleep(60)
"""


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_stops_the_server_within_seconds_with_bot_decisions_in_flight(
    sig: signal.Signals, tmp_path: Path
) -> None:
    from websockets.sync.client import connect

    bot = tmp_path / "pid_bot.py"
    bot.write_text(_PID_BOT)
    pids = tmp_path / "pids"
    command = f"{sys.executable} {bot} {pids}"
    args = ("--bot", f"hang={command}", "--bot-timeout", "30", "--log", str(tmp_path / "l"))
    with _serving(*args) as (proc, base):
        with ExitStack() as stack:
            tables = [stack.enter_context(connect(_ws(base), close_timeout=1)) for _ in range(3)]
            for ws in tables:
                ws.send(json.dumps({"type": "new", "seat": 3, "opponents": ["hang"] * 3}))
            deadline = time.monotonic() + 20
            while time.monotonic() < deadline:
                if pids.exists() and len(pids.read_text().split()) >= 3:
                    break
                time.sleep(0.05)
            started = [int(p) for p in pids.read_text().split()]
            assert len(started) >= 3
            time.sleep(0.5)  # the bots hold their requests
            t = time.monotonic()
            proc.send_signal(sig)
            proc.wait(timeout=15)
            took = time.monotonic() - t
    print(f"\nstopped {took:.2f} s after {sig.name} with 3 bot decisions in flight")
    assert took < 3.0, f"stopped {took:.1f} s after {sig.name}"
    deadline = time.monotonic() + 5
    while any(_alive(p) for p in started) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not [p for p in started if _alive(p)], "bot processes outlived the server"
