"""Answers every request with the fallback and then, in the same write, a
second answer ("leave"); with argument v2 both echo the request's id."""

import json
import sys

import _misbehave

_misbehave.record_pid()
v2 = sys.argv[1:] == ["v2"]
for line in sys.stdin:
    req = json.loads(line)
    echo = {"id": req["id"]} if v2 else {}
    extra = json.dumps({"action": "leave", **echo}) + "\n"
    _misbehave.reply({**_misbehave.fallback(req), **echo}, extra=extra)
