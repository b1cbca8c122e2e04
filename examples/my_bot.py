"""A complete external bot: it plays through the JSON Lines protocol of
``koudian.protocol`` (one request per line on stdin, one reply per line on
stdout), declares ting as soon as it may and wins whenever it can.

Run it against three random bots::

    koudian simulate --agents 'cmd:python examples/my_bot.py',random,random,random --hands 50

A bot is told its seat, its observation and its legal actions, not the
ruleset: pass the ruleset of the game with ``--rules`` (default
``shanxi``) so that its hand reading agrees with the table, e.g.
``'cmd:python examples/my_bot.py --rules linxian'``.

Its play, in order of priority:

1. win (自摸 or on a discard) whenever it is legal;
2. declare ting (报听) when it may, with the discard whose waits are
   worth the most points (then the most waiting kinds);
3. on its turn, discard to lower shanten, then to keep the best waits,
   then the tile with the fewest neighbours in hand (honors and loose
   terminals first);
4. answer every other discard with pass (no pong: a pong would lock tiles
   it may need for ting).

It reads the hand with the engine itself (``koudian.discard_options``):
a bot in another language would do the same with its own hand reader.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

import koudian


def own_melds(observation: dict[str, Any]) -> list[koudian.Meld]:
    """The bot's melds, in the notation ``koudian.Meld.parse`` reads:
    ``555z`` pong, ``5555z`` kong, ``+5555z`` added, ``[5555z]`` concealed."""
    out = []
    for m in observation["melds"][observation["seat"]]:
        rank, suit = m["tile"][0], m["tile"][1]
        body = rank * (3 if m["kind"] == "pong" else 4) + suit
        text = {"added_kong": f"+{body}", "concealed_kong": f"[{body}]"}.get(m["kind"], body)
        out.append(koudian.Meld.parse(text))
    return out


def neighbours(tile: koudian.Tile, hand: list[koudian.Tile]) -> int:
    """Copies and suit neighbours (within two ranks) of ``tile`` in hand."""
    t = int(tile)
    same = hand.count(tile) - 1
    if t >= 27:
        return 3 * same
    near = sum(1 for h in hand if int(h) // 9 == t // 9 and 0 < abs(int(h) - t) <= 2)
    return 3 * same + near


def choose(req: dict[str, Any], rules: koudian.Ruleset) -> dict[str, Any]:
    """The reply to one request."""
    legal = req["legal_actions"]
    kinds = {a["action"] for a in legal}
    if "win" in kinds:
        return {"action": "win"}
    observation = req["observation"]
    if observation["pending"]["kind"] != "turn":
        return {"action": "pass"} if "pass" in kinds else _first(legal)
    hand = koudian.parse(observation["hand"])
    options = koudian.discard_options(
        hand,
        melds=own_melds(observation),
        wildcards=[koudian.Tile.parse(w) for w in observation["wilds"]],
        rules=rules,
    )
    ting = {a["tile"] for a in legal if a["action"] == "ting"}
    if ting:
        best = max(
            (o for o in options if str(o.discard) in ting),
            key=lambda o: (o.best_points or 0, len(o.waits)),
        )
        return {"action": "ting", "tile": str(best.discard)}
    discards = {a["tile"] for a in legal if a["action"] == "discard"}
    if not discards:
        return _first(legal)  # a locked (ting) hand: the table discards for it
    best = min(
        (o for o in options if str(o.discard) in discards),
        key=lambda o: (o.shanten, -(o.best_points or 0), neighbours(o.discard, hand)),
    )
    return {"action": "discard", "tile": str(best.discard)}


def _first(legal: list[dict[str, Any]]) -> dict[str, Any]:
    a = min(legal, key=lambda x: x["index"])
    return {"index": a["index"]}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--rules", default="shanxi", help="the game's preset (default shanxi)")
    rules = koudian.Ruleset.preset(p.parse_args().rules)
    for line in sys.stdin:
        reply = choose(json.loads(line), rules)
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
