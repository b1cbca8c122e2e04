"""``koudian serve``: play at a table in the browser (the ``web`` extra).

``koudian serve [--host 127.0.0.1] [--port 8000]`` serves the play page at
``http://HOST:PORT/play`` (and at ``/`` when it serves no rooms): pick a
preset, a seat and three opponents, play a hand or a match by clicking;
each browser tab is its own table held on the server. Remote bots play the
same seat protocol over ``/ws`` (see ``docs/web.md``). Opponents are the
native agent specs given with ``--agents`` (default ``random,greedy,mc``;
specs this build lacks are left out) and the ``cmd:`` bots given with
``--bot NAME=COMMAND``. Each finished hand is appended to ``--log`` and
linked to its replay viewer.

Rooms (``docs/rooms.md``): with ``--db`` (default ``koudian-rooms.db``, a
SQLite file; ``postgresql://...`` for PostgreSQL; ``--db ''`` none) people
create rooms, share their link, play together, and every action is
written to the database before anyone is told of it: a restarted server
resumes every open room where it stood.

Every number is checked before anything is served, and the port is bound
before the address is printed (``--port 0``: the port the system chose; a
port in use is an error, not a "serving" line). SIGINT or SIGTERM stops
the server within about a second: the tables' bots are killed first, so
no decision in flight holds it.
"""

from __future__ import annotations

import argparse
import math
import socket
import sys
from collections.abc import Callable
from typing import Any

from koudian._extras import install_hint

MAX_IDLE = 7 * 24 * 3600.0
"""Longest ``--idle``, seconds (a week)."""
MAX_TABLES = 100_000
"""Most ``--max-tables`` (and per-client tables, bots)."""

__all__ = ["add_subparser", "run"]


def _bot(text: str) -> tuple[str, str]:
    name, sep, command = text.partition("=")
    if not sep or not name.strip() or not command.strip():
        raise argparse.ArgumentTypeError(f"--bot {text!r}: write NAME=COMMAND")
    return name.strip(), command.strip()


def _number(flag: str, hi: float, kind: Callable[[str], float] = float) -> Callable[[str], Any]:
    """An argparse type: a finite number above 0 and at most ``hi``."""

    def parse(text: str) -> float:
        try:
            v = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{flag} {text!r}: not a number") from None
        if not (math.isfinite(v) and 0 < v <= hi):
            raise argparse.ArgumentTypeError(
                f"{flag} {text!r}: must be a finite number above 0 and at most {hi:g}"
            )
        return v

    return parse


def _seconds(flag: str, hi: int) -> Callable[[str], int]:
    """An argparse type: a whole number of seconds from 0 to ``hi``."""

    def parse(text: str) -> int:
        try:
            v = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{flag} {text!r}: not an integer") from None
        if not 0 <= v <= hi:
            raise argparse.ArgumentTypeError(f"{flag} {text!r}: from 0 to {hi}")
        return v

    return parse


def _pace(text: str) -> float:
    """``--bot-pace``: seconds from 0 to 10."""
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--bot-pace {text!r}: not a number") from None
    if not (math.isfinite(v) and 0 <= v <= 10):
        raise argparse.ArgumentTypeError(f"--bot-pace {text!r}: seconds from 0 to 10")
    return v


def _port(text: str) -> int:
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--port {text!r}: not an integer") from None
    if not 0 <= v <= 65535:
        raise argparse.ArgumentTypeError(f"--port {text!r}: a port from 0 to 65535")
    return v


