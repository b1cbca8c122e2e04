"""The play server (`koudian serve`): tables validate every message, the
seat protocol over a live WebSocket, 50 tables under load, fuzzed
messages, and a whole hand played by clicking in Chromium."""

from __future__ import annotations

import asyncio
import json
import random
import sys
import time
from pathlib import Path
from typing import Any

import koudian
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from koudian.web.tables import MAX_MESSAGE, Table, TableConfig, offered_opponents
from web_support import artifacts, browser_page, live_server

BOTS = Path(__file__).parent / "bots"
CONFIG = TableConfig(offered_opponents(["random", "greedy", "mc"], {}), client_seeds=True)


def _new(table: Table, **kw: Any) -> list[dict[str, Any]]:
    msg = {"type": "new", "preset": "shanxi", "seat": 0, "opponents": ["greedy"] * 3, "seed": 7}
    msg.update(kw)
    return table.handle(json.dumps(msg))


def _play_first_legal(table: Table, out: list[dict[str, Any]]) -> dict[str, Any]:
    while out[-1]["type"] == "act":
        out = table.handle(json.dumps({"index": out[-1]["legal_actions"][0]["index"]}))
        assert out[-1]["type"] != "error", out
    return out[-1]


def test_a_table_plays_a_hand_and_its_log_replays() -> None:
    logs: list[str] = []
    config = TableConfig({"greedy": "greedy"}, on_hand=lambda log: logs.append(log) or "/r")
    config.client_seeds = True
    table = Table(config)
    end = _play_first_legal(table, _new(table))
    assert end["type"] == "end" and end["replay"] == "/r"
    g = koudian.replay(logs[0])
    assert end["result"]["deltas"] == list(g.result.deltas)  # type: ignore[union-attr]
    assert g.settlement is not None
    assert end["result"]["settlement"]["text"] == str(g.settlement)


def test_requests_are_the_stdin_protocols() -> None:
    table = Table(CONFIG)
    req = _new(table)[-1]
    assert req["type"] == "act" and req["protocol"] == koudian.protocol.PROTOCOL_VERSION
    assert set(req) >= {"seat", "observation", "legal_actions", "table"}
    g = table.game
    assert g is not None
    want = koudian.protocol.request(g.observe(0), g.legal_actions(0))
    assert {k: req[k] for k in want} == want
    # The table only shows what seat 0 may see.
    assert all(req["table"]["seats"][s]["hand"] is None for s in (1, 2, 3))


@pytest.mark.parametrize(
    ("message", "error"),
    [
        ("{", "not JSON"),
        ("[1]", "a message is a JSON object"),
        ('{"type": "fly"}', "unknown message type"),
        ('{"type": "act", "action": "discard", "tile": "9z"}', ""),
        ('{"type": "act", "action": "pong"}', "not legal"),
        ('{"type": "act"}', "action"),
        ('{"index": 999}', ""),
        ('{"index": true}', "integer"),
        ('{"type": "next"}', "not over"),
        ('{"type": "new", "preset": "riichi"}', "unknown preset"),
        ('{"type": "new", "seat": 4}', "seat"),
        ('{"type": "new", "hands": 0}', "hands"),
        ('{"type": "new", "opponents": ["cmd:rm -rf /", "greedy", "greedy"]}', "opponents"),
        ('{"type": "new", "opponents": ["greedy"]}', "opponents"),
        ('{"type": "new", "options": {"no_such_option": true}}', "no_such_option"),
        ('{"type": "new", "options": {"base_stake": [1]}}', "option"),
        ('{"type": "hint", "agent": "cmd:ls"}', ""),
        ("x" * (MAX_MESSAGE + 1), "longer than"),
    ],
)
def test_a_bad_message_gets_an_error_and_changes_nothing(message: str, error: str) -> None:
    table = Table(CONFIG)
    _new(table)
    g = table.game
    assert g is not None
    before = g.log
    out = table.handle(message)
    assert len(out) == 1 and out[0]["type"] == "error", out
    assert error in out[0]["error"]
    assert table.game is g and g.log == before
    # The table still plays.
    assert _play_first_legal(table, table.handle('{"type": "state"}'))["type"] == "end"


def test_error_replies_carry_the_message_id() -> None:
    table = Table(CONFIG)
    out = table.handle('{"type": "act", "id": 42, "action": "pass"}')
    assert out == [{"type": "error", "error": "no hand in play: send new (or next)", "id": 42}]


