"""``koudian._core`` groups its names into submodules by concept, each
importable by its dotted name; every public name is also flat on
``_core`` (the package imports them so); the test and benchmark hooks
live only in ``_core._testing`` and ``_core._bench``; and a ``Game``'s
move count is the core table's own."""

from __future__ import annotations

import importlib
import sys
import types

import koudian
import koudian._core as core
import pytest

CONCEPTS = {
    "errors": ["KoudianError", "InvalidTilesError", "IllegalActionError"],
    "tiles": ["parse", "fmt", "to_counts", "_tile_table"],
    "hands": ["MeldKind", "Meld", "Hand"],
    "rules": ["Ruleset"],
    "shapes": ["is_win", "decompose", "waits", "shanten", "is_win_batch", "Set"],
    "scoring": ["hand_value", "settle", "Pattern", "Payment", "Settlement"],
    "ting": ["discard_options", "can_declare_ting", "may_win"],
    "table": ["Action", "Observation", "Game", "GameResult", "MatchState", "replay", "N_ACTIONS"],
    "agents": ["NativeAgent", "rank_actions", "play_game", "fallback_action"],
    "arena": ["arena_native", "arena_tables", "ArenaLuck"],
    "selfplay": ["simulate_native", "simulate_record", "unpack_obs", "OBS_BYTES"],
    "env": ["VecEnv", "encoding_planes"],
    "positions": ["Hidden", "sample_hidden"],
    "args": ["_check_int"],
}


def test_each_concept_is_a_submodule_in_sys_modules_and_its_names_are_flat_too() -> None:
    for concept, names in CONCEPTS.items():
        sub = getattr(core, concept)
        assert isinstance(sub, types.ModuleType), concept
        assert sys.modules[f"koudian._core.{concept}"] is sub
        assert importlib.import_module(f"koudian._core.{concept}") is sub
        for name in names:
            assert getattr(sub, name) is getattr(core, name), (concept, name)


def test_every_flat_name_lives_in_exactly_one_concept() -> None:
    subs = [getattr(core, c) for c in CONCEPTS]
    flat = [
        n
        for n in dir(core)
        if not n.startswith("__") and not isinstance(getattr(core, n), types.ModuleType)
    ]
    for name in flat:
        homes = [s.__name__ for s in subs if name in vars(s)]
        assert len(homes) == 1, (name, homes)


def test_test_and_bench_hooks_are_off_the_flat_surface() -> None:
    for hook in ["simulate_logs", "_time_batch", "time_batch"]:
        assert not hasattr(core, hook), hook
    from koudian._core._bench import time_batch
    from koudian._core._testing import simulate_logs

    assert sys.modules["koudian._core._testing"] is core._testing
    assert sys.modules["koudian._core._bench"] is core._bench
    assert len(simulate_logs("shanxi", ["random"] * 4, 2, seed=1)) == 2
    assert callable(time_batch)


def test_the_move_count_is_the_tables_and_a_replay_has_it_too() -> None:
    g = koudian.Game("linxian", seed=5)
    assert g.moves == 0
    o = g.observe(0)
    while not g.done:
        g.step(g.legal_actions()[0])
    assert g.moves > 0
    assert g.copy().moves == g.moves
    assert koudian.replay(g.log).moves == g.moves
    # The observation taken before the first move is stale now.
    with pytest.raises(koudian.IllegalActionError, match="stale"):
        koudian.NativeAgent("greedy").act(o)
    left = koudian.Game("linxian", seed=5)
    left.leave(2)
    assert left.moves == 1
