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
(``pip install ".[data]"`` in a checkout). ``open_log`` returns a ``LogFile``:
native self-play compresses each chunk's log (the core's text of
thousands of hands) on its own threads into independent gzip members or
zstd frames, which ``LogSink`` appends to the file on a background thread
while the next chunk plays; text written to the ``LogFile`` itself is
compressed by Python into a member or frame of its own. Any other text
file gets plain text.

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
from collections.abc import Callable, Iterator
from functools import partial
from typing import IO, Any

from koudian._core import KoudianError
from koudian._extras import install_hint

__all__ = [
    "COMPRESSIONS",
    "MAX_HAND_BYTES",
    "MAX_LINE_BYTES",
    "LogFile",
    "LogSink",
    "compression_of",
    "native_compression",
    "open_log",
    "read_logs",
    "write_log",
]

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
            f"{install_hint('data')} (or use a .gz log)"
        ) from None


def open_log(path: str | os.PathLike[str], compress: str | None = None) -> LogFile:
    """A text file to write a multi-hand log to, compressed as
    ``compress`` (one of ``COMPRESSIONS``; default: by ``path``'s suffix):
    a ``LogFile``, into which native self-play writes frames it compressed
    on its own threads. gzip and zstd at level 1, the fastest (zstd's
    output is within 3% of its level 3 on logs, at 1.4 times the speed)."""
    kind = compression_of(path) if compress is None else compress
    if kind not in COMPRESSIONS:
        raise KoudianError(f"compress must be one of {', '.join(COMPRESSIONS)}, got {kind!r}")
    if kind == "zstd":
        _zstd()  # refused before the file is made
    return LogFile(path, kind)


class _Frames(io.BufferedIOBase):
    """The binary side of a ``LogFile``: bytes written are compressed into
    the current gzip member or zstd frame, begun at the first write after
    ``append_frames`` (or the start); ``append_frames`` ends it and appends
    frames compressed elsewhere to the raw file."""

    def __init__(self, path: str | os.PathLike[str], compression: str) -> None:
        super().__init__()
        self.name = os.fspath(path)
        self.compression = compression
        self.raw: IO[bytes] = open(path, "wb")
        self._member: IO[bytes] | None = None

    def writable(self) -> bool:
        return True

    def _current(self) -> IO[bytes]:
        if self.compression == "none":
            return self.raw
        if self._member is None:
            self._member = _new_member(self.compression, self.raw)
        return self._member

    def write(self, data: Any) -> int:
        if self.closed:
            raise ValueError("write to a closed log file")
        self._current().write(data)
        return len(data)

    def end_frame(self) -> None:
        """Ends the current member or frame (if any was begun)."""
        if self._member is not None:
            member, self._member = self._member, None
            member.close()

    def append_frames(self, data: bytes) -> None:
        """Appends whole frames of this compression (plain text for
        ``none``) after what was written so far."""
        if self.closed:
            raise ValueError("write to a closed log file")
        self.end_frame()
        self.raw.write(data)

    def flush(self) -> None:
        if self._member is not None:
            self._member.flush()
        if not self.raw.closed:
            self.raw.flush()

    def close(self) -> None:
        if self.closed:
            return
        try:
            self.end_frame()
        finally:
            self.raw.close()
            super().close()


def _new_member(kind: str, raw: IO[bytes]) -> IO[bytes]:
    """A writer of one gzip member or zstd frame onto ``raw``, which its
    ``close()`` ends (leaving ``raw`` open)."""
    if kind == "gzip":
        # No name and mtime 0 in the header, as in the native members: the
        # same hands give the same bytes.
        return gzip.GzipFile(  # type: ignore[return-value]
            filename="", mode="wb", compresslevel=1, fileobj=raw, mtime=0
        )
    z = _zstd()
    if z.__name__ == "zstandard":
        # Compressing on the calling thread (zstandard's own threads would
        # only compete with the play for cores).
        return z.ZstdCompressor(level=1).stream_writer(raw, closefd=False)  # type: ignore[no-any-return]
    return z.ZstdFile(raw, "wb", level=1)  # type: ignore[no-any-return]


class LogFile(io.TextIOWrapper):
    """A multi-hand log open for writing (``open_log``'s): a UTF-8 text
    file whose writes are compressed as ``compression``, and into which
    native self-play appends gzip members or zstd frames it compressed on
    its own threads (``write_frames``). Text written after such frames
    begins a new member or frame: the file is one valid stream of the
    text written, in order, whichever way."""

    def __init__(self, path: str | os.PathLike[str], compression: str) -> None:
        self._frames = _Frames(path, compression)
        super().__init__(self._frames, encoding="utf-8")

    @property
    def compression(self) -> str:
        """One of ``COMPRESSIONS``."""
        return self._frames.compression

    @property
    def raw(self) -> IO[bytes]:
        """The file on disk, written compressed bytes (``write_frames``
        ends the text's current member or frame before writing to it)."""
        return self._frames.raw

    def write_frames(self, data: bytes) -> None:
        """Appends ``data``, whole gzip members or zstd frames (plain UTF-8
        text for ``"none"``) of log text, after the text written so far."""
        self.flush()
        self._frames.append_frames(data)


