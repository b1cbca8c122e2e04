"""The external-bot boundary under misbehaving bots (tests/bots/*_bot.py):
a bot that never reads, floods, writes a huge line, deep JSON or invalid
UTF-8, answers twice, prints a banner, forks children or dies by a signal
never hangs or bloats the engine, leaves no process behind, and each fault
is reported with its kind. Each run is a subprocess (tests/bots/drive.py),
so that a hang is a killed child and the RSS measured is the engine's."""

from __future__ import annotations

import gc
import io
import json
import math
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import koudian
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from koudian import Action, KoudianError, Observation
from koudian.faults import fallback_action
from koudian.protocol import (
    MAX_LINE_BYTES,
    MAX_TIMEOUT,
    PROTOCOL_VERSION,
    BotError,
    ExternalAgent,
    parse_reply,
    request,
    run_bot,
)
from koudian.protocol import _action_of as protocol_action_of

BOTS = Path(__file__).parent / "bots"
KINDS = {"illegal", "malformed", "timeout", "overflow", "crash", "dead"}
RSS_LIMIT = 200 << 20
TIMEOUT = 0.4
"""The bots' timeout where the test waits for timeouts."""
PATIENT = 3.0
"""The timeout where a test expects none: a loaded machine may take more
than ``TIMEOUT`` to start Python."""
posix_only = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="reads /proc; process groups are POSIX"
)


def bound(timeout: float) -> float:
    """Seconds a run may take: each of the 1 + max_restarts (3) processes
    a bot gets may cost one wait of ``timeout`` and its stop; the rest is
    starting Python four times and playing the hands."""
    return 3.0 + 4 * (2 * timeout)


class FallbackAgent:
    """Plays the documented fallback every time."""

    def act(self, observation: Observation, legal_actions: Sequence[Action]) -> Action:
        return fallback_action(legal_actions)


def drive(
    tmp_path: Path,
    bot: str,
    *args: str,
    rules: str = "shanxi",
    hands: int = 3,
    via: str = "simulate",
    timeout: float = TIMEOUT,
) -> dict[str, Any]:
    """Runs tests/bots/drive.py on one bot; kills it (and every recorded
    bot process) if it outlives ``bound``, which fails the test."""
    pids = tmp_path / "pids"
    pids.write_text("")
    env = {**os.environ, "KOUDIAN_TEST_PIDS": str(pids)}
    cmd = [sys.executable, str(BOTS / "drive.py"), rules, str(hands), str(timeout), via]
    cmd += [str(BOTS / bot), *args]
    proc = subprocess.Popen(
        cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, start_new_session=True
    )
    try:
        out, err = proc.communicate(timeout=bound(timeout) + 10)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        pytest.fail(f"{bot}: the run hung (killed after {bound(timeout) + 10:.0f} s)")
    finally:
        for pid in pids.read_text().split():
            try:
                os.kill(int(pid), signal.SIGKILL)
            except OSError:
                pass
    assert proc.returncode == 0, err.decode(errors="replace")[-3000:]
    r: dict[str, Any] = json.loads(out)
    assert r["elapsed"] < bound(timeout), r["elapsed"]
    assert r["peak_rss"] < RSS_LIMIT, r["peak_rss"]
    assert r["pids"], "the bot never started"
    assert r["alive"] == [], f"bot processes outlived the match: {r['alive']}"
    assert {k for k, _ in r["faults"]} <= KINDS
    return r


def kinds(r: dict[str, Any]) -> set[str]:
    return {k for k, _ in r["faults"]}


def fallback_game(rules: str, hands: int) -> list[list[int]]:
    """The per-hand deltas of the drive.py run with the fallback at seat 0."""
    agents = [FallbackAgent(), "random", "random", "random"]
    return koudian.simulate(rules, agents, hands, seed=3).deltas.tolist()  # type: ignore[no-any-return]


