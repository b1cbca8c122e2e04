"""Answers every request with a line that is not UTF-8."""

import os
import sys

import _misbehave

_misbehave.record_pid()
for _line in sys.stdin:
    os.write(1, b'{"index": "\xff\xfe"}\n')
