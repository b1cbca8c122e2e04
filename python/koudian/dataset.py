"""Self-play datasets: every decision of chosen seats as Parquet rows.

``koudian.simulate(..., record=DIR)`` and ``koudian simulate --record
DIR`` write one Parquet file per chunk of hands (``part-<first hand>.parquet``,
zstd-compressed, with page checksums), ``_manifest.json`` (ruleset TOML,
encoding version and layout, seed, agents, seats, koudian version, the
shards with their rows, sizes and SHA-256; rewritten as each shard is
finished, ``"complete": false`` until the run ends) and, at the end,
``_metadata`` (the shards' Parquet footers, for readers that plan from
it). ``open`` and ``iter_batches`` read exactly the manifest's shards,
each checked against it, and refuse anything else with a
``KoudianError`` naming the file. The rows are produced natively by the core
(``koudian._core.simulate_record``), one per decision of the recorded
seats, with the columns:

==========  ====================  ==============================================
column      type                  meaning
==========  ====================  ==============================================
hand        uint64                game index in the run (game ``i`` of seed ``s``)
seed        uint64                the hand's deal seed, ``mix_seed(s, i)``
seat        uint8                 the deciding seat (0-3; seat ``i % 4`` deals)
step        uint16                decision number within the hand (all seats)
agent       dictionary<string>    the seat's agent
obs         fixed_size_binary     the observation, packed (``OBS_BYTES`` = 426)
mask        fixed_size_binary     the legal actions, 141 bits in 18 bytes
action      uint8                 the action index played (``Action.from_index``)
counts      fixed_size_binary     the seat's concealed tile counts (34 bytes)
points      int64                 the seat's running points before the hand
delta       int64                 the seat's settlement delta of the hand
won         bool                  the seat won the hand
shanten     int8                  the seat's shanten at the end (-1 for a winner)
end         uint8                 the hand's end kind, an index into ``END_KINDS``
expert_     list<float32>         the agent's estimated values where it searched
values                            (``mc``): 141 a row (see below), else empty
==========  ====================  ==============================================

``expert_values`` (manifest format 3 on) holds the soft targets of a
learner: where the recorded seat's agent estimated its candidates
(``mc`` at a decision it searched, two candidates or more played out),
141 float32 indexed by action index: the estimated mean settlement
(points) of each candidate played out, as ``koudian.rank_actions(...,
agent="mc")`` reports it, ``-inf`` for a legal action not played out,
NaN for an illegal one; an empty list at every other decision
(``expert_values_dense`` gives the ``(n, 141)`` array, NaN rows there).

The observation is encoding version 3 (79 planes of small integers:
version 2's 66, ``koudian.env``'s ``encoding=2`` and the vectorized
environment's, then the 13 look-ahead planes of docs/rl.md;
``encoding.version`` in the manifest), packed losslessly: a 0/1 plane as
34 bits, a plane of counts as 34 nibbles, a plane of larger numbers as 34
bytes, a plane constant across kinds as one byte, a recent-discard plane
(one kind at most) as one byte. ``unpack_obs`` gives the ``(N, 79, 34)``
uint8 planes back exactly (datasets recorded before version 3, ``obs`` of
``OBS_BYTES_V2`` = 258 bytes, give their ``(N, 66, 34)`` planes, and
before version 2, ``OBS_BYTES_V1`` = 201 bytes, their ``(N, 29, 34)``
float32 version 1 planes); ``unpack_mask`` the ``(N, 141)`` bools. With
zstd, greedy self-play takes about 92 bytes per decision on disk (zstd
level ``ZSTD_LEVEL``; the packed planes repeat between decisions;
``benches/bench_dataset.py`` measures it).

The files are plain Parquet: ``pyarrow``, polars (``pl.read_parquet``)
and DuckDB (``SELECT ... FROM 'DIR/*.parquet'``) read them as they are
(binary columns as ``Binary``/``BLOB``).

    >>> import koudian, tempfile
    >>> d = tempfile.mkdtemp()
    >>> r = koudian.simulate("shanxi", ["greedy"] * 4, hands=20, seed=1, record=d)
    >>> ds = koudian.dataset.open(d)
    >>> ds.count_rows() == int(r.decisions.sum())
    True
"""

from __future__ import annotations

