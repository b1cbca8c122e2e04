"""Forks a child that forks a grandchild (both sleep on), answers three
requests with the fallback once both have recorded their pids, then exits
with code 3 (so it is restarted and forks again)."""

import json
import os
import sys
import time

import _misbehave

_misbehave.record_pid()
ready_r, ready_w = os.pipe()
if os.fork() == 0:
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
for n, line in enumerate(sys.stdin):
    if n == 3:
        sys.exit(3)
    _misbehave.reply(_misbehave.fallback(json.loads(line)))