@posix_only
def test_a_bot_that_never_reads_its_input_is_a_timeout_not_a_hang(tmp_path: Path) -> None:
    r = drive(tmp_path, "never_reads_bot.py")
    assert "timeout" in kinds(r)
    assert any("did not read" in d for k, d in r["faults"] if k == "timeout")


@posix_only
@pytest.mark.parametrize("bot", ["flood_lines_bot.py", "flood_bytes_bot.py", "huge_line_bot.py"])
def test_a_flooding_bot_is_an_overflow_and_its_output_is_not_kept(tmp_path: Path, bot: str) -> None:
    r = drive(tmp_path, bot)
    assert "overflow" in kinds(r)
    why = "more than 1000 lines" if bot == "flood_lines_bot.py" else "a line longer than 65536"
    assert all(d.startswith(why) for k, d in r["faults"] if k == "overflow")
    # A loaded machine may also see a timeout (the bot building its line).
    assert kinds(r) <= {"overflow", "timeout", "dead"}


@posix_only
def test_deep_json_is_malformed_at_once(tmp_path: Path) -> None:
    r = drive(tmp_path, "deep_json_bot.py", timeout=PATIENT)
    assert kinds(r) == {"malformed"}
    assert r["deltas"] == fallback_game("shanxi", 3)


@posix_only
def test_invalid_utf8_is_malformed_at_once(tmp_path: Path) -> None:
    r = drive(tmp_path, "bad_utf8_bot.py", timeout=PATIENT)
    assert kinds(r) == {"malformed"}
    assert all("UTF-8" in d for _, d in r["faults"])
    # At once: the faults (one per decision) did not wait for the timeout.
    assert len(r["faults"]) > 20 and r["elapsed"] < PATIENT


@posix_only
@pytest.mark.parametrize("version", ["v1", "v2"])
def test_a_second_answer_is_never_the_reply_to_the_next_request(
    tmp_path: Path, version: str
) -> None:
    # Each second answer is "leave": taken as a reply, it ends the hand.
    r = drive(tmp_path, "twice_bot.py", version, rules="linxian", hands=4, timeout=PATIENT)
    assert r["faults"] == []
    assert "left" not in r["ends"]
    assert r["deltas"] == fallback_game("linxian", 4)


@posix_only
def test_a_banner_at_start_is_not_a_reply(tmp_path: Path) -> None:
    r = drive(tmp_path, "banner_bot.py", timeout=PATIENT)
    assert r["faults"] == []
    assert r["deltas"] == fallback_game("shanxi", 3)


@posix_only
@pytest.mark.parametrize("via", ["simulate", "match"])
def test_a_bots_children_and_grandchildren_die_with_it(tmp_path: Path, via: str) -> None:
    r = drive(tmp_path, "fork_bot.py", via=via, timeout=PATIENT)
    crashes = [d for k, d in r["faults"] if k == "crash"]
    assert crashes and all("exited with code 3" in d for d in crashes)
    # Four processes (one start, three restarts), each with two children.
    assert len(r["pids"]) == 12


@posix_only
@pytest.mark.parametrize("via", ["simulate", "match", "arena", "ladder"])
def test_a_descendant_that_left_the_group_with_setsid_ends_with_the_run(
    tmp_path: Path, via: str
) -> None:
    r = drive(tmp_path, "setsid_bot.py", via=via, hands=2, timeout=PATIENT)
    # The bot, its setsid() child and that child's child: all ended (drive
    # asserts that none is alive), and no fault (the bot plays well).
    assert len(r["pids"]) == 3
    assert r["faults"] == []


@posix_only
def test_a_crash_by_signal_names_the_signal(tmp_path: Path) -> None:
    r = drive(tmp_path, "signal_bot.py", timeout=PATIENT)
    crashes = [d for k, d in r["faults"] if k == "crash"]
    assert crashes and all("was killed by signal 9 (SIGKILL)" in d for d in crashes)


# ------------------------------------------------------- the protocol itself


