from __future__ import annotations

import io
from collections.abc import Callable

from trulymem import TrulyMem


def snapshot(m: TrulyMem) -> list[str]:
    """Every row of every user, for "changed nothing" assertions."""
    buf = io.StringIO()
    m.export_jsonl(buf, all_users=True)
    return buf.getvalue().splitlines()


def triplet(s: str, r: str, o: str, **kw: object) -> dict[str, object]:
    return {"subject": s, "relation": r, "object": o, **kw}


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Served:
    """``trulymem serve`` as a real process on a loopback port."""

    def __init__(self, db: str, *extra: str, preexec_fn: Callable[[], object] | None = None) -> None:
        import os
        import subprocess
        import sys
        import time

        import httpx

        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        env = {**os.environ, "TRULYMEM_EMBEDDER": "hashing"}
        import tempfile

        self.log = tempfile.TemporaryFile(mode="w+")  # a file, not a pipe: a chatty server never blocks
        self.proc = subprocess.Popen([sys.executable, "-m", "trulymem", "serve", "--db", db, "--port", str(self.port),
                                      *extra], env=env, stdout=self.log, stderr=subprocess.STDOUT, text=True,
                                     preexec_fn=preexec_fn)  # e.g. lower the child's resource limits
        deadline = time.monotonic() + 30
        while True:
            try:
                if httpx.get(self.url + "/health", timeout=1).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.log.seek(0)
                said = self.log.read()  # before stop() closes the log
                self.stop()
                raise RuntimeError(f"server did not start: {said}")
            time.sleep(0.1)

    def stop(self) -> None:
        import subprocess

        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()