def test_a_reply_names_the_request_it_answers() -> None:
    table = Table(CONFIG)
    req = _new(table)[-1]
    g = table.game
    assert g is not None
    before = g.log
    index = req["legal_actions"][0]["index"]
    stale = table.handle(json.dumps({"index": index, "id": req["id"] + 1}))
    assert "the open request is" in stale[0]["error"] and g.log == before
    nxt = table.handle(json.dumps({"index": index, "id": req["id"]}))[-1]
    assert nxt["type"] == "end" or nxt["id"] == req["id"] + 1


def test_a_match_deals_hand_after_hand_with_running_totals() -> None:
    table = Table(CONFIG)
    end = _play_first_legal(table, _new(table, hands=3, seat=2))
    totals = [0, 0, 0, 0]
    for n in range(3):
        assert end["match"]["hands_played"] == n + 1
        totals = [a + b for a, b in zip(totals, end["result"]["deltas"], strict=True)]
        assert end["match"]["totals"] == totals
        if n < 2:
            end = _play_first_legal(table, table.handle('{"type": "next"}'))
    assert end["match"]["done"]
    assert "over" in table.handle('{"type": "next"}')[0]["error"]


def test_a_cmd_bot_configured_on_the_server_plays_a_seat() -> None:
    bot = f"{sys.executable} {BOTS / 'first_legal_bot.py'}"
    table = Table(TableConfig(offered_opponents(["greedy"], {"mine": bot}), client_seeds=True))
    try:
        end = _play_first_legal(table, _new(table, opponents=["mine", "greedy", "mine"]))
        assert end["match"]["players"] == ["you", "mine", "greedy", "mine"]
    finally:
        table.close()


def test_hints_need_rank_actions() -> None:
    table = Table(CONFIG)
    _new(table)
    out = table.handle('{"type": "hint"}')
    if hasattr(koudian, "rank_actions"):
        assert out[0]["type"] == "hint"
        g = table.game
        assert g is not None
        assert out[0]["ranked"][0]["action"] in [a.to_json() for a in g.legal_actions(0)]
    else:
        assert "rank_actions" in out[0]["error"]


_json = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.text(max_size=12),
    lambda c: st.lists(c, max_size=4) | st.dictionaries(st.text(max_size=8), c, max_size=4),
    max_leaves=12,
)
_keys = st.sampled_from(["type", "action", "tile", "index", "preset", "seat", "hands",
                         "opponents", "options", "seed", "agent", "id"])  # fmt: skip
_types = st.sampled_from(["new", "act", "next", "state", "hint", "bogus"])
_messages = (
    st.text(max_size=60)
    | st.dictionaries(_keys, _json, max_size=5).map(json.dumps)
    | st.builds(
        lambda t, d: json.dumps({"type": t, **d}), _types, st.dictionaries(_keys, _json, max_size=4)
    )
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_messages, min_size=1, max_size=6))
def test_fuzzed_messages_get_replies_and_never_corrupt_the_table(messages: list[str]) -> None:
    table = Table(CONFIG)
    _new(table)
    for m in messages:
        g = table.game
        before = None if g is None else g.log
        out = table.handle(m)
        assert out and all(isinstance(r, dict) and "type" in r for r in out)
        json.dumps(out)
        if out[0]["type"] == "error":
            assert table.game is g and (g is None or g.log == before)
    table.close()
    # Whatever happened, the table can still deal a new hand.
    assert _new(table)[-1]["type"] in ("act", "end")


# ---------------------------------------------------------------- live


def _rss_kib() -> int:
    with open("/proc/self/status", encoding="ascii") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


async def _bot_table(url: str, stop: float, seed: int, stats: dict[str, int]) -> int:
    """Plays bot hands at one table until ``stop``; the hands finished."""
    import websockets

    rng = random.Random(seed)
    hands = 0
    async with websockets.connect(url, max_size=2**22) as ws:
        new = {
            "type": "new",
            "preset": rng.choice(["shanxi", "linxian", "sichuan", "shanxi-haozi"]),
            "seat": rng.randrange(4),
            "hands": 4,
            "opponents": [rng.choice(["random", "greedy"]) for _ in range(3)],
            "seed": seed,
        }
        await ws.send(json.dumps(new))
        while True:
            m = json.loads(await ws.recv())
            if m["type"] == "error":
                stats["errors"] += 1
                return hands
            if m["type"] == "act":
                a = rng.choice(m["legal_actions"])
                await ws.send(json.dumps({"index": a["index"], "id": m["id"]}))
                stats["moves"] += 1
            elif m["type"] == "end":
                stats["hands"] += 1
                hands += 1
                if time.monotonic() > stop:
                    return hands
                await ws.send(json.dumps(new if m["match"]["done"] else {"type": "next"}))


