"""Writes docs/api.md from the docstrings of the public Python API.

The stubs (``python/koudian/_core.pyi``) and the pure-Python modules are read
with ``ast``, so this needs no build. Every name in ``koudian.__all__`` gets a
section; ``tests/test_packaging.py`` checks that docs/api.md is up to date
and ``tests/test_docs.py`` how decorated members are shown.

Usage: python scripts/gen_api_docs.py [--check]
"""

from __future__ import annotations

import ast
import copy
import inspect
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PKG = ROOT / "python" / "koudian"
OUT = ROOT / "docs" / "api.md"


def public_names() -> list[str]:
    tree = ast.parse((PKG / "__init__.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets
        ):
            value = ast.literal_eval(node.value)
            return [str(v) for v in value]
    raise SystemExit("python/koudian/__init__.py has no __all__")


def definitions() -> dict[str, tuple[str, ast.AST]]:
    """Every top-level class and function, by name, with its source file."""
    found: dict[str, tuple[str, ast.AST]] = {}
    files = [PKG / "_core.pyi", *sorted(PKG.rglob("*.py"))]
    for path in files:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in tree.body:
            if isinstance(node, (ast.ClassDef, ast.FunctionDef)) and not node.name.startswith("_"):
                # Stubs win over re-exports of the same name.
                found.setdefault(node.name, (path.relative_to(PKG).as_posix(), node))
            elif isinstance(node, ast.Assign) and len(node.targets) == 1:
                target = node.targets[0]
                if isinstance(target, ast.Name) and not target.id.startswith("_"):
                    found.setdefault(target.id, (path.relative_to(PKG).as_posix(), node))
    return found


def decorators(node: ast.FunctionDef) -> set[str]:
    """The names of ``node``'s decorators (``property``, ``classmethod``…)."""
    return {ast.unparse(d) for d in node.decorator_list}


def signature(node: ast.FunctionDef, *, drop_first: bool = False) -> str:
    """``name(args) -> ret``; ``drop_first`` leaves out a class method's ``cls``."""
    args = node.args
    if drop_first:
        args = copy.copy(args)
        if args.posonlyargs:
            args.posonlyargs = args.posonlyargs[1:]
        elif args.args:
            args.args = args.args[1:]
    ret = f" -> {ast.unparse(node.returns)}" if node.returns else ""
    return f"{node.name}({ast.unparse(args)}){ret}"


def member_line(item: ast.FunctionDef) -> str:
    """The bullet of one method: properties read as attributes
    (``name: type``), class and static methods are marked (a class
    method without its ``cls``)."""
    decos = decorators(item)
    if "property" in decos or "functools.cached_property" in decos:
        kind = ast.unparse(item.returns) if item.returns else "Any"
        return f"- `{item.name}: {kind}` *(read-only property)*"
    if "classmethod" in decos:
        return f"- `{signature(item, drop_first=True)}` *(class method)*"
    if "staticmethod" in decos:
        return f"- `{signature(item)}` *(static method)*"
    return f"- `{signature(item)}`"


def is_member(item: ast.stmt, cls: str) -> bool:
    """Whether ``item`` declares an enum-like member: ``NAME: ClassVar[cls]``."""
    return (
        isinstance(item, ast.AnnAssign)
        and isinstance(item.target, ast.Name)
        and ast.unparse(item.annotation) == f"ClassVar[{cls}]"
    )


def attribute_doc(body: list[ast.stmt], i: int) -> str | None:
    """The docstring written under the attribute ``body[i]``, if any."""
    if i + 1 < len(body):
        nxt = body[i + 1]
        if (
            isinstance(nxt, ast.Expr)
            and isinstance(nxt.value, ast.Constant)
            and isinstance(nxt.value.value, str)
        ):
            return inspect.cleandoc(nxt.value.value)
    return None


def section(name: str, source: str, node: ast.AST) -> list[str]:
    lines = [f"## `{name}`", "", f"*defined in `{source}`*", ""]
    if isinstance(node, ast.FunctionDef):
        lines += ["```python", signature(node), "```", ""]
        lines += [ast.get_docstring(node) or "", ""]
    elif isinstance(node, ast.ClassDef):
        bases = ", ".join(ast.unparse(b) for b in node.bases)
        lines += ["```python", f"class {name}({bases})" if bases else f"class {name}", "```", ""]
        lines += [ast.get_docstring(node) or "", ""]
        # Members (`NAME: ClassVar[Class]`) without a docstring of their own
        # share one line, so that Tile's 34 do not fill a page.
        members = [
            item.target.id
            for i, item in enumerate(node.body)
            if is_member(item, name) and attribute_doc(node.body, i) is None
        ]
        if members:
            names = ", ".join(f"`{m}`" for m in members)
            lines += [f"- members (`ClassVar[{name}]`): {names}", ""]
        for i, item in enumerate(node.body):
            if isinstance(item, ast.FunctionDef) and (
                not item.name.startswith("_") or item.name == "__init__"
            ):
                lines += [member_line(item)]
                doc = ast.get_docstring(item)
                if doc:
                    lines += ["", "  " + doc.replace("\n", "\n  "), ""]
            elif isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
                doc = attribute_doc(node.body, i)
                if is_member(item, name) and doc is None:
                    continue
                lines += [f"- `{item.target.id}: {ast.unparse(item.annotation)}`"]
                if doc:
                    lines += ["", "  " + doc.replace("\n", "\n  "), ""]
        lines += [""]
    else:
        lines += ["```python", ast.unparse(node), "```", ""]
    return lines


def render() -> str:
    defs = definitions()
    out = [
        "# Python API",
        "",
        "Generated from the docstrings by `python scripts/gen_api_docs.py`; do not edit.",
        "Every name below is exported by `import koudian`.",
        "",
    ]
    for name in public_names():
        if name in defs:
            source, node = defs[name]
            out += section(name, source, node)
        else:
            out += [f"## `{name}`", "", "(re-exported constant)", ""]
    return "\n".join(out).rstrip() + "\n"


def main() -> None:
    text = render()
    if "--check" in sys.argv:
        if not OUT.exists() or OUT.read_text(encoding="utf-8") != text:
            raise SystemExit("docs/api.md is stale: run python scripts/gen_api_docs.py")
        return
    OUT.write_text(text, encoding="utf-8")
    print(f"wrote {OUT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
