"""Multi-hand JSON Lines logs: writing them compressed, reading them back.

``koudian simulate --log FILE`` writes every hand's log (the core's
``Game.log``: a ``header`` line, a ``deal`` line, one line per event, an
``end`` line), one hand after another; faults of external bots follow
their hand's ``end`` line as ``{"type": "fault", ...}`` records. A
``FILE`` ending in ``.gz`` is gzip-compressed, one ending in ``.zst`` or
``.zstd`` zstd-compressed (``--log-compress`` overrides the suffix), at
level 1 for both: the fastest levels, whose files are within a few
percent of the default levels' on these repetitive lines. zstd needs
Python 3.14's ``compression.zstd`` or the ``zstandard`` package
(``pip install 'koudian[data]'``). Native self-play writes the log in
large chunks of bytes (the core's text of thousands of hands at once),
compressed and written on a background thread while the next chunk
plays (``LogSink``).

``read_logs(path)`` yields each hand's log as a string that
``koudian.replay`` accepts, whatever the compression (told by the
file's first bytes, not its name):

    >>> import koudian, tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "games.jsonl.gz")
    >>> with koudian.logs.open_log(path) as f:
    ...     _ = koudian.simulate("shanxi", ["greedy"] * 4, hands=3, seed=2, log=f)
    >>> logs = list(koudian.read_logs(path))
    >>> len(logs), koudian.replay(logs[0]).done
    (3, True)
"""

from __future__ import annotations

import gzip
import io
import os
from collections.abc import Iterator
from typing import IO, Any

from koudian._core import KoudianError

__all__ = ["COMPRESSIONS", "LogSink", "compression_of", "open_log", "read_logs", "write_log"]

COMPRESSIONS = ("none", "gzip", "zstd")
"""The ``compress=`` values of ``open_log`` (and ``--log-compress``)."""

_GZIP_MAGIC = b"\x1f\x8b"
_ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
_HEADER = '{"type":"header"'
_FAULT = ('{"type":"fault"', '{"type": "fault"')


def compression_of(path: str | os.PathLike[str]) -> str:
    """The compression a log file name asks for: ``"gzip"`` for ``.gz``,
    ``"zstd"`` for ``.zst``/``.zstd``, else ``"none"``."""
    name = os.fspath(path).lower()
    if name.endswith(".gz"):
        return "gzip"
    if name.endswith((".zst", ".zstd")):
        return "zstd"
    return "none"


def _zstd() -> Any:
    """A zstd module: the stdlib's (3.14+) or ``zstandard``."""
    try:
        from compression import zstd  # type: ignore[import-not-found, unused-ignore]

        return zstd
    except ImportError:
        pass
    try:
        import zstandard  # type: ignore[import-not-found, unused-ignore]

        return zstandard
    except ImportError:
        raise KoudianError(
            "zstd logs need Python 3.14 or the zstandard package: "
            "pip install 'koudian[data]' (or use a .gz log)"
        ) from None


def open_log(path: str | os.PathLike[str], compress: str | None = None) -> IO[str]:
    """A text file to write a multi-hand log to, compressed as
    ``compress`` (one of ``COMPRESSIONS``; default: by ``path``'s suffix).
    gzip and zstd at level 1, the fastest (zstd's output is within 3% of
    its level 3 on logs, at 1.4 times the speed)."""
    kind = compression_of(path) if compress is None else compress
    if kind not in COMPRESSIONS:
        raise KoudianError(f"compress must be one of {', '.join(COMPRESSIONS)}, got {kind!r}")
    if kind == "none":
        return open(path, "w", encoding="utf-8")
    if kind == "gzip":
        return gzip.open(path, "wt", encoding="utf-8", compresslevel=1)
    z = _zstd()
    if hasattr(z, "ZstdCompressor") and hasattr(z, "open") and z.__name__ != "zstandard":
        return z.open(path, "wt", encoding="utf-8", level=1)  # type: ignore[no-any-return]
    # zstandard, compressing on the calling thread (LogSink's, in a native
    # run): its worker threads would only compete with the play for cores.
    raw = open(path, "wb")
    cctx = z.ZstdCompressor(level=1)
    writer = cctx.stream_writer(raw, closefd=True)
    return io.TextIOWrapper(writer, encoding="utf-8")


