"""Every JSON the project writes is strict (issue 35, item 8): no
``NaN``/``Infinity`` (which ``json.dumps`` writes unless told not to, and
which a browser's ``JSON.parse`` refuses). Every writer in the package
passes ``allow_nan=False`` (checked on the source), and the two that met
mc's ``-inf``/``NaN`` rankings (a hint over the WebSocket, ``koudian
review --agent mc``) write ``null`` instead, read by a strict parser and
drawn by Chromium."""

from __future__ import annotations

import ast
import asyncio
import json
import math
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import koudian
import pytest
from koudian.web.tables import Table, TableConfig
from web_support import browser_page, live_server

PACKAGE = Path(koudian.__file__).resolve().parent


def _strict(text: str) -> Any:
    """JSON as a browser parses it: ``NaN``/``Infinity`` are errors."""

    def refuse(name: str) -> None:
        raise ValueError(f"not JSON: {name}")

    return json.loads(text, parse_constant=refuse)


def _writers() -> list[tuple[str, int, ast.Call]]:
    """Every ``json.dump``/``json.dumps`` call in the package's source."""
    out = []
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        names = {"dump", "dumps"}
        imported = {
            a.asname or a.name
            for n in ast.walk(tree)
            if isinstance(n, ast.ImportFrom) and n.module == "json"
            for a in n.names
            if a.name in names
        }
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            f = node.func
            if (
                isinstance(f, ast.Attribute)
                and f.attr in names
                and isinstance(f.value, ast.Name)
                and f.value.id == "json"
            ) or (isinstance(f, ast.Name) and f.id in imported):
                out.append((str(path.relative_to(PACKAGE)), node.lineno, node))
    return out


def test_every_json_writer_refuses_nan_and_infinity() -> None:
    writers = _writers()
    assert len(writers) >= 5  # the sweep finds them (protocol, simulation, web, ...)
    lax = [
        f"{path}:{line}"
        for path, line, call in writers
        if not any(
            k.arg == "allow_nan" and isinstance(k.value, ast.Constant) and k.value.value is False
            for k in call.keywords
        )
    ]
    assert not lax, f"json.dump(s) without allow_nan=False: {lax}"


def _mc_position() -> koudian.Game:
    """A position where mc leaves candidates unsearched (-inf, NaN)."""
    for seed in range(1, 50):
        g = koudian.Game("shanxi", seed=seed, dealer=0)
        ranked = koudian.rank_actions(g, 0, agent="mc")
        if any(not math.isfinite(r.value) for r in ranked):
            return g
    pytest.skip("mc searched every candidate in every position tried")


def test_an_mc_hint_is_strict_json() -> None:
    _mc_position()  # mc does leave candidates unsearched at a first discard
    table = Table(TableConfig({"greedy": "greedy", "mc": "mc"}))
    out = table.handle(json.dumps({"type": "new", "seat": 0, "opponents": ["greedy"] * 3}))
    assert out[-1]["type"] == "act"
    hint = table.handle('{"type": "hint", "agent": "mc"}')[0]
    assert hint["type"] == "hint", hint
    text = json.dumps(hint, allow_nan=False)  # raises for a NaN or an infinity
    values = [c["value"] for c in _strict(text)["ranked"]]
    assert all(v is None or math.isfinite(v) for v in values)


def test_an_mc_hint_over_the_websocket_parses_strictly() -> None:
    websockets = pytest.importorskip("websockets")

    async def run(base: str) -> None:
        async with websockets.connect(base.replace("http", "ws") + "/ws") as ws:
            await ws.send(json.dumps({"type": "new", "seat": 0, "opponents": ["greedy"] * 3}))
            m = _strict(await ws.recv())
            assert m["type"] == "act", m
            await ws.send('{"type": "hint", "agent": "mc"}')
            hint = _strict(await asyncio.wait_for(ws.recv(), 30))
            assert hint["type"] == "hint" and hint["ranked"], hint
            assert None in [c["value"] for c in hint["ranked"]], hint  # unsearched: null

    with live_server(log_path=None) as (base, _server):
        asyncio.run(run(base))


def test_review_with_mc_writes_a_page_that_parses_and_renders(tmp_path: Path) -> None:
    g = koudian.Game("shanxi", seed=3, dealer=0)
    while not g.done:
        g.step(g.legal_actions()[0])
    log = tmp_path / "hand.jsonl"
    log.write_text(g.log, encoding="utf-8")
    page = tmp_path / "review.html"
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "koudian",
            "review",
            str(log),
            *("--seat", "0", "--agent", "mc"),
            "-o",
            str(page),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode == 0, r.stderr
    html = page.read_text(encoding="utf-8")
    blocks = re.findall(r'<script type="application/json" id="hand-\d+">(.*?)</script>', html, re.S)
    assert blocks
    hands = [_strict(b.replace("<\\/", "</")) for b in blocks]
    values = [c["value"] for h in hands for e in h["review"].values() for c in e["ranked"]]
    assert None in values  # mc's unsearched candidates, as null
    with browser_page() as p:
        p.goto(page.as_uri())
        p.wait_for_selector("body[data-ready='1']")
        for _ in range(40):  # through the reviewed decisions
            p.keyboard.press("Shift+ArrowRight")
        p.keyboard.press("End")


def test_arena_json_of_one_deal_is_strict(tmp_path: Path) -> None:
    out = tmp_path / "arena.json"
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "koudian",
            "arena",
            "--agents",
            "random,greedy,greedy,greedy",
            "--deals",
            "1",
            "--json",
            str(out),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode == 0, r.stderr
    data = _strict(out.read_text(encoding="utf-8"))  # an interval of one deal: null
    assert data
