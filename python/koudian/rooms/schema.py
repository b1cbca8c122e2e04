"""The rooms database schema: its version, its migrations, and the few
differences between the SQL dialects (SQLite, PostgreSQL) in one place.

A database records its schema version in ``koudian_meta``. A store
opening a database migrates an older one (every step in one transaction)
and refuses a newer one (``RoomStoreError``: a newer koudian wrote it).
Migration ``n`` takes a database from version ``n - 1`` to ``n``; add a
step at the end of ``MIGRATIONS``, never edit a released one.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from koudian.rooms.rows import RoomStoreError

__all__ = [
    "MIGRATIONS",
    "POSTGRES",
    "SCHEMA_VERSION",
    "SQLITE",
    "Dialect",
    "migrate",
    "migration",
]


@dataclass(frozen=True)
class Dialect:
    """What differs between the SQL dialects: the byte-string and float
    column types and the parameter placeholder."""

    name: str
    blob: str
    real: str
    param: str

    def sql(self, text: str) -> str:
        """``text`` with its ``?`` placeholders in this dialect's spelling
        (no statement here holds a literal ``?``)."""
        return text.replace("?", self.param)


SQLITE = Dialect("sqlite", blob="BLOB", real="REAL", param="?")
POSTGRES = Dialect("postgresql", blob="BYTEA", real="DOUBLE PRECISION", param="%s")


META = "CREATE TABLE IF NOT EXISTS koudian_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)"
"""The table holding ``schema_version`` (created before any migration)."""


def _v1(d: Dialect) -> list[str]:
    return [
        f"""CREATE TABLE rooms (
            id TEXT PRIMARY KEY,
            code TEXT NOT NULL UNIQUE,
            secret {d.blob} NOT NULL,
            config TEXT NOT NULL,
            created {d.real} NOT NULL,
            updated {d.real} NOT NULL,
            status TEXT NOT NULL
        )""",
        "CREATE INDEX rooms_status ON rooms (status)",
        f"""CREATE TABLE events (
            room_id TEXT NOT NULL REFERENCES rooms (id),
            seq INTEGER NOT NULL,
            kind TEXT NOT NULL,
            body TEXT NOT NULL,
            at {d.real} NOT NULL,
            PRIMARY KEY (room_id, seq)
        )""",
        """CREATE TABLE hands (
            room_id TEXT NOT NULL REFERENCES rooms (id),
            hand INTEGER NOT NULL,
            log TEXT NOT NULL,
            replay_key TEXT NOT NULL UNIQUE,
            PRIMARY KEY (room_id, hand)
        )""",
    ]


MIGRATIONS = [_v1]
"""``MIGRATIONS[n - 1](dialect)``: the statements taking a database from
schema version ``n - 1`` to ``n``."""

SCHEMA_VERSION = len(MIGRATIONS)
"""The schema version this koudian writes."""


def migration(dialect: Dialect, version: int) -> list[str]:
    """The statements taking a database at ``version`` to
    ``SCHEMA_VERSION`` (empty when it is there)."""
    out: list[str] = []
    for step in MIGRATIONS[version:]:
        out.extend(step(dialect))
    return out


def migrate(conn: Any, dialect: Dialect, where: str) -> None:
    """Brings the database of ``conn`` (a sqlite3 or psycopg connection,
    inside the caller's transaction) to ``SCHEMA_VERSION``: creates the
    meta table, refuses a version newer than this koudian reads (naming
    ``where``), runs the missing migrations and records the version."""
    conn.execute(META)
    row = conn.execute("SELECT value FROM koudian_meta WHERE key = 'schema_version'").fetchone()
    version = int(row[0]) if row is not None else 0
    if version > SCHEMA_VERSION:
        raise RoomStoreError(
            f"{where}: schema version {version} was written by a newer "
            f"koudian (this one reads up to {SCHEMA_VERSION})"
        )
    for sql in migration(dialect, version):
        conn.execute(sql)
    conn.execute(
        dialect.sql(
            "INSERT INTO koudian_meta (key, value) VALUES ('schema_version', ?) "
            "ON CONFLICT (key) DO UPDATE SET value = excluded.value"
        ),
        (str(SCHEMA_VERSION),),
    )
