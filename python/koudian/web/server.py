"""``koudian serve``: play at a table in the browser (the ``web`` extra).

``koudian serve [--host 127.0.0.1] [--port 8000]`` serves the play page at
``http://HOST:PORT/``: pick a preset, a seat and three opponents, play a
hand or a match by clicking; each browser tab is its own table held on
the server. Remote bots play the same seat protocol over ``/ws`` (see
``docs/web.md``). Opponents are the native agent specs given with
``--agents`` (default ``random,greedy,mc``; specs this build lacks are left
out) and the ``cmd:`` bots given with ``--bot NAME=COMMAND``. Each finished
hand is appended to ``--log`` and linked to its replay viewer.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

__all__ = ["add_subparser", "run"]


def _bot(text: str) -> tuple[str, str]:
    name, sep, command = text.partition("=")
    if not sep or not name.strip() or not command.strip():
        raise argparse.ArgumentTypeError(f"--bot {text!r}: write NAME=COMMAND")
    return name.strip(), command.strip()


def run(args: argparse.Namespace) -> int:
    """Starts the server (blocks until it is stopped)."""
    try:
        import uvicorn

        from koudian.web.app import Server, create_app
    except ImportError as e:
        print(
            f"koudian: error: koudian serve needs the web extra ({e.name} is missing): "
            "pip install 'koudian[web]'",
            file=sys.stderr,
        )
        return 2
    from koudian.web.tables import MAX_MESSAGE, offered_opponents

    specs = [s.strip() for s in args.agents.split(",") if s.strip()]
    opponents = offered_opponents(specs, dict(args.bot))
    if not opponents:
        print("koudian: error: no opponent on offer (check --agents)", file=sys.stderr)
        return 2
    server = Server(
        opponents,
        log_path=args.log,
        max_tables=args.max_tables,
        idle=args.idle,
        bot_timeout=args.bot_timeout,
    )
    print(
        f"koudian serve: http://{args.host}:{args.port}/  opponents: {', '.join(opponents)}"
        + (f"  log: {args.log}" if args.log else ""),
        flush=True,
    )
    uvicorn.run(
        create_app(server),
        host=args.host,
        port=args.port,
        log_level="warning",
        ws_max_size=4 * MAX_MESSAGE,
        ws_max_queue=8,
    )
    return 0


def add_subparser(sub: Any) -> None:
    """Registers ``koudian serve``."""
    p = sub.add_parser("serve", help="play in the browser (needs koudian[web])")
    p.add_argument("--host", default="127.0.0.1", help="address to bind (127.0.0.1)")
    p.add_argument("--port", type=int, default=8000, help="port (8000)")
    p.add_argument(
        "--agents",
        default="random,greedy,mc",
        help="native opponents on offer, comma-separated specs (random,greedy,mc)",
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
    p.add_argument("--max-tables", type=int, default=200, help="most tables at once (200)")
    p.add_argument("--idle", type=float, default=900.0, help="idle table expiry, s (900)")
    p.add_argument("--bot-timeout", type=float, default=5.0, help="cmd: bot reply timeout, s")
    p.set_defaults(func=run)