def _bind(host: str, port: int) -> socket.socket:
    """The listening socket (``OSError`` for a port in use)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(2048)
    except BaseException:
        sock.close()
        raise
    sock.set_inheritable(True)
    return sock


def run(args: argparse.Namespace) -> int:
    """Starts the server (blocks until it is stopped)."""
    try:
        import uvicorn

        from koudian.web.app import Server, create_app
    except ImportError as e:
        print(
            f"koudian: error: koudian serve needs the web extra ({e.name} is missing): "
            f"{install_hint('web')}",
            file=sys.stderr,
        )
        return 2
    from koudian.web.tables import MAX_MESSAGE, offered_opponents

    specs = [s.strip() for s in args.agents.split(",") if s.strip()]
    opponents = offered_opponents(specs, dict(args.bot))
    if not opponents:
        print("koudian: error: no opponent on offer (check --agents)", file=sys.stderr)
        return 2
    from koudian._core import KoudianError

    hosts = list(args.allow_host)
    if args.host not in ("0.0.0.0", "::", ""):
        hosts.append(args.host)
    rooms = None
    if args.db:
        from koudian.rooms.config import RoomError
        from koudian.rooms.service import Limits, RoomService
        from koudian.rooms.store import open_store

        try:
            store = open_store(args.db)
            rooms = RoomService(
                store,
                opponents,
                limits=Limits(
                    max_rooms=args.max_rooms,
                    client_rooms=args.client_rooms,
                    client_bots=args.client_bots,
                    idle=args.room_idle,
                    between=args.between,
                    bot_timeout=args.bot_timeout,
                ),
                timer=args.timer,
                bot_pace=args.bot_pace,
            )
        except (KoudianError, RoomError) as e:
            print(f"koudian: error: {e}", file=sys.stderr)
            return 2
    try:
        server = Server(
            opponents,
            log_path=args.log or None,
            max_tables=args.max_tables,
            idle=args.idle,
            bot_timeout=args.bot_timeout,
            client_seeds=args.client_seeds,
            client_tables=args.client_tables,
            client_bots=args.client_bots,
            message_rate=args.message_rate,
            allow_hosts=hosts,
            allow_origins=args.allow_origin,
            rooms=rooms,
            client_connections=args.client_connections,
        )
    except KoudianError as e:
        print(f"koudian: error: {e}", file=sys.stderr)
        return 2
    try:
        sock = _bind(args.host, args.port)
    except OSError as e:
        print(
            f"koudian: error: cannot serve on {args.host}:{args.port}: {e.strerror or e}"
            + (" (the port is in use)" if e.errno == 98 else ""),
            file=sys.stderr,
        )
        return 1
    host, port = sock.getsockname()[:2]
    shown = f"[{host}]" if ":" in host else host
    print(
        f"koudian serve: http://{shown}:{port}/  opponents: {', '.join(opponents)}"
        + (f"  log: {args.log}" if args.log else "")
        + (f"  db: {rooms.store.url}" if rooms is not None else ""),
        flush=True,
    )

    class _Uvicorn(uvicorn.Server):
        def handle_exit(self, sig: int, frame: Any) -> None:
            # Bots first: a decision in flight would hold the shutdown
            # for up to its timeout.
            server.shutdown()
            super().handle_exit(sig, frame)

    config = uvicorn.Config(
        create_app(server),
        log_level="warning",
        ws_max_size=4 * MAX_MESSAGE,
        ws_max_queue=8,
        timeout_graceful_shutdown=1,
    )
    try:
        _Uvicorn(config).run(sockets=[sock])
    except KeyboardInterrupt:
        return 130
    finally:
        sock.close()
    return 0


def add_subparser(sub: Any) -> None:
    """Registers ``koudian serve``."""
    from koudian.agents import BUILTIN_AGENTS
    from koudian.protocol import MAX_TIMEOUT
    from koudian.rooms.config import BOT_PACE

    p = sub.add_parser("serve", help="play in the browser (needs koudian[web])")
    p.add_argument("--host", default="127.0.0.1", help="address to bind (127.0.0.1)")
    p.add_argument("--port", type=_port, default=8000, help="port (8000; 0: any free port)")
    p.add_argument(
        "--agents",
        default=",".join(BUILTIN_AGENTS),
        help=f"native opponents on offer, comma-separated specs ({','.join(BUILTIN_AGENTS)})",
    )
    p.add_argument(
        "--bot",
        type=_bot,
        action="append",
        default=[],
        metavar="NAME=COMMAND",
        help="an external bot on offer as NAME (the stdin protocol), e.g. mine='python bot.py'",
    )
    p.add_argument("--log", default="koudian-serve.jsonl", help="append finished hands here")
    p.add_argument(
        "--max-tables",
        type=_number("--max-tables", MAX_TABLES, int),
        default=200,
        help="most tables at once (200)",
    )
    p.add_argument(
        "--idle",
        type=_number("--idle", MAX_IDLE),
        default=900.0,
        help="idle table expiry, s (900; at most a week)",
    )
    p.add_argument(
        "--bot-timeout",
        type=_number("--bot-timeout", MAX_TIMEOUT),
        default=5.0,
        help=f"cmd: bot reply timeout, s (5; at most {MAX_TIMEOUT:g})",
    )
    p.add_argument(
        "--client-tables",
        type=_number("--client-tables", MAX_TABLES, int),
        default=16,
        help="most tables one client (remote address) holds at once (16)",
    )
    p.add_argument(
        "--client-bots",
        type=_number("--client-bots", MAX_TABLES, int),
        default=12,
        help="most bot processes one client's tables run at once (12)",
    )
    p.add_argument(
        "--message-rate",
        type=_number("--message-rate", 10_000.0),
        default=20.0,
        help="messages per second one connection may send, after a burst of 100 (20)",
    )
    p.add_argument(
        "--client-seeds",
        action="store_true",
        help="let clients choose their match's seed (such a table hides nothing from its client)",
    )
    p.add_argument(
        "--allow-host",
        action="append",
        default=[],
        metavar="NAME",
        help="another host name to serve (loopback names and --host always are; * any)",
    )
    p.add_argument(
        "--allow-origin",
        action="append",
        default=[],
        metavar="ORIGIN",
        help="another page origin whose WebSockets are accepted, e.g. https://play.example",
    )
    p.add_argument(
        "--db",
        default="koudian-rooms.db",
        metavar="PATH|URL",
        help="the rooms' database: a SQLite file (koudian-rooms.db) or postgresql://...; "
        "'' serves no rooms",
    )
    p.add_argument(
        "--timer",
        type=_seconds("--timer", 600),
        default=0,
        help="a room's decision timer when its creator names none, s (0: none; at most 600)",
    )
    p.add_argument(
        "--between",
        type=_number("--between", MAX_IDLE),
        default=30.0,
        help="seconds between hands before the next is dealt without the unready (30)",
    )
    p.add_argument(
        "--bot-pace",
        type=_pace,
        default=BOT_PACE,
        help=f"seconds between bots' moves while a person is at the table ({BOT_PACE:g}; "
        "0: at once)",
    )
    p.add_argument(
        "--room-idle",
        type=_number("--room-idle", MAX_IDLE),
        default=3 * 3600.0,
        help="a room with no event for this long is closed, s (10800)",
    )
    p.add_argument(
        "--max-rooms",
        type=_number("--max-rooms", MAX_TABLES, int),
        default=1000,
        help="most open rooms at once (1000)",
    )
    p.add_argument(
        "--client-rooms",
        type=_number("--client-rooms", MAX_TABLES, int),
        default=8,
        help="most open rooms one client (remote address) creates (8)",
    )
    p.add_argument(
        "--client-connections",
        type=_number("--client-connections", MAX_TABLES, int),
        default=16,
        help="most room connections one client (remote address) holds at once (16)",
    )
    p.set_defaults(func=run)
