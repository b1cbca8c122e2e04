"""The room stores the tests run against (one suite, every backend).

``store_url(request, kind, tmp_path)`` is the database URL of a fresh,
empty store of ``kind``: ``sqlite`` is a file under ``tmp_path``;
``postgresql`` asks for the fixture ``postgres_url`` (a real PostgreSQL
server the tests start, with a fresh database per call) and skips when no
such fixture is defined.
"""

from __future__ import annotations

from pathlib import Path

import pytest

STORE_KINDS = ["sqlite", "postgresql"]


def store_url(request: pytest.FixtureRequest, kind: str, tmp_path: Path) -> str:
    if kind == "sqlite":
        return str(tmp_path / "rooms.db")
    try:
        return str(request.getfixturevalue("postgres_url"))
    except pytest.FixtureLookupError:
        pytest.skip("no postgres_url fixture (the PostgreSQL store's tests provide it)")
