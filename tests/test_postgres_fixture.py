"""The PostgreSQL fixture (tests/_postgres.py) itself: a real server on a
private Unix socket only, databases made on demand, and no server outliving
its test run, even one that is killed."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from _postgres import PostgresServer, find_bindir, unavailable

HERE = Path(__file__).resolve().parent


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie (exited, not yet reaped by its new parent) is not a server.
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def test_server_answers_on_its_socket_only(postgres_server: PostgresServer) -> None:
    psycopg = pytest.importorskip("psycopg")
    with psycopg.connect(postgres_server.url, connect_timeout=10) as conn:
        row = conn.execute(
            "SELECT current_database(), current_setting('listen_addresses'), "
            "current_setting('server_version_num')::int"
        ).fetchone()
    assert row is not None
    assert row[0] == "koudian"
    # No TCP listener at all: only the socket in the server's private directory.
    assert row[1] == ""
    assert row[2] >= 100000
    assert (postgres_server.socket_dir / ".s.PGSQL.5432").exists()
    if os.geteuid() == 0:
        # PostgreSQL refuses root: the fixture runs it as another user.
        assert postgres_server.dir.stat().st_uid != 0


def test_fresh_databases_are_separate(postgres_server: PostgresServer) -> None:
    psycopg = pytest.importorskip("psycopg")
    a, b = postgres_server.create_database(), postgres_server.create_database()
    assert a != b
    with psycopg.connect(a, autocommit=True) as conn:
        conn.execute("CREATE TABLE only_in_a (x int)")
    with psycopg.connect(b) as conn:
        row = conn.execute("SELECT to_regclass('only_in_a') IS NULL").fetchone()
    assert row == (True,)


def test_stop_ends_the_server_and_removes_its_directory() -> None:
    bindir = find_bindir()
    if bindir is None:
        unavailable("PostgreSQL is not installed (apt-get install postgresql)")
        return
    with PostgresServer(bindir) as server:
        pid = server.pid
        assert pid is not None and _alive(pid)
        where = server.dir
    deadline = time.monotonic() + 10
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(pid)
    assert not where.exists()


def test_a_killed_test_run_takes_its_server_with_it() -> None:
    if find_bindir() is None:
        unavailable("PostgreSQL is not installed (apt-get install postgresql)")
    if shutil.which("setpriv") is None:
        pytest.skip("no setpriv (util-linux) to give the server a parent-death signal")
    # A child process starts a server, prints its pid, and is SIGKILLed: it
    # can run no cleanup, so only the parent-death signal can end the server.
    code = (
        "import sys, time\n"
        f"sys.path.insert(0, {str(HERE)!r})\n"
        "from _postgres import start_server\n"
        "s = start_server()\n"
        "print(s.pid, s.dir, flush=True)\n"
        "time.sleep(120)\n"
    )
    child = subprocess.Popen(
        [sys.executable, "-c", code], stdout=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True
    )
    try:
        assert child.stdout is not None
        line = child.stdout.readline().split()
        assert line, "the child did not start a server"
        pid, where = int(line[0]), Path(line[1])
        assert _alive(pid)
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=10)
    deadline = time.monotonic() + 20
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    alive = _alive(pid)
    if alive:
        os.kill(pid, signal.SIGKILL)
    shutil.rmtree(where, ignore_errors=True)
    assert not alive, "the server outlived the killed process that started it"