import hashlib
import json
import os
import warnings
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from koudian._core import (
    MASK_BYTES,
    N_ACTIONS,
    OBS_BYTES,
    OBS_BYTES_V1,
    OBS_BYTES_V2,
    OBS_ENCODING_VERSION,
    OBS_PACK_VERSION,
    KoudianError,
    Ruleset,
    __version__,
)
from koudian._core import unpack_obs as _unpack_obs
from koudian._extras import install_hint
from koudian._manifest import FORMAT, FORMAT_VERSIONS, MAX_MANIFEST_BYTES, OBS_WIDTH, PLANES
from koudian._manifest import load as _load_manifest

if TYPE_CHECKING:  # pragma: no cover
    import pyarrow
    import pyarrow.dataset

__all__ = [
    "FORMAT_VERSIONS",
    "MANIFEST",
    "MAX_MANIFEST_BYTES",
    "ZSTD_LEVEL",
    "PartialDatasetWarning",
    "Recording",
    "ShardWriter",
    "expert_values_dense",
    "iter_batches",
    "open",
    "prepare",
    "read_manifest",
    "unpack_mask",
    "unpack_obs",
    "write_manifest",
    "write_shard",
]

_PLANES = PLANES

MANIFEST = "_manifest.json"
"""The manifest's file name in a dataset directory."""

FORMAT_VERSION = 3
"""The manifest format written: 3 (per-shard ``bytes`` and ``sha256``,
``complete``, the ``expert_values`` column); ``FORMAT_VERSIONS`` are
those read."""

METADATA = "_metadata"


class PartialDatasetWarning(UserWarning):
    """``open`` of a dataset whose recording did not finish (its manifest
    says ``"complete": false``): its rows are exactly those of the shards
    listed, the hands ``0 .. manifest["hands"]``, fewer than asked for."""


_builtin_open = open


def require_pyarrow() -> Any:
    """pyarrow and pyarrow.parquet, imported on first use (extra ``data``)."""
    try:
        import pyarrow
        import pyarrow.parquet
    except ImportError:
        raise KoudianError(f"datasets need pyarrow: {install_hint('data')}") from None
    return pyarrow


def schema(obs_bytes: int = OBS_BYTES, format_version: int = FORMAT_VERSION) -> pyarrow.Schema:
    """The Arrow schema of a dataset's rows (``obs_bytes``: the packed
    observation's width, ``OBS_BYTES_V1`` for an encoding version 1
    dataset; ``format_version`` the manifest's: before 3, no
    ``expert_values``)."""
    pa = require_pyarrow()
    expert = [("expert_values", pa.list_(pa.float32()))] if format_version >= 3 else []
    return pa.schema(
        [
            ("hand", pa.uint64()),
            ("seed", pa.uint64()),
            ("seat", pa.uint8()),
            ("step", pa.uint16()),
            ("agent", pa.dictionary(pa.int8(), pa.string())),
            ("obs", pa.binary(obs_bytes)),
            ("mask", pa.binary(MASK_BYTES)),
            ("action", pa.uint8()),
            ("counts", pa.binary(34)),
            ("points", pa.int64()),
            ("delta", pa.int64()),
            ("won", pa.bool_()),
            ("shanten", pa.int8()),
            ("end", pa.uint8()),
            *expert,
        ]
    )


def _fixed(pa: Any, a: npt.NDArray[np.uint8]) -> Any:
    """An ``(n, w)`` uint8 array as a fixed_size_binary(w) Arrow array,
    sharing its buffer."""
    a = np.ascontiguousarray(a)
    return pa.FixedSizeBinaryArray.from_buffers(
        pa.binary(a.shape[1]), a.shape[0], [None, pa.py_buffer(a)]
    )


def record_batch(decisions: dict[str, Any], agents: Sequence[str]) -> pyarrow.RecordBatch:
    """The Arrow record batch of the decision columns ``decisions`` (as
    ``koudian._core.simulate_record`` returns them), the buffers shared,
    no Python per row."""
    pa = require_pyarrow()
    names = [str(a) for a in agents]
    seat = decisions["seat"]
    agent = pa.DictionaryArray.from_arrays(
        pa.array(seat.astype(np.int8)), pa.array(names, pa.string())
    )
    cols = [
        pa.array(decisions["hand"]),
        pa.array(decisions["seed"]),
        pa.array(seat),
        pa.array(decisions["step"]),
        agent,
        _fixed(pa, decisions["obs"]),
        _fixed(pa, decisions["mask"]),
        pa.array(decisions["action"]),
        _fixed(pa, decisions["counts"]),
        pa.array(decisions["points"]),
        pa.array(decisions["delta"]),
        pa.array(decisions["won"]),
        pa.array(decisions["shanten"]),
        pa.array(decisions["end"]),
        _expert_array(pa, decisions, len(seat)),
    ]
    return pa.RecordBatch.from_arrays(cols, schema=schema())


