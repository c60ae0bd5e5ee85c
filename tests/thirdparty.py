"""Third-party clients a test drives that cannot share the test's own environment: a
second major version of a Python package (mem0ai 1.x beside the installed 2.x) or an npm
package (the MCP Inspector CLI). Each is installed once, pinned, into
``.test-cache/<name>`` at the repository root (git-ignored; CI may cache it), from the
package registries only. A test that cannot install it (no registry, no npm) is skipped,
saying why, unless ``TRULYMEM_REQUIRE_CLIENTS=1`` (CI): then it fails, so CI never passes
by skipping."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import NoReturn

import pytest

CACHE = Path(__file__).resolve().parent.parent / ".test-cache"
MEM0_V1 = "mem0ai==1.0.11"  # the last 1.x release
INSPECTOR = "@modelcontextprotocol/inspector@0.15.0"


def _unavailable(reason: str) -> NoReturn:
    if os.environ.get("TRULYMEM_REQUIRE_CLIENTS") == "1":
        pytest.fail(reason)
    pytest.skip(reason)


def _installed(name: str, install: list[str], check: str) -> Path:
    """``CACHE/name``, installing into a fresh directory then moving it in place (a run
    stopped halfway leaves no half-installed cache)."""
    target = CACHE / name
    if (target / check).exists():
        return target
    CACHE.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f"{name}-", dir=CACHE))
    try:
        done = subprocess.run([*install, str(tmp)], capture_output=True, text=True, timeout=600,
                              env={**os.environ, "PIP_DISABLE_PIP_VERSION_CHECK": "1"})
        if done.returncode != 0 or not (tmp / check).exists():
            _unavailable(f"could not install {name}: {(done.stderr or done.stdout).strip()[-300:]}")
        if not (target / check).exists():
            shutil.rmtree(target, ignore_errors=True)
            tmp.rename(target)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return target


def mem0_v1() -> Path:
    """A directory to put first on ``sys.path`` for mem0ai 1.x (its dependencies are the
    installed 2.x's, which 1.x's client shares)."""
    return _installed("mem0ai-1", [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", MEM0_V1,
                                   "--target"], "mem0/client/main.py")


def inspector_cli() -> Path:
    """The MCP Inspector's ``mcp-inspector`` command."""
    if shutil.which("npm") is None or shutil.which("node") is None:
        _unavailable("the MCP Inspector needs node and npm")
    root = _installed("mcp-inspector", ["npm", "install", "--no-audit", "--no-fund", "--silent", INSPECTOR,
                                        "--prefix"], "node_modules/.bin/mcp-inspector")
    return root / "node_modules" / ".bin" / "mcp-inspector"
