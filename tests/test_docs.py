"""scripts/gen_api_docs.py: decorators decide how a member is shown."""

from __future__ import annotations

import ast
import importlib.util
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent


def _gen() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "gen_api_docs", ROOT / "scripts" / "gen_api_docs.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("gen_api_docs", module)
    spec.loader.exec_module(module)
    return module


STUB = '''
class Thing:
    """A thing."""
    @property
    def rate(self) -> float:
        """Share of things."""
    @classmethod
    def make(cls, name: str, *, size: int = 1) -> Thing:
        """A new thing."""
    @staticmethod
    def from_index(i: int) -> Thing: ...
    def plain(self, x: int) -> int: ...
'''


def _lines() -> list[str]:
    node = ast.parse(STUB).body[0]
    return list(_gen().section("Thing", "stub.pyi", node))


def test_properties_are_shown_as_attributes_with_their_docstring() -> None:
    lines = _lines()
    assert "- `rate: float` *(read-only property)*" in lines
    assert "  Share of things." in lines
    assert not any("rate(self)" in line for line in lines)


def test_class_methods_lose_cls_and_are_marked() -> None:
    lines = _lines()
    assert "- `make(name: str, *, size: int=1) -> Thing` *(class method)*" in lines
    assert not any("cls" in line for line in lines)


def test_static_and_plain_methods() -> None:
    lines = _lines()
    assert "- `from_index(i: int) -> Thing` *(static method)*" in lines
    assert "- `plain(self, x: int) -> int`" in lines


def test_generated_api_docs_show_no_property_as_a_method() -> None:
    api = (ROOT / "docs" / "api.md").read_text(encoding="utf-8")
    assert "- `draw_rate: float`" in api
    assert "draw_rate(self)" not in api and "done(self)" not in api
    assert "preset(cls" not in api
    assert "- `preset(name: str, **overrides: OptionValue) -> Ruleset` *(class method)*" in api
