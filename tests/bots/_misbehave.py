"""Shared by the misbehaving bots of tests/test_protocol_faults.py: records
this process's pid in the file named by $KOUDIAN_TEST_PIDS (one line per
process, children and grandchildren too) so the test can check that none
outlives the match, and the documented fallback reply to a request."""

import json
import os
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
