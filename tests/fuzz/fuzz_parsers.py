"""Fuzzes koudian's text parsers through the Python API with atheris
(libFuzzer): tile notation, meld notation, action text, ruleset names and
TOML files, and the JSON Lines log replay.

The first byte of an input picks the parser; the rest is its text
(decoded as UTF-8 with ``surrogateescape``, so invalid bytes arrive as
lone surrogates) or, for TOML, the file's bytes. Any exception but a
``KoudianError`` (and, for a ruleset file, nothing else) is a finding, as
is a panic (``PanicException``), a crash, a hang (``-timeout``) or memory
past ``-rss_limit_mb``.

Run (``pip install atheris`` and an installed koudian)::

    python tests/fuzz/fuzz_parsers.py -max_total_time=600 -max_len=16384 \\
        CORPUS_DIR tests/fuzz/corpus

New inputs go into the first directory (use a scratch copy, not the
committed seed corpus); a crash is written to ``crash-*`` in the working
directory and can be replayed with ``python tests/fuzz/fuzz_parsers.py
crash-…``. ``scripts/fuzz.sh`` runs it for a bounded time (the CI gate).
"""

from __future__ import annotations

import os
import re
import sys
import tempfile
import zlib

import atheris

with atheris.instrument_imports():
    import koudian
    from koudian import KoudianError

#: Scratch file for ruleset TOML inputs (`Ruleset.from_toml` reads paths).
_TOML = os.path.join(tempfile.mkdtemp(prefix="koudian-fuzz-"), "rules.toml")


def _tiles(text: str) -> None:
    koudian.parse(text)
    for f in (koudian.is_win, koudian.waits, koudian.shanten, koudian.decompose):
        try:
            f(text)
        except KoudianError:
            pass
    try:
        koudian.Tile.parse(text)
    except KoudianError:
        pass
    try:
        koudian.is_win("123m456p789s11122z", wildcards=text)
    except KoudianError:
        pass
    try:
        koudian.Meld.parse(text)
    except KoudianError:
        pass
    koudian.is_win(text, melds=text)


def _action(text: str) -> None:
    g = koudian.Game("linxian", seed=len(text))
    try:
        a = koudian.Action.parse(text)
    except KoudianError:
        a = None
    if a is not None:
        assert koudian.Action.parse(str(a)) == a, (text, a)
    before = g.log
    try:
        g.step(text)
    except KoudianError:
        assert g.log == before, "a refused action changed the game"


def _toml(data: bytes) -> str:
    with open(_TOML, "wb") as f:
        f.write(data)
    r = koudian.Ruleset.from_toml(_TOML)
    # What it reads back, it writes and reads the same.
    with open(_TOML, "w", encoding="utf-8") as f:
        f.write(r.to_toml())
    assert koudian.Ruleset.from_toml(_TOML).to_dict() == r.to_dict()
    return f"{r.family} {r.haozi} {r.no_honors}"


def _names(text: str) -> None:
    for call in (
        lambda: koudian.Ruleset.preset(text),
        lambda: koudian.Ruleset(family=text),
        lambda: koudian.Ruleset(**{text: True}),
        lambda: koudian.NativeAgent(text),
    ):
        try:
            call()
        except KoudianError:
            pass


def _replay(text: str) -> str:
    g = koudian.replay(text)
    # A log that replays, replays to the same log.
    assert koudian.replay(g.log).log == g.log
    res = g.result
    return f"{g.rules.family} {res.kind if res else 'open'} {g.moves.bit_length()}"


# The parsers are Rust, which atheris does not see: without a signal
# libFuzzer would keep 3 seeds of 40 and mutate those only. Each error's
# kind (its message without quoted text and numbers, and the target) reaches
# one of `_KINDS` branches of an instrumented function, so an input that
# gets a parser to a new kind of refusal (a later log line, another TOML
# problem) is kept as coverage.
_KINDS = 512
_ns: dict[str, object] = {}
# A function of `_KINDS` branches, written out.
exec(
    "def _kind(h):\n" + "".join(f"    if h == {i}:\n        return\n" for i in range(_KINDS)),
    _ns,
)
_kind = atheris.instrument_func(_ns["_kind"])
_SHAPE = re.compile(r"\"[^\"]*\"|'[^']*'|\d+")


def _signal(which: int, what: str) -> None:
    shape = _SHAPE.sub("", what)[:60]
    _kind(zlib.crc32(f"{which} {shape}".encode()) % _KINDS)


def test_one_input(data: bytes) -> None:
    if not data:
        return
    which, body = data[0] % 5, data[1:]
    text = body.decode("utf-8", "surrogateescape")
    # Valid inputs signal what they were (a replayed log's family, end and
    # length), so that they are kept too.
    try:
        if which == 0:
            _tiles(text)
            ok = "tiles"
        elif which == 1:
            _action(text)
            ok = "action"
        elif which == 2:
            ok = _toml(body)
        elif which == 3:
            _names(text)
            ok = "names"
        else:
            ok = _replay(text)
        _signal(which, "ok " + ok)
    except KoudianError as e:
        _signal(which, f"{type(e).__name__} {e}")


def main() -> None:
    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
