"""A real PostgreSQL 15 server for the class room's tests and bench/class.py.

Debian's binaries (`/usr/lib/postgresql/15/bin`, installed by .ci/run) run as the `postgres` user
(initdb and postgres refuse root), with the data folder and unix socket in a temporary folder that
user owns, listening on 127.0.0.1 on a free port. `stop()` ends the server and removes the folder.

    with PostgresServer() as pg:          # or the `postgres_server` session fixture
        url = pg.create_database("t1")    # postgresql+psycopg://postgres@127.0.0.1:PORT/t1
"""
from __future__ import annotations

import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

BIN = Path(os.environ.get("FFNLAB_PG_BIN", "/usr/lib/postgresql/15/bin"))  # Debian bookworm's postgresql
START_TIMEOUT = 60.0


def missing_reason() -> str | None:
    """Why a server cannot be started here, or None."""
    if not (BIN / "initdb").exists() or not (BIN / "postgres").exists():
        return f"PostgreSQL 15 is not installed ({BIN}/initdb missing; .ci/run installs Debian's postgresql)"
    if os.geteuid() == 0:
        try:
            pwd.getpwnam("postgres")
        except KeyError:
            return "running as root and there is no `postgres` user to run the server as"
        if not shutil.which("runuser"):
            return "running as root and runuser is missing"
    return None


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class PostgresServer:
    """initdb + postgres in a temporary folder; `durable=False` (tests) turns fsync off."""

    def __init__(self, durable: bool = False) -> None:
        self.durable = durable
        self.port = 0
        self.folder: Path | None = None
        self.proc: subprocess.Popen | None = None
        self._as_user: list[str] = []

    def _run(self, *args: str, **kwargs) -> subprocess.CompletedProcess:
        return subprocess.run([*self._as_user, *args], check=True, capture_output=True, text=True,
                              timeout=START_TIMEOUT, **kwargs)

    def start(self) -> PostgresServer:
        self.folder = Path(tempfile.mkdtemp(prefix="ffnlab-pg-"))
        if os.geteuid() == 0:
            user = pwd.getpwnam("postgres")
            os.chown(self.folder, user.pw_uid, user.pw_gid)
            self._as_user = ["runuser", "-u", "postgres", "--"]
        data = self.folder / "data"
        try:
            self._run(str(BIN / "initdb"), "-D", str(data), "-U", "postgres", "-A", "trust",
                      "-E", "UTF8", "--locale=C", "--no-sync")
            self.port = _free_port()
            settings = ["-c", "max_connections=200", "-c", "shared_buffers=32MB"]
            if not self.durable:
                settings += ["-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off"]
            self.proc = subprocess.Popen(
                [*self._as_user, str(BIN / "postgres"), "-D", str(data), "-h", "127.0.0.1",
                 "-p", str(self.port), "-k", str(self.folder), *settings],
                stdout=subprocess.DEVNULL, stderr=open(self.folder / "server.log", "w"),
                start_new_session=True)
            self._wait_ready()
        except BaseException:
            self.stop()
            raise
        return self

    def _wait_ready(self) -> None:
        import psycopg

        deadline = time.monotonic() + START_TIMEOUT
        while True:
            if self.proc is not None and self.proc.poll() is not None:
                raise RuntimeError(f"postgres ended at start: {self.log()}")
            try:
                with psycopg.connect(self.dsn(), connect_timeout=2):
                    return
            except psycopg.OperationalError:
                if time.monotonic() > deadline:
                    raise RuntimeError(f"postgres not ready after {START_TIMEOUT:.0f} s: {self.log()}")
                time.sleep(0.1)

    def log(self) -> str:
        try:
            return (self.folder / "server.log").read_text()[-2000:]  # type: ignore[operator]
        except (OSError, TypeError):
            return ""

    def dsn(self, database: str = "postgres") -> str:
        return f"host=127.0.0.1 port={self.port} user=postgres dbname={database}"

    def url(self, database: str = "postgres") -> str:
        return f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/{database}"

    def create_database(self, name: str) -> str:
        """A fresh, empty database (dropped first if it exists); its SQLAlchemy URL."""
        import psycopg
        from psycopg import sql

        with psycopg.connect(self.dsn(), autocommit=True) as conn:
            conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))
            conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
        return self.url(name)

    def stop(self) -> None:
        # The postmaster's own pid (runuser stays as its parent): SIGINT is PostgreSQL's fast shutdown.
        pid = None
        if self.folder is not None:
            try:
                pid = int((self.folder / "data" / "postmaster.pid").read_text().split()[0])
            except (OSError, ValueError, IndexError):
                pid = None
        if pid:
            try:
                os.kill(pid, signal.SIGINT)
            except ProcessLookupError:
                pass
        if self.proc is not None:
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                if pid:
                    try:
                        os.kill(pid, signal.SIGKILL)
                    except ProcessLookupError:
                        pass
                self.proc.kill()
                self.proc.wait(timeout=10)
            self.proc = None
        if self.folder is not None:
            shutil.rmtree(self.folder, ignore_errors=True)
            self.folder = None

    def __enter__(self) -> PostgresServer:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()


@pytest.fixture(scope="session")
def postgres_server():
    """One PostgreSQL server for the test session; skipped (with the reason) where it cannot run."""
    reason = missing_reason()
    if reason:
        pytest.skip(reason)
    with PostgresServer() as server:
        yield server
