"""Writes the tile faces the pages draw: python/koudian/web/static/tiles/*.svg.

One SVG per kind (1m..9m, 1p..9p, 1s..9s, 1z..7z in koudian's notation),
plus back.svg (a face-down tile) and ting.svg (a face-down ting discard:
a back marked 听). Characters (万: the numeral over 萬), circles (筒),
bamboo (条), the four winds and three dragons, drawn to be read at a
glance at phone size. Wild tiles (耗子) are the same faces: the page marks
them (table.css, .t.wild).

No face depends on an installed font: each Chinese character is the glyph
outline of the pages' own font (static/fonts/koudian-cjk.woff2, written by
gen_font.py; fontTools' SVG path pen), so every machine draws the same
tile. Restyle here and rerun: ``python scripts/gen_tiles.py``
(tests/test_web_look.py checks the committed files equal its output).
Needs fontTools and brotli (development tools, not runtime dependencies).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
STATIC = ROOT / "python" / "koudian" / "web" / "static"
FONT = STATIC / "fonts" / "koudian-cjk.woff2"
OUT = STATIC / "tiles"

NUMERALS = "一二三四五六七八九"
HONOURS = "東南西北"  # 1z..4z; 5z 白 is drawn, 6z 發, 7z 中
GLYPHS = NUMERALS + "萬" + HONOURS + "發中听" + "123456789"

W, H = 48, 64  # the tile; the face is the top 60, the green back shows below
FACE_H = 60
INK = "#1b2a4a"
RED = "#c0262d"
GREEN = "#17804a"
BLUE = "#1d5fa8"
BACK = "#2d7a55"

Glyphs = Callable[[str, float, float, float, float, str], str]


def _glyph_drawer(font_path: Path) -> Glyphs:
    """A function drawing a character of the pages' font centred in a box."""
    from fontTools.pens.boundsPen import BoundsPen  # type: ignore[import-untyped]
    from fontTools.pens.svgPathPen import SVGPathPen  # type: ignore[import-untyped]
    from fontTools.ttLib import TTFont  # type: ignore[import-untyped]

    font = TTFont(str(font_path))
    cmap = font.getBestCmap()
    glyphs = font.getGlyphSet()

    def draw(ch: str, x: float, y: float, w: float, h: float, fill: str) -> str:
        name = cmap[ord(ch)]
        bp = BoundsPen(glyphs)
        glyphs[name].draw(bp)
        assert bp.bounds is not None, ch
        x0, y0, x1, y1 = bp.bounds
        s = min(w / (x1 - x0), h / (y1 - y0))
        # Font units: y up. Centre the outline's bounds in the box.
        tx = x + (w - (x1 - x0) * s) / 2 - x0 * s
        ty = y + (h - (y1 - y0) * s) / 2 + y1 * s
        pen = SVGPathPen(glyphs, ntos=lambda v: f"{v:g}")
        glyphs[name].draw(pen)
        # A stroke of the fill's colour makes the regular weight read bold
        # at 30 px.
        return (
            f'<path transform="translate({tx:.2f} {ty:.2f}) scale({s:.5f} {-s:.5f})" '
            f'fill="{fill}" stroke="{fill}" stroke-width="{1.1 / s:.0f}" '
            f'stroke-linejoin="round" d="{pen.getCommands()}"/>'
        )

    return draw


def _frame(inner: str, face: str = "url(#f)") -> str:
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {W} {H}" width="{W}" height="{H}">'
        '<defs><linearGradient id="f" x1="0" y1="0" x2="0" y2="1">'
        '<stop offset="0" stop-color="#fffdf5"/><stop offset="1" stop-color="#efe8d4"/>'
        "</linearGradient></defs>"
        f'<rect x="0.5" y="0.5" width="{W - 1}" height="{H - 1}" rx="6" fill="{BACK}" '
        'stroke="#1d5a3c"/>'
        f'<rect x="0.5" y="0.5" width="{W - 1}" height="{FACE_H}" rx="6" fill="{face}" '
        'stroke="#9d9274"/>'
        f"{inner}</svg>\n"
    )


def _dot(x: float, y: float, r: float, colour: str) -> str:
    # A coin: a coloured disc, an ivory ring, a coloured centre.
    return (
        f'<circle cx="{x:g}" cy="{y:g}" r="{r:g}" fill="{colour}"/>'
        f'<circle cx="{x:g}" cy="{y:g}" r="{r * 0.62:.2f}" fill="#fffdf5"/>'
        f'<circle cx="{x:g}" cy="{y:g}" r="{r * 0.36:.2f}" fill="{colour}"/>'
    )


# Circle layouts: (x, y, colour) on the 48x60 face; the radius per count.
_PIN: dict[int, tuple[float, Sequence[tuple[float, float, str]]]] = {
    1: (17, [(24, 30, RED)]),
    2: (10, [(24, 16, GREEN), (24, 44, BLUE)]),
    3: (8.5, [(12, 12, BLUE), (24, 30, RED), (36, 48, GREEN)]),
    4: (9, [(13, 17, BLUE), (35, 17, GREEN), (13, 43, GREEN), (35, 43, BLUE)]),
    5: (
        8,
        [(12, 13, BLUE), (36, 13, GREEN), (24, 30, RED), (12, 47, GREEN), (36, 47, BLUE)],
    ),
    6: (
        7,
        [(14, 11, GREEN), (34, 11, GREEN)]
        + [(x, y, RED) for y in (32, 49) for x in (14, 34)]
        + [(14, 32, RED), (34, 32, RED)],
    ),
    7: (
        5.6,
        [(11, 9, GREEN), (24, 15, GREEN), (37, 21, GREEN)]
        + [(x, y, RED) for y in (36, 50) for x in (15, 33)],
    ),
    8: (5.8, [(x, y, BLUE) for y in (9, 23, 37, 51) for x in (15, 33)]),
    9: (
        6.3,
        [(x, y, c) for y, c in ((12, BLUE), (30, RED), (48, GREEN)) for x in (10, 24, 38)],
    ),
}