def test_fifty_tables_play_bot_hands_on_loopback_with_bounded_memory(tmp_path: Path) -> None:
    pytest.importorskip("websockets")
    log = tmp_path / "served.jsonl"
    with live_server(log_path=log, keep_replays=50, client_seeds=True, client_tables=60) as (
        base,
        server,
    ):
        url = base.replace("http", "ws") + "/ws"
        stats = {"hands": 0, "moves": 0, "errors": 0}

        async def run(seconds: float, first: int) -> list[int]:
            stop = time.monotonic() + seconds
            tables = (_bot_table(url, stop, first + i, stats) for i in range(50))
            return list(await asyncio.gather(*tables))

        asyncio.run(run(3, 0))  # warm-up: imports, caches, thread pool
        assert stats["errors"] == 0
        stats.update(hands=0, moves=0)
        rss0 = _rss_kib()
        t0 = time.monotonic()
        per_table = asyncio.run(run(10, 1000))
        elapsed = time.monotonic() - t0
        rss1 = _rss_kib()
        deadline = time.monotonic() + 5
        while server.tables and time.monotonic() < deadline:
            time.sleep(0.05)
        assert server.tables == 0
    assert stats["errors"] == 0
    assert min(per_table) >= 1, per_table  # every table played, none starved
    assert len(server.replays) <= 50
    assert log.read_text(encoding="utf-8").count('{"type":"end"') == server.hands
    growth = rss1 - rss0
    print(f"\n50 tables, {elapsed:.1f} s: {stats}, RSS {rss0} -> {rss1} KiB")
    assert growth < 64 * 1024, f"RSS grew {growth} KiB under load"


def test_the_socket_refuses_bad_frames_and_expires_idle_tables() -> None:
    websockets = pytest.importorskip("websockets")

    async def drained(server: Any) -> None:
        deadline = time.monotonic() + 5
        while server.tables and time.monotonic() < deadline:
            await asyncio.sleep(0.02)

    async def run(base: str, server: Any) -> None:
        url = base.replace("http", "ws") + "/ws"
        async with websockets.connect(url) as ws:
            await ws.send(b"\x00\x01")
            assert "text frames" in json.loads(await ws.recv())["error"]
            await ws.send("{nope")
            assert "not JSON" in json.loads(await ws.recv())["error"]
            await ws.send(json.dumps({"type": "new", "seed": 3}))
            assert json.loads(await ws.recv())["type"] == "act"
            # Idle: the server closes the table.
            with pytest.raises(websockets.ConnectionClosed) as e:
                await asyncio.wait_for(ws.recv(), 5)
            assert e.value.rcvd is not None and e.value.rcvd.code == 1001
        await drained(server)
        async with websockets.connect(url) as ws:
            await ws.send("x" * (16 * MAX_MESSAGE + 10))  # over the frame limit
            with pytest.raises(websockets.ConnectionClosed) as e:
                await asyncio.wait_for(ws.recv(), 5)
            assert e.value.rcvd is not None and e.value.rcvd.code == 1009
        await drained(server)
        async with websockets.connect(url) as first:
            await first.send(json.dumps({"type": "new", "seed": 3}))
            await first.recv()
            # max_tables=1: a second table is refused while the first is open.
            with pytest.raises(websockets.InvalidStatus):
                async with websockets.connect(url) as second:
                    await second.recv()

    with live_server(idle=1.0, max_tables=1, log_path=None, client_seeds=True) as (base, server):
        asyncio.run(run(base, server))


