"""Forks a child that forks a grandchild (both sleep on), answers three
requests with the fallback, then exits with code 3 (so it is restarted and
forks again)."""

import json
import os
import sys
import time

import _misbehave

_misbehave.record_pid()
if os.fork() == 0:
    if os.fork() == 0:
        _misbehave.record_pid()
        time.sleep(600)
        os._exit(0)
    _misbehave.record_pid()
    time.sleep(600)
    os._exit(0)
for n, line in enumerate(sys.stdin):
    if n == 3:
        sys.exit(3)
    _misbehave.reply(_misbehave.fallback(json.loads(line)))
