"""Shared pieces of the web tests: a headless Chromium (Debian's
``/usr/bin/chromium`` driven by Playwright), a live server on loopback,
and the artifacts directory for screenshots."""

from __future__ import annotations

import os
import socket
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = os.environ.get("KOUDIAN_CHROMIUM", "/usr/bin/chromium")


def artifacts() -> Path:
    """Where screenshots go (``KOUDIAN_ARTIFACTS``, else a temp dir)."""
    d = Path(
        os.environ.get("KOUDIAN_ARTIFACTS") or Path(tempfile.gettempdir()) / "koudian-artifacts"
    )
    d.mkdir(parents=True, exist_ok=True)
    return d


def _unavailable(reason: str) -> None:
    # scripts/test.sh installs Chromium when it runs as root (CI) and sets
    # KOUDIAN_REQUIRE_BROWSER=1: there a missing browser is a failure.
    if os.environ.get("KOUDIAN_REQUIRE_BROWSER") == "1":
        pytest.fail(f"browser tests required but {reason}")
    pytest.skip(reason)


@contextmanager
def browser_page(width: int = 1280, height: int = 820) -> Iterator[Any]:
    """A Chromium page; page errors fail the test at the end."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _unavailable("playwright is not installed (pip install playwright)")
    if not Path(CHROMIUM).exists():
        _unavailable(f"{CHROMIUM} is missing (apt-get install chromium)")
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        try:
            page = b.new_page(viewport={"width": width, "height": height})
            errors: list[str] = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            yield page
            assert not errors, errors
        finally:
            b.close()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def live_server(**kw: Any) -> Iterator[tuple[str, Any]]:
    """A ``koudian serve`` app on a loopback port in a thread: (base url, Server)."""
    uvicorn = pytest.importorskip("uvicorn")
    from koudian.web.app import Server, create_app
    from koudian.web.tables import MAX_MESSAGE, offered_opponents

    bots = kw.pop("bots", {})
    server = Server(offered_opponents(["random", "greedy", "mc"], bots), **kw)
    port = free_port()
    config = uvicorn.Config(
        create_app(server),
        host="127.0.0.1",
        port=port,
        log_level="warning",
        ws_max_size=4 * MAX_MESSAGE,
    )
    srv = uvicorn.Server(config)
    t = threading.Thread(target=srv.run, daemon=True)
    t.start()
    deadline = time.monotonic() + 10
    while not srv.started:
        if time.monotonic() > deadline:
            raise RuntimeError("the server did not start")
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}", server
    finally:
        # As `koudian serve` does at a signal: the tables' bots are ended
        # first, so that no decision in flight holds the shutdown.
        shutdown = getattr(server, "shutdown", None)
        if shutdown is not None:
            shutdown()
        srv.should_exit = True
        t.join(timeout=10)


@contextmanager
def rooms_server(tmp: Path, *argv: str) -> Iterator[str]:
    """``koudian serve`` with rooms, as people run it: its own process, a
    SQLite file in ``tmp``, a free loopback port; its base URL."""
    import re
    import subprocess
    import sys

    import koudian

    # The koudian under test (the installed wheel in CI), never the checkout's.
    here = str(Path(koudian.__file__).resolve().parents[1])
    env = dict(os.environ, PYTHONPATH=here, PYTHONUNBUFFERED="1")
    cmd = [sys.executable, "-m", "koudian", "serve", "--port", "0", "--db", str(tmp / "rooms.db")]
    cmd += ["--log", str(tmp / "served.jsonl"), *argv]
    # Its stderr goes to a file: a pipe nobody reads could fill and stop it.
    log = tmp / "serve.stderr"
    with log.open("w") as err:
        proc = subprocess.Popen(
            cmd, stdout=subprocess.PIPE, stderr=err, text=True, env=env, cwd=tmp
        )
    try:
        assert proc.stdout is not None
        # The first line names the address once the port is bound (or the
        # process ends with its error): readline returns either way.
        line = proc.stdout.readline()
        m = re.search(r"koudian serve: (http://127\.0\.0\.1:\d+)/", line)
        if m is None:
            proc.kill()
            proc.wait(timeout=10)
            raise RuntimeError(f"the server did not start: {line}{log.read_text()}")
        yield m.group(1)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)
