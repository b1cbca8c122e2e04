"""Load benchmark of the room server (issue 38): many rooms of four scripted
WebSocket people, on loopback only, bounded in time. Not a test: the
machine's load moves the figures, so the load average is printed beside them.

Run: ``python benches/bench_rooms.py [--rooms 200] [--seconds 60]
[--scenario paced-1|burst-1|paced-2pg|burst-2pg ...]``. Each scenario starts
its own ``koudian serve`` process(es) on a fresh database, creates ROOMS rooms
over HTTP, seats four people in each (each room's people from their own
loopback address, 127.X.Y.Z, as different people are: the per-client limits
hold), and plays for SECONDS after a warm-up:

- ``paced-1``: one process on a SQLite file; every person answers each
  decision 0.5-2 s after it is asked, as people do. Reports p50/p99 of the
  latency from a person's action (the moment it is sent) to the moment
  EVERY seat of the room has its update, the server's memory (RSS) and CPU,
  and the errors (refused messages, lost connections, stalls): zero expected.
- ``burst-1``: the same with people answering at once: the saturation point
  (actions per second the server sustains) and the latency there.
- ``paced-1pg`` / ``burst-1pg``: one process on PostgreSQL (started here
  from Debian's package, as the tests do, durable: fsync on).
- ``paced-2pg`` / ``burst-2pg``: two processes on one PostgreSQL server
  (started here from Debian's package, as the tests do, durable: fsync on);
  seats 0-1 of every room on one process and 2-3 on the other, so every
  update crosses processes through LISTEN/NOTIFY.

Which update answers which action: every event of a hand (an action, the
start, the next hand) sends each connection of the room exactly one message
(``table``, ``act`` or ``end``), in order, so the n-th such message of every
seat is the same event: an action sent after a seat's n-th is answered by
everyone's (n+1)-th.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import resource
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))

from _postgres import PostgresServer, find_bindir  # noqa: E402
from room_support import ServerProcess, http  # noqa: E402

SCENARIOS = ["paced-1", "burst-1", "paced-1pg", "burst-1pg", "paced-2pg", "burst-2pg"]
UPDATE_PREFIXES = ('{"type": "table"', '{"type": "act"', '{"type": "end"')
START_WAIT = 120.0
"""Seconds the rooms have to be dealt their first hand once all are seated."""
STALL = 60.0
"""Seconds without any message to a person, in play, that count as a stall."""


@dataclass
class Room:
    code: str
    sent: dict[int, float] = field(default_factory=dict)  # update index → action sent at
    got: dict[int, list[float]] = field(default_factory=dict)  # update index → seats' times


@dataclass
class Stats:
    latencies: list[float] = field(default_factory=list)
    actions: int = 0
    errors: list[str] = field(default_factory=list)
    lost: int = 0
    stalls: int = 0
    measuring: bool = False
    closed_rooms: int = 0


class Seat:
    """One scripted person: readies up, answers each decision after a
    think time with a seeded random legal action, counts its updates."""

    def __init__(
        self,
        room: Room,
        stats: Stats,
        think: tuple[float, float],
        rng: random.Random,
        go: asyncio.Event,
    ) -> None:
        self.go = go  # set once every room is seated: then the people ready up
        self.room = room
        self.stats = stats
        self.think = think
        self.rng = rng
        self.updates = 0
        self.ready_for: object = None
        self.joined = asyncio.Event()
        self.started = asyncio.Event()
        self.stop = asyncio.Event()
        self.tasks: set[asyncio.Future[None]] = set()

    def _spawn(self, coro: Any) -> None:
        task = asyncio.ensure_future(coro)
        self.tasks.add(task)  # held until done: the loop keeps weak references only
        task.add_done_callback(self.tasks.discard)

    async def run(self, ws_base: str, name: str, source: str) -> None:
        import websockets

        origin = ws_base.replace("ws://", "http://")
        try:
            async with websockets.connect(
                f"{ws_base}/ws/room/{self.room.code}",
                origin=websockets.Origin(origin),
                local_addr=(source, 0),
                open_timeout=30,
                max_size=2**22,
            ) as ws:
                await ws.send(json.dumps({"type": "hello", "name": name}))
                recv = asyncio.ensure_future(ws.recv())
                halt = asyncio.ensure_future(self.stop.wait())
                while True:
                    done, _ = await asyncio.wait(
                        {recv, halt}, timeout=STALL, return_when="FIRST_COMPLETED"
                    )
                    if halt in done:
                        recv.cancel()
                        return
                    if not done:
                        if self.stats.measuring:
                            self.stats.stalls += 1
                        continue
                    text = recv.result()
                    recv = asyncio.ensure_future(ws.recv())
                    if isinstance(text, str) and self._on(ws, text):
                        halt.cancel()
                        recv.cancel()
                        return
        except (OSError, asyncio.TimeoutError) as e:
            self.stats.errors.append(f"connect: {type(e).__name__}: {e}")
            self.stats.lost += 1
        except websockets.ConnectionClosed:
            if not self.stop.is_set():
                self.stats.lost += 1

    def _on(self, ws: Any, text: str) -> bool:
        now = time.perf_counter()
        if text.startswith(UPDATE_PREFIXES):
            self.updates += 1
            self.started.set()
            n = self.updates
            room = self.room
            if n in room.sent:
                times = room.got.setdefault(n, [])
                times.append(now)
                if len(times) == 4:
                    t0 = room.sent.pop(n)
                    del room.got[n]
                    if self.stats.measuring:
                        self.stats.latencies.append(max(times) - t0)
                        self.stats.actions += 1
            if not text.startswith('{"type": "act"'):
                return False
        msg = json.loads(text)
        kind = msg["type"]
        if kind == "welcome":
            self.joined.set()
        elif kind == "act":
            legal = [a for a in msg["legal_actions"] if a["action"] != "leave"]
            index = self.rng.choice(legal)["index"]
            reply = json.dumps({"type": "act", "id": msg["id"], "index": index})
            delay = self.rng.uniform(*self.think) if self.think[1] > 0 else 0.0
            n = self.updates + 1
            if delay > 0:
                asyncio.get_running_loop().call_later(
                    delay, lambda: self._spawn(self._send(ws, reply, n))
                )
            else:
                self._spawn(self._send(ws, reply, n))
        elif kind == "error":
            if self.stats.measuring:
                self.stats.errors.append(str(msg.get("error"))[:120])
        elif kind == "room":
            if msg["status"] in ("closed", "finished"):
                self.stats.closed_rooms += 1
                return True
            you = msg.get("you")
            if you is not None and msg["status"] in ("waiting", "between"):
                phase = (msg["status"], msg["match"]["hands_played"])
                if not msg["seats"][you]["ready"] and self.ready_for != phase:
                    self.ready_for = phase
                    self._spawn(self._ready(ws))
        return False

    async def _ready(self, ws: Any) -> None:
        await self.go.wait()
        if not self.stop.is_set():
            await ws.send('{"type": "ready"}')

    async def _send(self, ws: Any, reply: str, n: int) -> None:
        if self.stop.is_set():
            return
        self.room.sent[n] = time.perf_counter()
        try:
            await ws.send(reply)
        except Exception as e:  # the connection is gone: counted as lost by run()
            if not self.stop.is_set():
                self.stats.errors.append(f"send: {type(e).__name__}")


def _source(i: int) -> str:
    """Room ``i``'s people's loopback address (127.10.0.1, 127.10.0.2, ...)."""
    return f"127.10.{i // 250}.{i % 250 + 1}"


def _cpu_seconds(pids: list[int]) -> float:
    total = 0.0
    tick = os.sysconf("SC_CLK_TCK")
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += (int(fields[11]) + int(fields[12])) / tick
    return total


def _rss_mb(pid: int) -> tuple[float, float]:
    """(RSS, peak RSS) of ``pid`` in MB."""
    rss = hwm = 0.0
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            rss = int(line.split()[1]) / 1024
        elif line.startswith("VmHWM:"):
            hwm = int(line.split()[1]) / 1024
    return rss, hwm


def _postgres_pids(postmaster: int | None) -> list[int]:
    if postmaster is None:
        return []
    pids = [postmaster]
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                fields = (d / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == postmaster:
                pids.append(int(d.name))
    return pids


def _create(base: str, source: str, hands: int) -> str:
    import http.client

    host, port = base.replace("http://", "").split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=60, source_address=(source, 0))
    try:
        body = json.dumps({"preset": "shanxi", "hands": hands})
        conn.request("POST", "/api/rooms", body, {"content-type": "application/json"})
        r = conn.getresponse()
        data = json.loads(r.read())
    finally:
        conn.close()
    if r.status != 200:
        raise RuntimeError(f"POST /api/rooms: {r.status} {data}")
    return str(data["code"])


async def _scenario(
    servers: list[ServerProcess],
    rooms: int,
    think: tuple[float, float],
    seconds: float,
    warmup: float,
    pg: PostgresServer | None,
) -> dict[str, Any]:
    stats = Stats()
    rng = random.Random(38)
    codes = await asyncio.gather(
        *(
            asyncio.to_thread(_create, servers[i % len(servers)].base, _source(i), 32)
            for i in range(rooms)
        )
    )
    seats: list[Seat] = []
    tasks: list[asyncio.Task[None]] = []
    go = asyncio.Event()
    gate = asyncio.Semaphore(16)

    async def seat_room(i: int, code: str) -> None:
        room = Room(code)
        async with gate:
            for s in range(4):
                seat = Seat(room, stats, think, random.Random(rng.random()), go)
                # Seats 0-1 on the first process, 2-3 on the last (the same
                # one when there is one): with two, every update crosses over.
                server = servers[0] if s < 2 else servers[-1]
                tasks.append(asyncio.create_task(seat.run(server.ws, f"r{i}s{s}", _source(i))))
                await asyncio.wait_for(seat.joined.wait(), 120)
                seats.append(seat)

    # Every room is seated first, then all start together: the figures are
    # of rooms in play, not of joins competing with play.
    await asyncio.gather(*(seat_room(i, code) for i, code in enumerate(codes)))
    go.set()
    # Bounded: rooms that a saturated server has not dealt a hand within
    # START_WAIT are reported (``rooms_in_play``), not waited for.
    try:
        await asyncio.wait_for(asyncio.gather(*(s.started.wait() for s in seats)), START_WAIT)
    except asyncio.TimeoutError:
        pass
    in_play = len({s.room.code for s in seats if s.started.is_set()})
    await asyncio.sleep(warmup)
    pids = [s.proc.pid for s in servers if s.proc is not None]
    pg_pids = _postgres_pids(pg.pid if pg is not None else None)
    cpu0 = _cpu_seconds(pids)
    pg_cpu0 = _cpu_seconds(pg_pids)
    me0 = resource.getrusage(resource.RUSAGE_SELF)
    t0 = time.perf_counter()
    stats.measuring = True
    await asyncio.sleep(seconds)
    stats.measuring = False
    elapsed = time.perf_counter() - t0
    cpu = _cpu_seconds(pids) - cpu0
    pg_cpu = _cpu_seconds(_postgres_pids(pg.pid if pg is not None else None)) - pg_cpu0
    me1 = resource.getrusage(resource.RUSAGE_SELF)
    mem = [_rss_mb(p) for p in pids]
    for seat in seats:
        seat.stop.set()
    await asyncio.wait_for(asyncio.gather(*tasks, return_exceptions=True), 60)
    lat = sorted(stats.latencies)

    def pct(p: float) -> float:
        return 1000 * lat[min(len(lat) - 1, int(p * len(lat)))] if lat else float("nan")

    return {
        "actions": stats.actions,
        "actions_per_s": stats.actions / elapsed,
        "p50_ms": pct(0.50),
        "p99_ms": pct(0.99),
        "max_ms": 1000 * lat[-1] if lat else float("nan"),
        "mean_ms": 1000 * statistics.fmean(lat) if lat else float("nan"),
        "server_cpu_pct": 100 * cpu / elapsed,
        "postgres_cpu_pct": 100 * pg_cpu / elapsed,
        "client_cpu_pct": 100
        * (me1.ru_utime + me1.ru_stime - me0.ru_utime - me0.ru_stime)
        / elapsed,
        "server_rss_mb": [round(r, 1) for r, _ in mem],
        "server_peak_rss_mb": [round(h, 1) for _, h in mem],
        "errors": len(stats.errors),
        "error_kinds": sorted(set(stats.errors))[:5],
        "lost_connections": stats.lost,
        "stalls": stats.stalls,
        "rooms_finished": stats.closed_rooms // 4,
        "rooms_in_play": in_play,
        "seconds": elapsed,
    }


def run_scenario(name: str, rooms: int, seconds: float, warmup: float) -> dict[str, Any]:
    paced = name.startswith("paced")
    think = (0.5, 2.0) if paced else (0.0, 0.0)
    two = name.endswith("2pg")
    on_pg = name.endswith("pg")
    pg: PostgresServer | None = None
    servers: list[ServerProcess] = []
    tmp = tempfile.TemporaryDirectory()
    try:
        if on_pg:
            bindir = find_bindir()
            if bindir is None:
                raise SystemExit("PostgreSQL is not installed (apt-get install postgresql)")
            pg = PostgresServer(bindir, durable=True, max_connections=100)
            pg.__enter__()
            db = pg.url
        else:
            db = str(Path(tmp.name) / "rooms.db")
        extra = ["--max-rooms", str(max(1000, rooms)), "--room-idle", "3600"]
        for _ in range(2 if two else 1):
            servers.append(ServerProcess(db, *extra))
        status, info = http(servers[0].base, "/api/info")
        assert status == 200 and info.get("rooms"), info
        out = asyncio.run(_scenario(servers, rooms, think, seconds, warmup, pg))
        for s in servers:
            s.stop()
        traces = [t for s in servers for t in s.tracebacks()]
        if traces:
            out["server_tracebacks"] = len(traces)
            print("a server's stderr:", traces[0][-3000:], file=sys.stderr)
        return out
    finally:
        for s in servers:
            if s.proc is not None and s.proc.poll() is None:
                s.stop()
        if pg is not None:
            pg.stop()
        tmp.cleanup()


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--rooms", type=int, default=200)
    p.add_argument("--seconds", type=float, default=60.0, help="measured window per scenario")
    p.add_argument("--warmup", type=float, default=5.0)
    p.add_argument(
        "--scenario",
        action="append",
        choices=SCENARIOS,
        help="(repeatable; default: all six)",
    )
    args = p.parse_args(argv)
    scenarios = args.scenario or SCENARIOS
    load0 = os.getloadavg()
    loads = " ".join(f"{x:.2f}" for x in load0)
    print(f"load average before: {loads} on {os.cpu_count()} cores")
    for name in scenarios:
        out = run_scenario(name, args.rooms, args.seconds, args.warmup)
        load = os.getloadavg()
        print(
            f"{name}: {args.rooms} rooms ({out['rooms_in_play']} dealt a hand within "
            f"{START_WAIT:.0f} s of all being seated), {out['seconds']:.0f} s measured "
            f"(load {load[0]:.2f})"
        )
        print(
            f"  actions {out['actions']} ({out['actions_per_s']:.1f}/s); action → every seat's "
            f"update: p50 {out['p50_ms']:.1f} ms, p99 {out['p99_ms']:.1f} ms, "
            f"max {out['max_ms']:.1f} ms"
        )
        print(
            f"  server CPU {out['server_cpu_pct']:.0f}% (of one core, all its processes), "
            f"RSS {out['server_rss_mb']} MB (peak {out['server_peak_rss_mb']}); "
            f"PostgreSQL CPU {out['postgres_cpu_pct']:.0f}%; load generator CPU "
            f"{out['client_cpu_pct']:.0f}%"
        )
        print(
            f"  errors {out['errors']} {out['error_kinds']}, lost connections "
            f"{out['lost_connections']}, stalls {out['stalls']}, rooms finished "
            f"{out['rooms_finished']}"
            + (
                f", server tracebacks {out['server_tracebacks']}"
                if "server_tracebacks" in out
                else ""
            ),
            flush=True,
        )


if __name__ == "__main__":
    main()
