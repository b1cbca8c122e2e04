"""The typed package: `_core.pyi` declares every public name of the
compiled module with a docstring, `py.typed` ships, and `__all__` holds."""

from __future__ import annotations

import ast
from pathlib import Path

import koudian
import koudian._core as core

PKG = Path(koudian.__file__).parent


def _stub_names() -> dict[str, ast.AST]:
    tree = ast.parse((PKG / "_core.pyi").read_text(encoding="utf-8"))
    names: dict[str, ast.AST] = {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names[node.name] = node
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names[node.target.id] = node
        elif isinstance(node, ast.Assign):
            for t in node.targets:
                if isinstance(t, ast.Name):
                    names[t.id] = node
    return names


def test_py_typed_ships() -> None:
    assert (PKG / "py.typed").is_file()


def test_stub_declares_every_public_name_of_the_extension() -> None:
    stub = _stub_names()
    public = [n for n in dir(core) if not n.startswith("__")]
    missing = [n for n in public if n not in stub]
    assert not missing, missing


def test_stub_functions_and_classes_have_docstrings() -> None:
    undocumented = [
        name
        for name, node in _stub_names().items()
        if isinstance(node, (ast.FunctionDef, ast.ClassDef))
        and not name.startswith("_")
        and ast.get_docstring(node) is None
    ]
    assert not undocumented, undocumented


def test_all_names_resolve() -> None:
    for name in koudian.__all__:
        assert getattr(koudian, name) is not None, name
