"""mem0ai 1.x's own ``MemoryClient`` and ``AsyncMemoryClient`` (1.0.11, installed once
into ``.test-cache`` by ``tests.thirdparty``) against a real ``trulymem serve``: every
public method, run by ``tests/mem0_v1_script.py`` in a process of its own (two majors
of one package cannot share a process). 2.x is ``test_platform_client.py``."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import Served
from tests.thirdparty import mem0_v1

SCRIPT = Path(__file__).with_name("mem0_v1_script.py")


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_mem0_v1_client_every_method(db_path: Path, tmp_path: Path, mode: str) -> None:
    v1 = mem0_v1()
    served = Served(str(db_path), "--user", "alice")  # a keyless server's users() lists its own user
    try:
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(v1), os.environ.get("PYTHONPATH", "")]),
               "MEM0_TELEMETRY": "False", "MEM0_DIR": str(tmp_path / "mem0")}
        done = subprocess.run([sys.executable, str(SCRIPT), served.url, mode], capture_output=True, text=True,
                              timeout=300, env=env)
        assert done.returncode == 0, done.stderr[-3000:]
        assert done.stdout.strip() == f"ok {mode} 30"
    finally:
        served.stop()
