"""One chunk of an arena's deals, played natively: the unit of work of the
local arena and of a Ray task (``koudian.arena(..., backend="ray")``).

Without a dataset the chunk is ``koudian._core.arena_native``. With one
(``record=DIR``) it is ``koudian._core.arena_record``: the core plays
each deal once and returns both the records (the luck correction's
``adjusted`` too) and each table's decision rows, recorded as
``simulate`` records self-play (table ``t``'s hand of deal ``d`` is
game ``d`` of a run with line-up entry ``layout[t][s]`` at seat ``s``).

In an arena dataset the hand id of table ``t``'s hand of deal ``d`` is
``d * tables + t`` (the row order of ``ArenaResult.records``, four rows
a hand), ``seed`` is the deal's seed, and two more columns say where the
hand was played: ``deal`` (uint64) and ``table`` (uint8: the rotation
0-3, 4 for the reference table, 0 in single format). The shard of table
``t`` of the chunk from deal ``s`` is named by its first hand, ``s *
tables + t``, so a retried Ray task overwrites it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from koudian._core import Ruleset, arena_native, arena_record
from koudian.arena.layout import table_entries

if TYPE_CHECKING:  # pragma: no cover
    from koudian.dataset import Recording

__all__ = [
    "ARENA_CHUNK",
    "arena_object",
    "arena_recording",
    "play_deals",
    "play_tables",
    "write_tables",
]

ARENA_CHUNK = 400
"""Deals per Ray task: a shard of 400 hands per table (2,000 hands in all
for a 1-vs-3 line-up), each call's rows held in memory until written. A
local recording run plays shorter calls (Ctrl-C) and writes a shard per
table every 200 to 399 deals (``koudian.arena.play``)."""


def play_deals(
    rules: Ruleset,
    names: Sequence[str],
    labels: Sequence[str],
    fmt: str,
    start: int,
    n: int,
    seed: int,
    threads: int,
    seats: Sequence[int] | None,
    record: str | None,
    walls: int = 0,
) -> tuple[dict[str, npt.NDArray[Any]], list[dict[str, Any]]]:
    """Deals ``start .. start + n`` of the arena of native agents
    ``names`` (labelled ``labels``): the records, and the manifest
    entries of the shards written to the dataset directory ``record``
    (the decisions of ``seats``; none without ``record``). With ``walls >
    0`` the lone agent's rows carry ``adjusted``, the luck of the wall
    taken out (``arena_native``)."""
    if record is None:
        return _native(rules, names, fmt, start, n, seed, threads, walls), []
    recs, decisions = play_tables(rules, names, fmt, start, n, seed, threads, seats, walls)
    return recs, write_tables(record, start, names, labels, fmt, [decisions])


def _native(
    rules: Ruleset,
    names: Sequence[str],
    fmt: str,
    start: int,
    n: int,
    seed: int,
    threads: int,
    walls: int,
) -> dict[str, npt.NDArray[Any]]:
    return arena_native(
        rules, list(names), n, seed=seed, threads=threads, start=start, format=fmt, walls=walls
    )


def play_tables(
    rules: Ruleset,
    names: Sequence[str],
    fmt: str,
    start: int,
    n: int,
    seed: int,
    threads: int,
    seats: Sequence[int] | None,
    walls: int = 0,
) -> tuple[dict[str, npt.NDArray[Any]], list[dict[str, Any] | None]]:
    """Deals ``start .. start + n`` played once by the core's recorded
    arena (``arena_record``): the records (``adjusted`` too with ``walls >
    0``), and each table's decisions of ``seats`` (None without seats)
    with the arena's hand ids (``deal * tables + table``), for
    ``write_tables``."""
    recs, decisions, _ = arena_record(
        rules,
        list(names),
        n,
        seed=seed,
        threads=threads,
        start=start,
        format=fmt,
        walls=walls,
        seats=None if seats is None else list(seats),
    )
    return recs, list(decisions)


def write_tables(
    record: str,
    start: int,
    names: Sequence[str],
    labels: Sequence[str],
    fmt: str,
    chunks: Sequence[Sequence[dict[str, Any] | None]],
) -> list[dict[str, Any]]:
    """Writes the decisions of consecutive calls of ``play_tables`` from
    deal ``start``, one shard per table (named by its first hand, ``start
    * tables + table``); their manifest entries."""
    from koudian.dataset import write_shard

    layout = table_entries(list(names), fmt)
    tables = np.uint64(len(layout))
    entries = []
    for t, seated in enumerate(layout):
        parts = [p for c in chunks if (p := c[t]) is not None]
        if not parts:
            continue
        deal = np.concatenate([np.asarray(p["hand"], np.uint64) // tables for p in parts])
        extra = {"deal": deal, "table": np.full(deal.shape, t, np.uint8)}
        entries.append(
            write_shard(
                record,
                start * len(layout) + t,
                parts,
                [labels[e] for e in seated],
                extra=extra,
            )
        )
    return entries


def arena_object(
    names: Sequence[str], fmt: str, deals: int, requested: int, complete: bool
) -> dict[str, Any]:
    """The ``arena`` object of an arena dataset's manifest (its one
    owner, for the local and the Ray recordings): the format, the
    ``deals`` whose hands the shards listed cover, the line-up entry at
    each seat of each table, how hand ids are made, and, until the
    recording is ``complete``, the ``requested_deals``."""

    layout = table_entries(list(names), fmt)
    obj: dict[str, Any] = {
        "format": fmt,
        "deals": int(deals),
        "tables": layout,
        "hand": f"deal * {len(layout)} + table",
    }
    if not complete:
        obj["requested_deals"] = int(requested)
    return obj


def arena_recording(
    record_dir: str | None,
    rules: Ruleset,
    labels: Sequence[str],
    names: Sequence[str],
    fmt: str,
    seed: int,
    deals: int,
    seats: Sequence[int],
) -> tuple[Recording | None, int]:
    """The recording of an arena dataset (None without one), local or on
    Ray, and its number of tables: ``simulate``'s manifest (kept current,
    ``"complete": false`` until ``close(True)``; ``hands`` every table's
    hands of the deals covered) with the ``arena`` object
    (``arena_object``). The deals ``s .. s + n`` hold the hands ``s *
    tables .. (s + n) * tables``: list their shards with ``add([(entries,
    s * tables, n * tables)])``."""

    tables = len(table_entries(list(names), fmt))
    if record_dir is None:
        return None, tables
    from koudian.dataset import Recording

    def extra(hands: int, complete: bool) -> dict[str, Any]:
        return {"arena": arena_object(names, fmt, hands // tables, deals, complete)}

    recording = Recording(record_dir, rules, labels, seed, deals * tables, seats, extra=extra)
    return recording, tables
