"""Answers every request with a valid action padded to a 2 MB line."""

import json
import sys

import _misbehave

_misbehave.record_pid()
pad = "x" * (2 << 20)
for line in sys.stdin:
    req = json.loads(line)
    _misbehave.reply({**_misbehave.fallback(req), "id": req.get("id"), "pad": pad})