def write_log(log: IO[str], data: bytes) -> None:
    """Writes UTF-8 log bytes to the text file ``log``: to its binary
    buffer when it has one (no decoding and re-encoding of megabytes)."""
    buffer = getattr(log, "buffer", None)
    if buffer is not None:
        log.flush()
        buffer.write(data)
    else:
        log.write(data.decode("utf-8"))


class LogSink:
    """Writes chunks of log bytes to the text file ``log`` on one
    background thread, in order, while the caller plays the next chunk
    (the compressors and file writes release the GIL); at most one chunk
    waits, so memory stays bounded. ``close()`` waits for the chunks
    written (the file itself stays open) and raises the writing's error,
    if any; so does the next ``write`` after a failed one."""

    def __init__(self, log: IO[str]) -> None:
        from concurrent.futures import Future, ThreadPoolExecutor

        self.log = log
        self._pool = ThreadPoolExecutor(1, thread_name_prefix="koudian-log")
        self._pending: Future[None] | None = None

    def _collect(self) -> None:
        if self._pending is not None:
            pending, self._pending = self._pending, None
            pending.result()

    def write(self, data: bytes) -> None:
        """Queues ``data`` (after the chunk before it)."""
        self._collect()
        self._pending = self._pool.submit(write_log, self.log, data)

    def close(self) -> None:
        """Waits for every queued chunk."""
        try:
            self._collect()
        finally:
            self._pool.shutdown()


def _open_read(path: str | os.PathLike[str]) -> IO[bytes]:
    with open(path, "rb") as f:
        magic = f.read(4)
    if magic.startswith(_GZIP_MAGIC):
        return gzip.open(path, "rb")  # type: ignore[return-value]
    if magic.startswith(_ZSTD_MAGIC):
        z = _zstd()
        if z.__name__ == "zstandard":
            return z.ZstdDecompressor().stream_reader(  # type: ignore[no-any-return]
                open(path, "rb"), closefd=True, read_across_frames=True
            )
        return z.open(path, "rb")  # type: ignore[no-any-return]
    return open(path, "rb")


def read_logs(path: str | os.PathLike[str], faults: bool = False) -> Iterator[str]:
    """Each hand's log in the multi-hand log at ``path`` (plain, gzip or
    zstd, told by its first bytes), as one string per hand that
    ``koudian.replay`` accepts. ``faults=True`` keeps the ``fault``
    records that follow a hand's ``end`` line in its string (``replay``
    refuses them). A file not made of hand logs is a ``KoudianError``
    naming the line."""
    try:
        yield from _hands(path, faults)
    except (OSError, EOFError, UnicodeDecodeError) as e:
        if isinstance(e, FileNotFoundError | PermissionError | IsADirectoryError):
            raise
        raise KoudianError(f"{os.fspath(path)}: not a readable log: {e}") from None


def _hands(path: str | os.PathLike[str], faults: bool) -> Iterator[str]:
    hand: list[str] = []
    with _open_read(path) as raw:
        text = io.TextIOWrapper(raw, encoding="utf-8")
        for n, line in enumerate(text, 1):
            if not line.strip():
                continue
            if line.startswith(_HEADER):
                if hand:
                    yield "".join(hand)
                hand = []
            elif not hand:
                raise KoudianError(
                    f"{os.fspath(path)}: line {n} comes before any hand's header line"
                )
            if faults or not line.startswith(_FAULT):
                hand.append(line if line.endswith("\n") else line + "\n")
    if hand:
        yield "".join(hand)
