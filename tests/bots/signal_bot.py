"""Answers two requests with the fallback, then kills itself with SIGKILL."""

import json
import os
import signal
import sys

import _misbehave

_misbehave.record_pid()
for n, line in enumerate(sys.stdin):
    if n == 2:
        os.kill(os.getpid(), signal.SIGKILL)
    _misbehave.reply(_misbehave.fallback(json.loads(line)))
