"""The replay viewer (`koudian view`): frames replayed by the engine, one
self-contained HTML file, and a real Chromium stepping through it."""

from __future__ import annotations

import json
import re
from pathlib import Path

import koudian
import pytest
from koudian._core import replay_steps
from koudian.cli import main
from koudian.web.snapshot import hand_frames, split_hands, table_state
from koudian.web.viewer import build_html, render
from preset_names import ALL_PRESETS as PRESETS
from web_support import artifacts, browser_page


def _played(preset: str, seed: int) -> koudian.Game:
    g = koudian.Game(preset, seed=seed)
    koudian.play(g, [koudian.GreedyAgent() for _ in range(4)])
    return g


def test_replay_steps_gives_the_game_after_the_deal_and_every_chosen_action() -> None:
    g = _played("shanxi-haozi", 3)
    states = replay_steps(g.log)
    chosen = [
        v for v in map(json.loads, g.log.splitlines()) if v["type"] == "action" and not v["auto"]
    ]
    assert len(states) == len(chosen) + 1
    assert states[-1].log == g.log and states[-1].done
    assert not states[0].done
    # Independent copies: each state is the game a prefix of the actions gives.
    h = koudian.replay(g.log)
    assert states[-1].settlement is not None and h.settlement is not None
    assert states[-1].settlement.deltas == h.settlement.deltas


def test_replay_steps_refuses_a_tampered_log_naming_the_line() -> None:
    g = _played("shanxi", 5)
    lines = g.log.splitlines()
    i = next(k for k, line in enumerate(lines) if '"action":"discard"' in line and k > 5)
    v = json.loads(lines[i])
    v["tile"] = "9z" if v["tile"] != "9z" else "1m"
    lines[i] = json.dumps(v, separators=(",", ":"))
    with pytest.raises(koudian.KoudianError):
        replay_steps("\n".join(lines) + "\n")


@pytest.mark.parametrize("preset", PRESETS)
def test_frames_match_the_engine_for_every_preset(preset: str) -> None:
    g = _played(preset, 11)
    h = hand_frames(g.log)
    last = h["frames"][-1]
    for s in range(4):
        assert last["seats"][s]["hand"] == koudian.fmt(g.hand(s).tiles)
    assert last["scores"] == list(g.scores)
    assert h["result"]["deltas"] == list(g.result.deltas)  # type: ignore[union-attr]
    # Every log line after the header is one frame's event.
    assert sum(len(f["events"]) for f in h["frames"]) == len(g.log.splitlines()) - 1


def test_a_seat_view_hides_what_the_seat_may_not_see() -> None:
    g = koudian.Game("shanxi", seed=9)
    while not g.done and not any(d.face_down for d in g.observe(0).discards):
        seat = g.to_act
        assert seat is not None
        g.step(koudian.GreedyAgent().act(g.observe(seat), g.legal_actions(seat)))
    full = table_state(g)
    assert any("~" in full["seats"][s]["pond"] for s in range(4)), "no ting discard yet"
    for seat in range(4):
        mine = table_state(g, seat)
        for s in range(4):
            if s == seat:
                assert mine["seats"][s]["hand"] == full["seats"][s]["hand"]
            else:
                assert mine["seats"][s]["hand"] is None
                assert mine["seats"][s]["count"] == full["seats"][s]["count"]
                hidden = re.sub(r"~\d[mpsz]", "~?", full["seats"][s]["pond"])
                assert mine["seats"][s]["pond"] == hidden
        text = json.dumps(mine)
        assert "legal" not in mine or g.to_act == seat, text[:80]


def _log_file(tmp_path: Path, hands: int, preset: str = "shanxi") -> Path:
    path = tmp_path / "hands.jsonl"
    assert main(["simulate", "--rules", preset, "--agents", "greedy,greedy,random,greedy",
                 "--hands", str(hands), "--log", str(path), "--quiet"]) == 0  # fmt: skip
    return path


def test_split_hands_keeps_each_hand_from_header_to_end(tmp_path: Path) -> None:
    path = _log_file(tmp_path, 3)
    logs = split_hands(path.read_text(encoding="utf-8"))
    assert len(logs) == 3
    for log in logs:
        assert koudian.replay(log).log == log


def test_split_hands_leaves_out_fault_records_after_a_hand() -> None:
    a, b = _played("shanxi", 1).log, _played("linxian", 2).log
    fault = '{"type":"fault","seat":1,"kind":"timeout","detail":"x","fallback":{}}\n'
    assert split_hands(a + fault + fault + "\n" + b) == [a, b]
    assert split_hands("") == []


def test_view_writes_one_self_contained_file(tmp_path: Path) -> None:
    path = _log_file(tmp_path, 3)
    out = tmp_path / "r.html"
    assert main(["view", str(path), "-o", str(out)]) == 0
    html = out.read_text(encoding="utf-8")
    assert html.count('type="application/json" id="hand-') == 3
    # No network: nothing is fetched from anywhere.
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", html)
    assert "<script src" not in html and "<link" not in html
    assert main(["view", str(path), "--hand", "2", "-o", str(out)]) == 0
    assert out.read_text(encoding="utf-8").count('id="hand-') == 1


