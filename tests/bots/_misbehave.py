"""Shared by the misbehaving bots of tests/test_protocol_faults.py: records
this process's pid in the file named by $KOUDIAN_TEST_PIDS (one line per
process, children and grandchildren too) so the test can check that none
outlives the match, and the documented fallback reply to a request."""

import json
import os
import time
from typing import Any


def record_pid() -> None:
    path = os.environ.get("KOUDIAN_TEST_PIDS")
    if path:
        with open(path, "a", encoding="utf-8") as f:
            f.write(f"{os.getpid()}\n")


def fallback(req: dict[str, Any]) -> dict[str, Any]:
    """The engine's fallback: the lowest index that is not leave."""
    legal = [a for a in req["legal_actions"] if a["action"] != "leave"] or req["legal_actions"]
    return {"index": min(a["index"] for a in legal)}


def reply(obj: dict[str, Any], *, extra: str = "") -> None:
    """Writes one reply line (and `extra` in the same write)."""
    os.write(1, (json.dumps(obj) + "\n" + extra).encode())


def fork_sleepers(*, leave_group: bool = False) -> None:
    """Forks a child that forks a grandchild, both recording their pids and
    sleeping on; returns in the bot once both have recorded them. With
    ``leave_group`` the child first leaves the bot's process group and
    session (``setsid()``) and its pipes, as a daemon would: then only
    tracking every descendant ends them."""
    ready_r, ready_w = os.pipe()
    if os.fork() == 0:
        if leave_group:
            os.setsid()
            null = os.open(os.devnull, os.O_RDWR)
            for fd in (0, 1, 2):
                os.dup2(null, fd)
        if os.fork() == 0:
            record_pid()
            os.write(ready_w, b"g")
            time.sleep(600)
            os._exit(0)
        record_pid()
        os.write(ready_w, b"c")
        time.sleep(600)
        os._exit(0)
    got = b""
    while len(got) < 2:
        got += os.read(ready_r, 2)
