"""A Python agent for ``koudian.Match``: any object with
``act(observation, legal_actions) -> Action`` plays, and one with
``reset(seed)`` is reseeded before every hand (so that its randomness
depends only on the game).

``WaitCounter`` plays like the built-in greedy agent, except for ting: it
declares with the discard that leaves the most *unseen* winning tiles
(counting what it can see: its hand, every meld, the face-up discards),
and it never pongs. A Linxian match of one round (四圈 is ``rounds=4``)
against three greedy agents::

    python examples/match_agent.py
"""

from __future__ import annotations

import random
from collections.abc import Sequence

import koudian
from koudian import Action, Observation


class WaitCounter:
    """Declares ting on the most unseen winning tiles; never pongs."""

    def __init__(self, rules: str) -> None:
        self.rules = koudian.Ruleset.preset(rules)
        self.greedy = koudian.GreedyAgent()
        self.rng = random.Random(0)

    def reset(self, seed: int) -> None:
        self.greedy.reset(seed)
        self.rng.seed(seed)

    def act(self, observation: Observation, legal_actions: Sequence[Action]) -> Action:
        kinds = {a.kind for a in legal_actions}
        if "win" in kinds:
            return Action("win")
        ting = [a for a in legal_actions if a.kind == "ting"]
        if ting:
            return max(ting, key=lambda a: self.unseen_waits(observation, a))
        if "pong" in kinds and "pass" in kinds:
            return Action("pass")
        return self.greedy.act(observation, legal_actions)

    def unseen_waits(self, observation: Observation, ting: Action) -> int:
        """Copies of the waits left after ``ting``'s discard that this seat
        cannot see (so might still come)."""
        hand = list(observation.hand)
        assert ting.tile is not None
        hand.remove(ting.tile)
        own = [koudian.Meld(m.kind, m.tile) for m in observation.melds[observation.seat] if m.tile]
        seen = observation.visible_counts
        waits = koudian.waits(hand, melds=own, wildcards=observation.wilds, rules=self.rules)
        return sum(4 - int(seen[int(w)]) for w in waits)


def main() -> None:
    agents = [WaitCounter("linxian"), "greedy", "greedy", "greedy"]
    with koudian.Match("linxian", agents, rounds=1, seed=5) as match:
        for n, result in enumerate(match, 1):
            print(f"hand {n:>2}: {result.kind:<9} winners {result.winners}  deltas {result.deltas}")
        print(f"totals after {match.hands_played} hands: {match.totals}")


if __name__ == "__main__":
    main()
