"""Self-play datasets: every decision of chosen seats as Parquet rows.

``koudian.simulate(..., record=DIR)`` and ``koudian simulate --record
DIR`` write one Parquet file per chunk of hands (``part-<first hand>.parquet``,
zstd-compressed) and, at the end, ``_manifest.json`` (ruleset TOML,
encoding version and layout, seed, agents, seats, koudian version, the
shards) and ``_metadata`` (the shards' Parquet footers, for readers that
plan from it). The rows are produced natively by the core
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
obs         fixed_size_binary     the observation, packed (``OBS_BYTES`` = 258)
mask        fixed_size_binary     the legal actions, 141 bits in 18 bytes
action      uint8                 the action index played (``Action.from_index``)
counts      fixed_size_binary     the seat's concealed tile counts (34 bytes)
points      int64                 the seat's running points before the hand
delta       int64                 the seat's settlement delta of the hand
won         bool                  the seat won the hand
shanten     int8                  the seat's shanten at the end (-1 for a winner)
end         uint8                 the hand's end kind, an index into ``END_KINDS``
==========  ====================  ==============================================

The observation is the core's newest encoding, version 2 (66 planes of
small integers, ``koudian.env``'s ``encoding=2``, the vectorized
environment's; ``encoding.version`` in the manifest), packed
losslessly: a 0/1 plane as 34 bits, a plane of counts (melds, discards,
face-up wall tiles) as 34 nibbles, a plane constant across kinds as one
byte, a recent-discard plane (one kind at most) as one byte.
``unpack_obs`` gives the ``(N, 66, 34)`` uint8 planes back exactly
(datasets recorded before version 2, ``obs`` of ``OBS_BYTES_V1`` = 201
bytes, give their ``(N, 29, 34)`` float32 version 1 planes);
``unpack_mask`` the ``(N, 141)`` bools. With zstd, greedy self-play
takes about 48 bytes per decision on disk (zstd level ``ZSTD_LEVEL``;
the packed planes repeat between decisions; ``benches/bench_dataset.py``
measures it).

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

import json
import os
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from koudian._core import (
    MASK_BYTES,
    N_ACTIONS,
    OBS_BYTES,
    OBS_BYTES_V1,
    OBS_ENCODING_VERSION,
    OBS_PACK_VERSION,
    KoudianError,
    Ruleset,
    __version__,
)
from koudian._core import unpack_obs as _unpack_obs

if TYPE_CHECKING:  # pragma: no cover
    import pyarrow
    import pyarrow.dataset

__all__ = [
    "MANIFEST",
    "ZSTD_LEVEL",
    "ShardWriter",
    "iter_batches",
    "open",
    "read_manifest",
    "unpack_mask",
    "unpack_obs",
    "write_manifest",
    "write_shard",
]

_PLANES = {1: 29, 2: 66}
"""Planes of each observation encoding version."""

MANIFEST = "_manifest.json"
"""The manifest's file name in a dataset directory."""

FORMAT = "koudian-dataset"
FORMAT_VERSION = 1

_builtin_open = open


def _pyarrow() -> Any:
    """pyarrow and pyarrow.parquet, imported on first use (extra ``data``)."""
    try:
        import pyarrow
        import pyarrow.parquet
    except ImportError:
        raise KoudianError("datasets need pyarrow: pip install 'koudian[data]'") from None
    return pyarrow


def schema() -> pyarrow.Schema:
    """The Arrow schema of a dataset's rows."""
    pa = _pyarrow()
    return pa.schema(
        [
            ("hand", pa.uint64()),
            ("seed", pa.uint64()),
            ("seat", pa.uint8()),
            ("step", pa.uint16()),
            ("agent", pa.dictionary(pa.int8(), pa.string())),
            ("obs", pa.binary(OBS_BYTES)),
            ("mask", pa.binary(MASK_BYTES)),
            ("action", pa.uint8()),
            ("counts", pa.binary(34)),
            ("points", pa.int64()),
            ("delta", pa.int64()),
            ("won", pa.bool_()),
            ("shanten", pa.int8()),
            ("end", pa.uint8()),
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
    pa = _pyarrow()
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
    ]
    return pa.RecordBatch.from_arrays(cols, schema=schema())


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
) -> dict[str, Any]:
    """Writes the rows of the hands from ``start`` as one Parquet file in
    ``directory`` (atomically: a temporary file renamed), and returns its
    manifest entry ``{"file", "start", "rows"}``. ``decisions`` is a dict
    of columns or a list of them whose rows follow one another
    (``simulate_record(..., pieces=True)``: each becomes a record batch,
    no copy). ``extra`` names more columns (numpy arrays, one value a row)
    appended after the schema's (the arena's ``deal`` and ``table``).
    ``compression_level`` defaults to ``ZSTD_LEVEL`` for zstd (the codec's
    own default for the others)."""
    pa = _pyarrow()
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
    )
    os.replace(tmp, directory / name)
    return {"file": name, "start": int(start), "rows": int(table.num_rows)}


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

        _pyarrow()
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

    def write(self, start: int, decisions: dict[str, Any] | Sequence[dict[str, Any]]) -> None:
        """Queues the shard of the hands from ``start`` (``decisions`` as
        ``write_shard`` takes them)."""
        self._collect(self.WRITERS - 1)
        self._pending.append(
            self._pool.submit(write_shard, self.directory, start, decisions, self.agents)
        )

    def close(self) -> list[dict[str, Any]]:
        """Waits for the queued shards; the entries of every shard written."""
        try:
            self._collect(0)
        finally:
            self._pool.shutdown()
        return self.entries


