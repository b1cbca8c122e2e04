"""A bot that answers with text that is not a JSON action."""

import sys

replies = ["hello", "{not json", "[1, 2]", '{"action": 5}', '{"action": "chow"}']
for n, _line in enumerate(sys.stdin):
    print(replies[n % len(replies)], flush=True)
