"""What every page carries with it: the stylesheet, the pages' own font and
the tile faces, inlined so that a page needs no network and no installed
font (a machine without a CJK font drew every Chinese label as a box).

``page_css()`` is table.css with its ``__FONT_WOFF2__`` placeholder
replaced by the font (static/fonts/koudian-cjk.woff2: Noto Sans CJK SC,
subset by scripts/gen_font.py, SIL Open Font License: static/fonts/OFL.txt)
and one rule per tile face (static/tiles/*.svg, scripts/gen_tiles.py):
``.t.k-5m`` draws 5m, ``.t.back`` a face-down tile, ``.t.k-ting`` a
face-down ting discard.
"""

from __future__ import annotations

import base64
from functools import cache
from importlib import resources
from urllib.parse import quote

__all__ = ["TILE_FACES", "page_css", "tile_svg"]

TILE_FACES = [f"{n}{s}" for s in "mps" for n in range(1, 10)] + [f"{n}z" for n in range(1, 8)]


def _static() -> resources.abc.Traversable:
    return resources.files("koudian.web").joinpath("static")


def tile_svg(name: str) -> str:
    """The SVG of one face: a tile kind (``5m``), ``back`` or ``ting``."""
    return _static().joinpath("tiles", f"{name}.svg").read_text(encoding="utf-8")


def _svg_url(svg: str) -> str:
    # Percent-encoded text is smaller than base64 for SVG; quotes stay (the
    # url is in single quotes), '#', '<' and '>' are encoded.
    return "data:image/svg+xml," + quote(svg.strip(), safe=' =:/;,"-.()')


@cache
def page_css() -> str:
    """table.css with the font and the tile faces inlined."""
    css = _static().joinpath("table.css").read_text(encoding="utf-8")
    font = _static().joinpath("fonts", "koudian-cjk.woff2").read_bytes()
    url = "data:font/woff2;base64," + base64.b64encode(font).decode("ascii")
    css = css.replace("__FONT_WOFF2__", url)
    rules = [f".t.k-{n}{{background-image:url('{_svg_url(tile_svg(n))}')}}" for n in TILE_FACES]
    back, ting = _svg_url(tile_svg("back")), _svg_url(tile_svg("ting"))
    rules.append(f".t.back{{background-image:url('{back}')}}")
    rules.append(f".t.k-ting{{background-image:url('{ting}')}}")
    return css + "\n" + "\n".join(rules) + "\n"