def _expert_array(pa: Any, decisions: dict[str, Any], rows: int) -> Any:
    """The ``expert_values`` list column of the core's compact columns
    (``expert_len``: 0 or 141 a row; ``expert``: the values of the rows
    that have them, one after another), checked: a length other than 0
    or 141, or values that do not add up, stop the recording."""
    lengths = np.asarray(decisions.get("expert_len", np.zeros(rows, np.uint8)))
    values = np.asarray(decisions.get("expert", np.zeros(0, np.float32)), np.float32)
    if lengths.shape != (rows,) or not np.isin(lengths, (0, N_ACTIONS)).all():
        raise KoudianError(f"expert_len must be 0 or {N_ACTIONS} for each of the {rows} rows")
    offsets = np.zeros(rows + 1, np.int32)
    np.cumsum(lengths, out=offsets[1:])
    if int(offsets[-1]) != values.shape[0]:
        raise KoudianError(f"{values.shape[0]} expert values for rows that hold {int(offsets[-1])}")
    return pa.ListArray.from_arrays(pa.array(offsets), pa.array(values, pa.float32()))


_SMALL_COLUMNS = ["hand", "seed", "seat", "step", "agent", "action", "points"]
_SMALL_COLUMNS += ["delta", "won", "shanten", "end"]


ZSTD_LEVEL = -1
"""The shards' zstd level: -1, zstd's fastest that still finds most of
the repeats between decisions (writing a shard about 7% faster than
level 1 for 15% more bytes, 47.7 against 41.7 a decision with greedy
self-play; lower levels grow the files and gain nothing more)."""


def shard_name(start: int) -> str:
    """The file name of the shard whose first hand is ``start``: the same
    for a retried task, so a retry overwrites rather than duplicates."""
    return f"part-{start:012d}.parquet"


def write_shard(
    directory: str | os.PathLike[str],
    start: int,
    decisions: dict[str, Any] | Sequence[dict[str, Any]],
    agents: Sequence[str],
    compression: str = "zstd",
    extra: dict[str, Any] | None = None,
    compression_level: int | None = None,
    hands: int | None = None,
) -> dict[str, Any]:
    """Writes the rows of the hands from ``start`` as one Parquet file in
    ``directory`` (atomically: a temporary file renamed), and returns its
    manifest entry ``{"file", "start", "rows", "bytes", "sha256"}`` (and
    ``"hands"``, the hands it covers, when given). Every page carries a
    CRC-32 (Parquet's page checksum) and the entry the file's size and
    SHA-256, both checked on reading. ``decisions`` is a dict
    of columns or a list of them whose rows follow one another
    (``simulate_record(..., pieces=True)``: each becomes a record batch,
    no copy). ``extra`` names more columns (numpy arrays, one value a row)
    appended after the schema's (the arena's ``deal`` and ``table``).
    ``compression_level`` defaults to ``ZSTD_LEVEL`` for zstd (the codec's
    own default for the others)."""
    pa = require_pyarrow()
    directory = Path(directory)
    name = shard_name(start)
    tmp = directory / f".{name}.{os.getpid()}.tmp"
    pieces = [decisions] if isinstance(decisions, dict) else list(decisions)
    batches = [record_batch(d, agents) for d in pieces]
    table = pa.Table.from_batches(batches, schema=schema())
    for column, values in (extra or {}).items():
        table = table.append_column(column, pa.array(values))
    # Statistics and dictionaries are kept to the small columns: on the
    # wide binary ones (nearly every value distinct) they cost a quarter
    # of the writing time and save nothing.
    if compression_level is None and compression == "zstd":
        compression_level = ZSTD_LEVEL
    # The writer's buffers (pages, compressed pages: tens of MB a shard)
    # come from the system allocator, which keeps and reuses them from
    # shard to shard; pyarrow's default mimalloc returns them between
    # shards and zeroes fresh huge pages for each (an eighth of the
    # recording's CPU time).
    pa.parquet.write_table(
        table,
        tmp,
        memory_pool=pa.system_memory_pool(),
        compression=compression,
        compression_level=compression_level,
        row_group_size=1 << 20,
        write_statistics=_SMALL_COLUMNS,
        use_dictionary=["agent", "seat", "won", "shanten", "end"],
        write_page_checksum=True,
    )
    # The checksum of the bytes on disk (read back from the page cache):
    # whatever changes them later, footer included, is caught.
    size, digest = _digest(tmp)
    os.replace(tmp, directory / name)
    entry = {"file": name, "start": int(start), "rows": int(table.num_rows)}
    if hands is not None:
        entry["hands"] = int(hands)
    entry.update(bytes=size, sha256=digest)
    return entry


