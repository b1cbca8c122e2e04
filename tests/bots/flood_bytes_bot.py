"""Reads one request, then writes bytes without a newline forever."""

import os
import sys

import _misbehave

_misbehave.record_pid()
sys.stdin.readline()
chunk = b"x" * 65536
while True:
    os.write(1, chunk)
