"""The typed package: `_core.pyi` declares every public name of the
compiled module with a docstring, `py.typed` ships, and `__all__` holds."""

from __future__ import annotations

import ast
import inspect
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


def _stub_params(node: ast.FunctionDef) -> list[tuple[str, str]]:
    a = node.args
    out = [(p.arg, "positional") for p in [*a.posonlyargs, *a.args]]
    if a.vararg is not None:
        out.append((a.vararg.arg, "*"))
    out += [(p.arg, "keyword") for p in a.kwonlyargs]
    if a.kwarg is not None:
        out.append((a.kwarg.arg, "**"))
    return out


def _runtime_params(sig: inspect.Signature) -> list[tuple[str, str]]:
    kinds = {
        inspect.Parameter.POSITIONAL_ONLY: "positional",
        inspect.Parameter.POSITIONAL_OR_KEYWORD: "positional",
        inspect.Parameter.VAR_POSITIONAL: "*",
        inspect.Parameter.KEYWORD_ONLY: "keyword",
        inspect.Parameter.VAR_KEYWORD: "**",
    }
    return [(p.name, kinds[p.kind]) for p in sig.parameters.values()]


def test_stub_function_parameters_match_the_runtime_signatures() -> None:
    """Names and kinds (positional / keyword-only) of every extension
    function's parameters, from its ``__text_signature__``: a stub name the
    runtime does not accept type-checks, then fails (``hand14=`` did)."""
    checked = 0
    wrong = []
    for name, node in _stub_names().items():
        if not isinstance(node, ast.FunctionDef) or name.startswith("_"):
            continue
        func = getattr(core, name, None)
        if func is None or getattr(func, "__text_signature__", None) is None:
            continue
        stub, runtime = _stub_params(node), _runtime_params(inspect.signature(func))
        if stub != runtime:
            wrong.append((name, stub, runtime))
        checked += 1
    assert checked >= 20
    assert not wrong, wrong