_READ_BLOCK = 1 << 20


def _digest(path: str | os.PathLike[str]) -> tuple[int, str]:
    """A file's size and SHA-256 (hex), read in blocks of 1 MiB."""
    h = hashlib.sha256()
    size = 0
    with _builtin_open(path, "rb") as f:
        while block := f.read(_READ_BLOCK):
            h.update(block)
            size += len(block)
    return size, h.hexdigest()


class ShardWriter:
    """Writes shards on background threads while the next chunk plays
    (pyarrow and the core both release the GIL): up to ``WRITERS`` shards
    at once, each on its own thread, so that a shard's compression (one
    thread's work) does not hold up the play; at most ``WRITERS`` shards
    queued, so memory stays bounded. ``close()`` waits for them and
    returns their manifest entries, in the order the shards were queued."""

    WRITERS = 2
    """Shards written at once (one thread each)."""

    def __init__(self, directory: str | os.PathLike[str], agents: Sequence[str]) -> None:
        from collections import deque
        from concurrent.futures import Future, ThreadPoolExecutor

        require_pyarrow()
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        self.agents = list(agents)
        self._pool = ThreadPoolExecutor(self.WRITERS, thread_name_prefix="koudian-shards")
        self._pending: deque[Future[dict[str, Any]]] = deque()
        self.entries: list[dict[str, Any]] = []

    def _collect(self, keep: int) -> None:
        """Waits until at most ``keep`` shards are queued."""
        while len(self._pending) > keep:
            self.entries.append(self._pending.popleft().result())

    def write(
        self,
        start: int,
        decisions: dict[str, Any] | Sequence[dict[str, Any]],
        hands: int | None = None,
    ) -> None:
        """Queues the shard of the hands from ``start`` (``decisions`` as
        ``write_shard`` takes them; ``hands``: how many)."""
        self._collect(self.WRITERS - 1)
        self._pending.append(
            self._pool.submit(
                write_shard, self.directory, start, decisions, self.agents, hands=hands
            )
        )

    def close(self) -> list[dict[str, Any]]:
        """Waits for the queued shards; the entries of every shard written.
        If one failed, the others are still waited for and their entries
        kept in ``entries`` (an interrupted run's manifest lists them)
        before the first error is raised."""
        error: BaseException | None = None
        try:
            while self._pending:
                future = self._pending.popleft()
                try:
                    self.entries.append(future.result())
                except BaseException as e:  # re-raised below, after the others
                    error = error or e
        finally:
            self._pool.shutdown()
        if error is not None:
            raise error
        return self.entries


