"""The real MCP Inspector CLI (``@modelcontextprotocol/inspector`` from npm, pinned and
installed once into ``.test-cache`` by ``tests.thirdparty``) against ``trulymem mcp``
(stdio) and ``trulymem serve`` (streamable HTTP at ``/mcp``): on a fresh database the
server's user exists from the first call (the README's Claude Desktop setup), and
arguments typed as ``--tool-arg key=value`` reach the tools as the Inspector converts
them (by each property's top-level ``type``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.helpers import Served
from tests.thirdparty import inspector_cli


def inspector(cli: Path, target: list[str], *args: str) -> Any:
    done = subprocess.run([str(cli), "--cli", *target, *args], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "TRULYMEM_EMBEDDER": "hashing"})
    assert done.returncode == 0, done.stderr[-2000:] + done.stdout[-2000:]
    return json.loads(done.stdout)


def tool(cli: Path, target: list[str], name: str, **args: str) -> Any:
    out = inspector(cli, target, "--method", "tools/call", "--tool-name", name,
                    *(["--tool-arg", *(f"{k}={v}" for k, v in args.items())] if args else []))
    assert out.get("isError") is not True, out
    return json.loads(out["content"][0]["text"])


def session(cli: Path, target: list[str]) -> None:
    """The first calls of a new user, then a memory stored and found with typed arguments."""
    listed = inspector(cli, target, "--method", "tools/list")["tools"]
    assert {"memory_recall", "add_memory", "get_memories", "search_memories"} <= {t["name"] for t in listed}
    assert tool(cli, target, "memory_recall", query_intent="AI,persona,role")["facts"] == []
    assert tool(cli, target, "memory_stats")["facts_valid"] == 0
    assert tool(cli, target, "get_memories")["results"] == []
    added = tool(cli, target, "add_memory", messages='[{"role": "user", "content": "Deploy to ECS"}]',
                 metadata='{"type": "decision"}', infer="false", app_id="proj")
    assert [r["memory"] for r in added["results"]] == ["Deploy to ECS"]
    got = tool(cli, target, "get_memories", filters='{"AND": [{"app_id": "proj"}, {"type": "decision"}]}',
               page_size="10")
    assert [m["memory"] for m in got["results"]] == ["Deploy to ECS"]
    found = tool(cli, target, "search_memories", query="where do we deploy", top_k="3")
    assert [m["memory"] for m in found["results"]] == ["Deploy to ECS"]
    recalled = tool(cli, target, "memory_recall", query_intent="deploy", depth="1", limit="5")
    assert "ECS" in recalled["text"]


def test_inspector_over_stdio_on_a_fresh_database(tmp_path: Path) -> None:
    cli = inspector_cli()
    db = tmp_path / "fresh.db"
    # the Inspector refuses an empty "-e KEY=" value: pass PYTHONPATH on only when it is set
    path = os.environ.get("PYTHONPATH")
    env = ["-e", f"PYTHONPATH={path}"] if path else []
    session(cli, [*env, "-e", "TRULYMEM_EMBEDDER=hashing",
                  sys.executable, "-m", "trulymem", "mcp", "--db", str(db), "--user", "alice"])


def test_inspector_over_streamable_http_on_a_fresh_database(tmp_path: Path) -> None:
    cli = inspector_cli()
    served = Served(str(tmp_path / "fresh.db"), "--user", "alice")
    try:
        session(cli, [f"{served.url}/mcp", "--transport", "http"])
    finally:
        served.stop()
