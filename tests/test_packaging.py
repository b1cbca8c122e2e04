"""Issue 7: the wheel as a product — version, release workflow, docs, budgets."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import koudian
import pytest

ROOT = Path(__file__).resolve().parent.parent


def cargo_version() -> str:
    text = (ROOT / "Cargo.toml").read_text(encoding="utf-8")
    m = re.search(r'^version = "([^"]+)"', text, re.MULTILINE)
    assert m, "Cargo.toml has no workspace version"
    return m.group(1)


def test_version_is_single_sourced_from_cargo_toml() -> None:
    assert koudian.__version__ == cargo_version()


def test_cli_version_flag() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "koudian", "--version"], capture_output=True, text=True, check=True
    ).stdout
    assert cargo_version() in out


def test_changelog_mentions_current_version() -> None:
    assert cargo_version() in (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")


def test_release_workflow_is_valid_yaml_with_every_platform() -> None:
    yaml = pytest.importorskip("yaml")
    wf = yaml.safe_load((ROOT / ".github" / "workflows" / "release.yml").read_text("utf-8"))
    jobs = wf["jobs"]
    assert {"wheels", "sdist", "publish"} <= set(jobs)
    matrix = jobs["wheels"]["strategy"]["matrix"]["include"]
    combos = {(m["os"].split("-")[0], m["target"], m["manylinux"]) for m in matrix}
    assert ("ubuntu", "x86_64", "auto") in combos
    assert ("ubuntu", "aarch64", "auto") in combos
    assert any(m == "musllinux_1_2" for _, _, m in combos)
    assert ("macos", "x86_64", "auto") in combos
    assert ("macos", "aarch64", "auto") in combos
    assert ("windows", "x64", "auto") in combos
    uses = [s.get("uses", "") for s in jobs["wheels"]["steps"]]
    assert any(u.startswith("PyO3/maturin-action") for u in uses)


def test_api_docs_cover_every_public_name_and_are_current() -> None:
    subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "gen_api_docs.py"), "--check"], check=True
    )
    api = (ROOT / "docs" / "api.md").read_text(encoding="utf-8")
    for name in koudian.__all__:
        assert f"## `{name}`" in api, name


def test_rules_docs_cover_every_ruleset_option() -> None:
    doc = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    for name, _ in koudian.Ruleset.options():
        assert f"`{name}`" in doc, name


def test_import_loads_nothing_beyond_koudian_itself() -> None:
    # The import budget (≤ 5 ms): no enum, typing, numpy … at `import koudian`;
    # the table layer loads on first use.
    code = (
        "import sys; before = set(sys.modules); import koudian; "
        "print(*sorted(set(sys.modules) - before))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    loaded = set(out.split())
    # koudian.arena (the package, with only its functions' module) binds
    # `koudian.arena` to the function (tests/test_imports.py); both import
    # nothing beyond the binding.
    light = {"__future__", "koudian", "koudian._core", "koudian.tiles"}
    assert loaded <= light | {"koudian.arena", "koudian.arena.running"}, loaded
    lazy = subprocess.run(
        [sys.executable, "-c", code.replace("import koudian;", "import koudian; koudian.play;")],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "koudian.game" in lazy.split()


def test_the_only_runtime_dependency_is_numpy() -> None:
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    deps = re.search(r"^dependencies = \[(.*)\]$", text, re.M)
    assert deps is not None
    assert [d.strip().strip('"') for d in deps.group(1).split(",")] == ["numpy>=1.22"]


def test_first_call_with_a_preset_name_needs_no_toml_parser() -> None:
    # The first-call budget (≤ 50 ms): the shipped presets are read by the
    # Rust core, so `rules="shanxi"` (the default) never imports tomllib
    # (about 25 ms) or the `koudian._presets` loader.
    code = (
        "import sys; import koudian; "
        "koudian.is_win('123m456p789s11122z'); koudian.Ruleset.preset('sichuan'); "
        "print(*sorted(sys.modules))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.split()
    for heavy in ("tomllib", "tomli", "koudian._presets", "enum", "re"):
        assert heavy not in out, heavy


def test_wheel_holds_package_files_and_fits_the_size_budget() -> None:
    wheel = os.environ.get("KOUDIAN_WHEEL")
    if not wheel:
        pytest.skip("KOUDIAN_WHEEL is set by scripts/test.sh after building the wheel")
    assert Path(wheel).stat().st_size <= 5_000_000
    names = zipfile.ZipFile(wheel).namelist()
    for needed in ["koudian/py.typed", "koudian/_core.pyi", "koudian/__init__.py"]:
        assert needed in names, needed
    # The pages' font ships with its license (SIL OFL), and every tile face.
    for font in ["koudian-cjk.woff2", "OFL.txt"]:
        assert f"koudian/web/static/fonts/{font}" in names, font
    faces = [n for n in names if n.startswith("koudian/web/static/tiles/") and n.endswith(".svg")]
    assert len(faces) == 34 + 2, faces
    presets = [n for n in names if n.startswith("koudian/presets/") and n.endswith(".toml")]
    assert len(presets) == 6, presets
    assert any(n.startswith("koudian/_core") and n.endswith((".so", ".pyd")) for n in names)


def test_sdist_holds_every_source_and_data_file_the_build_needs() -> None:
    sdist = os.environ.get("KOUDIAN_SDIST")
    if not sdist:
        pytest.skip("KOUDIAN_SDIST is set by scripts/test.sh after building the sdist")
    with tarfile.open(sdist) as tar:
        names = tar.getnames()
    top = names[0].split("/")[0]
    assert top == f"koudian-{cargo_version()}", top
    held = {n.removeprefix(top + "/") for n in names}
    for needed in [
        "PKG-INFO",
        "pyproject.toml",
        "Cargo.toml",
        "Cargo.lock",
        "README.md",
        "rust/core/Cargo.toml",
        "rust/python/Cargo.toml",
        "rust/core/src/shanten/suit_tables.bin",
        ".cargo/config.toml",
    ]:
        assert needed in held, needed
    # Every source and data file of both crates and of the Python package
    # in this checkout, and no build product.
    for folder in ["rust/core/src", "rust/python/src", "python/koudian"]:
        for path in (ROOT / folder).rglob("*"):
            rel = path.relative_to(ROOT).as_posix()
            if path.is_file() and "__pycache__" not in rel and path.suffix not in {".so", ".pyd"}:
                assert rel in held, rel
    assert not [n for n in held if n.endswith((".so", ".pyd", ".pyc", ".whl"))]
    presets = [n for n in held if n.startswith("python/koudian/presets/") and n.endswith(".toml")]
    assert len(presets) == 6, presets
