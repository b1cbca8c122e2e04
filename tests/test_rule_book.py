"""docs/rules.md is the project's own, complete rule book (issue #26,
item 17): it defines every option and every value of dealer_rotation,
cites no file a user does not have, and every citation of it in the tree
names one of its sections."""

from __future__ import annotations

import re
from pathlib import Path

import koudian
import pytest

ROOT = Path(__file__).resolve().parent.parent
RULES = ROOT / "docs" / "rules.md"
SOURCES = ["python", "rust/core/src", "rust/core/tests", "rust/python/src", "tests", "examples"]


def _tree() -> list[Path]:
    files = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    for folder in SOURCES:
        for ext in ("*.py", "*.pyi", "*.rs", "*.toml"):
            files += sorted((ROOT / folder).rglob(ext))
    return [f for f in files if f.resolve() != Path(__file__).resolve()]


def _sections() -> set[str]:
    return set(re.findall(r"^## (\d+)\. ", RULES.read_text(encoding="utf-8"), re.M))


def test_no_file_cites_a_rule_book_users_do_not_have() -> None:
    stale = [
        str(f.relative_to(ROOT))
        for f in _tree()
        if re.search(r"(?<![\w/])RULES\.md|shared/RULES", f.read_text(encoding="utf-8"))
    ]
    assert stale == []


def test_every_section_citation_names_a_section_of_the_rule_book() -> None:
    sections = _sections()
    assert {"1", "2", "3", "4", "5", "6", "7"} <= sections
    bad = []
    for f in _tree():
        for m in re.finditer(r"docs/rules\.md §(\d+)(?:-§(\d+))?", f.read_text(encoding="utf-8")):
            for n in m.groups():
                if n is not None and n not in sections:
                    bad.append(f"{f.relative_to(ROOT)}: §{n}")
    assert bad == []


def test_every_option_has_a_row_in_the_options_table() -> None:
    text = RULES.read_text(encoding="utf-8")
    for option in koudian.Ruleset.preset("shanxi").to_dict():
        assert f"| `{option}` |" in text, option


@pytest.mark.parametrize("value", ["winner", "round", "next", "sichuan"])
def test_every_dealer_rotation_value_is_defined(value: str) -> None:
    koudian.Ruleset.preset("linxian", dealer_rotation=value)  # a real value
    text = RULES.read_text(encoding="utf-8")
    table = text.split("### Who deals next")[1].split("###")[0]
    row = next(line for line in table.splitlines() if line.startswith(f"| `{value}`"))
    assert row.count("|") == 6 and "deal" in row  # all four columns filled


def test_every_preset_has_a_row_in_the_presets_table() -> None:
    from koudian._presets import names

    text = RULES.read_text(encoding="utf-8")
    for name in names():
        assert f"| `{name}` |" in text, name


def test_the_rule_book_states_its_own_authority() -> None:
    head = " ".join(RULES.read_text(encoding="utf-8").split("## Presets")[0].split())
    assert "rule book and its authority" in head
