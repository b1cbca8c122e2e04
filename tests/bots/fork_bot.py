"""Forks a child that forks a grandchild (both sleep on), answers three
requests with the fallback once both have recorded their pids, then exits
with code 3 (so it is restarted and forks again)."""

import json
import sys

import _misbehave

_misbehave.record_pid()
_misbehave.fork_sleepers()
for n, line in enumerate(sys.stdin):
    if n == 3:
        sys.exit(3)
    _misbehave.reply(_misbehave.fallback(json.loads(line)))
