"""Issue 39, the pages: the project's own tile faces and font, drawn by
Debian's Chromium on a machine with no CJK font installed, at a desktop
and a phone size; the table layout; the language kept; the end screen's
scores.

Screenshots go to the artifacts folder; with KOUDIAN_WRITE_DOCS=1 they are
also written to docs/ (docs/tiles.png, docs/pages/*.jpg: the committed
ones come from here)."""

from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import koudian
import pytest
from web_support import artifacts, browser_page, live_server, rooms_server

ROOT = Path(__file__).resolve().parent.parent
STATIC = ROOT / "python" / "koudian" / "web" / "static"
DOCS = ROOT / "docs"
SIZES = {"wide": (1400, 900), "phone": (390, 844)}


def _save(page: Any, name: str) -> None:
    # JPEG: the felt's gradient makes a PNG of a page ten times larger.
    kw = {"type": "jpeg", "quality": 82}
    (artifacts() / name).parent.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(artifacts() / name), **kw)
    if os.environ.get("KOUDIAN_WRITE_DOCS") == "1":
        page.screenshot(path=str(DOCS / name), **kw)


def _scripts() -> Iterator[None]:
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        yield
    finally:
        sys.path.remove(str(ROOT / "scripts"))


scripts = pytest.fixture(_scripts)


def _font_cmap() -> set[int]:
    """The characters the pages' font holds, as gen_font.py listed them
    (test_the_font_holds_what_its_list_says checks the list)."""
    text = (STATIC / "fonts" / "koudian-cjk.txt").read_text(encoding="utf-8")
    return {ord(c) for c in text.rstrip("\n")}


def no_cjk_font_installed() -> None:
    """The point of these tests: the machine has no CJK font, so whatever
    Chinese the pages show comes from the pages' own font."""
    if shutil.which("fc-list") is None:
        pytest.skip("fc-list is missing: cannot tell whether a CJK font is installed")
    out = subprocess.run(["fc-list", ":lang=zh", "family"], capture_output=True, text=True).stdout
    assert out.strip() == "", f"a CJK font is installed, so this test proves nothing: {out}"


# ---------------------------------------------------------------- tile faces


def test_the_tile_faces_are_what_the_script_writes(tmp_path: Path, scripts: None) -> None:
    pytest.importorskip("fontTools")
    pytest.importorskip("brotli")
    import gen_tiles

    written = gen_tiles.write(tmp_path)
    committed = sorted(p.name for p in (STATIC / "tiles").glob("*.svg"))
    assert sorted(p.name for p in written) == committed
    assert len(committed) == 34 + 2  # every kind, back, ting
    for p in written:
        assert p.read_text(encoding="utf-8") == (STATIC / "tiles" / p.name).read_text(
            encoding="utf-8"
        ), f"{p.name}: run python scripts/gen_tiles.py"


def test_the_faces_need_no_font() -> None:
    # Each character is an outline: an SVG <text> would ask for a font.
    for p in (STATIC / "tiles").glob("*.svg"):
        svg = p.read_text(encoding="utf-8")
        assert "<text" not in svg and "font" not in svg, p.name


