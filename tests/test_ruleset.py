"""Rulesets: every docs/rules.md option in every preset file, validation
errors, TOML round trips, and `rules=` accepting a name or a Ruleset."""

from __future__ import annotations

import pickle
import re
import sys
from pathlib import Path

import koudian
import pytest
from koudian import Ruleset, RulesetError
from preset_names import ALL_PRESETS

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

PRESETS = ALL_PRESETS
PRESET_DIR = Path(koudian.__file__).with_name("presets")


def test_every_preset_ships_as_toml() -> None:
    assert sorted(p.stem for p in PRESET_DIR.glob("*.toml")) == sorted(PRESETS)


@pytest.mark.parametrize("name", PRESETS)
def test_preset_file_holds_every_option_with_its_value(name: str) -> None:
    data = tomllib.loads((PRESET_DIR / f"{name}.toml").read_text(encoding="utf-8"))
    assert list(data) == [n for n, _ in Ruleset.options()]
    r = Ruleset.preset(name)
    for key, value in data.items():
        got = r.get(key)
        assert (list(got) if isinstance(got, tuple) else got) == value, key


#: Every option docs/rules.md names (in `code font`), in the order it names them.
DOCUMENTED_OPTIONS = [
    "seven_pairs", "thirteen_orphans", "wind_sets", "no_honors", "wall_reserve",
    "haozi_pick", "kong_keeps_waits", "point_rule", "pass_scope", "must_win",
    "kong_after_pong", "kong_giver_pays", "discarder_pays_kongs", "kongs_need_win",
    "dealer_bonus", "dealer_self_draw_double", "special_hands", "dealer_rotation",
    "leave_penalty", "chajiao", "kong_payments",
]  # fmt: skip


@pytest.mark.parametrize("name", PRESETS)
def test_every_documented_option_is_in_every_preset_file(name: str) -> None:
    data = tomllib.loads((PRESET_DIR / f"{name}.toml").read_text(encoding="utf-8"))
    options = {n for n, _ in Ruleset.options()}
    for option in DOCUMENTED_OPTIONS:
        assert option in options and option in data, option


def test_presets_match_the_rule_book() -> None:
    sx = Ruleset.preset("shanxi")
    assert (sx.family, sx.haozi, sx.seven_pairs, sx.thirteen_orphans, sx.wind_sets) == (
        "shanxi",
        "none",
        True,
        True,
        False,
    )
    assert sx.wall_reserve == (0, 0) and sx.point_rule == "standard" and sx.pass_scope == "hand"
    assert not (sx.no_honors or sx.must_win or sx.kong_after_pong or sx.special_hands)
    assert sx.kongs_need_win and sx.ting_min_points == 6
    assert Ruleset.preset("shanxi-haozi").haozi == "single"
    assert Ruleset.preset("shanxi-feng-haozi").haozi == "feng"
    assert Ruleset.preset("shanxi-double-haozi").haozi == "double"
    assert [Ruleset.preset(p).wild_kinds for p in PRESETS] == [0, 1, 1, 2, 0, 0]
    lx = Ruleset.preset("linxian")
    assert not lx.seven_pairs and not lx.thirteen_orphans and lx.wall_reserve == (12, 2)
    assert lx.ting_min_points == 3 and lx.leave_penalty == 10
    sc = Ruleset.preset("sichuan")
    assert sc.no_honors and sc.seven_pairs and not sc.thirteen_orphans and not sc.ting_required
    assert sc.tile_total == 108 and sc.chajiao == "min" and not sc.kong_payments


def test_preset_overrides_and_replace() -> None:
    r = Ruleset.preset("shanxi", special_hands=True, wind_sets=True)
    assert r.special_hands and r.wind_sets
    assert r.replace(special_hands=False) == Ruleset.preset("shanxi", wind_sets=True)
    assert Ruleset(family="linxian") == Ruleset.preset("linxian")
    assert Ruleset() == Ruleset.preset("shanxi")
    assert repr(r) == 'Ruleset(family="shanxi", wind_sets=True, special_hands=True)'


def test_unknown_option_suggests_the_closest_name() -> None:
    with pytest.raises(
        RulesetError, match=r'unknown ruleset option "speshal_hands".*"special_hands"'
    ):
        Ruleset.preset("shanxi", speshal_hands=True)
    with pytest.raises(AttributeError, match="special_hands"):
        _ = Ruleset().speshal_hands


def test_unknown_preset_suggests_the_closest_name() -> None:
    with pytest.raises(RulesetError, match="did you mean 'shanxi-haozi'"):
        Ruleset.preset("shanxi-haoz")
    with pytest.raises(RulesetError, match="unknown preset"):
        koudian.is_win("123m456p789s11122z", rules="mahjong")


