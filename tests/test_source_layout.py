"""The source tree stays one a newcomer can find their way around in.

No source file over 1,000 lines (the developer guide's rule; a long file
is a module hiding several concepts) — generated tables excepted, which
say so in their first lines — and no Rust module pulled in by a
``#[path]`` attribute, which hides a module from the ``mod`` list its
folder's ``mod.rs`` reads like a table of contents."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LIMIT = 1000
TREES = ["rust/core/src", "rust/python/src", "python/koudian"]


def _sources() -> list[Path]:
    out: list[Path] = []
    for tree in TREES:
        base = ROOT / tree
        if not base.is_dir():
            pytest.skip(f"{tree} is not in this checkout")
        out += sorted(p for p in base.rglob("*") if p.suffix in (".rs", ".py"))
    return out


def _generated(text: str) -> bool:
    head = "\n".join(text.splitlines()[:5]).lower()
    return "generated" in head and ("do not edit" in head or "written by" in head)


def test_no_source_file_is_over_a_thousand_lines() -> None:
    long = []
    for path in _sources():
        text = path.read_text(encoding="utf-8")
        n = text.count("\n")
        if n > LIMIT and not _generated(text):
            long.append(f"{path.relative_to(ROOT)}: {n} lines")
    assert not long, "split these by concern:\n" + "\n".join(long)


def test_no_rust_module_is_hidden_by_a_path_attribute() -> None:
    hidden = [
        f"{p.relative_to(ROOT)}:{i}"
        for p in _sources()
        if p.suffix == ".rs"
        for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
        if line.lstrip().startswith("#[path")
    ]
    assert not hidden, "list the module in its folder's mod.rs instead:\n" + "\n".join(hidden)