def test_the_tile_sheet(tmp_path: Path) -> None:
    """docs/tiles.png: the 34 kinds, then a wild tile, a face-down tile,
    a face-down ting discard as the others see it and as its discarder
    does, a claimed discard."""
    from koudian.web.assets import page_css
    from koudian.web.snapshot import tile_table

    js = (STATIC / "table.js").read_text(encoding="utf-8")
    html = f"""<!DOCTYPE html><html lang="zh"><head><meta charset="utf-8"><style>{page_css()}
      body {{ background: #236346; padding: 10px; width: 640px; }}
      .row {{ display: flex; gap: 6px; margin: 8px 0; align-items: flex-end; }}
      .t {{ --tw: 48px; }}
      .row span.c {{ color: #fff; font-size: 12px; width: 48px; text-align: center; }}
      </style></head><body><div id="sheet"></div><script>{js}</script><script>
      KD.setTiles({json.dumps(tile_table())});
      const kinds = {json.dumps([t["n"] for t in tile_table()])};
      let h = "";
      for (const s of ["m", "p", "s", "z"]) {{
        const row = kinds.filter((k) => k[1] === s).map((k) => KD.tile(k)).join("");
        h += '<div class="row">' + row + "</div>";
      }}
      h += '<div class="row">' + KD.tile("5m", {{ wild: true }}) + KD.tile(null)
        + KD.tile(null, {{ ting: true, extra: "down" }}) + KD.tile("3s", {{ extra: "down" }})
        + KD.tile("7p", {{ extra: "claimed" }}) + "</div>";
      h += '<div class="row"><span class="c">耗子 wild</span><span class="c">face down</span>'
        + '<span class="c">听 ting</span><span class="c">听 (own)</span>'
        + '<span class="c">claimed</span></div>';
      document.getElementById("sheet").innerHTML = h;
      </script></body></html>"""
    with browser_page(680, 560) as page:
        page.set_content(html)
        page.evaluate("document.fonts.ready")
        faces = page.eval_on_selector_all(
            ".t",
            "ts => ts.map(t => [t.className, getComputedStyle(t).backgroundImage.slice(0, 30),"
            " t.getBoundingClientRect().width])",
        )
        assert len(faces) == 34 + 5
        for cls, image, width in faces:
            assert image.startswith('url("data:image/svg+xml'), cls
            assert width == 48, cls
        # Every face file parses as an image (a broken SVG would not load).
        urls = [
            "data:image/svg+xml;base64," + base64.b64encode(p.read_bytes()).decode()
            for p in sorted((STATIC / "tiles").glob("*.svg"))
        ]
        sizes = page.evaluate(
            """async (urls) => Promise.all(urls.map(u => new Promise(ok => {
                const i = new Image(); i.onload = () => ok(i.naturalWidth); i.onerror = () => ok(0);
                i.src = u; })))""",
            urls,
        )
        assert sizes == [48] * len(sizes)
        page.locator("#sheet").screenshot(path=str(artifacts() / "tiles.png"))
        if os.environ.get("KOUDIAN_WRITE_DOCS") == "1":
            page.locator("#sheet").screenshot(path=str(DOCS / "tiles.png"))
    assert (DOCS / "tiles.png").is_file()


# ---------------------------------------------------------------- the font


def test_the_font_covers_every_character_the_pages_use(scripts: None) -> None:
    import gen_font

    cmap = _font_cmap()
    missing = sorted(c for c in gen_font.page_chars() if ord(c) not in cmap and c != " ")
    assert not missing, f"run python scripts/gen_font.py: {''.join(missing)!r}"


def test_the_font_is_what_the_script_writes(tmp_path: Path, scripts: None) -> None:
    pytest.importorskip("fontTools")
    pytest.importorskip("brotli")
    import gen_font

    if not Path(gen_font.DEFAULT_SOURCE).is_file():
        pytest.skip(f"no Noto Sans CJK at {gen_font.DEFAULT_SOURCE} (see scripts/gen_font.py)")
    out = tmp_path / "koudian-cjk.woff2"
    gen_font.build(gen_font.DEFAULT_SOURCE, out)
    fonts = STATIC / "fonts"
    assert out.read_bytes() == (fonts / out.name).read_bytes(), "run python scripts/gen_font.py"
    assert out.with_suffix(".txt").read_text(encoding="utf-8") == (
        fonts / "koudian-cjk.txt"
    ).read_text(encoding="utf-8")


def test_the_font_holds_what_its_list_says() -> None:
    ttlib = pytest.importorskip("fontTools.ttLib")
    pytest.importorskip("brotli")
    font = ttlib.TTFont(str(STATIC / "fonts" / "koudian-cjk.woff2"))
    assert set(font.getBestCmap()) == _font_cmap()


