"""Games played natively with their records: one chunk of a run, the same
whoever plays it (``simulate``'s local loop, a recording arena table,
a Ray task), and the seats a recording keeps."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from koudian._core import Ruleset, RulesetError, simulate_record

__all__ = ["RECORD_CHUNK", "check_seats", "play_chunk"]

RECORD_CHUNK = 2000
"""Hands per native call (and per Parquet shard) when recording a dataset
or a log: each call's rows stay in memory until written."""


def play_chunk(
    rules: Ruleset,
    names: Sequence[str],
    start: int,
    n: int,
    seed: int,
    threads: int,
    seats: Sequence[int] | None,
    logs: bool,
    pieces: bool = False,
    log_compress: str = "none",
) -> tuple[dict[str, Any], Any, bytes | None]:
    """Games ``start .. start + n`` natively, with the decisions of
    ``seats`` (None: none) and the logs when ``logs`` (compressed as
    ``log_compress`` on the play's threads): ``(summary, decisions, log
    bytes)``, the same whoever calls it (the local loop or a Ray task).
    With ``pieces`` the decisions are a list of column dicts (the
    workers' parts, in order, not joined), which ``koudian.dataset``'s
    writers take as they are."""
    summary, decisions, text = simulate_record(
        rules,
        list(names),
        n,
        seed=seed,
        threads=threads,
        start=start,
        seats=None if seats is None else list(seats),
        logs=logs,
        pieces=pieces,
        log_compress=log_compress,
    )
    return summary, decisions, text


def check_seats(seats: Sequence[int] | None) -> list[int]:
    """``record_seats``: distinct seat numbers 0-3 (None: all four)."""
    if seats is None:
        return [0, 1, 2, 3]
    out = sorted({int(s) for s in seats})
    if not out or any(s not in range(4) for s in out):
        raise RulesetError(f"record_seats must be seat numbers 0-3, got {list(seats)}")
    return out
