"""Plays the fallback, after forking a child that leaves the bot's process
group and session (``setsid()``) and forks a grandchild there; both sleep
on. Neither is in the group the engine kills: only tracking every
descendant ends them."""

import json
import sys

import _misbehave

_misbehave.record_pid()
_misbehave.fork_sleepers(leave_group=True)
for line in sys.stdin:
    _misbehave.reply(_misbehave.fallback(json.loads(line)))
