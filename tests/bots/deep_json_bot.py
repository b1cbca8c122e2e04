"""Answers with deeply nested JSON (json raises RecursionError), within the
64 KiB line cap: an object holding a list nested 50,000 deep, then the
bare list."""

import sys

import _misbehave

_misbehave.record_pid()
for n, _line in enumerate(sys.stdin):
    body = "[" * 50_000
    sys.stdout.write((body if n % 2 else '{"index": ' + body) + "\n")
    sys.stdout.flush()
