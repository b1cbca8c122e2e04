"""A bot that answers with well-formed but illegal actions."""

import json
import sys

for line in sys.stdin:
    req = json.loads(line)
    legal = {a["index"] for a in req["legal_actions"]}
    illegal = next(i for i in range(141) if i not in legal)
    print(json.dumps({"index": illegal}), flush=True)
