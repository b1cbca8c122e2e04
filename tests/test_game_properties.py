"""Property tests (hypothesis) of the table from Python: for any seed and
any sequence of choices, every tile is accounted for after every step, an
illegal action changes nothing, settlements are zero-sum, and the log
replays to the same bytes."""

from __future__ import annotations

import koudian
from hypothesis import given, settings
from hypothesis import strategies as st
from koudian import Game, IllegalActionError
from preset_names import ALL_PRESETS

PRESETS = ALL_PRESETS


@settings(max_examples=40, deadline=None)
@given(
    preset=st.sampled_from(PRESETS),
    seed=st.integers(0, 2**64 - 1),
    choices=st.lists(st.integers(0, 2**16), min_size=1, max_size=400),
    probe=st.integers(0, 140),
)
def test_any_play_keeps_tiles_refuses_illegal_and_replays(
    preset: str, seed: int, choices: list[int], probe: int
) -> None:
    g = Game(preset, seed=seed)
    in_play = 27 if g.rules.get("no_honors") else 34
    for c in choices:
        if g.done:
            break
        census = g.tile_census()
        assert (census[:in_play] == 4).all() and (census[in_play:] == 0).all()
        legal = g.legal_actions()
        assert legal, "a seat to act always has a legal action"
        if probe not in {a.index for a in legal}:
            before = (g.log, g.to_act, g.moves)
            try:
                g.step(probe)
            except IllegalActionError:
                pass
            else:
                raise AssertionError("an illegal action was accepted")
            assert (g.log, g.to_act, g.moves) == before
        g.step(legal[c % len(legal)])
    if g.done:
        r = g.result
        assert r is not None and sum(r.deltas) == 0
    assert koudian.replay(g.log).log == g.log
