"""``koudian.arena(..., record=DIR)`` and ``koudian arena --record``: the
recorded arena plays the arena's own hands (the same records as
``arena_native``), and its dataset says which table each hand was played
at, each hand's rows replaying to that table's hand. The Ray backend of
the arena is tested in test_cluster.py, against the tests' cluster."""

from __future__ import annotations

from pathlib import Path

import koudian
import numpy as np
import pytest
from koudian import Action, Game
from koudian.arena.layout import table_entries
from koudian.arena.results import COLUMNS
from koudian.cli import main

pa = pytest.importorskip("pyarrow")

LINEUP = ["random", "greedy", "greedy", "greedy"]


def _rows(d: Path) -> pa.Table:
    t = koudian.dataset.open(d).to_table()
    return t.sort_by([("hand", "ascending"), ("step", "ascending")])


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, koudian.ArenaResult]:
    d = tmp_path_factory.mktemp("arena")
    res = koudian.arena(LINEUP, "shanxi", 24, seed=9, threads=2, record=d, chunk=10)
    return d, res


@pytest.mark.parametrize(
    ("lineup", "fmt", "rules"),
    [
        (LINEUP, "duplicate", "shanxi"),
        (["greedy", "random", "greedy", "greedy"], "duplicate", "linxian"),
        (["greedy", "random", "random", "greedy"], "duplicate", "sichuan"),
        (["greedy", "random", "random", "greedy"], "single", "shanxi"),
    ],
)
def test_the_recorded_arena_plays_the_arenas_own_hands(
    lineup: list[str], fmt: str, rules: str, tmp_path: Path
) -> None:
    want = koudian.arena(lineup, rules, 30, seed=5, threads=1, format=fmt)
    got = koudian.arena(lineup, rules, 30, seed=5, threads=2, format=fmt, record=tmp_path, chunk=7)
    for c in COLUMNS:
        assert got.records[c].dtype == want.records[c].dtype, c
        np.testing.assert_array_equal(got.records[c], want.records[c], err_msg=c)
    assert got.to_json() == want.to_json()