def test_any_reply_that_is_not_an_action_is_a_value_error() -> None:
    for bad in [
        "[" * 100_000,
        "{" * 100_000,
        '{"index": ' + "[" * 100_000,
        '{"index": 1' + "0" * 5000 + "}",
        '{"index": ' + "9" * 30 + "}",
        '{"action": "discard", "tile": "' + "5m" * 1000 + '"}',
        "NaN",
        "",
    ]:
        with pytest.raises(ValueError):
            parse_reply(bad)


def test_requests_carry_the_protocol_version_and_an_id() -> None:
    g = koudian.Game("shanxi", seed=1)
    seat = g.to_act
    assert seat is not None
    req = request(g.observe(seat), g.legal_actions(), 7)
    assert PROTOCOL_VERSION == 2 and req["protocol"] == 2 and req["id"] == 7
    assert req["type"] == "act" and req["seat"] == seat


def test_run_bot_echoes_the_request_id(monkeypatch: pytest.MonkeyPatch) -> None:
    lines = [json.dumps({"type": "act", "id": 41, "legal_actions": [{"index": 3}]}), "", "{}"]
    monkeypatch.setattr(sys, "stdin", io.StringIO("\n".join(lines[:2]) + "\n"))
    out = io.StringIO()
    monkeypatch.setattr(sys, "stdout", out)
    run_bot(lambda req: req["legal_actions"][0])
    assert [json.loads(x) for x in out.getvalue().splitlines()] == [{"index": 3, "id": 41}]


def test_the_line_cap_is_documented() -> None:
    import koudian.protocol as protocol

    assert MAX_LINE_BYTES == 64 * 1024
    assert "64 KiB" in (protocol.__doc__ or "")
    assert MAX_TIMEOUT == 3600


@pytest.mark.parametrize(
    "timeout", [math.nan, math.inf, -1.0, 0.0, 1e308, MAX_TIMEOUT * 2, "5", True]
)
def test_a_timeout_out_of_range_is_refused(timeout: Any) -> None:
    with pytest.raises(BotError, match="timeout"):
        ExternalAgent("python bot.py", timeout=timeout)
    with pytest.raises(KoudianError, match="timeout"):
        koudian.simulate("shanxi", ["cmd:python bot.py", *["random"] * 3], 1, timeout=timeout)


@pytest.mark.parametrize("command", ["", "   ", "'unterminated"])
def test_an_empty_or_unparsable_command_is_refused(command: str) -> None:
    with pytest.raises(BotError, match="command"):
        ExternalAgent(command)
    with pytest.raises(BotError, match="command"):
        koudian.simulate("shanxi", [f"cmd:{command}", *["random"] * 3], 1)


def test_a_bot_that_cannot_start_stops_the_run_before_any_hand() -> None:
    played = []

    class Watch(FallbackAgent):
        def act(self, observation: Observation, legal_actions: Sequence[Action]) -> Action:
            played.append(1)
            return super().act(observation, legal_actions)

    agents = [Watch(), "cmd:/nonexistent/bot --flag", "random", "random"]
    with pytest.raises(BotError, match="/nonexistent/bot"):
        koudian.simulate("shanxi", agents, 3)
    with pytest.raises(BotError, match="/nonexistent/bot"):
        koudian.Match("shanxi", agents, hands=3)
    assert played == []
    assert issubclass(BotError, KoudianError)


@pytest.mark.parametrize("value", ["nan", "inf", "-1", "0", "1e308", "3601", "abc"])
def test_cli_refuses_a_bad_timeout(value: str, capsys: pytest.CaptureFixture[str]) -> None:
    from koudian.cli import main

    with pytest.raises(SystemExit) as e:
        main(["simulate", "--agents", "random", "--timeout", value, "--hands", "1"])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert "--timeout" in err and "Traceback" not in err