def _stick(x: float, y: float, colour: str, h: float = 14) -> str:
    # A bamboo stick: a rounded bar with a node in the middle.
    return (
        f'<rect x="{x - 3:g}" y="{y - h / 2:g}" width="6" height="{h:g}" rx="2.4" fill="{colour}"/>'
        f'<rect x="{x - 3.6:g}" y="{y - 0.9:g}" width="7.2" height="1.8" rx="0.9" fill="{colour}"/>'
        f'<line x1="{x:g}" y1="{y - h / 2 + 2:g}" x2="{x:g}" y2="{y + h / 2 - 2:g}" '
        'stroke="#fffdf5" stroke-width="0.9" stroke-opacity="0.55"/>'
    )


_SOU: dict[int, Sequence[tuple[float, float, str]]] = {
    2: [(24, 17, GREEN), (24, 43, GREEN)],
    3: [(24, 17, GREEN), (14, 43, GREEN), (34, 43, GREEN)],
    4: [(x, y, GREEN) for y in (17, 43) for x in (14, 34)],
    5: [(x, y, GREEN) for y in (15, 45) for x in (12, 36)] + [(24, 30, RED)],
    6: [(x, y, GREEN) for y in (17, 43) for x in (11, 24, 37)],
    7: [(24, 10, RED)] + [(x, y, GREEN) for y in (30, 49) for x in (11, 24, 37)],
    8: [(x, y, GREEN) for y in (17, 43) for x in (8, 19, 29, 40)],
    9: [(x, y, RED if x == 24 else GREEN) for y in (11, 30, 49) for x in (11, 24, 37)],
}


def _bird() -> str:
    # 1s: the bird on the bamboo, as on most sets.
    return (
        '<path d="M13 46 C10 36 14 24 24 20 C32 17 37 21 37 27 C37 36 29 44 19 47 Z" '
        f'fill="{GREEN}"/>'
        f'<path d="M19 42 C24 36 29 32 34 30" stroke="#fffdf5" stroke-width="1.4" fill="none"/>'
        f'<path d="M13 46 L6 54 L14 51 L12 57 L19 48 Z" fill="{BLUE}"/>'
        f'<circle cx="33" cy="15" r="6" fill="{RED}"/>'
        '<circle cx="34.5" cy="13.5" r="1.3" fill="#fffdf5"/>'
        f'<path d="M38.5 14 L44 16 L38.5 17.5 Z" fill="#d99a1e"/>'
        f'<path d="M29 10 L27 5 L31 8 L32 3 L34 9 Z" fill="{RED}"/>'
    )


def faces(glyph: Glyphs) -> dict[str, str]:
    """Every face by file stem: 1m..7z, back, ting."""
    out: dict[str, str] = {}
    for n in range(1, 10):
        out[f"{n}m"] = _frame(
            glyph(NUMERALS[n - 1], 9, 5, 30, 22, INK)
            + glyph("萬", 7, 30, 34, 26, RED)
            + glyph(str(n), 2.5, 3, 6, 8, INK)
        )
        radius, dots = _PIN[n]
        out[f"{n}p"] = _frame("".join(_dot(x, y, radius, c) for x, y, c in dots))
        if n == 1:
            out["1s"] = _frame(_bird())
        else:
            h = 13 if n in (7, 9) else 16 if n in (5,) else 18
            out[f"{n}s"] = _frame("".join(_stick(x, y, c, h) for x, y, c in _SOU[n]))
    for k, ch in enumerate(HONOURS, 1):
        out[f"{k}z"] = _frame(glyph(ch, 7, 10, 34, 40, INK))
    # 白: the white dragon's blue frame.
    out["5z"] = _frame(
        f'<rect x="9" y="9" width="30" height="42" rx="2" fill="none" stroke="{BLUE}" '
        'stroke-width="3.2"/>'
        f'<rect x="14" y="14" width="20" height="32" rx="1" fill="none" stroke="{BLUE}" '
        'stroke-width="1.4"/>'
    )
    out["6z"] = _frame(glyph("發", 6, 9, 36, 42, GREEN))
    out["7z"] = _frame(glyph("中", 6, 9, 36, 42, RED))
    back_face = (
        f'<rect x="5" y="5" width="{W - 10}" height="{FACE_H - 9}" rx="4" fill="none" '
        'stroke="#5fae86" stroke-width="1.2"/>'
    )
    out["back"] = _frame(back_face, face=BACK)
    # A ting discard lies face down, marked so it is not read as an
    # unseen tile: a darker back with 听 in a disc.
    out["ting"] = _frame(
        back_face.replace("#5fae86", "#e0b54a")
        + '<circle cx="24" cy="30" r="14" fill="#fdf3d2"/>'
        + glyph("听", 13, 19, 22, 22, "#7a4b00"),
        face="#1f5a40",
    )
    return out


def write(out_dir: Path = OUT, font: Path = FONT) -> list[Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for stem, svg in faces(_glyph_drawer(font)).items():
        path = out_dir / f"{stem}.svg"
        path.write_text(svg, encoding="utf-8")
        written.append(path)
    return written


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("-o", "--output", default=str(OUT), help="folder (static/tiles)")
    p.add_argument("--font", default=str(FONT), help="the pages' font (gen_font.py)")
    args = p.parse_args()
    paths = write(Path(args.output), Path(args.font))
    size = sum(p.stat().st_size for p in paths)
    print(f"wrote {len(paths)} faces to {args.output} ({size} bytes)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