class Recording:
    """A dataset being recorded: its manifest, written at the start and
    rewritten as each shard is finished, ``"complete": false`` until
    ``close(True)``, so that a run stopped anywhere (Ctrl-C, an error, a
    kill) leaves a dataset listing exactly its finished shards, with
    ``hands`` the hands ``0 .. hands`` they cover. ``simulate`` writes its
    shards through ``write`` (a ``ShardWriter``); a Ray run's tasks write
    theirs and the driver lists them with ``add`` as they are reported.
    ``extra(hands, complete)``, when given, adds keys to every manifest
    (the arena's ``arena`` object)."""

    def __init__(
        self,
        directory: str | os.PathLike[str],
        rules: Ruleset,
        agents: Sequence[str],
        seed: int,
        hands: int,
        seats: Sequence[int],
        extra: Callable[[int, bool], dict[str, Any]] | None = None,
    ) -> None:
        require_pyarrow()
        Path(directory).mkdir(parents=True, exist_ok=True)
        self._writer: ShardWriter | None = None
        self._args = (directory, rules, list(agents), seed)
        self.hands = hands
        self.seats = list(seats)
        self._extra = extra
        self._listed = 0
        # Shards written elsewhere (``add``), by file, and the hands they
        # hold.
        self._added: dict[str, dict[str, Any]] = {}
        self._spans: list[tuple[int, int]] = []
        self._manifest(False, False)

    @property
    def writer(self) -> ShardWriter:
        """The ``ShardWriter`` of ``write`` (made on first use: a Ray run's
        driver writes no shard itself)."""
        if self._writer is None:
            directory, _, agents, _ = self._args
            self._writer = ShardWriter(directory, agents)
        return self._writer

    def _manifest(self, complete: bool, metadata: bool) -> None:
        written = self._writer.entries if self._writer is not None else []
        spans = [(int(e["start"]), int(e["hands"])) for e in written] + self._spans
        # The hands 0 .. covered all have their shard (one that failed
        # would leave a gap: its successors are listed, not counted).
        covered = 0
        for start, n in sorted(spans):
            if start > covered:
                break
            covered = max(covered, start + n)
        directory, rules, agents, seed = self._args
        hands = self.hands if complete else covered
        write_manifest(
            directory,
            rules,
            agents,
            seed,
            hands,
            self.seats,
            [*written, *self._added.values()],
            extra=self._extra(hands, complete) if self._extra is not None else None,
            complete=complete,
            metadata=metadata,
        )

    def write(
        self, start: int, decisions: dict[str, Any] | Sequence[dict[str, Any]], hands: int
    ) -> None:
        """Queues the shard of the ``hands`` hands from ``start``; the
        manifest lists the shards finished by now."""
        writer = self.writer
        writer.write(start, decisions, hands=hands)
        if len(writer.entries) > self._listed:
            self._listed = len(writer.entries)
            self._manifest(False, False)

    def add(self, chunks: Sequence[tuple[Sequence[dict[str, Any]], int, int]]) -> None:
        """Lists shards written elsewhere (a Ray task's): ``chunks`` of
        ``(entries, start, hands)``, ``write_shard``'s entries of shards
        that hold the hands ``start .. start + hands`` between them, and
        rewrites the manifest (once). A shard added again (a Ray task's
        chunk reported, then its whole result) is listed once, with its
        latest entry."""
        for entries, start, hands in chunks:
            self._added.update((e["file"], e) for e in entries)
            self._spans.append((int(start), int(hands)))
        self._manifest(False, False)

    def close(self, complete: bool) -> None:
        """Waits for the shards and writes the final manifest (partial
        unless ``complete``) and ``_metadata``, even if a shard failed (its
        error is raised after)."""
        try:
            if self._writer is not None:
                self._writer.close()
        finally:
            self._manifest(complete, True)


def prepare(directory: str | os.PathLike[str], overwrite: bool = False) -> Path:
    """Makes ``directory`` ready to record a dataset into, and returns it:
    made if missing; refused (``KoudianError``) if it already holds a
    dataset (a manifest, ``_metadata`` or ``part-*.parquet`` shards) unless
    ``overwrite``, which removes that dataset whole first (the manifest
    before the shards, so that no manifest ever lists a removed shard).
    Other files in it are left alone."""
    directory = Path(directory)
    if directory.exists() and not directory.is_dir():
        raise KoudianError(f"{directory} is not a folder")
    ours = _dataset_files(directory)
    if ours and not overwrite:
        raise KoudianError(
            f"{directory} already holds a dataset ({ours[0].name}, ...): record into a new "
            "folder, or pass overwrite=True (koudian simulate --record DIR --overwrite) to "
            "replace it"
        )
    for f in ours:
        f.unlink(missing_ok=True)
    directory.mkdir(parents=True, exist_ok=True)
    return directory


def _dataset_files(directory: Path) -> list[Path]:
    """The files of a dataset in ``directory``, the manifest first, then
    ``_metadata``, the shards and any temporary files a killed writer
    left."""
    if not directory.is_dir():
        return []
    files = [directory / n for n in (MANIFEST, METADATA) if (directory / n).exists()]
    files += sorted(directory.glob("part-*.parquet"))
    files += sorted(directory.glob(".part-*.tmp")) + sorted(directory.glob(f".{MANIFEST}.tmp"))
    return files


