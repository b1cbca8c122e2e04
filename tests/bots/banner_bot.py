"""Prints a banner and a log line at start, then plays the fallback,
echoing ids (protocol version 2), with a log line before each reply."""

import json
import sys

import _misbehave

_misbehave.record_pid()
print("banner bot 1.0 starting", flush=True)
print("[INFO] loading weights", flush=True)
for line in sys.stdin:
    req = json.loads(line)
    print(f"thinking about request {req['id']}", flush=True)
    _misbehave.reply({**_misbehave.fallback(req), "id": req["id"]})
