"""A well-behaved bot: replies with the first legal action (by index)."""

import json
import sys

for line in sys.stdin:
    req = json.loads(line)
    legal = [a for a in req["legal_actions"] if a["action"] != "leave"] or req["legal_actions"]
    first = min(legal, key=lambda a: a["index"])
    reply = {"action": first["action"]}
    if "tile" in first:
        reply["tile"] = first["tile"]
    print(json.dumps(reply), flush=True)
