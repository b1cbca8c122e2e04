"""Ranked candidate actions (``koudian.rank_actions``): every legal action
once, best first, the first being what the agent plays."""

from __future__ import annotations

import koudian
import pytest
from preset_names import ALL_PRESETS


def _positions(rules: str, hands: int) -> list[tuple[koudian.Game, int]]:
    """Every decision of a few greedy-against-random hands (the positions
    are copies, so each can be ranked after the hand goes on)."""
    out = []
    for seed in range(hands):
        game = koudian.Game(rules, seed=seed)
        agents = [koudian.NativeAgent("greedy" if s == 0 else "random", seed + s) for s in range(4)]
        while (seat := game.to_act) is not None:
            out.append((game.copy(), seat))
            game.step(agents[seat].act(game.observe(seat)))
    return out


@pytest.mark.parametrize("rules", ALL_PRESETS)
def test_the_first_ranked_action_is_what_greedy_plays(rules: str) -> None:
    checked = 0
    greedy = koudian.NativeAgent("greedy")
    for game, seat in _positions(rules, 6):
        ranked = koudian.rank_actions(game, seat)
        played = greedy.act(game.observe(seat))
        assert ranked[0].action == played
        legal = game.legal_actions(seat)
        assert sorted(r.action.index for r in ranked) == sorted(a.index for a in legal)
        values = [r.value for r in ranked]
        assert values == sorted(values, reverse=True)
        checked += 1
    assert checked > 200


def test_ranked_discards_carry_the_numbers_compared() -> None:
    game = koudian.Game("shanxi", seed=3)
    seat = game.to_act
    assert seat is not None
    ranked = koudian.rank_actions(game, seat, agent="greedy")
    discards = [r for r in ranked if r.action.kind == "discard"]
    assert discards
    assert all("shanten" in r.numbers for r in discards)
    shanten = [r.numbers["shanten"] for r in discards]
    # Wild tiles aside (none in shanxi), discards go by shanten first.
    assert shanten == sorted(shanten)
    text = repr(ranked[0])
    assert text.startswith("RankedAction(") and "\n" not in text
    assert isinstance(ranked[0].value, float)


def test_a_seat_not_to_act_has_no_ranking() -> None:
    game = koudian.Game("sichuan", seed=1)
    seat = game.to_act
    assert seat is not None
    assert koudian.rank_actions(game, (seat + 1) % 4) == []


def test_bad_arguments_are_refused_by_name() -> None:
    game = koudian.Game("shanxi", seed=1)
    # A bad seat is a bad argument (KoudianError, a ValueError), not an
    # illegal move.
    with pytest.raises(koudian.KoudianError, match="seat 7") as bad_seat:
        koudian.rank_actions(game, 7)
    assert not isinstance(bad_seat.value, koudian.IllegalActionError)
    with pytest.raises(koudian.RulesetError, match="clever"):
        koudian.rank_actions(game, 0, agent="clever")
