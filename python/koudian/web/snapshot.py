"""Table snapshots: what a drawn table shows, read from the engine.

Every page of ``koudian.web`` (the replay viewer, the review, the play
page) draws the table from these plain-JSON snapshots; the JavaScript only
draws them. Nothing here decides a rule: hands, melds, ponds, wild kinds,
the question pending and the settlement all come from ``koudian.Game`` and
its observations, replayed by the engine (``koudian._core.replay_steps``).

A snapshot (``table_state``) holds, per seat, the concealed tiles, the
drawn tile, the melds (with the giver and whether other seats see the
tile), the pond in order (one string of tokens: ``5m``; ``5m^`` claimed;
``~5m`` face down, a ting discard; ``~?`` face down and unseen), ting;
and for the table: dealer, seat to act, the pending question (kind, from,
tile, legal actions by dense index: ``action_table``), scores, wild kinds,
face-up indicator tiles, tiles left. A frame list (``hand_frames``) pairs
each state with the log events that led to it.
"""

from __future__ import annotations

import json
from typing import Any

from koudian._core import N_ACTIONS, Action, Game, Settlement, replay_steps
from koudian.tiles import Tile

__all__ = [
    "action_table",
    "hand_frames",
    "observations",
    "result_json",
    "table_state",
    "tile_table",
]


def tile_table() -> list[dict[str, str]]:
    """The 34 tile kinds as the pages draw them (notation, Chinese, glyph)."""
    return [{"n": t.notation, "zh": t.chinese, "g": t.glyph} for t in Tile]


def action_table() -> list[dict[str, Any]]:
    """Every action by dense index (snapshots name legal actions by index)."""
    return [Action.from_index(i).to_json() for i in range(N_ACTIONS)]


def _pond_token(d: dict[str, Any], tile: str | None) -> str:
    text = tile if tile is not None else "?"
    if d["face_down"]:
        text = "~" + text
    if d["claimed"]:
        text += "^"
    return text


def observations(game: Game) -> list[dict[str, Any]]:
    """The four seats' observations of ``game`` as JSON (what
    ``table_state`` reads; worked out once, they serve every seat's view)."""
    return [game.observe(s).to_json() for s in range(4)]


def table_state(
    game: Game, seat: int | None = None, views: list[dict[str, Any]] | None = None
) -> dict[str, Any]:
    """The table as plain JSON: with ``seat`` None the referee's view
    (every hidden tile, the ``hidden`` flags saying what the other seats do
    not see); with a seat, only what that seat may see (other hands are
    ``null`` with their ``count``; unseen tiles are ``null`` / ``"~?"``).
    ``views``: ``observations(game)``, when the caller has them already
    (one event's table told to many connections)."""
    if views is None:
        views = observations(game)
    mine = views[seat] if seat is not None else None
    seats: list[dict[str, Any]] = []
    for s in range(4):
        own = views[s]
        shown = mine is None or s == seat
        seen = own if shown else mine
        other = views[(s + 1) % 4]
        assert seen is not None
        melds = [
            {
                "kind": m["kind"],
                "tile": m["tile"],
                "from": m["from"],
                "hidden": other["melds"][s][i]["tile"] is None,
            }
            for i, m in enumerate(seen["melds"][s])
        ]
        seats.append(
            {
                "hand": own["hand"] if shown else None,
                "drawn": own["drawn"] if shown else None,
                "count": own["concealed_count"][s],
                "melds": melds,
                "ting": own["ting"][s],
                "pond": "",
            }
        )
    public = views[0] if mine is None else mine
    # A face-down ting discard is known to its discarder only: the referee
    # reads it from the discarder's own view.
    ponds: list[list[str]] = [[], [], [], []]
    for i, d in enumerate(public["discards"]):
        tile = views[d["seat"]]["discards"][i]["tile"] if mine is None else d["tile"]
        ponds[d["seat"]].append(_pond_token(d, tile))
    for s in range(4):
        seats[s]["pond"] = "".join(ponds[s])
    to_act = game.to_act
    pending = public["pending"]
    if to_act is not None and (seat is None or seat == to_act):
        pending = views[to_act]["pending"]
    state: dict[str, Any] = {
        "seats": seats,
        "dealer": game.dealer,
        "to_act": to_act,
        "pending": pending,
        "scores": list(game.scores),
        "wilds": public["wilds"],
        "indicators": public["face_up_in_wall"],
        "wall": game.wall_remaining,
        "live": game.live_remaining,
        "done": game.done,
    }
    if to_act is not None and (seat is None or seat == to_act):
        state["legal"] = [a.index for a in game.legal_actions(to_act)]
    return state


def _settlement_json(s: Settlement) -> dict[str, Any]:
    return {
        "deltas": list(s.deltas),
        "payments": [[p.payer, p.payee, p.amount, p.reason, p.kind] for p in s.payments],
        "text": str(s),
    }


def result_json(game: Game) -> dict[str, Any] | None:
    """How the hand ended, its patterns and itemized settlement; None while
    it is being played."""
    r = game.result
    if r is None:
        return None
    s = r.settlement
    return {
        "kind": r.kind,
        "winners": r.winners,
        "tile": None if r.tile is None else r.tile.notation,
        "from": r.from_seat,
        "self_draw": r.self_draw,
        "leaver": r.leaver,
        "deltas": list(r.deltas),
        "patterns": [[seat, names] for seat, names in game.win_patterns()],
        "settlement": None if s is None else _settlement_json(s),
    }


def _event(line: dict[str, Any]) -> dict[str, Any]:
    keep = ("type", "seat", "action", "tile", "replacement", "auto", "kind")
    return {k: line[k] for k in keep if k in line}


def hand_frames(log: str) -> dict[str, Any]:
    """One hand's frames: the state after the deal and after every chosen
    action, each with the log events since the previous frame. Raises
    ``KoudianError`` naming the line when ``replay`` would."""
    states = replay_steps(log)
    lines = [json.loads(x) for x in log.splitlines() if x.strip()]
    header = lines[0]
    # A frame follows each chosen (non-automatic) action line; the events
    # of a frame are the lines from that action to the next one.
    cuts = [
        i for i, v in enumerate(lines) if v.get("type") == "action" and not v.get("auto", False)
    ]
    bounds = [2, *cuts, len(lines)]
    frames = []
    for k, game in enumerate(states):
        lo, hi = bounds[k], bounds[k + 1]
        if k == 0:
            lo = 1  # the deal
        events = [_event(v) for v in lines[lo:hi]]
        frame = table_state(game)
        frame["events"] = events
        frames.append(frame)
    last = states[-1]
    return {
        "seed": header.get("seed"),
        "family": header["rules"].get("family"),
        "rules": header["rules"],
        "frames": frames,
        "result": result_json(last),
    }
