"""A real PostgreSQL server for the tests and the rooms benchmark.

Debian's ``postgresql`` package (``/usr/lib/postgresql/N/bin``) is started in
a fresh temporary data directory, listening on a Unix socket in that private
directory only (no TCP at all: nothing off this machine, nor another local
user, can reach it), and stopped at the end. PostgreSQL refuses to run as
root, so under root (CI, this project's containers) the server runs as an
unprivileged user (``postgres`` when the package created it, else
``nobody``) through ``setpriv``, which owns the temporary directory.

A server is never leaked: ``stop`` shuts it down (fast, then immediate, then
SIGKILL, each with a bounded wait), and the postmaster gets a parent-death
signal, so a test run that is itself killed takes its server with it.
"""

from __future__ import annotations

import itertools
import os
import pwd
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path

# The libpq port only names the socket file (.s.PGSQL.PORT) in our own
# directory, so any number works and no two servers can collide.
PORT = 5432
SUPERUSER = "koudian"
DATABASE = "koudian"
START_TIMEOUT = 60.0
STOP_TIMEOUT = 30.0


def required() -> bool:
    """True where a missing PostgreSQL fails the tests instead of skipping
    them: CI (``CI`` set, as CI services do) and scripts/test.sh run as root,
    which installs the package and sets ``KOUDIAN_REQUIRE_POSTGRES=1``."""
    ci = os.environ.get("CI", "").strip().lower()
    return os.environ.get("KOUDIAN_REQUIRE_POSTGRES") == "1" or ci not in ("", "0", "false", "no")


def unavailable(reason: str) -> None:
    """Skip, or fail where PostgreSQL is required (pytest is imported here
    only: the rooms benchmark starts servers without it)."""
    import pytest

    if required():
        pytest.fail(f"PostgreSQL tests are required here but {reason}")
    pytest.skip(reason)


def find_bindir() -> Path | None:
    """The directory of ``initdb`` and ``postgres``: ``KOUDIAN_PG_BIN``, else
    the newest Debian ``/usr/lib/postgresql/N/bin``, else ``PATH``."""
    env = os.environ.get("KOUDIAN_PG_BIN")
    candidates: list[Path] = [Path(env)] if env else []
    debian = Path("/usr/lib/postgresql")
    if debian.is_dir():
        versions = [p for p in debian.iterdir() if p.name.isdigit()]
        for v in sorted(versions, key=lambda p: int(p.name), reverse=True):
            candidates.append(v / "bin")
    on_path = shutil.which("initdb")
    if on_path:
        candidates.append(Path(on_path).parent)
    for c in candidates:
        if (c / "initdb").is_file() and (c / "postgres").is_file():
            return c
    return None


def _traversable_by_others(path: Path) -> bool:
    """Every ancestor of ``path`` lets another user through (o+x)."""
    for p in [path, *path.parents]:
        try:
            if not p.stat().st_mode & 0o001:
                return False
        except OSError:
            return False
    return True


