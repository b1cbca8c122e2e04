"""``Observation.to_json()`` (the external-bot protocol's ``observation``,
written by the core's ``Observation::to_json``) says exactly what the
typed attributes say, key for key and in the documented order, at many
random positions of every preset; and the public names the core spells
(pattern and payment codes, meld names) are the documented ones."""

from __future__ import annotations

import json
import random
from typing import Any

import koudian
from hypothesis import given, settings
from hypothesis import strategies as st
from koudian import Game, Observation

PRESETS = ["shanxi", "shanxi-haozi", "shanxi-double-haozi", "linxian", "sichuan"]

KEYS = [
    "seat",
    "dealer",
    "to_act",
    "pending",
    "hand",
    "drawn",
    "concealed_count",
    "melds",
    "ting",
    "discards",
    "wall_remaining",
    "live_remaining",
    "kongs",
    "wilds",
    "face_up_in_wall",
    "may_win_discards",
    "locked_kinds",
    "scores",
]


MELD_NAMES = {
    koudian.MeldKind.PONG: "pong",
    koudian.MeldKind.EXPOSED_KONG: "exposed_kong",
    koudian.MeldKind.ADDED_KONG: "added_kong",
    koudian.MeldKind.CONCEALED_KONG: "concealed_kong",
}


def _tile(t: object) -> str | None:
    return None if t is None else str(t)


def _expected(o: Observation) -> dict[str, Any]:
    """The wire format rebuilt from the typed attributes (what the binding
    once built by hand)."""
    return {
        "seat": o.seat,
        "dealer": o.dealer,
        "to_act": o.to_act,
        "pending": {"kind": o.pending, "from": o.pending_from, "tile": _tile(o.pending_tile)},
        "hand": koudian.fmt(o.counts),
        "drawn": _tile(o.drawn),
        "concealed_count": list(o.concealed_count),
        "melds": [
            [{"kind": MELD_NAMES[m.kind], "tile": _tile(m.tile), "from": m.from_seat} for m in s]
            for s in o.melds
        ],
        "ting": list(o.ting),
        "discards": [
            {"seat": d.seat, "tile": _tile(d.tile), "face_down": d.face_down, "claimed": d.claimed}
            for d in o.discards
        ],
        "wall_remaining": o.wall_remaining,
        "live_remaining": o.live_remaining,
        "kongs": o.kongs,
        "wilds": [str(t) for t in o.wilds],
        "face_up_in_wall": koudian.fmt(o.face_up_in_wall),
        "may_win_discards": o.may_win_discards,
        "locked_kinds": [str(t) for t in o.locked_kinds],
        "scores": list(o.scores),
    }


def _check(g: Game) -> None:
    for s in range(4):
        o = g.observe(s)
        got = o.to_json()
        assert list(got) == KEYS
        assert got == _expected(o)
        # JSON-ready: it round-trips through json unchanged.
        assert json.loads(json.dumps(got, allow_nan=False)) == got


@settings(max_examples=60, deadline=None)
@given(
    preset=st.sampled_from(PRESETS),
    seed=st.integers(0, 2**64 - 1),
    choices=st.integers(0, 2**32 - 1),
)
def test_to_json_matches_the_typed_attributes_at_random_positions(
    preset: str, seed: int, choices: int
) -> None:
    rng = random.Random(choices)
    g = Game(preset, seed=seed, dealer=seed % 4)
    g.set_scores([rng.randrange(-(2**40), 2**40) for _ in range(4)])
    _check(g)
    while not g.done:
        legal = [a for a in g.legal_actions() if a.kind != "leave"] or g.legal_actions()
        g.step(rng.choice(legal))
        if rng.random() < 0.3:
            _check(g)
    _check(g)


def test_pattern_codes_are_the_documented_names() -> None:
    """``Pattern.code`` (docs/api.md) of hands whose patterns are known:
    every pattern but ``seven_pairs`` and ``terminals`` (the core's test
    ``names::pattern_codes_are_the_documented_names`` holds all)."""
    special = koudian.Ruleset.preset("shanxi").replace(special_hands=True)
    std = "123m456m789m123p55p"
    cases: list[tuple[str, str, Any, dict[str, Any], list[str]]] = [
        ("123m456m789m234p88s", "8s", "shanxi", {"self_draw": True}, ["self_draw"]),
        ("123m456m789m234p88s", "8s", special, {"self_draw": True}, ["pure_straight", "self_draw"]),
        ("11223344556677m", "7m", special, {}, ["full_flush"]),
        ("11112233445566m", "6m", special, {}, ["golden_seven_pairs"]),
        ("11112222445566p", "6p", special, {}, ["luxury_seven_pairs"]),
        ("11112222444466p", "6p", special, {}, ["luxury_golden_seven_pairs"]),
        ("11122233344455m", "5m", "sichuan", {}, ["flush_triplets"]),
        ("11223344556677m", "7m", "sichuan", {}, ["flush_seven_pairs"]),
        (std, "5p", "sichuan", {}, ["basic_hand"]),
        ("111m222m888m555p22p", "2p", "sichuan", {}, ["all_triplets"]),
        ("222m555m888m222p55p", "5p", "sichuan", {}, ["two_five_eight"]),
        ("11112345678999m", "9m", "sichuan", {}, ["full_flush", "root"]),
        (
            std,
            "5p",
            "sichuan",
            {"self_draw": True, "kong_replacement": "concealed"},
            ["basic_hand", "kong_bloom"],
        ),
        (std, "5p", "sichuan", {"robbed_kong": True}, ["basic_hand", "robbing_kong"]),
        (std, "5p", "sichuan", {"self_draw": True, "heavenly": True}, ["heavenly"]),
        (std, "5p", "sichuan", {"earthly": True}, ["earthly"]),
    ]
    for hand, tile, rules, ctx, want in cases:
        kw = {"self_draw": False, **ctx}
        v = koudian.hand_value(hand, tile, rules=rules, **kw)
        assert [p.code for p in v.patterns] == want, (hand, rules, ctx)


def test_payment_codes_are_the_documented_names() -> None:
    """``Payment.kind`` (docs/api.md) of settled greedy hands."""
    documented = {
        "win",
        "win_covered",
        "kong_giver_pays_bloom",
        "dealer_bonus",
        "kong",
        "kong_covered",
        "chajiao",
        "leave_penalty",
    }
    seen: set[str] = set()
    for preset in ["shanxi", "sichuan"]:
        for seed in range(40):
            agents = [koudian.NativeAgent("greedy", seed) for _ in range(4)]
            g = Game(preset, seed=seed, dealer=seed % 4)
            while not g.done:
                seat = g.to_act
                assert seat is not None
                g.step(agents[seat].act(g.observe(seat)))
            settlement = g.settlement
            assert settlement is not None
            seen |= {p.kind for p in settlement.payments}
    assert {"win", "kong"} <= seen <= documented, seen
