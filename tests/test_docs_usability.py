"""The README and docs as a new user reads them (issue #26, items 16, 19,
20): install commands that work from a checkout, what scripts/test.sh
leaves behind, and one place that explains `koudian bench` and holds the
current figures, dated by date and host."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
PERF = (ROOT / "docs" / "performance.md").read_text(encoding="utf-8")
HISTORY = ROOT / "docs" / "performance-history.md"


def test_every_extra_install_is_given_from_a_checkout_beside_pypi() -> None:
    for text in (README, PERF):
        for extra in re.findall(r'pip install "koudian\[(\w+)\]"', text):
            assert f'pip install ".[{extra}]"' in text, extra


def test_readme_says_what_the_test_command_leaves_in_the_checkout() -> None:
    script = (ROOT / "scripts" / "test.sh").read_text(encoding="utf-8")
    builds_in_temp = re.search(r"^export CARGO_TARGET_DIR=", script, re.M) is not None
    assert builds_in_temp or "`target/`" in README.split("## Quick tour")[0]


def test_performance_explains_koudian_bench_and_its_host_ceiling() -> None:
    section = PERF.split("## Reading `koudian bench`")[1].split("\n## ")[0]
    for word in ("threads=2 / threads=1", "host ceiling", "by round", "ratio", "host"):
        assert word in section, word


def test_current_figures_are_dated_by_date_and_host_only() -> None:
    heading = next(line for line in PERF.splitlines() if line.startswith("## Current figures"))
    assert re.search(r"\d{4}-\d{2}-\d{2}", heading) and "CPU" in heading
    perf_readme = README.split("## Performance")[1]
    for text in (PERF, perf_readme):
        assert not re.search(r"\bsession", text, re.I), "figures dated by sessions"
        assert "final commit" not in text and "final wheel" not in text


def test_the_history_of_measurements_has_its_own_file() -> None:
    assert HISTORY.is_file()
    assert "performance-history.md" in PERF and "performance-history.md" in README
    assert len(PERF.splitlines()) < 200  # the current figures, not the history


# -- issue 39: the first hour from a checkout, koudian not on the index

_INDEX_FORM = re.compile(r"""pip install ['"]?koudian\[([\w,]+)\]""")


def test_every_extra_install_gives_the_checkout_form_first_everywhere() -> None:
    docs = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    for path in docs:
        if path.name in ("api.md", "performance-history.md"):
            continue  # generated from docstrings; a record of the past
        text = path.read_text(encoding="utf-8")
        for m in _INDEX_FORM.finditer(text):
            extra = m.group(1)
            checkout = re.search(rf"""pip install ['"]\.\[{re.escape(extra)}\]['"]""", text)
            assert checkout is not None and checkout.start() < m.start(), (path.name, extra)


def test_the_fresh_machine_section_starts_with_a_virtual_environment() -> None:
    section = " ".join(README.split("## Fresh machine")[1].split("\n## ")[0].split())
    venv = section.index("python3 -m venv .venv && . .venv/bin/activate")
    assert venv < section.index('pip install ".[cli]"')
    assert "externally managed" in section
    # What pip shows while the first install compiles the Rust core.
    assert "Building wheel" in section and "still running" in section
    assert re.search(r"about (two|2) minutes", section)
