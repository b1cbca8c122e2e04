"""A bot that answers twice, then crashes."""

import json
import sys

for n, line in enumerate(sys.stdin):
    if n >= 2:
        sys.exit(3)
    req = json.loads(line)
    print(json.dumps({"index": req["legal_actions"][0]["index"]}), flush=True)
