"""Every figure the README quotes is in docs/performance.md with its method
(issue 39: "keep each figure next to the command that produces it").

The README's Performance table is parsed row by row: each row names a row
of a table in docs/performance.md by its first cell, every number of its
figure cell must be in that row's figure cell, and that row (or the row
above it that it refers to with "same run") gives a command. The figures
quoted in the README's prose (the first install's time, `target/`, the
Rust test build) are found by their sentence and must be in the row of
docs/performance.md named here. So editing a figure in the README alone,
or deleting the sentence that quotes it, fails. The wheel figure must also
be within the budget scripts/budgets.py checks, and both documents must
quote that budget.
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
PERF = (ROOT / "docs" / "performance.md").read_text(encoding="utf-8")

_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")

# README prose figure -> (the sentence that quotes it, the row of
# docs/performance.md that holds it). The pattern's group is the figure.
PROSE = {
    "first install": (
        r"The first install compiles the Rust core for about (\w+ minutes)",
        "the README's first command (install + main job), fresh clone and virtual environment",
    ),
    "target size": (
        r"build into the checkout's `target/` \(about ([\d.]+ GB) after both commands",
        "`target/` after the README's two commands",
    ),
    "test build": (
        r"the lint and Rust test builds from scratch cost about ([\d.]+ CPU-minutes)",
        "the lint and Rust test builds of `scripts/test.sh` from an empty `target/`",
    ),
}


def _tables(text: str) -> list[list[list[str]]]:
    """Every Markdown table: its body rows (header and rule dropped) as cells."""
    tables: list[list[list[str]]] = []
    current: list[list[str]] = []
    for line in [*text.splitlines(), ""]:
        if line.startswith("|"):
            current.append([c.strip() for c in line.strip().strip("|").split("|")])
        elif current:
            tables.append(current[2:])
            current = []
    return tables


def _section(text: str, heading: str) -> str:
    return text.split(heading, 1)[1].split("\n## ", 1)[0]


def _readme_rows() -> list[list[str]]:
    (table,) = _tables(_section(README, "## Performance"))
    return table


def _perf_rows() -> dict[str, tuple[list[str], str]]:
    """docs/performance.md's rows by their first cell: (cells, the command
    of the method, inherited from the row above when it says "same")."""
    rows: dict[str, tuple[list[str], str]] = {}
    for table in _tables(PERF):
        if not table or len(table[0]) != 4:
            continue  # what | method | figure | target tables only
        command = ""
        for cells in table:
            what, method = cells[0], cells[1]
            assert method, f"{what}: no method"
            if "`" in method:
                command = method
            elif not re.search(r"\bsame\b|\bas above\b", method):
                command = ""
            rows[what] = (cells, command)
    return rows


def _numbers(cell: str) -> set[str]:
    return set(_NUMBER.findall(cell))


def _budgets() -> ModuleType:
    spec = importlib.util.spec_from_file_location("budgets", ROOT / "scripts" / "budgets.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_readme_performance_table_is_parsed() -> None:
    rows = _readme_rows()
    assert len(rows) >= 10 and all(len(r) == 3 for r in rows)
    assert any(r[0] == "wheel size" for r in rows)


@pytest.mark.parametrize("row", _readme_rows(), ids=lambda r: r[0][:40])
def test_each_readme_figure_is_in_performance_md_with_its_method(row: list[str]) -> None:
    what, figure, _target = row
    perf = _perf_rows()
    assert what in perf, f"README row {what!r} has no row in docs/performance.md"
    cells, command = perf[what]
    assert command, f"{what}: docs/performance.md gives no command for it"
    missing = _numbers(figure) - _numbers(cells[2])
    assert not missing, f"{what}: README figures {sorted(missing)} not in docs/performance.md"


@pytest.mark.parametrize("name", sorted(PROSE))
def test_each_readme_prose_figure_is_in_performance_md_with_its_method(name: str) -> None:
    pattern, perf_row = PROSE[name]
    flat = " ".join(README.split())
    m = re.search(" ".join(pattern.split()), flat)
    assert m, f"the README no longer quotes the {name} ({pattern!r}): update this test"
    perf = _perf_rows()
    assert perf_row in perf, perf_row
    cells, command = perf[perf_row]
    assert command, f"{perf_row}: no command"
    assert m.group(1) in " ".join(cells[2].split()), (name, m.group(1), cells[2])


def test_every_number_of_the_readme_performance_prose_is_in_performance_md() -> None:
    prose = "\n".join(
        line for line in _section(README, "## Performance").splitlines() if not line.startswith("|")
    )
    missing = _numbers(prose) - _numbers(PERF)
    assert not missing, f"README figures {sorted(missing)} not in docs/performance.md"


def test_the_wheel_figure_is_within_the_budget_of_scripts_budgets() -> None:
    budget = _budgets().WHEEL_BUDGET_MB
    quoted = f"≤ {budget:g} MB"
    (readme_row,) = [r for r in _readme_rows() if r[0] == "wheel size"]
    m = re.fullmatch(r"([\d.]+) MB", readme_row[1].split(" (")[0])
    assert m, readme_row[1]
    assert 0 < float(m.group(1)) <= budget
    assert readme_row[2] == f"{quoted} ✔"
    cells, _ = _perf_rows()["wheel size"]
    assert cells[3] == f"{quoted} ✔"
    assert "scripts/budgets.py" in cells[1]


def test_the_import_and_first_call_budgets_are_those_of_scripts_budgets() -> None:
    b = _budgets()
    quoted = f"≤ {b.IMPORT_BUDGET_MS:g} ms ✔ / ≤ {b.FIRST_CALL_BUDGET_MS:g} ms ✔"
    what = "`import koudian` (bare interpreter) / first `is_win`"
    (readme_row,) = [r for r in _readme_rows() if r[0] == what]
    assert readme_row[2] == quoted
    assert _perf_rows()[what][0][3] == quoted
    import_ms, first_ms = (float(x) for x in re.findall(r"([\d.]+) ms", readme_row[1]))
    assert import_ms <= b.IMPORT_BUDGET_MS and first_ms <= b.FIRST_CALL_BUDGET_MS
