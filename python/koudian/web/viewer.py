"""``koudian view``: a log as one self-contained HTML replay viewer.

``koudian view LOG [--hand N] -o replay.html`` replays every hand of LOG
(one hand's JSON Lines log, or the several hands ``koudian simulate --log``
writes) with the engine and writes one HTML file that needs no network:
inline CSS and JavaScript, tiles drawn by CSS. The file embeds the frames
of ``koudian.web.snapshot.hand_frames`` (each hand in its own JSON block,
parsed when first shown) and draws them: step with the arrow keys or the
buttons, Shift+arrows jump to the previous/next decision (of one seat when
one is picked), a hand picker, all tiles revealed or one seat's view with
hidden tiles face down, a Chinese/English toggle, and the itemized
settlement at the last step.
"""

from __future__ import annotations

import argparse
import json
import sys
from importlib import resources
from pathlib import Path
from typing import Any

from koudian._core import KoudianError
from koudian.logs import read_logs
from koudian.simulation import _positive_int
from koudian.web.snapshot import action_table, hand_frames, tile_table

__all__ = ["add_subparser", "build_html", "load_hands", "render"]


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


def build_html(
    hands: list[dict[str, Any]],
    *,
    title: str = "koudian replay",
    start: int = 0,
    review: dict[str, Any] | None = None,
) -> str:
    """The viewer page for hands from ``hand_frames`` (``review``: the
    reviewing agent's name and seat, when the hands carry a review)."""
    if not hands:
        raise ValueError("no hand to show")
    meta = {
        "tiles": tile_table(),
        "actions": action_table(),
        "hands": [{"label": _label(h)} for h in hands],
        "start": start,
        "review": review,
    }
    blocks = "\n".join(
        f'<script type="application/json" id="hand-{i}">{_script_json(h)}</script>'
        for i, h in enumerate(hands)
    )
    page = _static("viewer.html")
    # The page's placeholders, replaced in one pass so that no embedded
    # text is itself searched for a placeholder.
    parts = {
        "__TITLE__": title.replace("&", "&amp;").replace("<", "&lt;"),
        "__CSS__": _static("table.css"),
        "__META__": _script_json(meta),
        "__HANDS__": blocks,
        "__TABLE_JS__": _static("table.js"),
    }
    out: list[str] = []
    rest = page
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


def load_hands(path: str | Path, hand: int | None = None) -> list[str]:
    """The hand logs of a log file, plain or compressed (``hand``: only
    that one, 1-based)."""
    logs = list(read_logs(path))
    if not logs:
        raise KoudianError(f"{path}: no koudian log header found")
    if hand is not None:
        if not 1 <= hand <= len(logs):
            raise KoudianError(f"--hand {hand}: {path} holds {len(logs)} hand(s)")
        logs = [logs[hand - 1]]
    return logs


def render(path: str | Path, hand: int | None = None) -> str:
    """The viewer page of a log file."""
    hands = []
    for i, log in enumerate(load_hands(path, hand)):
        try:
            hands.append(hand_frames(log))
        except KoudianError as e:
            raise KoudianError(f"{path}: hand {i + 1 if hand is None else hand}: {e}") from None
    return build_html(hands, title=f"koudian · {Path(path).name}")


def _cmd_view(args: argparse.Namespace) -> int:
    try:
        page = render(args.log, args.hand)
    except (KoudianError, OSError) as e:
        print(f"koudian: error: {e}", file=sys.stderr)
        return 2
    Path(args.output).write_text(page, encoding="utf-8")
    print(f"wrote {args.output} ({len(page.encode()) // 1024} KiB)")
    return 0


def add_subparser(sub: Any) -> None:
    """Registers ``koudian view``."""
    p = sub.add_parser("view", help="write a log as a self-contained HTML replay viewer")
    p.add_argument("log", help="a JSON Lines log (one hand, or several from simulate --log)")
    p.add_argument("--hand", type=_positive_int, default=None, help="only hand N (1-based)")
    p.add_argument("-o", "--output", default="replay.html", help="output file (replay.html)")
    p.set_defaults(func=_cmd_view)
