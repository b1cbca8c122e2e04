"""The ruleset options as a room's creator sees them: labelled controls.

The home page (``/``) shows each preset's options as checkboxes, choice
lists and number fields with their Chinese names (带庄, 点杠包杠, 不带风 …),
not as a JSON box. Everything here is read from the engine, so that a rule
is described once, where it is played:

* the option names, in docs/rules.md order, and their documentation:
  ``Ruleset.options()`` (the same text the presets' TOML files carry as
  comments); the Chinese term is the one that documentation names: its
  leading term (``不带风: play with 108 tiles``, ``七小对 is a winning
  shape``) or a term in parentheses (``wildcards (耗子)``); an option
  whose documentation names none has no Chinese label (``zh`` is None and
  the page shows its English label);
* the preset's title: the first comment line of its TOML file
  (``# Preset "shanxi": 山西扣点点 (docs/rules.md §3), no wildcard.``);
* each option's default: the preset's value; its kind: the value's type;
* the choices of a choice option: the quoted values its documentation
  lists, kept where the engine accepts them for the preset;
* an integer's bounds: the range the engine's validation accepts for the
  preset (found by bisection: its bounds are written once, in the core);
* what a value needs (``requires``): e.g. 带庄 (``dealer_bonus``) is only
  valid with ``dealer_rotation = "round"`` (docs/rules.md: it ties 带庄 to
  一圈); the other option values that make the engine accept it, found by
  asking the engine, so that the page can set them with it.

``options_info()`` is what ``/api/info`` sends under ``"options"``.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any

from koudian import Ruleset
from koudian._core import KoudianError
from koudian._presets import PRESETS_DIR
from koudian._presets import names as preset_names

__all__ = ["chinese_term", "options_info", "preset_controls", "preset_title"]

# The option every preset fixes by its name: the preset is the game.
_FIXED = ("family",)
# CJK ideographs and the enumeration comma of 清一色、一条龙.
_CJK = "\u3400-\u4dbf\u4e00-\u9fff\u3001"
_LEADING = re.compile(rf"^([{_CJK}]+)(?=[:\s]|$)")
_PAREN = re.compile(rf"\(([{_CJK}]+)\)")
_QUOTED = re.compile(r'"([a-z_]+)"')
_SEARCH_SPAN = 1 << 31  # integers are searched inside ±2**31


def chinese_term(doc: str) -> str | None:
    """The Chinese term an option's documentation names, or None."""
    m = _LEADING.match(doc) or _PAREN.search(doc)
    return m.group(1) if m else None


def preset_title(preset: str) -> str:
    """The preset's title, from its TOML file's first comment line, without
    the rule book's section reference."""
    with open(f"{PRESETS_DIR}/{preset}.toml", encoding="utf-8") as f:
        first = f.readline().strip()
    m = re.match(r'#\s*Preset\s+"[^"]+":\s*(.*)$', first)
    title = m.group(1) if m else preset
    title = re.sub(r"\s*\(docs/rules\.md[^)]*\)", "", title).rstrip(".").strip()
    return title


def _valid(preset: str, changes: dict[str, Any]) -> str | None:
    """None when the engine accepts ``preset`` with ``changes``, else its error."""
    try:
        Ruleset.preset(preset, **changes)
    except KoudianError as e:
        return str(e)
    return None


def _int_bound(preset: str, name: str, start: int, step: int, wrap: Any) -> int:
    """The last integer from ``start`` in direction ``step`` the engine
    accepts for option ``name`` (``wrap`` turns the integer into the
    option's value). Bisection: the valid values are one range."""
    good, bad = start, start + step * _SEARCH_SPAN
    while abs(bad - good) > 1:
        mid = (good + bad) // 2
        if _valid(preset, {name: wrap(mid)}) is None:
            good = mid
        else:
            bad = mid
    return good


def _candidates(defaults: dict[str, Any], docs: dict[str, str]) -> list[tuple[str, Any]]:
    """Single changes the engine might need with another: every other value
    of every bool and choice option."""
    out: list[tuple[str, Any]] = []
    for name, value in defaults.items():
        if name in _FIXED:
            continue
        if isinstance(value, bool):
            out.append((name, not value))
        elif isinstance(value, str):
            out.extend((name, c) for c in _QUOTED.findall(docs[name]) if c != value)
    return out