@pytest.mark.parametrize("spec", ["cmd:", 'cmd:""', "cmd:nonexistent_bot_xyz"])
def test_cli_refuses_a_bot_that_cannot_run(spec: str, capsys: pytest.CaptureFixture[str]) -> None:
    from koudian.cli import main

    assert main(["simulate", "--agents", f"{spec},random,random,random", "--quiet"]) == 2
    out, err = capsys.readouterr()
    assert err.startswith("koudian: error: ") and "command" in err
    assert "hands" not in out  # no summary: nothing was played


def test_a_well_behaved_v2_bot_plays_without_faults() -> None:
    script = "from koudian.protocol import run_bot; run_bot(lambda r: r['legal_actions'][0])"
    agent = ExternalAgent(f"{sys.executable} -c {json.dumps(script)}", timeout=5.0)
    try:
        g = koudian.Game("shanxi", seed=2)
        ref = koudian.Game("shanxi", seed=2)
        while (seat := g.to_act) is not None:
            legal = g.legal_actions()
            a = agent.act(g.observe(seat), legal) if seat == 0 else fallback_action(legal)
            g.step(a)
            ref.step(legal[0] if seat == 0 else fallback_action(legal))
        assert agent.take_faults() == []
        assert g.result is not None and ref.result is not None
        assert np.array_equal(g.result.deltas, ref.result.deltas)
    finally:
        agent.close()


def _wait_for_pids(path: Path, n: int) -> list[int]:
    """The pids recorded in ``path`` once there are ``n`` (at most 10 s)."""
    for _ in range(1000):
        pids = [int(x) for x in path.read_text().split()]
        if len(pids) >= n:
            return pids
        time.sleep(0.01)
    pytest.fail(f"only {path.read_text().split()} recorded")