def write_manifest(
    directory: str | os.PathLike[str],
    rules: Ruleset,
    agents: Sequence[str],
    seed: int,
    hands: int,
    seats: Sequence[int],
    shards: Sequence[dict[str, Any]],
    extra: dict[str, Any] | None = None,
    complete: bool = True,
    metadata: bool = True,
) -> dict[str, Any]:
    """Writes ``_manifest.json`` (atomically, strict JSON) and, with
    ``metadata``, ``_metadata`` (the shards' footers) for the shards in
    ``directory``, and returns the manifest (with the entries of
    ``extra`` added, e.g. the arena's ``arena`` object). ``complete=False``
    marks a recording that has not finished (or never will): ``hands``
    and ``shards`` are then what was written so far."""
    pa = require_pyarrow()
    directory = Path(directory)
    shards = sorted(shards, key=lambda s: int(s["start"]))
    manifest = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "koudian_version": __version__,
        "complete": bool(complete),
        "rules": rules.to_toml(),
        "encoding": {
            "version": OBS_ENCODING_VERSION,
            "planes": _PLANES[OBS_ENCODING_VERSION],
            "kinds": 34,
            "pack_version": OBS_PACK_VERSION,
            "obs_bytes": OBS_BYTES,
            "n_actions": N_ACTIONS,
            "mask_bytes": MASK_BYTES,
        },
        "seed": int(seed),
        "hands": int(hands),
        "seats": sorted(int(s) for s in seats),
        "agents": [str(a) for a in agents],
        "rows": sum(int(s["rows"]) for s in shards),
        "shards": list(shards),
    }
    manifest.update(extra or {})
    if metadata:
        md_all = None
        for s in shards:
            md = pa.parquet.read_metadata(directory / s["file"])
            md.set_file_path(s["file"])
            if md_all is None:
                md_all = md
            else:
                md_all.append_row_groups(md)
        if md_all is not None:
            md_all.write_metadata_file(str(directory / METADATA))
    tmp = directory / f".{MANIFEST}.tmp"
    with _builtin_open(tmp, "w", encoding="utf-8") as f:
        json.dump(manifest, f, indent=1, allow_nan=False)
    os.replace(tmp, directory / MANIFEST)
    return manifest


def read_manifest(directory: str | os.PathLike[str]) -> dict[str, Any]:
    """The ``_manifest.json`` of a dataset directory, checked: a file that
    is not strict UTF-8 JSON of the manifest's shape (every key with its
    type, a ``format_version`` in ``FORMAT_VERSIONS``, the encoding's
    sizes this koudian's, shards named inside the folder, listed once,
    whose rows add up) is a ``KoudianError`` naming it."""
    return _load_manifest(Path(directory) / MANIFEST)


def describe(directory: str | os.PathLike[str]) -> str:
    """What a recorded dataset holds, from its manifest, as the CLI says
    it: the manifest's count, not the run's summary's (a Ray run stopped
    may have recorded more hands than its summary holds)."""
    m = read_manifest(directory)
    partial = "" if m["complete"] else " (partial: the run did not finish)"
    seats = [int(s) for s in m.get("seats", range(4))]
    # A row is one decision of a recorded seat: say whose, so that the
    # count is not read as every decision of the hands.
    if sorted(seats) == [0, 1, 2, 3]:
        whose = "every seat's"
    elif len(seats) == 1:
        whose = f"seat {seats[0]}'s"
    else:
        whose = f"seats {', '.join(map(str, seats))}'"
    return f"{m['rows']} rows ({whose} decisions) from {m['hands']} hands in {directory}{partial}"


def expected_schema(manifest: dict[str, Any]) -> pyarrow.Schema:
    """The schema a dataset's shards must have: ``schema()`` for its
    encoding, plus an arena dataset's ``deal`` and ``table``."""
    pa = require_pyarrow()
    s = schema(OBS_WIDTH[int(manifest["encoding"]["version"])], int(manifest["format_version"]))
    if "arena" in manifest:
        s = s.append(pa.field("deal", pa.uint64())).append(pa.field("table", pa.uint8()))
    return s


def _same_fields(got: Any, want: Any) -> bool:
    """Equal names and types (nullability and metadata aside)."""
    return [(f.name, f.type) for f in got] == [(f.name, f.type) for f in want]


def open(directory: str | os.PathLike[str], verify: bool = True) -> pyarrow.dataset.Dataset:
    """The dataset in ``directory`` as a ``pyarrow.dataset.Dataset`` made
    of exactly the shards its manifest lists (no other file in the folder
    is read). Filter and project with pyarrow, e.g.
    ``ds.to_table(filter=pc.field("seat") == 0)``.

    Each shard is checked before the dataset is returned: present, its
    size and (``verify``, the default) SHA-256 those of the manifest, a
    Parquet file of the dataset's schema with the manifest's row count;
    any difference is a ``KoudianError`` naming the shard. Reading then
    verifies every page's checksum. ``verify=False`` skips the SHA-256
    (one pass over the files, about 1 s a GB) and keeps the rest. A
    dataset whose recording did not finish (``"complete": false``) opens
    with a ``PartialDatasetWarning``."""
    require_pyarrow()
    import pyarrow.dataset as pads

    directory = Path(directory)
    manifest = read_manifest(directory)
    want = expected_schema(manifest)
    fmt = pads.ParquetFileFormat(
        default_fragment_scan_options=pads.ParquetFragmentScanOptions(
            page_checksum_verification=True
        )
    )
    import pyarrow.fs

    fs = pyarrow.fs.LocalFileSystem()
    fragments = [_fragment(directory, s, fmt, fs, want, verify) for s in manifest["shards"]]
    if not manifest["complete"]:
        warnings.warn(
            f"{directory} is a partial dataset (its recording did not finish): "
            f"{manifest['rows']} rows of hands 0 .. {manifest['hands']}",
            PartialDatasetWarning,
            stacklevel=2,
        )
    return pads.FileSystemDataset(fragments, want, fmt, fs)


