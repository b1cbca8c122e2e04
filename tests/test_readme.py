"""The README's Python examples run as written, and the results their
comments state are the results they give.

A result comment is one that evaluates to a value: after an expression
(``koudian.is_win(...)  # True``), its text, or its text up to a colon, a
comma or `` (`` (``# True: 白 is wild``, ``# 6 (tiles from ready)``); on the
lines right after an expression (``# array([ True, False])``); and, after a
``print``, the comment lines that follow it, compared with what it printed.
Comments that do not evaluate describe and are not checked.
"""

from __future__ import annotations

import ast
import contextlib
import io
import re
import tokenize
from pathlib import Path
from typing import Any

import numpy as np
import pytest

README = Path(__file__).resolve().parents[1] / "README.md"


def _blocks(text: str) -> list[str]:
    return re.findall(r"^```python\n(.*?)^```", text, flags=re.S | re.M)


def _comments(src: str) -> dict[int, tuple[str, bool]]:
    """Line number -> (comment text, whether the comment is the whole line)."""
    lines = src.splitlines()
    out: dict[int, tuple[str, bool]] = {}
    for tok in tokenize.generate_tokens(io.StringIO(src).readline):
        if tok.type == tokenize.COMMENT:
            row, col = tok.start
            whole = not lines[row - 1][:col].strip()
            out[row] = (tok.string[1:].strip(), whole)
    return out


def _stated(text: str, ns: dict[str, Any]) -> tuple[bool, Any]:
    """The value a comment states, if it states one."""
    cuts = [m.start() for m in re.finditer(r":|,| \(", text)]
    for candidate in [text, *(text[:i] for i in cuts)]:
        try:
            return True, eval(candidate, {**ns, "array": np.array})
        except Exception:
            continue
    return False, None


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return bool(np.array_equal(a, b))
    return bool(a == b) and type(a) is type(b)


def _is_print(node: ast.stmt) -> bool:
    return (
        isinstance(node, ast.Expr)
        and isinstance(node.value, ast.Call)
        and isinstance(node.value.func, ast.Name)
        and node.value.func.id == "print"
    )


def _run_readme(text: str) -> list[str]:
    """Runs every block in one namespace, in order; returns the checked
    claims (source line and comment) and fails on the first wrong one."""
    ns: dict[str, Any] = {}
    checked: list[str] = []
    for src in _blocks(text):
        comments = _comments(src)
        for node in ast.parse(src).body:
            end = node.end_lineno or node.lineno
            following = []
            row = end + 1
            while row in comments and comments[row][1]:
                following.append(comments[row][0])
                row += 1
            printed = io.StringIO()
            with contextlib.redirect_stdout(printed):
                if isinstance(node, ast.Expr):
                    value = eval(compile(ast.Expression(node.value), "README.md", "eval"), ns)
                else:
                    exec(compile(ast.Module([node], []), "README.md", "exec"), ns)
            code = ast.get_source_segment(src, node)
            if _is_print(node):
                if following:
                    assert printed.getvalue().strip() == "\n".join(following), code
                    checked.append(f"{code}  # {following}")
                continue
            if not isinstance(node, ast.Expr):
                continue
            claims = [comments[end][0]] if end in comments and not comments[end][1] else []
            for claim in claims + following:
                states, expected = _stated(claim, ns)
                if states:
                    assert _same(value, expected), f"{code}: {value!r}, README says {claim}"
                    checked.append(f"{code}  # {claim}")
    return checked


def test_readme_examples_run_and_state_their_results() -> None:
    checked = _run_readme(README.read_text(encoding="utf-8"))
    # is_win twice, waits, wait_points, shanten, the printed hand value and
    # the batch's array: a change that stops these being read fails here.
    assert len(checked) >= 7, checked


def test_a_wrong_result_comment_fails() -> None:
    text = README.read_text(encoding="utf-8")
    right = '"123m456p789s11122z")  # True'
    assert right in text
    wrong = text.replace(right, right.replace("True", "False"), 1)
    with pytest.raises(AssertionError, match="README says False"):
        _run_readme(wrong)
