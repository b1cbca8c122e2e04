"""Reads one request, then floods stdout with short lines forever."""

import os
import sys

import _misbehave

_misbehave.record_pid()
sys.stdin.readline()
chunk = b"spam\n" * 4096
while True:
    os.write(1, chunk)