def _fragment(
    directory: Path,
    entry: dict[str, Any],
    fmt: Any,
    fs: Any,
    want: Any,
    verify: bool,
) -> Any:
    """The checked fragment of the shard ``entry``."""
    pa = require_pyarrow()
    path = directory / entry["file"]
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        raise KoudianError(f"{path}: a shard the manifest lists is missing") from None
    if "bytes" in entry and size != entry["bytes"]:
        raise KoudianError(
            f"{path}: size {size} bytes, the manifest says {entry['bytes']}: the shard changed"
        )
    if verify and "sha256" in entry:
        try:
            _, digest = _digest(path)
        except OSError as e:
            raise KoudianError(f"{path}: cannot read the shard: {e}") from None
        if digest != entry["sha256"]:
            raise KoudianError(
                f"{path}: checksum (SHA-256) differs from the manifest's: the shard is corrupt "
                "or was replaced"
            )
    try:
        frag = fmt.make_fragment(str(path.resolve()), fs)
        got = frag.physical_schema
        rows = frag.metadata.num_rows
    except (pa.ArrowException, OSError) as e:
        raise KoudianError(f"{path}: not a readable Parquet shard: {e}") from None
    if not _same_fields(got, want):
        raise KoudianError(
            f"{path}: the shard's schema is not the dataset's "
            f"({', '.join(f'{f.name}: {f.type}' for f in got)})"
        )
    if rows != entry["rows"]:
        raise KoudianError(
            f"{path}: {rows} rows, the manifest {directory / MANIFEST} says {entry['rows']}"
        )
    return frag


def _fixed_bytes(column: Any, width: int) -> npt.NDArray[np.uint8]:
    """A fixed_size_binary Arrow array (or chunked array) as ``(n, width)``
    uint8, without a copy for one chunk."""
    chunks = getattr(column, "chunks", [column])
    parts = []
    for c in chunks:
        buf = c.buffers()[1]
        a = np.frombuffer(buf, np.uint8)[c.offset * width : (c.offset + len(c)) * width]
        parts.append(a.reshape(len(c), width))
    if not parts:
        return np.zeros((0, width), np.uint8)
    return parts[0] if len(parts) == 1 else np.concatenate(parts)


def _width(column: Any) -> int:
    """The byte width of a fixed_size_binary Arrow array or chunked array."""
    return int(column.type.byte_width)


def unpack_obs(column: Any, dtype: Any = None) -> npt.NDArray[Any]:
    """The planes of an ``obs`` column (an Arrow fixed_size_binary array,
    or the uint8 array of its bytes), unpacked by the core: ``(N, 79, 34)``
    uint8 for encoding version 3 (``OBS_BYTES`` wide), ``(N, 66, 34)``
    uint8 for version 2 (``OBS_BYTES_V2``, datasets recorded before
    version 3 was), ``(N, 29, 34)`` float32 for version 1
    (``OBS_BYTES_V1``, before version 2). ``dtype`` (e.g.
    ``np.float32``) converts them."""
    if isinstance(column, np.ndarray):
        raw = column
    else:
        width = _width(column)
        if width not in OBS_WIDTH.values():
            raise KoudianError(
                f"an obs column is {OBS_BYTES}, {OBS_BYTES_V2} or {OBS_BYTES_V1} bytes wide, "
                f"not {width}"
            )
        raw = _fixed_bytes(column, width)
    planes = _unpack_obs(np.ascontiguousarray(raw, dtype=np.uint8))
    return planes if dtype is None else planes.astype(dtype, copy=False)


def unpack_mask(column: Any) -> npt.NDArray[np.bool_]:
    """The ``(N, N_ACTIONS)`` bools of a ``mask`` column (bit ``i % 8`` of
    byte ``i / 8`` is action index ``i``)."""
    raw = column if isinstance(column, np.ndarray) else _fixed_bytes(column, MASK_BYTES)
    bits = np.unpackbits(raw, axis=1, bitorder="little")[:, :N_ACTIONS]
    return bits.astype(bool)