def write_manifest(
    directory: str | os.PathLike[str],
    rules: Ruleset,
    agents: Sequence[str],
    seed: int,
    hands: int,
    seats: Sequence[int],
    shards: Sequence[dict[str, Any]],
    extra: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Writes ``_manifest.json`` and ``_metadata`` (the shards' footers) for
    the shards in ``directory``, and returns the manifest (with the
    entries of ``extra`` added, e.g. the arena's ``arena`` object)."""
    pa = _pyarrow()
    directory = Path(directory)
    shards = sorted(shards, key=lambda s: int(s["start"]))
    manifest = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "koudian_version": __version__,
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
    metadata = None
    for s in shards:
        md = pa.parquet.read_metadata(directory / s["file"])
        md.set_file_path(s["file"])
        if metadata is None:
            metadata = md
        else:
            metadata.append_row_groups(md)
    if metadata is not None:
        metadata.write_metadata_file(str(directory / "_metadata"))
    tmp = directory / f".{MANIFEST}.tmp"
    with _builtin_open(tmp, "w", encoding="utf-8") as f:
        json.dump(manifest, f, indent=1, allow_nan=False)
    os.replace(tmp, directory / MANIFEST)
    return manifest


def read_manifest(directory: str | os.PathLike[str]) -> dict[str, Any]:
    """The ``_manifest.json`` of a dataset directory."""
    path = Path(directory) / MANIFEST
    try:
        with _builtin_open(path, encoding="utf-8") as f:
            manifest: dict[str, Any] = json.load(f)
    except FileNotFoundError:
        raise KoudianError(f"{directory} is not a koudian dataset: no {MANIFEST}") from None
    if manifest.get("format") != FORMAT:
        raise KoudianError(f"{path} is not a koudian dataset manifest")
    return manifest


def open(directory: str | os.PathLike[str]) -> pyarrow.dataset.Dataset:
    """The dataset in ``directory`` as a ``pyarrow.dataset.Dataset`` (its
    shards; ``_metadata`` and ``_manifest.json`` are skipped). Filter and
    project with pyarrow, e.g. ``ds.to_table(filter=pc.field("seat") == 0)``."""
    _pyarrow()
    import pyarrow.dataset as pads

    read_manifest(directory)
    return pads.dataset(str(directory), format="parquet")


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
    or the uint8 array of its bytes), unpacked by the core: ``(N, 66, 34)``
    uint8 for encoding version 2 (``OBS_BYTES`` wide), ``(N, 29, 34)``
    float32 for version 1 (``OBS_BYTES_V1``, datasets recorded before
    version 2 was). ``dtype`` (e.g. ``np.float32``) converts them."""
    if isinstance(column, np.ndarray):
        raw = column
    else:
        width = _width(column)
        if width not in (OBS_BYTES, OBS_BYTES_V1):
            raise KoudianError(
                f"an obs column is {OBS_BYTES} or {OBS_BYTES_V1} bytes wide, not {width}"
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


def iter_batches(
    source: Any, batch_size: int = 65536, filter: Any = None
) -> Iterator[dict[str, npt.NDArray[Any]]]:
    """Training batches of a dataset (a directory or a
    ``pyarrow.dataset.Dataset``): dicts of numpy arrays ``obs``
    (``unpack_obs``: ``(n, 66, 34)`` uint8, or ``(n, 29, 34)`` float32 for
    a version 1 dataset), ``mask`` ``(n, 141)`` bool, ``action``
    int64, and the targets ``delta`` int64, ``won`` bool, ``shanten`` int8,
    ``end`` uint8, with ``hand``, ``seat``, ``step`` to join on. ``filter``
    is a pyarrow expression (e.g. ``pc.field("seat") == 0``)."""
    ds = source if hasattr(source, "to_batches") else open(source)
    cols = ["hand", "seat", "step", "obs", "mask", "action", "delta", "won", "shanten", "end"]
    for b in ds.to_batches(columns=cols, batch_size=batch_size, filter=filter):
        if b.num_rows == 0:
            continue
        yield {
            "hand": b.column("hand").to_numpy(),
            "seat": b.column("seat").to_numpy(),
            "step": b.column("step").to_numpy(),
            "obs": unpack_obs(b.column("obs")),
            "mask": unpack_mask(b.column("mask")),
            "action": b.column("action").to_numpy().astype(np.int64),
            "delta": b.column("delta").to_numpy(),
            "won": b.column("won").to_numpy(zero_copy_only=False),
            "shanten": b.column("shanten").to_numpy(),
            "end": b.column("end").to_numpy(),
        }