def test_the_font_and_its_license_are_package_data() -> None:
    from importlib import resources

    fonts = resources.files("koudian.web").joinpath("static", "fonts")
    assert fonts.joinpath("koudian-cjk.woff2").is_file()
    ofl = fonts.joinpath("OFL.txt").read_text(encoding="utf-8")
    assert "SIL OPEN FONT LICENSE Version 1.1" in ofl and "Adobe" in ofl
    # The font is renamed, as the OFL asks of a modified version.
    ttlib = pytest.importorskip("fontTools.ttLib")
    pytest.importorskip("brotli")
    font = ttlib.TTFont(str(STATIC / "fonts" / "koudian-cjk.woff2"))
    assert font["name"].getDebugName(1) == "Koudian CJK"


# Every character of every text node and of every form control's shown
# text, plus the CSS-generated content (::before, ::after), with the font
# each is drawn in.
_TEXT = """() => {
  const out = [];
  const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walk.nextNode(); n; n = walk.nextNode()) {
    const el = n.parentElement;
    if (!el || ["SCRIPT", "STYLE"].includes(el.tagName) || !n.textContent.trim()) continue;
    out.push([n.textContent, getComputedStyle(el).fontFamily]);
  }
  for (const el of document.querySelectorAll("body *")) {
    for (const pseudo of ["::before", "::after"]) {
      const cs = getComputedStyle(el, pseudo);
      const c = cs.content;
      if (c && c !== "none" && c !== "normal" && c.startsWith('"')) {
        out.push([JSON.parse(c), cs.fontFamily]);
      }
    }
    if (el.tagName === "INPUT" && el.type === "text") {
      out.push([el.value, getComputedStyle(el).fontFamily]);
    }
  }
  return out;
}"""


def _check_text(page: Any, cmap: set[int], where: str) -> int:
    """Every character shown is in the pages' font and is drawn with it:
    nothing falls back to a system font (a box without a CJK font)."""
    page.evaluate("document.fonts.ready")
    status = page.evaluate(
        "[...document.fonts].filter(f => f.family.replace(/\"/g, '') === 'Koudian CJK')"
        ".map(f => f.status)"
    )
    assert status == ["loaded"], f"{where}: the pages' font did not load: {status}"
    assert page.evaluate("document.fonts.check('16px \"Koudian CJK\"', '萬東發胡牌包')")
    texts = page.evaluate(_TEXT)
    assert texts, where
    chars = 0
    for text, family in texts:
        assert family.replace('"', "").startswith("Koudian CJK"), (where, text, family)
        bad = sorted({c for c in text if not c.isspace() and ord(c) not in cmap})
        assert not bad, f"{where}: {bad} in {text!r} would be drawn by a fallback font"
        chars += len(text)
    return chars


def _viewer_pages(tmp_path: Path) -> dict[str, Path]:
    from koudian.web.review import review_hand
    from koudian.web.snapshot import hand_frames
    from koudian.web.viewer import build_html

    g = koudian.Game("shanxi-haozi", seed=3)
    koudian.play(g, [koudian.GreedyAgent() for _ in range(4)])
    r = koudian.Game("linxian", seed=7)
    koudian.play(r, ["random"] * 4)
    view = tmp_path / "view.html"
    view.write_text(build_html([hand_frames(g.log)], title="koudian · view"), encoding="utf-8")
    review = tmp_path / "review.html"
    review.write_text(
        build_html(
            [review_hand(r.log, 0, "greedy")],
            title="koudian review · hands.jsonl · seat 0 · greedy",
            review={"agent": "greedy", "seat": 0},
        ),
        encoding="utf-8",
    )
    return {"view": view, "review": review}


