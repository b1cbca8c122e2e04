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


@pytest.fixture(scope="session")
def postgres_url(postgres_server: PostgresServer) -> str:
    """The libpq URL of the session's database (over a Unix socket)."""
    return postgres_server.url


@pytest.fixture
def fresh_postgres_url(postgres_server: PostgresServer) -> str:
    """The URL of a new, empty database of the session's server (one per test)."""
    return postgres_server.create_database()
