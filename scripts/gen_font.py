"""Writes the pages' font: Noto Sans CJK SC subset to the characters the
pages can show, as python/koudian/web/static/fonts/koudian-cjk.woff2.

Why: a machine without a CJK font (Debian's default) drew every Chinese
label, suit and honour as a box. The pages now carry the few hundred glyphs
they use (table.css's @font-face; koudian.web.assets embeds the file), so
they look the same on every machine.

The characters: every non-ASCII character of the static pages
(python/koudian/web/static: *.html, *.js, *.css), the strings the server
sends (the tile names of koudian.web.snapshot.tile_table; the pattern names
and payment reasons, read from the string literals of the engine's scoring
code, rust/core/src/score; the presets' titles and the options' names and
documentation of koudian.web.room_options), the glyphs the tile faces draw (gen_tiles.py's
GLYPHS), and printable ASCII (so Latin text is drawn by the same font).

The source font is not installed (the pages must not depend on one):
  apt-get download fonts-noto-cjk && dpkg -x fonts-noto-cjk_*.deb /tmp/noto
  python scripts/gen_font.py  # --source defaults to the file dpkg -x leaves there:
  # /tmp/noto/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc
Needs fontTools and brotli (pip install fonttools brotli; a development
tool, not a runtime dependency). A character the source font lacks is an
error: change the page, not the font. Beside the font, koudian-cjk.txt
lists the characters it holds (tests/test_web_look.py reads it).
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
STATIC = ROOT / "python" / "koudian" / "web" / "static"
OUT = STATIC / "fonts" / "koudian-cjk.woff2"
SCORE = ROOT / "rust" / "core" / "src" / "score"
DEFAULT_SOURCE = "/tmp/noto/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc"
SC_INDEX = 2  # Noto Sans CJK SC inside the collection
FAMILY = "Koudian CJK"  # a modified (subset) font takes a name of its own (OFL §3)

sys.path.insert(0, str(Path(__file__).resolve().parent))


def _rust_literals(text: str) -> str:
    """The string literals of Rust source, comments left out."""
    out = []
    for line in text.splitlines():
        code = line.split("//", 1)[0] if not line.lstrip().startswith("//") else ""
        out.extend(re.findall(r'"((?:[^"\\]|\\.)*)"', code))
    return "".join(out)


def page_chars() -> set[str]:
    """Every character the pages can show (see the module's docstring)."""
    chars: set[str] = {chr(c) for c in range(0x20, 0x7F)}
    for path in sorted(STATIC.iterdir()):
        if path.suffix in {".html", ".js", ".css"}:
            chars |= set(path.read_text(encoding="utf-8"))
    for path in sorted(SCORE.glob("*.rs")):
        chars |= set(_rust_literals(path.read_text(encoding="utf-8")))
    sys.path.insert(0, str(ROOT / "python"))
    from gen_tiles import GLYPHS
    from koudian.web.snapshot import tile_table

    chars |= set(GLYPHS)
    for t in tile_table():
        chars |= set(t["zh"])
    # The home page's option controls: the presets' titles and the options'
    # Chinese names and documentation (koudian.web.room_options, read from
    # the engine and the preset files).
    from koudian.web.room_options import options_info

    for preset in options_info().values():
        chars |= set(preset["title"])
        for c in preset["controls"]:
            chars |= set(c["zh"] or "") | set(c["doc"])
    # Layout characters are no glyphs; emoji-range tile glyphs only go to
    # title attributes (tooltips, drawn by the system).
    return {c for c in chars if c.isprintable() and ord(c) < 0x1F000}


def build(source: str, out: Path) -> int:
    from fontTools import subset  # type: ignore[import-untyped]
    from fontTools.ttLib import TTFont  # type: ignore[import-untyped]

    font = TTFont(source, fontNumber=SC_INDEX) if source.endswith(".ttc") else TTFont(source)
    cmap = font.getBestCmap()
    chars = page_chars()
    missing = sorted(c for c in chars if ord(c) not in cmap and c != " ")
    if missing:
        raise SystemExit(f"the source font lacks {''.join(missing)!r}: change the page")
    opts = subset.Options()
    opts.flavor = "woff2"
    opts.layout_features = ["kern", "palt"]
    opts.name_IDs = [0, 1, 2, 3, 4, 5, 6, 13, 14]
    opts.hinting = False
    opts.desubroutinize = True
    sub = subset.Subsetter(opts)
    sub.populate(unicodes=sorted(ord(c) for c in chars))
    sub.subset(font)
    name = font["name"]
    for rec in name.names:
        if rec.nameID in (1, 4, 16):
            rec.string = FAMILY
        elif rec.nameID == 6:
            rec.string = FAMILY.replace(" ", "")
        elif rec.nameID == 3:
            rec.string = f"{FAMILY}; subset of Noto Sans CJK SC"
    # Same input, same bytes: no save-time timestamp.
    font["head"].modified = font["head"].created
    font.recalcTimestamp = False
    out.parent.mkdir(parents=True, exist_ok=True)
    font.flavor = "woff2"
    font.save(str(out))
    # The characters held, for the tests (which then need no fontTools).
    out.with_suffix(".txt").write_text("".join(sorted(chars)) + "\n", encoding="utf-8")
    return len(chars)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--source", default=DEFAULT_SOURCE, help="Noto Sans CJK (.ttc or SC .otf)")
    p.add_argument("-o", "--output", default=str(OUT))
    p.add_argument("--list", action="store_true", help="print the characters and stop")
    args = p.parse_args()
    if args.list:
        print("".join(sorted(page_chars())))
        return 0
    n = build(args.source, Path(args.output))
    print(f"wrote {args.output}: {n} characters, {Path(args.output).stat().st_size} bytes")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
