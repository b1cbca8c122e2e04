"""Fixtures shared by the test files: a real PostgreSQL server (tests/_postgres.py)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from _postgres import PostgresServer, start_server


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    """One PostgreSQL server for the whole run, started on first use and
    stopped at the end; skipped (with the reason) where PostgreSQL is not
    installed, a failure in CI."""
    server = start_server()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def postgres_url(postgres_server: PostgresServer) -> str:
    """The libpq URL (over a Unix socket) of a new, empty database of the
    session's server: one per test, so every test starts from nothing."""
    return postgres_server.create_database()