def test_browser_plays_a_whole_hand_by_clicking() -> None:
    with live_server(log_path=None, client_seeds=True) as (base, server), browser_page() as page:
        page.goto(base + "/")
        page.wait_for_selector("body[data-ready='1']")
        page.select_option("#preset", "shanxi")
        page.evaluate("window.KOUDIAN_SEED = 7")
        page.click("#start")
        clicks = 0
        while True:
            page.wait_for_selector("body[data-phase='act'], body[data-phase='over']")
            if page.get_attribute("body", "data-phase") == "over":
                break
            if clicks == 10:
                page.screenshot(path=str(artifacts() / "play-table.png"))
            if clicks == 3 and hasattr(koudian, "rank_actions"):
                page.click("#hintb")
                page.wait_for_selector("#hint ol li")
                assert page.locator("#hint ol li").count() >= 2
            before = page.inner_html("#table")
            win = page.query_selector("#actions button[data-action='win']")
            drawn = page.query_selector("#table .hand .t.drawn[data-tile]")
            tiles = page.query_selector_all("#table .hand .t[data-tile]")
            if win:
                win.click()
            elif drawn or tiles:
                (drawn or tiles[-1]).click()
            else:
                page.click("#actions button[data-action='pass']")
            clicks += 1
            assert clicks < 200
            page.wait_for_function(
                "(b) => document.querySelector('#table').innerHTML !== b"
                " || document.body.dataset.phase !== 'act'",
                arg=before,
            )
        page.screenshot(path=str(artifacts() / "play-settlement.png"), full_page=True)
        assert page.get_attribute("body", "data-errors") is None
        link = page.get_attribute("#replaylink", "href")
        assert link is not None
        log = server.replays[link.split("?")[0].rsplit("/", 1)[1]]  # ?lang= kept
        engine = koudian.replay(log)
        assert engine.settlement is not None and engine.settlement.payments
        shown = [int(x) for x in page.locator(".settlement .delta").all_inner_texts()]
        assert shown == list(engine.settlement.deltas)
        rows = page.locator(".settlement table.pay tr").all_inner_texts()[1:]
        want = [
            f"{p.payer}\t→ {p.payee}\t{p.amount}\t{p.reason}" for p in engine.settlement.payments
        ]
        assert rows == want
        # The replay link opens the finished hand in the viewer.
        page.goto(base + link)
        page.wait_for_selector("body[data-ready='1']")
        page.keyboard.press("End")
        assert [int(x) for x in page.locator(".settlement .delta").all_inner_texts()] == shown


def test_the_documented_remote_bot_plays_a_hand() -> None:
    pytest.importorskip("websockets")
    import re
    import subprocess

    doc = (Path(__file__).resolve().parents[1] / "docs" / "web.md").read_text(encoding="utf-8")
    (code,) = re.findall(r"^```python\n(.*?)^```", doc, flags=re.S | re.M)
    with live_server(log_path=None) as (base, server):
        port = base.rsplit(":", 1)[1]
        code = code.replace("127.0.0.1:8000", f"127.0.0.1:{port}")
        out = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, timeout=60
        )
        assert out.returncode == 0, out.stderr
        deltas = json.loads(out.stdout.strip())
        assert server.hands == 1
        (log,) = server.replays.values()
        assert deltas == list(koudian.replay(log).result.deltas)  # type: ignore[union-attr]


# -- issue 39: a favicon, shanxi by default, the review's Δ says what it is


def test_the_favicon_is_served_and_linked() -> None:
    import urllib.request

    with live_server(log_path=None) as (base, _):
        for path in ("/favicon.ico", "/favicon.svg"):
            with urllib.request.urlopen(base + path, timeout=10) as r:
                assert r.status == 200
                assert r.headers["content-type"].startswith("image/svg+xml")
                body = r.read()
            assert body.startswith(b"<svg") and len(body) < 4096
        with urllib.request.urlopen(base + "/", timeout=10) as r:
            assert '<link rel="icon" href="/favicon.svg"' in r.read().decode()
    # The file is package data, so it is in the wheel as the pages are.
    from importlib import resources

    assert resources.files("koudian.web").joinpath("static", "favicon.svg").is_file()


def test_the_play_page_opens_on_shanxi() -> None:
    with live_server(log_path=None) as (base, _), browser_page() as page:
        page.goto(base + "/")
        page.wait_for_selector("body[data-ready='1']")
        options = page.eval_on_selector_all("#preset option", "os => os.map(o => o.value)")
        assert "linxian" in options and options[0] != "shanxi"  # not first, chosen
        assert page.eval_on_selector("#preset", "s => s.value") == "shanxi"


@pytest.mark.parametrize(("agent", "unit"), [("greedy", "ranks"), ("mc:budget=fast", "points")])
def test_the_review_says_what_its_cost_counts(agent: str, unit: str) -> None:
    from koudian.web.review import review_hand

    game = koudian.Game("shanxi", seed=3)
    koudian.play(game, ["random"] * 4)
    log = game.log
    hand = review_hand(log, 0, agent)
    assert hand["summary"]["disagreements"], "random should differ from the reviewer"
    assert hand["summary"]["cost_unit"] == unit
    from koudian.web.viewer import build_html

    page = build_html([hand], review={"agent": agent, "seat": 0})
    with browser_page() as b:
        b.set_content(page)
        b.wait_for_selector("body[data-ready='1']")
        b.click("#lang")  # to English
        b.keyboard.press("End")  # the hand's summary of the disagreements
        text = b.inner_text("body")
    assert "Δ" not in text
    want = "places down the ranking" if unit == "ranks" else "points"
    assert want in text, text[-600:]
