"""Text holding a NUL character (U+0000) gets one answer on every backend (issue 30): a typed
``invalid_input`` that changes nothing, on every write and read path — the tools (library, HTTP,
MCP), the web app's and mem0 platform's routes, import. SQLite could store one and PostgreSQL
cannot (it answered 500), so the same request answered differently. Re-run over PostgreSQL by
``tests/contract/test_nul_bytes_pg.py``; ``trulymem migrate`` of a database that holds one is
in ``tests/contract/test_migrate.py``."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest

from tests.helpers import Served, snapshot
from trulymem import InvalidInput, TrulyMem
from trulymem.model import Scope
from trulymem.store.base import FactQuery, NodeQuery

NUL = "\x00"


def tool_calls(mid: str) -> list[tuple[str, dict[str, Any], str]]:
    """(tool, arguments with a NUL somewhere, the field the error must name)."""
    t = f"tea{NUL}time"
    return [
        ("memory_commit", {"triplets": [{"subject": "user", "relation": "likes", "object": t}]}, "triplets.0.object"),
        ("memory_commit", {"triplets": [{"subject": t, "relation": "likes", "object": "x"}]}, "triplets.0.subject"),
        ("memory_commit", {"triplets": [{"subject": "u", "relation": "r", "object": "o", "metadata": {"k": t}}]},
         "triplets.0.metadata.k"),
        ("memory_ingest", {"messages": [{"speaker": "user", "text": t}]}, "messages.0.text"),
        ("add_memory", {"text": t}, "text"),
        ("add_memory", {"messages": [{"role": "user", "content": t}]}, "messages.0.content"),
        ("add_memory", {"text": "fine", "metadata": {"note": t}}, "metadata.note"),
        ("search_memories", {"query": t}, "query"),
        ("get_memories", {"filters": {"memory": {"contains": t}}}, "filters.memory.contains"),
        ("get_memory", {"memory_id": mid + NUL}, "memory_id"),
        ("update_memory", {"memory_id": mid, "text": t}, "text"),
        ("delete_memory", {"memory_id": NUL + mid}, "memory_id"),
        ("memory_history", {"memory_id": mid + NUL}, "memory_id"),
        ("delete_all_memories", {"filters": {"memory": t}}, "filters.memory"),
        ("persona_set", {"attributes": {"role": t}}, "attributes.role"),
        ("memory_purge", {"criteria": {"object": t}}, "criteria.object"),
        ("memory_recall", {"query_intent": t}, "query_intent"),
        ("task_create", {"task_id": "T9", "description": t}, "description"),
        ("task_set_state", {"task_id": "T0" + NUL, "state": "paused"}, "task_id"),
    ]


@pytest.fixture
def seeded(db_path: Path) -> tuple[TrulyMem, str]:
    mem = TrulyMem(db_path, user_id="alice", embedder="hashing")
    mid = mem.call("add_memory", {"text": "green tea"}).result["results"][0]["id"]  # type: ignore[index]
    mem.task_create("T0", "a task")
    yield mem, mid
    mem.close()


def test_every_tool_refuses_a_nul_naming_the_field(seeded: tuple[TrulyMem, str]) -> None:
    mem, mid = seeded
    before = snapshot(mem)
    for tool, args, field in tool_calls(mid):
        res = mem.call(tool, args)
        assert not res.ok and res.error is not None, (tool, args)
        assert res.error["type"] == "invalid_input", (tool, res.error)
        assert res.error["field"] == field and "NUL" in res.error["message"], (tool, res.error)
        assert snapshot(mem) == before, f"{tool} changed memory"


def test_the_stores_refuse_a_nul_that_reaches_them(seeded: tuple[TrulyMem, str]) -> None:
    """Below the tools (a web route's id, a typed method) both backends answer alike."""
    mem, _ = seeded
    before = snapshot(mem)
    with pytest.raises(InvalidInput, match="NUL"):
        mem.store.nodes(NodeQuery(scope=Scope.everyone(), ids=[NUL]))
    with pytest.raises(InvalidInput, match="NUL"):
        mem.store.facts(FactQuery(scope=Scope(user_id="alice"), ids=["a" + NUL]))
    with pytest.raises(InvalidInput, match="NUL"):
        mem.commit([{"subject": "user", "relation": "likes", "object": "x" + NUL}])
    with pytest.raises(InvalidInput, match="NUL"), mem.store.transaction():  # a store's own import, below the checks
        mem.store.import_rows([{"record": "user", "user_id": "a" + NUL, "created_at": "2026-01-01T00:00:00+00:00"}])
    assert snapshot(mem) == before


def test_import_names_the_row_holding_a_nul(seeded: tuple[TrulyMem, str]) -> None:
    mem, _ = seeded
    buf = io.StringIO()
    mem.export_jsonl(buf)
    lines = buf.getvalue().splitlines()
    k = next(i for i, line in enumerate(lines) if "green tea" in line)
    lines[k] = lines[k].replace("green tea", "green\\u0000tea")
    before = snapshot(mem)
    other = mem.with_scope(user_id="alice")
    with pytest.raises(InvalidInput, match=f"row {k + 1} .*NUL"):
        other.import_jsonl(io.StringIO("\n".join(lines) + "\n"))
    assert snapshot(mem) == before


def test_http_and_mcp_answer_invalid_input(seeded: tuple[TrulyMem, str], db_path: Path) -> None:
    from tests.test_mcp import http_session

    mem, mid = seeded
    node = mem.store.nodes(NodeQuery(scope=mem.scope))[0].id
    s = Served(str(db_path))
    before = snapshot(mem)  # after the start: a keyless server registers its default user
    bad = "tea\u0000time"
    tried = 0
    try:
        with httpx.Client(base_url=s.url, timeout=60) as c:
            requests: list[tuple[str, str, dict[str, Any] | None]] = [
                ("POST", "/v1/memories", {"text": bad}),
                ("POST", "/v1/memories/search", {"query": bad}),
                ("POST", "/v1/triplets", {"triplets": [{"subject": "user", "relation": "likes", "object": bad}]}),
                ("POST", "/v1/recall", {"query_intent": bad}),
                ("PATCH", f"/v1/memories/{mid}", {"text": bad}),
                ("GET", "/v1/memories/%00", None),
                ("GET", f"/v1/memories/{mid}%00/history", None),
                ("DELETE", "/v1/memories/%00", None),
                ("GET", "/v1/graph/nodes/%00", None),
                ("GET", f"/v1/graph/nodes/{node}%00/neighbours", None),
                ("GET", "/v1/graph/facts/%00/versions", None),
                ("POST", "/v1/graph/search", {"query_intent": bad}),
                ("POST", "/v1/tools/add_memory", {"text": bad}),
                ("POST", "/v3/memories/add/", {"messages": [{"role": "user", "content": bad}], "user_id": "alice"}),
                ("POST", "/v3/memories/search/", {"query": bad, "user_id": "alice"}),
                ("GET", "/v1/memories/%00/", None),
                ("PUT", f"/v1/memories/{mid}/", {"text": bad}),
            ]
            for method, path, body in requests:
                platform = path.startswith("/v3/") or path.endswith("/")  # mem0's routes: no ?user_id=
                r = c.request(method, path, json=body, params=None if platform else {"user_id": "alice"})
                tried += 1
                assert r.status_code == 422, (method, path, r.status_code, r.text)
                assert r.json()["error"]["type"] == "invalid_input", (method, path, r.text)
                assert "NUL" in r.json()["error"]["message"], (method, path, r.text)
                assert snapshot(mem) == before, f"{method} {path} changed memory"

        async def over_mcp() -> None:
            async with http_session(s.url) as session:
                for tool, args, field in tool_calls(mid):
                    res = await session.call_tool(tool, args)
                    text = res.content[0].text if res.content else ""  # type: ignore[union-attr]
                    assert res.isError and "invalid_input" in text and field in text, (tool, text)
                    assert snapshot(mem) == before, f"MCP {tool} changed memory"

        anyio.run(over_mcp)
    finally:
        s.stop()
    assert snapshot(mem) == before
    print(f"\n{tried} HTTP requests with a NUL: 422 invalid_input each, nothing changed")
