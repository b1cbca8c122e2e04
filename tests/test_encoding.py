"""The observation encodings (koudian.env documents them plane by plane):
version 2 rebuilt from public fields only, on positions of every family,
and the uint8 / float32 forms of one encoding agree."""

from __future__ import annotations

import random

import koudian
import koudian.game
import numpy as np
import pytest
from koudian import Game, KoudianError
from test_game import PRESETS, eager_choice, reference_planes


def reference_v2(o: koudian.Observation) -> np.ndarray:
    """Version 2 from the documented table, deliberately plain."""
    p = np.zeros((66, 34), np.int64)
    p[:29] = reference_planes(o)  # version 1's planes, but 24
    p[24] = o.live_remaining
    rel = lambda s: (s - o.seat) % 4  # noqa: E731
    for melds in o.melds:
        for m in melds:
            if m.tile is not None and m.from_seat is not None:
                p[30 + rel(m.from_seat), m.tile] = 1
    for s in range(4):
        p[34 + rel(s)] = o.concealed_count[s]
        p[38 + rel(s)] = min(max(128 + o.scores[s], 0), 255)
    for t in o.locked_kinds:
        p[29, t] = 1
    for s in range(4):
        mine = [d for d in o.discards if d.seat == s][::-1][:6]
        for j, d in enumerate(mine):
            if d.tile is not None:
                p[42 + 6 * rel(s) + j, d.tile] = 2 if d.claimed else 3 if d.face_down else 1
    return p


def declining_choice(g: Game, rng: random.Random) -> koudian.Action:
    """``eager_choice``, but passes half the wins on a discard (so that
    过胡 locks happen)."""
    legal = g.legal_actions()
    kinds = {a.kind for a in legal}
    if {"win", "pass"} <= kinds and rng.random() < 0.5:
        return koudian.Action("pass")
    return eager_choice(g, rng)


@pytest.mark.parametrize("preset", [*PRESETS, "shanxi-tile-lock"])
def test_version_2_is_the_documented_layout(preset: str) -> None:
    rules = (
        koudian.Ruleset.preset("shanxi", pass_scope="tile")
        if preset == "shanxi-tile-lock"
        else koudian.Ruleset.preset(preset)
    )
    rng = random.Random(5)
    seen_claimed = seen_locked = 0
    for seed in range(8):
        g = Game(rules, seed=seed)
        g.set_scores([rng.randrange(-300, 300) for _ in range(4)])
        while not g.done:
            for s in range(4):
                o = g.observe(s)
                u8 = o.planes(2, "uint8")
                f32 = o.planes(version=2, dtype="float32")
                assert u8.dtype == np.uint8 and f32.dtype == np.float32
                assert u8.shape == (koudian.encoding_planes(2), 34)
                assert np.array_equal(u8, reference_v2(o))
                assert np.array_equal(f32, u8.astype(np.float32))
                seen_claimed += int((u8[42:] == 2).sum())
                seen_locked += int(u8[29].sum())
            g.step(declining_choice(g, rng))
    assert seen_claimed > 0
    if preset == "shanxi-tile-lock":
        assert seen_locked > 0


def test_version_1_stays_the_default_and_is_float32_only() -> None:
    o = Game("shanxi", seed=3).observe(0)
    assert koudian.ENCODING_VERSION == 2
    assert koudian.encoding_planes(1) == koudian.game.N_PLANES == 29
    assert np.array_equal(o.planes(), o.planes(1, "float32"))
    assert o.planes().shape == (29, 34)
    with pytest.raises(KoudianError, match="float32 only"):
        o.planes(1, "uint8")
    with pytest.raises(KoudianError, match="version 7"):
        o.planes(7)
    with pytest.raises(KoudianError, match="int16"):
        o.planes(2, "int16")
    with pytest.raises(KoudianError, match="version 0"):
        koudian.encoding_planes(0)


def test_pettingzoo_env_takes_the_encoding() -> None:
    pytest.importorskip("pettingzoo")
    from koudian.env import KoudianEnv

    env = KoudianEnv("shanxi", encoding=2)
    env.reset(seed=4)
    obs = env.observe(env.agent_selection)["observation"]
    assert obs.shape == (66, 34) and obs.dtype == np.float32
    seat = int(env.agent_selection[7:])
    assert np.array_equal(obs, env.game.observe(seat).planes(2))
    assert env.observation_space(env.agent_selection)["observation"].contains(obs)


@pytest.mark.parametrize("preset", PRESETS)
def test_version_3_is_version_2_and_the_look_ahead_planes(preset: str) -> None:
    """Version 3 (written from the table): version 2's planes, then the
    look-ahead planes: the unseen copies of every kind (4 less what the
    seat can see, 0 for kinds not in play), the decision flag, a level
    (shanten + 1, never 0) on exactly the legal face-up discards held and
    nothing else while answering; the vectorized environment writes the
    same rows; a moved-on observation is refused version 3."""
    rng = random.Random(preset)
    seen_pong = False
    for seed in range(4):
        g = Game(preset, seed=seed)
        while not g.done:
            for seat in range(4):
                o = g.observe(seat)
                p3 = o.planes(3, "uint8")
                assert p3.shape == (79, 34) and koudian.encoding_planes(3) == 79
                assert np.array_equal(p3[:66], o.planes(2, "uint8"))
                la = p3[66:]
                legal = o.legal_actions
                assert (la[10] == (1 if legal else 0)).all()
                discards = {
                    int(a.tile) for a in legal if a.kind == "discard" and a.tile is not None
                }
                wild = {int(t) for t in o.wilds}
                for k in range(34):
                    if k not in discards:
                        assert la[0, k] == 0, (seat, k)
                    elif k not in wild:
                        assert la[0, k] > 0, (seat, k)
                if o.pending == "discard":
                    assert (la[0] == 0).all()
                    pong = any(a.kind == "pong" for a in legal)
                    assert (la[7] > 0).all() if pong else (la[7] == 0).all()
                    seen_pong |= pong
                if not legal:
                    assert (la[:9] == 0).all()
                assert (la[9].astype(int) <= 4 - o.visible_counts.astype(int)).all()
            g.step(eager_choice(g, rng))
        stale = g.observe(0)
        assert stale.planes(3).shape == (79, 34)
    g = Game(preset, seed=9)
    o = g.observe(g.to_act)
    g.step(g.legal_actions()[0])
    with pytest.raises(KoudianError, match="moved on"):
        o.planes(3)
    assert seen_pong or preset.endswith("haozi")