def test_the_recorded_luck_run_plays_each_deal_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The core's recorded arena returns the records with ``adjusted`` and
    # the rows of every table from one play: tables x deals hands.
    agents = ["random", "greedy", "greedy", "greedy"]
    recs, decisions, hands = koudian._core.arena_record(
        "shanxi", agents, 5, seed=3, threads=2, start=2, walls=2, seats=[0, 1, 2, 3]
    )
    assert hands == 5 * 5 and len(decisions) == 5
    want = koudian._core.arena_native("shanxi", agents, 5, seed=3, threads=1, start=2, walls=2)
    for c in COLUMNS:
        np.testing.assert_array_equal(recs[c], want[c], err_msg=c)
    for t, d in enumerate(decisions):
        assert d is not None
        assert set((d["hand"] % 5).tolist()) == {t}
        assert set((d["hand"] // 5).tolist()) == set(range(2, 7))
    # The recorded run never plays the deals again for ``adjusted``.
    from koudian.arena import chunks

    def replayed(*args: object, **kwargs: object) -> None:
        raise AssertionError("the deals were played a second time")

    monkeypatch.setattr(chunks, "arena_native", replayed)
    got = koudian.arena(agents, "shanxi", 2, seed=2, threads=2, record=tmp_path, luck="adjust")
    lone = got.records["adjusted"][(got.records["entry"] == 0) & (got.records["table"] < 4)]
    assert len(lone) == 2 * 4 and not np.isnan(lone).any()


def test_the_dataset_says_which_table_each_hand_was_played_at(
    recorded: tuple[Path, koudian.ArenaResult],
) -> None:
    d, res = recorded
    t = _rows(d)
    layout = table_entries(LINEUP, "duplicate")
    assert len(layout) == 5
    m = koudian.dataset.read_manifest(d)
    assert m["arena"] == {
        "format": "duplicate",
        "deals": 24,
        "tables": layout,
        "hand": "deal * 5 + table",
    }
    assert m["hands"] == res.hands == 24 * 5 and m["agents"] == LINEUP
    assert m["rows"] == t.num_rows
    hand = t.column("hand").to_numpy()
    deal = t.column("deal").to_numpy()
    table = t.column("table").to_numpy()
    seat = t.column("seat").to_numpy()
    np.testing.assert_array_equal(hand, deal * 5 + table)
    assert set(table.tolist()) == {0, 1, 2, 3, 4}
    assert set(deal.tolist()) == set(range(24))
    seeds = t.column("seed").to_numpy()
    assert all(int(s) == koudian.mix_seed(9, int(x)) for s, x in zip(seeds, deal, strict=True))
    agents = t.column("agent").to_pylist()
    assert all(
        a == LINEUP[layout[tb][s]]
        for a, tb, s in zip(agents, table.tolist(), seat.tolist(), strict=True)
    )
    # One shard per table per chunk of 10 deals, named by its first hand.
    names = sorted(p.name for p in d.glob("part-*.parquet"))
    assert names == sorted(
        koudian.dataset.shard_name(s * 5 + tb) for s in (0, 10, 20) for tb in range(5)
    )


def test_a_hands_rows_replay_to_its_tables_records(
    recorded: tuple[Path, koudian.ArenaResult],
) -> None:
    d, res = recorded
    t = _rows(d)
    hand = t.column("hand").to_numpy()
    rec = res.records
    for h in [0, 4, 17, 63, 119]:
        deal, table = divmod(h, 5)
        idx = np.flatnonzero(hand == h)
        g = Game("shanxi", seed=koudian.mix_seed(9, deal), dealer=deal % 4)
        for step, i in enumerate(idx):
            assert int(t.column("step")[i].as_py()) == step
            seat = int(t.column("seat")[i].as_py())
            assert g.to_act == seat
            mask = koudian.dataset.unpack_mask(t.column("mask").take([i]))[0]
            np.testing.assert_array_equal(mask, g.legal_mask(seat))
            g.step(Action.from_index(int(t.column("action")[i].as_py())))
        assert g.done and g.result is not None
        at = (rec["deal"] == deal) & (rec["table"] == table)
        assert rec["delta"][at].tolist() == list(g.result.deltas)
        assert len(idx) == g.moves


def test_every_recorded_action_is_legal_and_seats_are_chosen(tmp_path: Path) -> None:
    koudian.arena(LINEUP, "sichuan", 8, seed=2, threads=1, record=tmp_path, record_seats=[0, 2])
    t = _rows(tmp_path)
    assert set(t.column("seat").to_pylist()) == {0, 2}
    for b in koudian.dataset.iter_batches(tmp_path, batch_size=500):
        assert b["mask"][np.arange(len(b["action"])), b["action"]].all()


def test_record_and_ray_need_builtin_agents(tmp_path: Path) -> None:
    class Mine:
        def act(self, observation: object, legal: list[Action]) -> Action:
            return legal[0]

    lineup: list[object] = [Mine(), "greedy", "greedy", "greedy"]
    with pytest.raises(koudian.KoudianError, match="built-in agents only"):
        koudian.arena(lineup, "shanxi", 2, record=tmp_path)  # type: ignore[arg-type]
    with pytest.raises(koudian.KoudianError, match="built-in agents only"):
        koudian.arena(lineup, "shanxi", 2, backend="ray")  # type: ignore[arg-type]
    with pytest.raises(koudian.KoudianError, match="record_seats"):
        koudian.arena(LINEUP, "shanxi", 2, record=tmp_path, record_seats=[4])
    with pytest.raises(koudian.KoudianError, match="backend"):
        koudian.arena(LINEUP, "shanxi", 2, backend="spark")


def test_the_cli_records_an_arena(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    d = tmp_path / "ds"
    args = ["--deals", "6", "--quiet", "--record", str(d), "--record-seats", "1", "--threads", "1"]
    code = main(["arena", "--agents", ",".join(LINEUP), *args])
    assert code == 0
    assert f"30 hands in {d}" in capsys.readouterr().out
    t = _rows(d)
    assert set(t.column("seat").to_pylist()) == {1}
    assert koudian.dataset.read_manifest(d)["seats"] == [1]


def test_the_arena_help_shows_95_percent_once(capsys: pytest.CaptureFixture[str]) -> None:
    # argparse %-formats help strings but not descriptions: a "%%" there
    # would show as it is.
    with pytest.raises(SystemExit):
        main(["arena", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "Intervals are 95% over deals." in out
    assert "%%" not in out
