"""``koudian review``: the replay viewer plus a bot's view of each decision.

``koudian review LOG --seat S [--agent greedy|mc] [--hand N] -o
review.html`` replays LOG with the engine and, at every decision of seat S
(a position where S has more than one legal action), asks
``koudian.rank_actions(game, S, agent=AGENT)`` for the agent's ranked
candidates with their numbers (greedy: shanten, live improving tiles,
wait value, danger; mc: mean points with an interval). The page shows
them beside the table, highlights the action played where it differs from
the agent's best, and lists each hand's disagreements with their
estimated cost: the best candidate's ``value`` minus the played one's (in
the agent's own units: mc's are settlement points; greedy's only order).
A value mc did not estimate (a candidate it did not search) is ``null``,
and so is a cost that needs it; the page shows them as "–".
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import koudian
from koudian._cli_args import positive_int
from koudian._core import KoudianError, replay_steps
from koudian.agents import agents_help
from koudian.web.snapshot import hand_frames
from koudian.web.tables import ranked_json
from koudian.web.viewer import build_html, load_hands

__all__ = ["add_subparser", "review_hand"]


def _chosen_indices(log: str) -> list[int]:
    """The dense index of every chosen action, in order (the actions
    ``replay_steps`` re-applies)."""
    out = []
    for line in log.splitlines():
        v = json.loads(line)
        if v.get("type") == "action" and not v.get("auto", False):
            out.append(int(v["index"]))
    return out


def cost_unit(agent: str) -> str:
    """What a review's cost counts: ``"points"`` (mc's values are its
    estimated mean settlement points) or ``"ranks"`` (greedy's, and any
    other ranking's, value is minus the rank, so a cost is the number of
    places the played action stands below the first)."""
    return "points" if agent.split(":", 1)[0] == "mc" else "ranks"


def review_hand(log: str, seat: int, agent: str) -> dict[str, Any]:
    """One hand's frames with ``review`` (per decision frame of ``seat``:
    the ranking and the action played) and ``summary``."""
    hand = hand_frames(log)
    states = replay_steps(log)
    played = _chosen_indices(log)
    review: dict[str, Any] = {}
    disagreements = []
    decisions = 0
    for k, game in enumerate(states[:-1]):
        if game.to_act != seat or len(game.legal_actions(seat)) < 2:
            continue
        decisions += 1
        ranked = [ranked_json(r) for r in koudian.rank_actions(game, seat, agent=agent)]
        chosen = played[k]
        for r in ranked:
            r["chosen"] = r["action"]["index"] == chosen
        mine = next((r for r in ranked if r["chosen"]), None)
        if mine is None:
            raise KoudianError(f"{agent} ranked no candidate for the action played at step {k}")
        differs = ranked[0]["action"]["index"] != chosen
        entry = {"seat": seat, "ranked": ranked, "differs": differs}
        if differs:
            # null where either value is unknown (mc's unsearched candidates).
            best, played_value = ranked[0]["value"], mine["value"]
            entry["cost"] = None if best is None or played_value is None else best - played_value
            disagreements.append(
                {
                    "frame": k,
                    "played": mine["action"],
                    "best": ranked[0]["action"],
                    "cost": entry["cost"],
                }
            )
        review[str(k)] = entry
    hand["review"] = review
    hand["summary"] = {
        "decisions": decisions,
        "disagreements": disagreements,
        "cost": sum(d["cost"] for d in disagreements if d["cost"] is not None),
        "cost_unit": cost_unit(agent),
    }
    return hand


def _cmd_review(args: argparse.Namespace) -> int:
    try:
        hands = [review_hand(log, args.seat, args.agent) for log in load_hands(args.log, args.hand)]
        page = build_html(
            hands,
            title=f"koudian review · {Path(args.log).name} · seat {args.seat} · {args.agent}",
            review={"agent": args.agent, "seat": args.seat},
        )
    except (KoudianError, OSError) as e:
        print(f"koudian: error: {e}", file=sys.stderr)
        return 2
    Path(args.output).write_text(page, encoding="utf-8")
    n = sum(len(h["summary"]["disagreements"]) for h in hands)
    d = sum(h["summary"]["decisions"] for h in hands)
    print(f"wrote {args.output}: seat {args.seat}, {d} decisions, {n} differ from {args.agent}")
    return 0


def add_subparser(sub: Any) -> None:
    """Registers ``koudian review``."""
    p = sub.add_parser("review", help="the replay viewer with an agent's ranking of each decision")
    p.add_argument("log", help="a JSON Lines log (one hand, or several from simulate --log)")
    p.add_argument("--seat", type=int, choices=range(4), required=True, help="seat to review")
    p.add_argument(
        "--agent", default="greedy", help=f"reviewing agent spec: {agents_help(extra='')}"
    )
    p.add_argument("--hand", type=positive_int, default=None, help="only hand N (1-based)")
    p.add_argument("-o", "--output", default="review.html", help="output file (review.html)")
    p.set_defaults(func=_cmd_review)