@posix_only
def test_a_bot_dropped_without_close_dies_with_its_children(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sys.path.insert(0, str(BOTS))
    from drive import survivors

    pids_file = tmp_path / "pids"
    pids_file.write_text("")
    monkeypatch.setenv("KOUDIAN_TEST_PIDS", str(pids_file))
    a = ExternalAgent(f"{sys.executable} {BOTS / 'fork_bot.py'}")
    a.start()
    pids = _wait_for_pids(pids_file, 3)
    assert a.pid in pids and len(survivors(pids)) == 3
    del a
    gc.collect()
    assert survivors(pids) == []

    # At interpreter exit, without close().
    pids_file.write_text("")
    script = (
        "import sys, time; from koudian.protocol import ExternalAgent; "
        f"a = ExternalAgent({sys.executable + ' ' + str(BOTS / 'fork_bot.py')!r}); a.start(); "
        f"p = {str(pids_file)!r}\n"
        "while len(open(p).read().split()) < 3: time.sleep(0.01)"
    )
    subprocess.run([sys.executable, "-c", script], check=True, timeout=30)
    pids = _wait_for_pids(pids_file, 3)
    assert survivors(pids) == []


@pytest.mark.parametrize("threaded", [False, True])
def test_output_left_from_an_earlier_request_is_dropped_to_its_line_end(threaded: bool) -> None:
    from koudian._botprocess import Output
    from koudian.protocol import MAX_SKIPPED_BYTES

    r, w = os.pipe()
    out = Output(os.fdopen(r, "rb", buffering=0), threaded, MAX_LINE_BYTES, MAX_SKIPPED_BYTES)
    try:
        os.write(w, b'{"index": 1}\n{"ind')  # a second answer, cut in two
        time.sleep(0.1)
        assert out.discard() == (1, 18)
        os.write(w, b'ex": 2}\nreply\n')
        deadline = time.monotonic() + 5
        assert out.line(deadline, lambda: False) == b"reply"
        assert out.skipped == 18 + 8
        # More than the pipe holds: written while the line is read.
        writer = threading.Thread(target=os.write, args=(w, b"x" * (MAX_LINE_BYTES + 1)))
        writer.start()
        assert out.line(deadline, lambda: False) == "overflow"
        writer.join()
        assert out.line(time.monotonic() + 0.05, lambda: False) == "overflow"
    finally:
        os.close(w)
        out.close()


def test_a_reply_must_echo_the_id_once_a_bot_does(tmp_path: Path) -> None:
    script = tmp_path / "wrong_id_bot.py"
    script.write_text(
        "import json, sys\n"
        "for n, line in enumerate(sys.stdin):\n"
        "    req = json.loads(line)\n"
        "    rid = req['id'] if n == 0 else req['id'] + 100\n"
        "    index = req['legal_actions'][0]['index']\n"
        "    print(json.dumps({'index': index, 'id': rid}), flush=True)\n"
    )
    agent = ExternalAgent(f"{sys.executable} {script}", timeout=PATIENT)
    try:
        g = koudian.Game("shanxi", seed=2)
        seat = g.to_act
        assert seat is not None
        legal = g.legal_actions()
        assert agent.act(g.observe(seat), legal) == legal[0]
        agent.timeout = TIMEOUT  # the bot has started: now wait less
        assert agent.act(g.observe(seat), legal) == fallback_action(legal)
        faults = agent.take_faults()
        assert [f.kind for f in faults] == ["malformed"]
        assert "echoes the request's id, 2" in faults[0].detail
    finally:
        agent.close()


@posix_only
@pytest.mark.parametrize(
    ("bot", "rules", "kind"),
    [
        ("banner_bot.py", "shanxi", None),
        ("twice_bot.py v2", "linxian", None),
        ("never_reads_bot.py", "shanxi", "timeout"),
        ("flood_bytes_bot.py", "shanxi", "overflow"),
        ("bad_utf8_bot.py", "shanxi", "malformed"),
        ("signal_bot.py", "shanxi", "crash"),
    ],
)
def test_the_threaded_transport_behaves_the_same(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, bot: str, rules: str, kind: str | None
) -> None:
    # Windows cannot poll pipes: there threads read and write them.
    import koudian._botprocess as botprocess

    sys.path.insert(0, str(BOTS))
    from drive import survivors

    monkeypatch.setattr(botprocess, "THREADED", True)
    pids_file = tmp_path / "pids"
    pids_file.write_text("")
    monkeypatch.setenv("KOUDIAN_TEST_PIDS", str(pids_file))
    timeout = TIMEOUT if kind == "timeout" else PATIENT
    script, *args = bot.split()
    agent = ExternalAgent(" ".join([sys.executable, str(BOTS / script), *args]), timeout=timeout)
    t0 = time.monotonic()
    r = koudian.simulate(rules, [agent, "random", "random", "random"], 3, seed=3)
    assert time.monotonic() - t0 < bound(timeout)
    found = {f.kind for f in r.faults}
    if kind is None:
        assert found == set()
        assert r.deltas.tolist() == fallback_game(rules, 3)
    else:
        # The never-reading bot's replies are "pass", often illegal.
        assert kind in found and found <= {kind, "dead", "illegal"}
    pids = [int(x) for x in pids_file.read_text().split()]
    assert pids and survivors(pids) == []
    for _ in range(100):  # the pipe threads end with their bot
        if not any(t.name.startswith("koudian-bot-") for t in threading.enumerate()):
            break
        time.sleep(0.02)
    assert not any(t.name.startswith("koudian-bot-") for t in threading.enumerate())


_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner),
    max_leaves=12,
)


@settings(max_examples=200, deadline=None)
@given(
    line=st.one_of(
        st.binary(max_size=200),
        st.text(max_size=200).map(str.encode),
        _json.map(lambda v: json.dumps(v).encode()),
        st.builds(
            lambda d, extra: json.dumps({**extra, **d}).encode(),
            st.fixed_dictionaries(
                {},
                optional={
                    "index": st.integers(-(2**70), 2**70) | _json,
                    "action": st.sampled_from(["discard", "pass", "win", "leave", "x"]) | _json,
                    "tile": st.sampled_from(["5m", "9z", "", "5m5m"]) | _json,
                    "id": st.integers(0, 3) | _json,
                },
            ),
            st.dictionaries(st.text(max_size=4), _json, max_size=2),
        ),
    ),
    replied=st.booleans(),
    echoes=st.booleans(),
)
def test_no_reply_line_raises_anything_but_a_fault(
    line: bytes, replied: bool, echoes: bool
) -> None:
    agent = ExternalAgent("python bot.py")
    agent._echoes_ids = echoes
    verdict = agent._classify(line, 2, replied)
    assert verdict is None or isinstance(verdict, (str, dict))
    if isinstance(verdict, dict):
        try:
            assert isinstance(protocol_action_of(verdict), Action)
        except ValueError:
            pass
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError:
        return
    try:
        assert isinstance(parse_reply(text), Action)
    except ValueError:
        pass