def _layout_ok(page: Any, where: str) -> None:
    """Nothing overflows sideways; every tile lies in the viewport; every
    tile one may tap is at least 28 px wide and tall."""
    width = page.evaluate("innerWidth")
    assert page.evaluate("document.scrollingElement.scrollWidth") <= width, where
    boxes = page.eval_on_selector_all(
        "#table .t",
        "ts => ts.filter(t => t.offsetParent).map(t => { const r = t.getBoundingClientRect();"
        " return [r.left, r.right, r.width, r.height, t.hasAttribute('data-tile')]; })",
    )
    assert boxes, where
    for left, right, w, h, tappable in boxes:
        assert left >= 0 and right <= width + 0.5, (where, left, right)
        if tappable:
            assert w >= 28 and h >= 28, (where, w, h)


@pytest.mark.parametrize("size", list(SIZES))
def test_the_viewer_and_review_draw_every_character_from_their_own_font(
    tmp_path: Path, size: str
) -> None:
    no_cjk_font_installed()
    cmap = _font_cmap()
    pages = _viewer_pages(tmp_path)
    w, h = SIZES[size]
    for name, path in pages.items():
        with browser_page(w, h) as page:
            page.goto(path.as_uri())
            page.wait_for_selector("body[data-ready='1']")
            for _ in range(40):  # into the hand: ponds, melds, a question
                page.keyboard.press("ArrowRight")
            for lang in ("zh", "en"):
                if lang == "en":
                    page.click("#lang")
                assert page.evaluate("document.documentElement.lang") == lang
                page.wait_for_timeout(700)  # the move's highlight settles
                assert _check_text(page, cmap, f"{name} {lang} {size}") > 100
                _layout_ok(page, f"{name} {lang} {size}")
                _save(page, f"pages/{name}-{lang}-{size}.jpg")
            page.keyboard.press("End")  # the settlement: reasons 胡牌, 包胡 ...
            _check_text(page, cmap, f"{name} end {size}")


def _start(page: Any, base: str, preset: str = "shanxi-haozi") -> None:
    page.goto(base + "/")
    page.wait_for_selector("body[data-ready='1']")
    page.select_option("#preset", preset)
    page.click("#start")
    page.wait_for_selector("body[data-phase='act'], body[data-phase='end']")


def _play_out(page: Any, lang_switch_at: int | None = None, discards: int | None = None) -> None:
    """Plays seat 0 to the hand's end (or until it is to discard after
    ``discards`` discards): the drawn tile discarded, pass."""
    done = 0
    for step in range(400):
        if step == lang_switch_at:
            page.click("#lang")
        phase = page.get_attribute("body", "data-phase")
        if phase in ("end", "over"):
            return
        if discards is not None and done >= discards and phase == "act":
            if page.query_selector("#table .hand .t[data-tile]"):
                return
        page.wait_for_selector(
            "body[data-phase='act'], body[data-phase='end'], body[data-phase='over']"
        )
        if page.get_attribute("body", "data-phase") != "act":
            continue
        before = page.inner_html("#table")
        drawn = page.query_selector("#table .hand .t.drawn[data-tile]")
        tiles = page.query_selector_all("#table .hand .t[data-tile]")
        if drawn or tiles:
            (drawn or tiles[-1]).click()
            done += 1
        else:
            page.click("#actions button[data-action='pass']")
        page.wait_for_function(
            "(b) => document.querySelector('#table').innerHTML !== b", arg=before
        )
    raise AssertionError("the hand did not end")