def native_compression(log: IO[str]) -> str:
    """The compression native self-play should compress ``log``'s chunks
    in for ``LogSink`` to append them: a ``LogFile``'s own, else
    ``"none"`` (plain text, written through ``log``)."""
    return log.compression if isinstance(log, LogFile) else "none"


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
    waits, so memory stays bounded. The chunks are in ``compression``
    (``native_compression(log)``): frames a ``LogFile`` appends as they
    are, plain text otherwise. ``close()`` waits for the chunks written
    (the file itself stays open) and raises the writing's error, if any;
    so does the next ``write`` after a failed one."""

    def __init__(self, log: IO[str]) -> None:
        from concurrent.futures import Future, ThreadPoolExecutor

        self.log = log
        self.compression = native_compression(log)
        # A LogFile takes the chunks as frames; any other file, as text.
        self._write: Callable[[bytes], None] = (
            log.write_frames if isinstance(log, LogFile) else partial(write_log, log)
        )
        self._pool = ThreadPoolExecutor(1, thread_name_prefix="koudian-log")
        self._pending: Future[None] | None = None

    def _collect(self) -> None:
        if self._pending is not None:
            pending, self._pending = self._pending, None
            pending.result()

    def write(self, data: bytes) -> None:
        """Queues ``data`` (after the chunk before it)."""
        self._collect()
        self._pending = self._pool.submit(self._write, data)

    def close(self) -> None:
        """Waits for every queued chunk."""
        try:
            self._collect()
        finally:
            self._pool.shutdown()


MAX_LINE_BYTES = 4 << 20
"""The longest line ``read_logs`` reads (4 MiB): a hand's longest line, its
header or deal, is a few KB; a longer one is refused, so that a file of
one endless line (a decompression bomb) cannot take the memory."""

MAX_HAND_BYTES = 64 << 20
"""The most bytes of one hand ``read_logs`` gathers (64 MiB; a hand's log
is tens of KB): past it, the file is refused rather than held."""

_BLOCK = 1 << 16
"""Bytes read (or decompressed) at a time."""

_ZSTD_FEED = 256
"""Compressed bytes given to zstandard's decompressor at a time: it has no
bound on its output, and 256 bytes decompress to at most a few MB (a
zstd block is at most 128 KiB and takes a few bytes at the least)."""


def _blocks(path: str | os.PathLike[str]) -> Iterator[bytes]:
    """The decompressed bytes of the file at ``path`` (plain, gzip or
    zstd, told by its first bytes), a bounded block at a time. A corrupt
    or truncated stream is a ``KoudianError`` saying so."""
    name = os.fspath(path)
    with open(path, "rb") as raw:
        magic = raw.read(4)
        raw.seek(0)
        if magic.startswith(_GZIP_MAGIC):
            yield from _gzip_blocks(name, raw)
        elif magic.startswith(_ZSTD_MAGIC):
            yield from _zstd_blocks(name, raw)
        else:
            while block := raw.read(_BLOCK):
                yield block


def _gzip_blocks(name: str, raw: IO[bytes]) -> Iterator[bytes]:
    import zlib

    reader = gzip.GzipFile(fileobj=raw, mode="rb")
    while True:
        try:
            block = reader.read(_BLOCK)
        except EOFError:
            raise KoudianError(
                f"{name}: truncated file: the gzip stream ends before its end marker"
            ) from None
        except (zlib.error, gzip.BadGzipFile) as e:
            raise KoudianError(f"{name}: corrupt gzip data ({e})") from None
        if not block:
            return
        yield block


def _zstd_blocks(name: str, raw: IO[bytes]) -> Iterator[bytes]:
    z = _zstd()
    if z.__name__ != "zstandard":
        # Python 3.14's reader bounds its output and tells a truncated
        # stream (EOFError) from a corrupt one (ZstdError).
        reader = z.ZstdFile(raw, "rb")
        while True:
            try:
                block = reader.read(_BLOCK)
            except EOFError:
                raise KoudianError(
                    f"{name}: truncated file: the zstd stream ends inside a frame"
                ) from None
            except z.ZstdError as e:
                raise KoudianError(f"{name}: corrupt zstd data ({e})") from None
            if not block:
                return
            yield block
    # zstandard's stream reader ends a truncated frame silently: frames are
    # decompressed here, one object each, so that one left unfinished at
    # the end of the file is known.
    d = z.ZstdDecompressor().decompressobj()
    fed = False
    out = bytearray()
    while data := raw.read(_BLOCK):
        at = 0
        while at < len(data):
            piece = data[at : at + _ZSTD_FEED]
            at += len(piece)
            try:
                out += d.decompress(piece)
            except z.ZstdError as e:
                raise KoudianError(f"{name}: corrupt zstd data ({e})") from None
            fed = True
            if d.eof:
                # The frame ended: what follows starts the next one.
                data = d.unused_data + data[at:]
                at = 0
                d = z.ZstdDecompressor().decompressobj()
                fed = False
            if len(out) >= _BLOCK:
                yield bytes(out)
                out.clear()
    if out:
        yield bytes(out)
    if fed:
        raise KoudianError(f"{name}: truncated file: the zstd stream ends inside a frame")


class _BlockStream(io.RawIOBase):
    """``_blocks`` as a readable raw stream, for ``io.TextIOWrapper``'s
    line reading (at C speed)."""

    def __init__(self, blocks: Iterator[bytes]) -> None:
        super().__init__()
        self._blocks = blocks
        self._rest = memoryview(b"")

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        while not self._rest:
            block = next(self._blocks, b"")
            if not block:
                return 0
            self._rest = memoryview(block)
        n = min(len(buffer), len(self._rest))
        buffer[:n] = self._rest[:n]
        self._rest = self._rest[n:]
        return n


def _lines(path: str | os.PathLike[str]) -> Iterator[tuple[int, str]]:
    """The numbered lines of a log, each at most ``MAX_LINE_BYTES``
    characters with its newline (so its bytes, in UTF-8, at least as
    many), decoded from UTF-8."""
    name = os.fspath(path)
    text = io.TextIOWrapper(io.BufferedReader(_BlockStream(_blocks(path)), _BLOCK), "utf-8")
    n = 0
    while True:
        n += 1
        try:
            # At most MAX_LINE_BYTES characters (so at least as many
            # bytes) are read whatever the line's length.
            line = text.readline(MAX_LINE_BYTES + 1)
        except UnicodeDecodeError as e:
            # Decoded a block at a time: the bad bytes are at this line
            # or in the few KB after it.
            raise KoudianError(f"{name}: line {n} or soon after is not UTF-8 text ({e})") from None
        if not line:
            return
        if len(line) > MAX_LINE_BYTES:
            raise _long_line(name, n)
        yield n, line


def _long_line(name: str, n: int) -> KoudianError:
    return KoudianError(
        f"{name}: line {n} is longer than {MAX_LINE_BYTES} bytes "
        "(koudian.logs.MAX_LINE_BYTES): not a koudian log"
    )


def read_logs(path: str | os.PathLike[str], faults: bool = False) -> Iterator[str]:
    """Each hand's log in the multi-hand log at ``path`` (plain, gzip or
    zstd, told by its first bytes), as one string per hand that
    ``koudian.replay`` accepts. ``faults=True`` keeps the ``fault``
    records that follow a hand's ``end`` line in its string (``replay``
    refuses them). The file is streamed: memory stays bounded by
    ``MAX_HAND_BYTES`` whatever its size. A file not made of hand logs, a
    line longer than ``MAX_LINE_BYTES``, a hand longer than
    ``MAX_HAND_BYTES``, a corrupt or truncated gzip or zstd stream are each
    a ``KoudianError`` saying which and where."""
    try:
        yield from _hands(path, faults)
    except OSError as e:
        if isinstance(e, FileNotFoundError | PermissionError | IsADirectoryError):
            raise
        raise KoudianError(f"{os.fspath(path)}: not a readable log: {e}") from None


def _hands(path: str | os.PathLike[str], faults: bool) -> Iterator[str]:
    hand: list[str] = []
    size = 0
    for n, line in _lines(path):
        if not line.strip():
            continue
        if line.startswith(_HEADER):
            if hand:
                yield "".join(hand)
            hand, size = [], 0
        elif not hand:
            raise KoudianError(f"{os.fspath(path)}: line {n} comes before any hand's header line")
        if faults or not line.startswith(_FAULT):
            size += len(line) + 1
            if size > MAX_HAND_BYTES:
                raise KoudianError(
                    f"{os.fspath(path)}: the hand at line {n} is longer than {MAX_HAND_BYTES} "
                    "bytes (koudian.logs.MAX_HAND_BYTES): not a koudian log"
                )
            hand.append(line if line.endswith("\n") else line + "\n")
    if hand:
        yield "".join(hand)