def test_the_protocol_and_the_agents_do_not_import_each_other() -> None:
    import ast

    import koudian.agents
    import koudian.faults
    import koudian.protocol

    def imports(module: object) -> set[str]:
        tree = ast.parse(Path(module.__file__).read_text(encoding="utf-8"))  # type: ignore[attr-defined]
        return {n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)} | {
            a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names
        }

    assert "koudian.agents" not in imports(koudian.protocol)
    assert imports(koudian.faults) <= {
        "__future__",
        "collections.abc",
        "dataclasses",
        "koudian._core",
    }
    # The old import paths still work.
    assert koudian.agents.Fault is koudian.faults.Fault
    assert koudian.agents.fallback_action is koudian.faults.fallback_action


# ------------------------------------------- a bot that ends before answering


def test_a_bot_that_ends_before_its_first_answer_is_a_startup_error(tmp_path: Path) -> None:
    from koudian.protocol import BotStartupError

    missing = tmp_path / "missing_bot.py"
    finished = []
    with pytest.raises(BotStartupError) as e:
        koudian.simulate(
            "shanxi",
            [f"cmd:{sys.executable} {missing}", "random", "random", "random"],
            5,
            progress=finished.append,
        )
    assert finished == []  # no hand reported
    text = str(e.value)
    # The bot's own stderr says what is wrong (Python: "can't open file").
    assert "missing_bot.py" in text and "No such file" in text
    assert "before its first answer" in text
    assert issubclass(BotStartupError, BotError)
    # Its own message, however it ends.
    boom = f"cmd:{sys.executable} -c \"import sys; sys.exit('boom: no model file')\""
    with pytest.raises(BotStartupError, match="boom: no model file"):
        koudian.arena([boom, "greedy", "greedy", "greedy"], "shanxi", 3)


def test_a_bot_that_answered_once_then_dies_is_still_a_fault() -> None:
    r = koudian.simulate(
        "shanxi", [f"cmd:{sys.executable} {BOTS / 'crash_bot.py'}", "random", "random", "random"], 2
    )
    assert {f.kind for f in r.faults} >= {"crash"}


@pytest.mark.parametrize("command", ["simulate", "arena"])
def test_cli_stops_on_a_bot_that_ends_before_answering(
    tmp_path: Path, command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from koudian.cli import main

    bot = f"cmd:{sys.executable} {tmp_path / 'missing_bot.py'}"
    agents = f"{bot},random,random,random"
    count = ["--hands", "4"] if command == "simulate" else ["--deals", "2"]
    assert main([command, "--agents", agents, "--quiet", *count]) != 0
    out, err = capsys.readouterr()
    assert err.startswith("koudian: error: ") and "No such file" in err
    assert "Traceback" not in err and out == ""


def test_only_the_end_of_a_bots_stderr_is_kept() -> None:
    from koudian.protocol import BotStartupError

    noisy = "import sys; sys.stderr.write('x' * 10_000_000 + 'THE END'); sys.exit(1)"
    with pytest.raises(BotStartupError) as e:
        koudian.simulate("shanxi", [f'cmd:{sys.executable} -c "{noisy}"', *["random"] * 3], 2)
    text = str(e.value)
    assert text.endswith("THE END") and len(text) < 4000
