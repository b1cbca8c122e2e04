"""Issue 38: a room's creator sets the ruleset's options with labelled
controls (their Chinese names), which koudian.web.room_options reads from
the engine: every value a control offers is one the engine accepts, and
the bounds are the engine's."""

from __future__ import annotations

import json
import re
import urllib.request
from typing import Any

import pytest
from koudian import Ruleset
from koudian._core import KoudianError
from koudian._presets import PRESETS_DIR
from koudian._presets import names as preset_names
from koudian.web.room_options import chinese_term, options_info, preset_controls, preset_title


def _valid(preset: str, **changes: Any) -> bool:
    try:
        Ruleset.preset(preset, **changes)
    except KoudianError:
        return False
    return True


def _by_name(preset: str) -> dict[str, dict[str, Any]]:
    return {c["name"]: c for c in preset_controls(preset)}


def test_the_shanxi_room_options_carry_their_chinese_names() -> None:
    # The terms of the Shanxi rule text's room options.
    c = _by_name("shanxi")
    assert c["dealer_bonus"]["zh"] == "带庄"
    assert c["kong_giver_pays"]["zh"] == "点杠包杠"
    assert c["no_honors"]["zh"] == "不带风"
    assert c["haozi"]["zh"] == "耗子"  # a term in parentheses
    assert c["ting_required"]["zh"] == "报听"
    assert c["seven_pairs"]["zh"] == "七小对"  # a leading term without a colon
    # "after 碰, ..." names no term for the option itself
    assert c["kong_after_pong"]["zh"] is None
    assert chinese_term("after 碰, the 4th tile") is None
    assert c["dealer_bonus"]["en"] == "dealer bonus"


@pytest.mark.parametrize("preset", preset_names())
def test_controls_are_every_option_but_the_family_with_the_presets_defaults(preset: str) -> None:
    controls = preset_controls(preset)
    names = [name for name, _ in Ruleset.options() if name != "family"]
    assert [c["name"] for c in controls] == names
    values = Ruleset.preset(preset).to_dict()
    docs = dict(Ruleset.options())
    for c in controls:
        default = values[c["name"]]
        assert c["default"] == (list(default) if isinstance(default, tuple) else default)
        assert c["doc"] == docs[c["name"]]
        kind = {bool: "bool", str: "choice", int: "int", tuple: "int_pair"}[type(default)]
        assert c["kind"] == kind, c


@pytest.mark.parametrize("preset", preset_names())
def test_every_value_a_control_offers_is_accepted_and_its_bounds_are_the_engines(
    preset: str,
) -> None:
    for c in preset_controls(preset):
        name = c["name"]
        offered: list[Any] = []
        if c["kind"] == "bool":
            offered = [c["default"]] if c["fixed"] else [True, False]
        elif c["kind"] == "choice":
            offered = c["choices"]
            assert c["default"] in offered
            # A value the documentation lists but the control leaves out is
            # one the engine refuses for this preset, whatever goes with it.
            left = set(re.findall(r'"([a-z_]+)"', c["doc"])) - set(offered)
            for v in left:
                assert not _valid(preset, **{name: v}), (name, v)
        elif c["kind"] == "int":
            offered = [c["min"], c["max"], c["default"]]
            assert not _valid(preset, **{name: c["min"] - 1}), name
            assert not _valid(preset, **{name: c["max"] + 1}), name
        else:
            a, b = c["default"]
            offered = [[c["min"][0], b], [c["max"][0], b], [a, c["min"][1]], [a, c["max"][1]]]
            assert not _valid(preset, **{name: [c["max"][0] + 1, b]})
            assert not _valid(preset, **{name: [a, c["max"][1] + 1]})
        for v in offered:
            need = c["requires"].get(json.dumps(v), {})
            assert _valid(preset, **{name: v, **need}), (preset, name, v, need)
            if need:  # it needs them: alone it is refused
                assert not _valid(preset, **{name: v}), (preset, name, v)


def test_dai_zhuang_brings_the_dealer_rule_it_needs() -> None:
    c = _by_name("shanxi")
    assert c["dealer_bonus"]["requires"] == {"true": {"dealer_rotation": "round"}}
    need = c["dealer_self_draw_double"]["requires"]["true"]
    assert need == {"dealer_bonus": True, "dealer_rotation": "round"}
    assert not c["dealer_bonus"]["fixed"]


def test_a_preset_fixes_what_its_game_does_not_allow() -> None:
    # Sichuan is a 108-tile game without 报听 nor wildcards.
    c = _by_name("sichuan")
    assert c["no_honors"]["fixed"] and c["ting_required"]["fixed"]
    assert c["haozi"]["fixed"] and c["haozi"]["choices"] == ["none"]
    assert not _by_name("shanxi")["haozi"]["fixed"]


def test_labels_and_titles_are_the_preset_files_own_words() -> None:
    for preset in preset_names():
        with open(f"{PRESETS_DIR}/{preset}.toml", encoding="utf-8") as f:
            text = f.read()
        title = preset_title(preset)
        assert title and "docs/rules.md" not in title
        first_words = re.split(r"[ ,(]", title)[0]
        assert first_words in text.splitlines()[0]
        for c in preset_controls(preset):
            # Each label is in the comment above the option in the file.
            block = re.search(rf"((?:# [^\n]*\n)+){c['name']} =", text)
            assert block is not None, c["name"]
            comment = " ".join(line[2:] for line in block.group(1).splitlines())
            assert c["doc"] in comment, (preset, c["name"])
            if c["zh"] is not None:
                assert c["zh"] in c["doc"]
    assert preset_title("shanxi").startswith("山西扣点点")


def test_the_info_route_serves_the_options() -> None:
    from web_support import live_server

    with live_server(log_path=None) as (base, _):
        with urllib.request.urlopen(base + "/api/info", timeout=30) as r:
            info = json.loads(r.read())
    assert set(info["options"]) == set(preset_names())
    assert info["options"] == json.loads(json.dumps(options_info()))
