"""Plays the fallback, after forking a child that leaves the bot's process
group and session (``setsid()``) and forks a grandchild there; both sleep
on. Neither is in the group the engine kills: only tracking every
descendant ends them."""

import json
import os
import sys
import time

import _misbehave

_misbehave.record_pid()
ready_r, ready_w = os.pipe()
if os.fork() == 0:
    os.setsid()
    # Away from the bot's pipes, as a daemon would be.
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    if os.fork() == 0:
        _misbehave.record_pid()
        os.write(ready_w, b"g")
        time.sleep(600)
        os._exit(0)
    _misbehave.record_pid()
    os.write(ready_w, b"c")
    time.sleep(600)
    os._exit(0)
got = b""
while len(got) < 2:
    got += os.read(ready_r, 2)
for line in sys.stdin:
    _misbehave.reply(_misbehave.fallback(json.loads(line)))