class PostgresServer:
    """One PostgreSQL server in a temporary directory; ``url`` names its
    database ``koudian``; ``create_database`` makes more."""

    def __init__(self, bindir: Path, *, durable: bool = False, max_connections: int = 200) -> None:
        self.bindir = bindir
        self.durable = durable
        self.max_connections = max_connections
        self._names = itertools.count()
        self._proc: subprocess.Popen[bytes] | None = None
        self._prefix: list[str] = []
        uid = os.geteuid()
        parent: str | None = None
        if uid == 0:
            # PostgreSQL refuses root: run it as the package's own user, else
            # nobody, from a directory that user can reach and owns.
            try:
                user = pwd.getpwnam("postgres")
            except KeyError:
                user = pwd.getpwnam("nobody")
            if shutil.which("setpriv") is None:
                raise RuntimeError("running as root needs setpriv (util-linux) to drop privileges")
            if not _traversable_by_others(Path(tempfile.gettempdir())):
                parent = "/tmp"
            self._prefix = [
                "setpriv",
                f"--reuid={user.pw_uid}",
                f"--regid={user.pw_gid}",
                "--clear-groups",
            ]
            owner: tuple[int, int] | None = (user.pw_uid, user.pw_gid)
        else:
            owner = None
        if shutil.which("setpriv") is not None:
            # The postmaster dies with the process that started it (set after
            # the uid change, which clears it), so no server outlives a killed
            # test run. SIGQUIT: immediate shutdown, children included.
            self._prefix = [*(self._prefix or ["setpriv"]), "--pdeathsig", "SIGQUIT", "--"]
        self.dir = Path(tempfile.mkdtemp(prefix="koudian-pg-", dir=parent))
        if owner is not None:
            os.chown(self.dir, *owner)
        self.data = self.dir / "data"
        self.log = self.dir / "server.log"
        self.socket_dir = self.dir

    # -- the server's life -------------------------------------------------

    def _run(self, args: list[str], timeout: float) -> None:
        out = subprocess.run(
            [*self._prefix, *args],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=timeout,
            check=False,
        )
        if out.returncode != 0:
            raise RuntimeError(
                f"{Path(args[0]).name} failed ({out.returncode}): "
                f"{(out.stderr or out.stdout).decode(errors='replace')[-2000:]}"
            )

    def start(self) -> None:
        self._run(
            [
                str(self.bindir / "initdb"),
                "-D",
                str(self.data),
                "-U",
                SUPERUSER,
                "--auth=trust",
                "--encoding=UTF8",
                "--locale=C",
                "--no-sync",
            ],
            timeout=120,
        )
        self._launch()
        self.create_database(DATABASE)

    def _launch(self) -> None:
        settings = [
            # A Unix socket in our private directory only: no TCP listener.
            "listen_addresses=",
            f"unix_socket_directories={self.socket_dir}",
            f"max_connections={self.max_connections}",
            "shared_buffers=32MB",
        ]
        if not self.durable:
            # The tests kill server processes, never the machine: fsync only
            # guards against a power cut, and costs the suite time.
            settings += ["fsync=off", "full_page_writes=off"]
        args = [str(self.bindir / "postgres"), "-D", str(self.data), "-p", str(PORT)]
        for s in settings:
            args += ["-c", s]
        with open(self.log, "ab") as log:
            self._proc = subprocess.Popen(
                [*self._prefix, *args],
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        deadline = time.monotonic() + START_TIMEOUT
        while True:
            if self._proc.poll() is not None:
                raise RuntimeError(f"postgres exited ({self._proc.returncode}): {self.log_tail()}")
            ready = subprocess.run(
                [str(self.bindir / "pg_isready"), "-q", *self._conn_args(), "-d", "postgres"],
                stdin=subprocess.DEVNULL,
                capture_output=True,
                timeout=10,
                check=False,
            )
            if ready.returncode == 0:
                break
            if time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"postgres not ready in {START_TIMEOUT:.0f} s")
            time.sleep(0.05)

    def restart(self) -> None:
        """Stops the server (fast shutdown: every client is cut off) and
        starts it again on the same data."""
        self._halt()
        self._launch()

    def stop(self) -> None:
        """Shut the server down and remove its directory (bounded waits)."""
        self._halt()
        shutil.rmtree(self.dir, ignore_errors=True)

    def _halt(self) -> None:
        proc, self._proc = self._proc, None
        if proc is not None and proc.poll() is None:
            # Fast shutdown (SIGINT) ends sessions; immediate (SIGQUIT) and
            # SIGKILL only if it hangs.
            for sig, wait in ((signal.SIGINT, STOP_TIMEOUT), (signal.SIGQUIT, 10.0)):
                proc.send_signal(sig)
                try:
                    proc.wait(timeout=wait)
                    break
                except subprocess.TimeoutExpired:
                    continue
            else:
                proc.kill()
                proc.wait(timeout=10)

    def __enter__(self) -> PostgresServer:
        try:
            self.start()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def pid(self) -> int | None:
        return None if self._proc is None else self._proc.pid

    def log_tail(self, chars: int = 4000) -> str:
        try:
            return self.log.read_text(errors="replace")[-chars:]
        except OSError:
            return ""

    # -- databases ---------------------------------------------------------

    def _conn_args(self) -> list[str]:
        return ["-h", str(self.socket_dir), "-p", str(PORT), "-U", SUPERUSER]

    def url_for(self, database: str) -> str:
        """A libpq URL for ``database`` over the server's Unix socket."""
        return f"postgresql://{SUPERUSER}@/{database}?host={self.socket_dir}&port={PORT}"

    @property
    def url(self) -> str:
        return self.url_for(DATABASE)

    def create_database(self, name: str | None = None) -> str:
        """A new empty database (a fresh name unless given); its URL."""
        if name is None:
            name = f"t{os.getpid()}_{next(self._names)}"
        self._run(
            [str(self.bindir / "createdb"), *self._conn_args(), "-T", "template0", name],
            timeout=60,
        )
        return self.url_for(name)


def start_server(*, durable: bool = False, max_connections: int = 200) -> PostgresServer:
    """A started server, or ``unavailable`` (skip, or fail where required)."""
    bindir = find_bindir()
    if bindir is None:
        unavailable(
            "PostgreSQL is not installed (apt-get install postgresql; or set KOUDIAN_PG_BIN "
            "to the directory of initdb and postgres)"
        )
        raise AssertionError  # unreachable: skip and fail raise
    server = PostgresServer(bindir, durable=durable, max_connections=max_connections)
    return server.__enter__()