@pytest.mark.parametrize(
    ("options", "needle"),
    [
        ({"seven_pairs": 1}, "takes a boolean, got integer 1"),
        ({"base_stake": True}, "takes an integer"),
        ({"haozi": "triple"}, 'must be one of "none", "single", "feng", "double"'),
        ({"point_rule": "strikt"}, 'did you mean "strict"'),
        ({"wall_reserve": (1, 2, 3)}, "unsupported value"),
        ({"ting_min_points": 11}, "0-10"),
        ({"base_stake": 0}, "at least 1"),
        ({"leave_penalty": -1}, "non-negative"),
    ],
)
def test_wrong_option_type_or_value(options: dict[str, object], needle: str) -> None:
    with pytest.raises(RulesetError, match=needle):
        Ruleset.preset("shanxi", **options)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("name", "options", "needle"),
    [
        ("shanxi-feng-haozi", {"no_honors": True, "thirteen_orphans": False}, "no_honors"),
        ("shanxi", {"dealer_self_draw_double": True}, "requires dealer_bonus"),
        ("shanxi", {"dealer_bonus": True}, 'dealer_rotation = "round"'),
        ("shanxi", {"no_honors": True, "thirteen_orphans": True}, "thirteen_orphans"),
        ("shanxi", {"no_honors": True, "wind_sets": True}, "wind_sets"),
        ("shanxi-feng-haozi", {"no_honors": True}, "feng"),
        ("linxian", {"haozi": "single"}, "only in the shanxi family"),
        ("sichuan", {"ting_required": True}, "no ting declaration"),
    ],
)
def test_incompatible_options_are_refused(
    name: str, options: dict[str, object], needle: str
) -> None:
    with pytest.raises(RulesetError, match=needle):
        Ruleset.preset(name, **options)  # type: ignore[arg-type]


@pytest.mark.parametrize("name", ["shanxi", "shanxi-haozi", "shanxi-double-haozi"])
def test_no_honors_alone_is_the_108_tile_shanxi_game(name: str) -> None:
    """docs/rules.md §3: "136 tiles, or 108 with `no_honors` (不带风, default off;
    not allowed together with `shanxi-feng-haozi`)". Setting it alone turns
    off the shapes that need honors (十三幺, 风嘴子) instead of refusing."""
    r = Ruleset.preset(name, no_honors=True)
    assert r.no_honors and not r.thirteen_orphans and not r.wind_sets
    g = koudian.Game(r, seed=3)
    assert g.wall_remaining == 108 - 14 - 3 * 13
    assert all(not t.is_honor for s in range(4) for t in g.hand(s).tiles)


def test_dealer_bonus_with_round_rotation_is_valid() -> None:
    r = Ruleset.preset(
        "shanxi", dealer_bonus=True, dealer_rotation="round", dealer_self_draw_double=True
    )
    assert r.dealer_self_draw_double


@pytest.mark.parametrize("name", PRESETS)
def test_toml_round_trip(name: str, tmp_path: Path) -> None:
    r = Ruleset.preset(name, base_stake=5)
    text = r.to_toml()
    assert tomllib.loads(text)["base_stake"] == 5
    path = tmp_path / "r.toml"
    path.write_text(text, encoding="utf-8")
    assert Ruleset.from_toml(path) == r
    assert Ruleset.from_toml(str(path)) == r
    assert Ruleset.from_dict(r.to_dict()) == r
    assert pickle.loads(pickle.dumps(r)) == r
    assert hash(Ruleset.preset(name, base_stake=5)) == hash(r)


def test_bad_toml_is_a_ruleset_error(tmp_path: Path) -> None:
    path = tmp_path / "bad.toml"
    path.write_text("seven_pairs = yes\n", encoding="utf-8")
    with pytest.raises(RulesetError, match="invalid TOML"):
        Ruleset.from_toml(path)


def test_a_missing_toml_file_is_named_in_the_error(tmp_path: Path) -> None:
    path = tmp_path / "nonexist.toml"
    with pytest.raises(FileNotFoundError, match=r"nonexist\.toml") as e:
        Ruleset.from_toml(path)
    assert e.value.filename == str(path)
    assert str(e.value) == f"[Errno 2] No such file or directory: {str(path)!r}"
    with pytest.raises(IsADirectoryError, match=re.escape(str(tmp_path))):
        Ruleset.from_toml(tmp_path)


def test_the_cli_names_a_missing_rules_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from koudian.cli import main

    path = tmp_path / "nonexist.toml"
    assert main(["simulate", "--rules", str(path), "--hands", "1"]) == 2
    assert f"No such file or directory: {str(path)!r}" in capsys.readouterr().err


def test_rules_argument_accepts_a_name_or_a_ruleset() -> None:
    pairs_with_quad = "11115588m2299p55z"
    assert koudian.is_win(pairs_with_quad, rules="shanxi")
    assert koudian.is_win(pairs_with_quad, rules=Ruleset.preset("shanxi"))
    assert not koudian.is_win("11223344556677z", rules="linxian")
    assert not koudian.is_win("11223344556677z", rules=Ruleset.preset("shanxi", seven_pairs=False))
    with pytest.raises(RulesetError, match="preset name or a Ruleset"):
        koudian.is_win(pairs_with_quad, rules=3)  # type: ignore[arg-type]