@pytest.mark.parametrize("size", list(SIZES))
def test_the_play_page_draws_every_character_from_its_own_font(size: str) -> None:
    no_cjk_font_installed()
    cmap = _font_cmap()
    w, h = SIZES[size]
    with live_server(log_path=None, client_seeds=True) as (base, _), browser_page(w, h) as page:
        page.add_init_script("window.KOUDIAN_SEED = 5")
        page.goto(base + "/")
        page.wait_for_selector("body[data-ready='1']")
        assert _check_text(page, cmap, f"play setup zh {size}") > 20
        _start(page, base)
        _play_out(page, discards=7)  # ponds, and a question or two
        assert page.get_attribute("body", "data-phase") == "act", "the hand ended early"
        # The newest discard is marked, as the newest tile of its pond.
        marked = page.eval_on_selector_all(
            ".pond .t.last, .pond .t.claim",
            "ts => ts.map(t => t === t.parentElement.lastElementChild)",
        )
        assert marked == [True], marked
        for lang in ("zh", "en"):
            if lang == "en":
                page.click("#lang")
            page.wait_for_selector("body[data-phase='act']")
            page.wait_for_timeout(700)
            where = f"play {lang} {size}"
            _check_text(page, cmap, where)
            _layout_ok(page, where)
            # A new player is told what to do.
            if page.query_selector("#table .hand .t[data-tile]"):
                hint = page.inner_text("#table .hintline")
                assert ("点一张牌打出" if lang == "zh" else "Click a tile to discard") in hint
            _save(page, f"pages/play-{lang}-{size}.jpg")
        # A tile is a button for the keyboard too: Tab to it, Enter discards.
        before = page.inner_html("#table")
        page.focus("#table .hand .t[data-tile]")
        page.keyboard.press("Enter")
        page.wait_for_function(
            "(b) => document.querySelector('#table').innerHTML !== b", arg=before
        )


@pytest.mark.parametrize("size", list(SIZES))
def test_the_room_pages_draw_every_character_from_their_own_font(tmp_path: Path, size: str) -> None:
    """Issue 38's pages: the home page (its option controls, folded ones
    too) and a room's table, in both languages, at both sizes: every
    character from the pages' font, nothing sideways, every tile in view."""
    no_cjk_font_installed()
    cmap = _font_cmap()
    w, h = SIZES[size]
    with rooms_server(tmp_path) as base, browser_page(w, h) as page:
        page.goto(base + "/")
        page.wait_for_selector("body[data-ready='1']")
        page.click("details summary")  # the options folded away too
        for lang in ("zh", "en"):
            if lang == "en":
                page.click("#lang")
            where = f"home {lang} {size}"
            assert _check_text(page, cmap, where) > 100
            assert page.evaluate("document.scrollingElement.scrollWidth") <= w, where
            page.screenshot(path=str(artifacts() / f"rooms-home-{lang}-{size}.jpg"), type="jpeg")
        # The language chosen is kept: the room opens in English.
        page.click("#alone")
        page.wait_for_selector("body[data-phase='playing'][data-act='1']")
        assert page.evaluate("document.documentElement.lang") == "en"
        for lang in ("en", "zh"):
            if lang == "zh":
                page.click("#lang")
                page.wait_for_selector("body[data-act='1']")
            where = f"room {lang} {size}"
            _check_text(page, cmap, where)
            _layout_ok(page, where)
            page.screenshot(path=str(artifacts() / f"rooms-table-{lang}-{size}.jpg"), type="jpeg")


# ---------------------------------------------------------------- the table


def test_the_table_marks_the_turn_the_last_discard_and_the_new_tiles(tmp_path: Path) -> None:
    pages = _viewer_pages(tmp_path)
    with browser_page(1400, 900) as page:
        page.goto(pages["view"].as_uri())
        page.wait_for_selector("body[data-ready='1']")
        seen_claim = False
        for _ in range(30):
            page.keyboard.press("ArrowRight")
            info = page.evaluate(
                """() => {
                const f = Number(document.body.dataset.frame);
                const all = (q) => [...document.querySelectorAll(q)];
                const acting = all('.seat.acting').map(s => s.dataset.seat);
                const marked = all('.pond .t.last, .pond .t.claim').map(t =>
                  [t.parentElement.dataset.seat, t === t.parentElement.lastElementChild,
                   t.classList.contains('claim')]);
                const fresh = document.querySelectorAll('.t.fresh').length;
                const turn = document.querySelector('.info .turn').textContent;
                return {f, acting, marked, fresh, turn};
            }"""
            )
            # One seat acts and the centre names it; one pond tile is the
            # last discard, the newest of its pond.
            assert len(info["acting"]) <= 1
            if info["acting"]:
                assert f"座{info['acting'][0]}" in info["turn"]
            assert len(info["marked"]) == 1, info
            assert info["marked"][0][1], info
            seen_claim = seen_claim or info["marked"][0][2]
            # Stepping forward shows what the move changed.
            assert info["fresh"] >= 1, info
        assert seen_claim, "no discard was open to a claim in 30 steps"
        # Each seat shows its wind: the dealer is East, then in turn order.
        dealer = page.evaluate(
            "Number(document.querySelector('.dealer').closest('.seat').dataset.seat)"
        )
        for s in range(4):
            wind = page.inner_text(f".seat[data-seat='{s}'] .wind")
            assert wind == "東南西北"[(s - dealer) % 4], (s, wind)


