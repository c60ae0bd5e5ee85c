"""A memory scoped to one user never acts for another, whatever the tool call names (issue 30).

In a tool loop the model writes the arguments: ``TrulyMem(db, user_id="bob").call(tool,
{"user_id": "alice", ...})`` must be refused with a typed error that changes nothing, over
every tool — through the library, MCP (stdio, and streamable HTTP with bob's key) and the
HTTP routes under bob's key. The schemas a model is shown for a scoped memory offer no user
switch; the tools still take the scope's own user. Re-run over PostgreSQL by
``tests/contract/test_scoped_tools_pg.py``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest

from tests.helpers import Served, snapshot
from trulymem import Forbidden, TrulyMem
from trulymem.model import Scope
from trulymem.tools import REGISTRY, anthropic_tools, openai_tools

MID = "MID"  # replaced by the id of one of alice's memories
# Each tool's arguments, valid but for the user they name.
ARGS: dict[str, dict[str, Any]] = {
    "memory_commit": {"triplets": [{"subject": "user", "relation": "likes", "object": "jazz"}]},
    "context_rewrite": {"summary": "s", "tool_calls_summarized": 1},
    "memory_ingest": {"messages": [{"speaker": "user", "text": "hello"}]},
    "add_memory": {"text": "bob was here"},
    "search_memories": {"query": "tea"},
    "get_memories": {},
    "get_memory": {"memory_id": MID},
    "update_memory": {"memory_id": MID, "text": "changed by bob"},
    "delete_memory": {"memory_id": MID},
    "delete_all_memories": {},
    "memory_history": {"memory_id": MID},
    "memory_dream": {"mode": "auto"},
    "persona_set": {"attributes": {"role": "cat"}},
    "persona_get": {},
    "memory_purge": {"criteria": {"object_contains": "tea"}, "mode": "hard", "confirm": True},
    "memory_recall": {"query_intent": "tea"},
    "memory_stats": {},
    "task_create": {"task_id": "T9", "description": "d"},
    "task_set_state": {"task_id": "T0", "state": "paused"},
    "task_list": {},
}
FILTERED = ("search_memories", "get_memories", "delete_all_memories")
ALICE_FILTERS = [{"user_id": "alice"}, {"AND": [{"user_id": "alice"}, {"app_id": "p"}]},
                 {"OR": [{"user_id": "bob"}, {"user_id": "alice"}]}, {"user_id": {"in": ["alice"]}}]


def switches(name: str) -> bool:
    return "user_id" in REGISTRY[name].input_model.model_fields


def attempts(mid: str) -> list[tuple[str, dict[str, Any]]]:
    """Every tool aimed at alice: her id as an argument, and in the filters of those that filter."""
    out: list[tuple[str, dict[str, Any]]] = []
    for name in REGISTRY:
        base = json.loads(json.dumps(ARGS[name]).replace(MID, mid))
        out.append((name, {**base, "user_id": "alice"}))
        if name in FILTERED:
            out += [(name, {**base, "filters": f}) for f in ALICE_FILTERS]
    return out


def seed(db: str | Path) -> tuple[str, str]:
    """Alice's and bob's memories, a task each; returns (alice's memory id, bob's)."""
    with TrulyMem(db, user_id="alice") as alice:
        mid = alice.call("add_memory", {"text": "alice drinks green tea"}).result["results"][0]["id"]  # type: ignore[index]
        alice.task_create("T0", "alice's task")
        bob = alice.with_scope(user_id="bob")
        bid = bob.call("add_memory", {"text": "bob drinks tea too"}).result["results"][0]["id"]  # type: ignore[index]
        bob.task_create("T0", "bob's task")
    return mid, bid


def rows(db: str | Path) -> list[str]:
    with TrulyMem(db, user_id="alice") as m:
        return snapshot(m)


def test_every_tool_called_by_a_scoped_memory_refuses_another_user(db_path: Path) -> None:
    mid, bid = seed(db_path)
    before = rows(db_path)
    with TrulyMem(db_path, user_id="bob", embedder="hashing") as bob:
        for name, args in attempts(mid):
            res = bob.call(name, args)
            assert not res.ok and res.error is not None, (name, args, res.result)
            # a tool without a user switch refuses the unknown field; one with it, the user
            assert res.error["type"] == ("forbidden" if switches(name) else "invalid_input"), (name, res.error)
            assert res.error["field"] == ("filters.user_id" if "filters" in args else "user_id"), (name, res.error)
            assert rows(db_path) == before, f"{name} {args} changed memory"
        with pytest.raises(Forbidden):  # the typed methods go through the same check
            bob.run("get_memories", {"user_id": "alice"})
        # naming its own user is accepted
        for name in REGISTRY:
            if switches(name) and name not in ("memory_dream", "delete_all_memories"):
                args = json.loads(json.dumps(ARGS[name]).replace(MID, bid))
                assert bob.call(name, {**args, "user_id": "bob"}).ok, name
        assert bob.call("get_memories", {"filters": {"user_id": "bob"}}).ok
    after = {json.loads(r).get("id") for r in rows(db_path)}
    assert mid in after and "alice drinks green tea" in json.dumps(rows(db_path))


def test_the_schemas_a_scoped_model_sees_offer_no_user_switch() -> None:
    for t in openai_tools() + openai_tools(strict=True):
        assert "user_id" not in t["function"]["parameters"]["properties"], t  # type: ignore[index]
    for a in anthropic_tools():
        assert "user_id" not in a["input_schema"]["properties"], a  # type: ignore[index]
    admin = [t["function"]["name"] for t in openai_tools(user_switch=True)  # type: ignore[index]
             if "user_id" in t["function"]["parameters"]["properties"]]  # type: ignore[index]
    assert set(admin) == {n for n in REGISTRY if switches(n)}


def test_an_admin_scope_may_name_users(db_path: Path) -> None:
    mid, _ = seed(db_path)
    everyone = TrulyMem(db_path, scope=Scope.everyone())
    try:
        assert everyone.call("get_memory", {"memory_id": mid, "user_id": "alice"}).ok
        added = everyone.call("add_memory", {"text": "written by the admin", "user_id": "alice"})
        assert added.ok, added.error
    finally:
        everyone.close()


def test_mcp_stdio_for_one_user(db_path: Path) -> None:
    from tests.test_mcp import stdio_session

    mid, _ = seed(db_path)
    before = rows(db_path)

    async def main() -> int:
        async with stdio_session(db_path, user="bob") as session:
            listed = (await session.list_tools()).tools
            assert [t.name for t in listed if "user_id" in t.inputSchema.get("properties", {})] == []
            n = 0
            for name, args in attempts(mid):
                if name not in {t.name for t in listed}:
                    continue
                res = await session.call_tool(name, args)
                text = res.content[0].text if res.content else ""  # type: ignore[union-attr]
                assert res.isError and ("forbidden" if switches(name) else "invalid_input") in text, (name, text)
                n += 1
            ok = await session.call_tool("get_memories", {"user_id": "bob"})
            assert not ok.isError
            return n

    assert anyio.run(main) >= len(REGISTRY) - 1
    assert rows(db_path) == before


def test_http_and_mcp_under_a_users_key(db_path: Path) -> None:
    from tests.test_http import key
    from tests.test_mcp import http_session

    mid, _ = seed(db_path)
    bob = key(db_path, "--user", "bob")  # a path, or a PostgreSQL URL (Path() would mangle it)
    before = rows(db_path)
    s = Served(str(db_path))
    try:
        with httpx.Client(base_url=s.url, timeout=60, headers={"Authorization": f"Bearer {bob}"}) as c:
            for name, args in attempts(mid):
                if name == "context_rewrite":
                    continue  # not served over HTTP
                r = c.post(f"/v1/tools/{name}", json=args)
                # a key's other users do not exist for it (404), as documented in trulymem.server.http
                assert r.status_code == 404 and r.json()["error"]["field"] == "user_id", (name, r.text)
            assert c.post("/v1/tools/get_memories", json={"user_id": "bob"}).status_code == 200

        async def over_mcp() -> None:
            async with http_session(s.url, bob) as session:
                listed = (await session.list_tools()).tools
                assert [t.name for t in listed if "user_id" in t.inputSchema.get("properties", {})] == []
                for name, args in attempts(mid):
                    if name in {t.name for t in listed}:
                        res = await session.call_tool(name, args)
                        assert res.isError, (name, args)

        anyio.run(over_mcp)
    finally:
        s.stop()
    assert rows(db_path) == before