_BATCH_COLUMNS = ["hand", "seat", "step", "obs", "mask", "action"]
_BATCH_COLUMNS += ["delta", "won", "shanten", "end"]


def iter_batches(
    source: Any, batch_size: int = 65536, filter: Any = None, packed: bool = False
) -> Iterator[dict[str, npt.NDArray[Any]]]:
    """Training batches of a dataset (a directory, opened and checked by
    ``open``, or a ``pyarrow.dataset.Dataset``): dicts of numpy arrays
    ``obs`` (``unpack_obs``: ``(n, 66, 34)`` uint8, or ``(n, 29, 34)``
    float32 for a version 1 dataset), ``mask`` ``(n, 141)`` bool,
    ``action`` int64, and the targets ``delta`` int64, ``won`` bool,
    ``shanten`` int8, ``end`` uint8, with ``hand``, ``seat``, ``step`` to
    join on. ``filter`` is a pyarrow expression (e.g.
    ``pc.field("seat") == 0``). ``packed=True`` gives the observations as
    stored, ``obs_packed`` ``(n, OBS_BYTES)`` uint8, instead of ``obs``
    (``unpack_obs`` them a minibatch at a time: 258 bytes a row against
    2,244 for the planes, for a learner that keeps many rows). A dataset
    with the ``expert_values`` column (manifest format 3) also gives
    ``expert_values`` ``(n, 141)`` float32 (``expert_values_dense``).
    Shard by shard, in the manifest's order; a page whose checksum fails,
    a null value or any other damage is a ``KoudianError`` naming the
    shard."""
    pa = require_pyarrow()
    import pyarrow.dataset as pads

    ds = source if hasattr(source, "to_batches") else open(source)
    parts = list(ds.get_fragments()) if isinstance(ds, pads.FileSystemDataset) else [ds]
    columns = list(_BATCH_COLUMNS)
    has_expert = "expert_values" in ds.schema.names
    if has_expert:
        columns.append("expert_values")
    for part in parts:
        name = getattr(part, "path", "the dataset")
        batches = (
            part.to_batches(schema=ds.schema, columns=columns, batch_size=batch_size, filter=filter)
            if part is not ds
            else ds.to_batches(columns=columns, batch_size=batch_size, filter=filter)
        )
        while True:
            try:
                b = next(batches, None)
            except (pa.ArrowException, OSError) as e:
                raise KoudianError(f"{name}: the shard is corrupt: {e}") from None
            if b is None:
                break
            if b.num_rows == 0:
                continue
            for c in columns:
                if b.column(c).null_count:
                    raise KoudianError(f"{name}: null {c} values (a dataset has none)")
            out = {
                "hand": b.column("hand").to_numpy(),
                "seat": b.column("seat").to_numpy(),
                "step": b.column("step").to_numpy(),
                "mask": unpack_mask(b.column("mask")),
                "action": b.column("action").to_numpy().astype(np.int64),
                "delta": b.column("delta").to_numpy(),
                "won": b.column("won").to_numpy(zero_copy_only=False),
                "shanten": b.column("shanten").to_numpy(),
                "end": b.column("end").to_numpy(),
            }
            if packed:
                out["obs_packed"] = _fixed_bytes(b.column("obs"), _width(b.column("obs")))
            else:
                out["obs"] = unpack_obs(b.column("obs"))
            if has_expert:
                try:
                    out["expert_values"] = expert_values_dense(b.column("expert_values"))
                except KoudianError as e:
                    raise KoudianError(f"{name}: {e}") from None
            yield out


def expert_values_dense(column: Any) -> npt.NDArray[np.float32]:
    """The ``(n, 141)`` float32 of an ``expert_values`` column (an Arrow
    list array): a row's 141 values, or NaN where the row has none. A
    row of another length is a ``KoudianError``."""
    chunks = getattr(column, "chunks", [column])
    parts = []
    for c in chunks:
        offsets = c.offsets.to_numpy()
        lengths = np.diff(offsets)
        if not np.isin(lengths, (0, N_ACTIONS)).all():
            raise KoudianError(f"expert_values rows hold 0 or {N_ACTIONS} values")
        flat = c.flatten().to_numpy(zero_copy_only=False).astype(np.float32, copy=False)
        dense = np.full((len(c), N_ACTIONS), np.nan, np.float32)
        dense[lengths > 0] = flat.reshape(-1, N_ACTIONS)
        parts.append(dense)
    if not parts:
        return np.zeros((0, N_ACTIONS), np.float32)
    return parts[0] if len(parts) == 1 else np.concatenate(parts)
