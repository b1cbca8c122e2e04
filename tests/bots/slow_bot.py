"""A bot that never answers in time."""

import sys
import time

for _line in sys.stdin:
    time.sleep(30)
