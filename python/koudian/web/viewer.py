"""``koudian view``: a log as one self-contained HTML replay viewer.

``koudian view LOG [--hand N] -o replay.html`` replays every hand of LOG
(one hand's JSON Lines log, or the several hands ``koudian simulate --log``
writes) with the engine and writes one HTML file that needs no network:
inline CSS and JavaScript, the pages' own font and the tile faces
(``koudian.web.assets``), so it looks the same on a machine with no CJK
font. The file embeds the frames of ``koudian.web.snapshot.hand_frames``
(each hand in its own JSON block, parsed when first shown) and draws
them: step with the arrow keys or the buttons, Shift+arrows jump to the
previous/next decision (of one seat when one is picked), a hand picker,
all tiles revealed or one seat's view with hidden tiles face down, a
Chinese/English toggle (``?lang=en`` opens in English), and the itemized
settlement at the last step.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import sys
from collections.abc import Iterable, Iterator
from importlib import resources
from pathlib import Path
from typing import IO, Any

from koudian._cli_args import positive_int
from koudian._core import KoudianError
from koudian.logs import read_logs
from koudian.web.assets import page_css
from koudian.web.snapshot import action_table, hand_frames, tile_table

__all__ = [
    "add_subparser",
    "build_html",
    "iter_hands",
    "load_hands",
    "render",
    "write_html",
    "write_view",
]


def _static(name: str) -> str:
    return resources.files("koudian.web").joinpath("static", name).read_text(encoding="utf-8")


def _script_json(data: Any) -> str:
    """JSON safe inside a ``<script>`` element (no ``</`` can close it)."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return text.replace("</", "<\\/").replace("<!--", "<\\!--")


def _label(h: dict[str, Any]) -> str:
    r = h["result"] or {}
    kind = r.get("kind", "?")
    winners = ",".join(str(w) for w in r.get("winners", []))
    seed = h["seed"]
    return f"{h['family']} seed {seed if seed is not None else '-'} · {kind} {winners}".strip()


def _fill(text: str, parts: dict[str, str]) -> str:
    """``text`` with its placeholders replaced, in one pass, so that no
    embedded text is itself searched for a placeholder."""
    out: list[str] = []
    rest = text
    while True:
        hits = [(rest.find(k), k) for k in parts if rest.find(k) >= 0]
        if not hits:
            out.append(rest)
            break
        at, key = min(hits)
        out.append(rest[:at])
        out.append(parts[key])
        rest = rest[at + len(key) :]
    return "".join(out)


def write_html(
    out: IO[str],
    hands: Iterable[dict[str, Any]],
    *,
    title: str = "koudian replay",
    start: int = 0,
    review: dict[str, Any] | None = None,
) -> int:
    """Writes the viewer page of ``hands`` (from ``hand_frames``, taken one
    at a time: each is written and dropped before the next is asked for,
    so memory holds one hand whatever their number) to ``out``, and
    returns the number of hands. The hand picker's labels follow the
    hands in the page. ``review``: the reviewing agent's name and seat,
    when the hands carry a review."""
    page = _static("viewer.html")
    head, rest = page.split("__HANDS__", 1)
    fixed = {
        "__TITLE__": title.replace("&", "&amp;").replace("<", "&lt;"),
        "__CSS__": page_css(),
        "__TABLE_JS__": _static("table.js"),
    }
    out.write(_fill(head, fixed))
    labels = []
    for i, h in enumerate(hands):
        out.write(f'<script type="application/json" id="hand-{i}">')
        out.write(_script_json(h))
        out.write("</script>\n")
        labels.append({"label": _label(h)})
    if not labels:
        raise ValueError("no hand to show")
    meta = {
        "tiles": tile_table(),
        "actions": action_table(),
        "hands": labels,
        "start": start,
        "review": review,
    }
    out.write(_fill(rest, {**fixed, "__META__": _script_json(meta)}))
    return len(labels)


def build_html(
    hands: list[dict[str, Any]],
    *,
    title: str = "koudian replay",
    start: int = 0,
    review: dict[str, Any] | None = None,
) -> str:
    """The viewer page for hands from ``hand_frames`` (``review``: the
    reviewing agent's name and seat, when the hands carry a review), as
    one string (``write_html`` streams it)."""
    if not hands:
        raise ValueError("no hand to show")
    buf = io.StringIO()
    write_html(buf, hands, title=title, start=start, review=review)
    return buf.getvalue()


def iter_hands(path: str | Path, hand: int | None = None) -> Iterator[str]:
    """The hand logs of a log file, plain or compressed, read one at a
    time (``hand``: only that one, 1-based)."""
    count = 0
    for count, log in enumerate(read_logs(path), 1):
        if hand is None or count == hand:
            yield log
            if hand is not None:
                return
    if count == 0:
        raise KoudianError(f"{path}: no koudian log header found")
    if hand is not None:
        raise KoudianError(f"--hand {hand}: {path} holds {count} hand(s)")


def load_hands(path: str | Path, hand: int | None = None) -> list[str]:
    """The hand logs of a log file, plain or compressed (``hand``: only
    that one, 1-based), all in memory (``iter_hands`` streams them)."""
    return list(iter_hands(path, hand))


def _frames(path: str | Path, hand: int | None) -> Iterator[dict[str, Any]]:
    for i, log in enumerate(iter_hands(path, hand)):
        try:
            yield hand_frames(log)
        except KoudianError as e:
            raise KoudianError(f"{path}: hand {i + 1 if hand is None else hand}: {e}") from None


def render(path: str | Path, hand: int | None = None) -> str:
    """The viewer page of a log file, as one string (``write_view``
    streams it to a file)."""
    buf = io.StringIO()
    write_html(buf, _frames(path, hand), title=f"koudian · {Path(path).name}")
    return buf.getvalue()


def write_view(path: str | Path, output: str | Path, hand: int | None = None) -> int:
    """Writes the viewer page of a log file to ``output``, streaming: one
    hand's log and frames in memory at a time. The page is written to a
    temporary file beside ``output`` and renamed over it once whole, so a
    log that fails part-way leaves ``output`` as it was. Returns the bytes
    written."""
    output = Path(output)
    tmp = output.with_name(f".{output.name}.{os.getpid()}.tmp")
    try:
        with tmp.open("w", encoding="utf-8") as f:
            write_html(f, _frames(path, hand), title=f"koudian · {Path(path).name}")
        os.replace(tmp, output)
    finally:
        tmp.unlink(missing_ok=True)
    return output.stat().st_size


def _cmd_view(args: argparse.Namespace) -> int:
    try:
        size = write_view(args.log, args.output, args.hand)
    except (KoudianError, OSError) as e:
        print(f"koudian: error: {e}", file=sys.stderr)
        return 2
    print(f"wrote {args.output} ({size // 1024} KiB)")
    return 0


def add_subparser(sub: Any) -> None:
    """Registers ``koudian view``."""
    p = sub.add_parser("view", help="write a log as a self-contained HTML replay viewer")
    p.add_argument("log", help="a JSON Lines log (one hand, or several from simulate --log)")
    p.add_argument("--hand", type=positive_int, default=None, help="only hand N (1-based)")
    p.add_argument("-o", "--output", default="replay.html", help="output file (replay.html)")
    p.set_defaults(func=_cmd_view)