def test_the_review_toolbar_is_one_row_at_1400_px(tmp_path: Path) -> None:
    pages = _viewer_pages(tmp_path)
    with browser_page(1400, 900) as page:
        page.goto(pages["review"].as_uri())
        page.wait_for_selector("body[data-ready='1']")
        for lang in ("zh", "en"):
            if lang == "en":
                page.click("#lang")
            rows = page.evaluate(
                "[...document.querySelectorAll('header > *')].map(e => Math.round("
                "e.getBoundingClientRect().top + e.getBoundingClientRect().height / 2))"
            )
            assert max(rows) - min(rows) <= 2, rows
            # ... and no control wraps inside itself ("40 / 80" on two lines).
            heights = page.evaluate(
                "[...document.querySelectorAll('header > *')]"
                ".map(e => e.getBoundingClientRect().height)"
            )
            assert max(heights) <= 32, heights
            assert page.evaluate(
                "(() => { const h = document.querySelector('header');"
                " return h.scrollWidth <= h.clientWidth; })()"
            )


# ---------------------------------------------------------------- smaller


def test_the_replay_keeps_the_language_and_the_end_shows_totals_after() -> None:
    with live_server(log_path=None, client_seeds=True) as (base, server), browser_page() as page:
        page.add_init_script("window.KOUDIAN_SEED = 5")
        _start(page, base)
        _play_out(page, lang_switch_at=1)
        page.wait_for_selector("#replaylink")
        assert page.evaluate("document.documentElement.lang") == "en"
        # The end screen: each seat's score is the match total after the
        # hand, as the header says, and is labelled so.
        header = page.inner_text("#matchinfo")
        totals = [int(x) for x in header.split("totals", 1)[1].split("·")[0].split("/")]
        for s in range(4):
            text = page.inner_text(f".seat[data-seat='{s}'] .score")
            assert text.startswith("total after"), text
            assert int(text.rsplit(" ", 1)[1]) == totals[s], (text, totals)
        deltas = [int(x) for x in page.locator(".settlement .delta").all_inner_texts()]
        assert any(deltas) or totals == [0, 0, 0, 0]
        assert totals == deltas  # one hand from 0: the total after is the hand's delta
        link = page.get_attribute("#replaylink", "href")
        assert link is not None and link.endswith("?lang=en")
        # The winners are marked at the table.
        result = koudian.replay(server.replays[link.split("?")[0].rsplit("/", 1)[1]]).result
        assert result is not None
        marked = page.eval_on_selector_all(
            ".seat.winner", "ss => ss.map(s => Number(s.dataset.seat))"
        )
        assert sorted(marked) == sorted(result.winners), (marked, result.winners)
        page.goto(base + link)
        page.wait_for_selector("body[data-ready='1']")
        assert page.evaluate("document.documentElement.lang") == "en"
        assert "Seat" in page.inner_text("#table") and "座" not in page.inner_text("#table")
        # Chinese again: the next page opened remembers that too.
        page.click("#lang")
        page.goto(base + "/")
        page.wait_for_selector("body[data-ready='1']")
        assert page.evaluate("document.documentElement.lang") == "zh"