def _requires(
    preset: str, name: str, value: Any, cands: list[tuple[str, Any]], depth: int = 3
) -> dict[str, Any] | None:
    """The other option values that make ``name = value`` valid for the
    preset: {} when it is valid alone; None when no chain of up to
    ``depth`` changes is found. Each step keeps a change that moves the
    engine's error on (a new message), as 自摸庄分翻倍 needs 带庄, which
    needs dealer_rotation = "round"."""
    changes: dict[str, Any] = {name: value}
    err = _valid(preset, changes)
    for _ in range(depth):
        if err is None:
            del changes[name]
            return changes
        step = None
        for other, v in cands:
            if other == name or other in changes:
                continue
            e = _valid(preset, {**changes, other: v})
            if e is None:
                step, err = (other, v), None
                break
            if step is None and e != err:
                step = (other, v)
        if step is None:
            return None
        changes[step[0]] = step[1]
        if err is not None:
            err = _valid(preset, changes)
    if err is None:
        del changes[name]
        return changes
    return None


@cache
def preset_controls(preset: str) -> list[dict[str, Any]]:
    """The controls of one preset's options, in docs/rules.md order: each
    ``{"name", "zh", "en", "doc", "kind", "default", ...}`` where ``kind``
    is ``"bool"``, ``"choice"`` (with ``"choices"``), ``"int"`` (with
    ``"min"``, ``"max"``) or ``"int_pair"`` (with ``"min"``, ``"max"``:
    two-element lists); ``"requires"`` maps a value (as JSON text:
    ``"true"``, ``"\\"round\\""``) to the other options it needs;
    ``"fixed"`` is true when the preset allows no other value."""
    import json

    defaults = Ruleset.preset(preset).to_dict()
    docs = dict(Ruleset.options())
    cands = _candidates(defaults, docs)
    out: list[dict[str, Any]] = []
    for name, doc in Ruleset.options():
        if name in _FIXED:
            continue
        value: Any = defaults[name]
        zh = chinese_term(doc)
        c: dict[str, Any] = {"name": name, "zh": zh, "en": name.replace("_", " "), "doc": doc}
        others: list[Any] = []
        if isinstance(value, bool):
            c["kind"] = "bool"
            others = [not value]
        elif isinstance(value, str):
            choices = _QUOTED.findall(doc)
            if value not in choices:
                raise KoudianError(f"option {name}: its documentation lists no {value!r}")
            c["kind"] = "choice"
            others = [v for v in choices if v != value]
        elif isinstance(value, int):
            c["kind"] = "int"
            c["min"] = _int_bound(preset, name, value, -1, lambda v: v)
            c["max"] = _int_bound(preset, name, value, 1, lambda v: v)
        elif isinstance(value, (tuple, list)) and len(value) == 2:
            c["kind"] = "int_pair"
            a, b = int(value[0]), int(value[1])
            first = lambda v, b=b: [v, b]  # noqa: E731
            second = lambda v, a=a: [a, v]  # noqa: E731
            c["min"] = [
                _int_bound(preset, name, a, -1, first),
                _int_bound(preset, name, b, -1, second),
            ]
            c["max"] = [
                _int_bound(preset, name, a, 1, first),
                _int_bound(preset, name, b, 1, second),
            ]
            value = [a, b]
        else:  # a new kind of option: the page must learn it first
            raise KoudianError(f"option {name}: no control for {value!r}")
        c["default"] = value
        requires: dict[str, dict[str, Any]] = {}
        allowed: list[Any] = [value]
        for v in others:
            need = _requires(preset, name, v, cands)
            if need is None:
                continue
            allowed.append(v)
            if need:
                requires[json.dumps(v, allow_nan=False)] = need
        if c["kind"] == "choice":
            c["choices"] = [v for v in _QUOTED.findall(doc) if v in allowed]
        c["requires"] = requires
        c["fixed"] = c["kind"] in ("bool", "choice") and len(allowed) == 1
        out.append(c)
    return out


@cache
def options_info() -> dict[str, Any]:
    """``/api/info``'s ``"options"``: per preset, its title and controls."""
    return {p: {"title": preset_title(p), "controls": preset_controls(p)} for p in preset_names()}