def test_view_errors_name_the_problem(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _log_file(tmp_path, 2)
    out = tmp_path / "r.html"
    assert main(["view", str(path), "--hand", "3", "-o", str(out)]) == 2
    assert "holds 2 hand(s)" in capsys.readouterr().err
    bad = tmp_path / "bad.jsonl"
    bad.write_text("not a log\n", encoding="utf-8")
    assert main(["view", str(bad), "-o", str(out)]) == 2
    assert "no koudian log header" in capsys.readouterr().err
    lines = path.read_text(encoding="utf-8").splitlines()
    lines[3] = lines[3].replace('"seat":', '"seat":9,"x":', 1)
    bad.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert main(["view", str(bad), "-o", str(out)]) == 2
    assert "hand 1" in capsys.readouterr().err
    assert not out.exists() or out.stat().st_size > 0


def test_embedded_json_cannot_close_the_script() -> None:
    h = hand_frames(_played("shanxi", 2).log)
    h["seed"] = "</script><script>alert(1)</script>"
    html = build_html([h])
    assert "</script><script>alert(1)" not in html


def test_browser_steps_a_replay_to_the_settlement(tmp_path: Path) -> None:
    path = _log_file(tmp_path, 2, "shanxi-haozi")
    logs = split_hands(path.read_text(encoding="utf-8"))
    out = tmp_path / "replay.html"
    out.write_text(render(path), encoding="utf-8")
    engine = koudian.replay(logs[0])
    frames = len(hand_frames(logs[0])["frames"])
    with browser_page() as page:
        page.goto(out.as_uri())
        page.wait_for_selector("body[data-ready='1']")
        for _ in range(frames - 1):
            page.keyboard.press("ArrowRight")
        page.wait_for_selector("body[data-last='1']")
        assert page.get_attribute("body", "data-frame") == str(frames - 1)
        page.screenshot(path=str(artifacts() / "replay-end.png"), full_page=True)
        shown = [int(x) for x in page.locator(".settlement .delta").all_inner_texts()]
        assert shown == list(engine.result.deltas)  # type: ignore[union-attr]
        settle = page.inner_text(".settlement")
        assert engine.settlement is not None
        for p in engine.settlement.payments:
            assert p.reason in settle
        # One seat's view: the other seats' concealed tiles are face down.
        page.select_option("#view", "1")
        for s in (0, 2, 3):
            assert page.locator(f".seat[data-seat='{s}'] .hand .t:not(.back)").count() == 0
        assert page.locator(".seat[data-seat='1'] .hand .t:not(.back)").count() > 0
        # Back to the start, the English labels, the second hand.
        page.keyboard.press("Home")
        assert page.get_attribute("body", "data-frame") == "0"
        page.click("#lang")
        assert "Seat" in page.inner_text("#table")
        page.select_option("#hand", "1")
        page.keyboard.press("End")
        page.wait_for_selector(".settlement")


def test_the_cli_loads_no_web_extra() -> None:
    import subprocess
    import sys

    code = (
        "import sys; import koudian.cli as c; c.build_parser(); "
        "bad = [m for m in ('starlette', 'uvicorn', 'websockets', 'koudian.web.app') "
        "if m in sys.modules]; print(bad); sys.exit(1 if bad else 0)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr
    assert (
        "koudian.web"
        not in subprocess.run(
            [sys.executable, "-c", "import sys, koudian; print(list(sys.modules))"],
            capture_output=True,
            text=True,
        ).stdout
    )


def test_review_ranks_each_decision_of_the_seat(tmp_path: Path) -> None:
    path = _log_file(tmp_path, 2)
    out = tmp_path / "review.html"
    if not hasattr(koudian, "rank_actions"):
        assert main(["review", str(path), "--seat", "0", "-o", str(out)]) == 2
        pytest.skip("this build has no koudian.rank_actions")
    from koudian.web.review import review_hand

    for log in split_hands(path.read_text(encoding="utf-8")):
        h = review_hand(log, 0, "greedy")
        states = replay_steps(log)
        assert h["summary"]["decisions"] == len(h["review"]) > 0
        for k, entry in h["review"].items():
            g = states[int(k)]
            legal = g.legal_actions(0)
            assert sorted(r["action"]["index"] for r in entry["ranked"]) == [a.index for a in legal]
            assert sum(r["chosen"] for r in entry["ranked"]) == 1
            best = koudian.NativeAgent("greedy").act(g.observe(0))
            assert entry["ranked"][0]["action"]["index"] == best.index
            played = next(r for r in entry["ranked"] if r["chosen"])
            assert entry["differs"] == (played is not entry["ranked"][0])
        assert len(h["summary"]["disagreements"]) == sum(e["differs"] for e in h["review"].values())
    assert main(["review", str(path), "--seat", "0", "-o", str(out)]) == 0
    with browser_page() as page:
        page.goto(out.as_uri())
        page.wait_for_selector("body[data-ready='1']")
        page.keyboard.press("Shift+ArrowRight")
        page.wait_for_selector("#review table tr")
        page.screenshot(path=str(artifacts() / "review.png"), full_page=True)
