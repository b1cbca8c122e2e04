"""Never reads its stdin; prints a (version 1) reply every 10 ms, so the
engine's requests pile up in the pipe until writing blocks."""

import time

import _misbehave

_misbehave.record_pid()
while True:
    _misbehave.reply({"action": "pass"})
    time.sleep(0.01)
