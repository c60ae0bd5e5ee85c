"""MCP with the SDK's own client: over stdio (`trulymem mcp`) and over streamable HTTP
(`trulymem serve`, /mcp), including the seed's dream workflow called exactly as the
seed calls the mem0 tools."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest

from tests.helpers import Served

pytest.importorskip("mcp")

from mcp import ClientSession, StdioServerParameters  # noqa: E402
from mcp.client.stdio import stdio_client  # noqa: E402
from mcp.client.streamable_http import streamable_http_client  # noqa: E402

Call = Callable[..., Awaitable[Any]]


@asynccontextmanager
async def stdio_session(db: Path, user: str = "alice") -> AsyncIterator[ClientSession]:
    params = StdioServerParameters(command=sys.executable, args=["-m", "trulymem", "mcp", "--db", str(db), "--user",
                                                                 user],
                                   env={**os.environ, "TRULYMEM_EMBEDDER": "hashing"})
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        yield session


@asynccontextmanager
async def http_session(url: str, token: str | None = None) -> AsyncIterator[ClientSession]:
    import httpx

    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with httpx.AsyncClient(headers=headers, timeout=30) as client, \
            streamable_http_client(url + "/mcp/", http_client=client) as (read, write, _), \
            ClientSession(read, write) as session:
        await session.initialize()
        yield session


def caller(session: ClientSession) -> Call:
    async def call(name: str, **args: Any) -> Any:
        res = await session.call_tool(name, args)
        text = res.content[0].text if res.content else ""  # type: ignore[union-attr]
        if res.isError:
            raise RuntimeError(text)
        return json.loads(text)

    return call


async def exercise(session: ClientSession) -> None:
    tools = {t.name: t for t in (await session.list_tools()).tools}
    assert {"memory_commit", "memory_recall", "memory_purge", "task_create", "task_set_state", "task_list",
            "persona_set", "persona_get", "memory_stats", "memory_dream", "add_memory", "search_memories",
            "get_memories", "get_memory", "update_memory", "delete_memory", "delete_all_memories"} <= set(tools)
    assert "context_rewrite" not in tools
    assert tools["add_memory"].inputSchema["properties"]["infer"]["type"] == ["boolean", "null"]  # null: its default
    call = caller(session)
    await call("memory_commit", triplets=[{"subject": "user", "relation": "likes", "object": "jazz"}])
    assert "jazz" in (await call("memory_recall", query_intent="jazz"))["text"]
    await call("task_create", task_id="Task_a", description="A task")
    assert (await call("task_set_state", task_id="Task_a", state="paused"))["state"] == "paused"
    assert (await call("task_list"))["tasks"][0]["task_id"] == "Task_a"
    await call("persona_set", attributes={"role": "guide"})
    assert (await call("persona_get"))["attributes"] == {"role": "guide"}
    assert (await call("memory_stats"))["facts_valid"] >= 1
    mid = (await call("add_memory", text="I live in Lisbon"))["results"][0]["id"]
    assert (await call("search_memories", query="Lisbon"))["results"][0]["id"] == mid
    assert (await call("get_memories", page_size=10))["total"] == 2  # the jazz triplet is a memory too
    ingested = await call("memory_ingest", messages=[{"speaker": "alice", "text": "Hello from the chat", "id": "m1"}])
    assert len(ingested["episodes"]) == 1
    assert (await call("get_memory", memory_id=mid))["memory"] == "I live in Lisbon"
    new = await call("update_memory", memory_id=mid, text="I live in Porto")
    assert (await call("memory_history", memory_id=new["id"]))["results"][-1]["event"] == "UPDATE"
    await call("delete_memory", memory_id=new["id"])
    assert (await call("memory_purge", criteria={"object": "jazz"}))["matched"]
    assert (await call("memory_dream", mode="dry_run"))["status"] in ("no_memories", "nothing_to_do")
    assert (await call("delete_all_memories"))["deleted"] == 0
    # errors come back as MCP tool errors with the field named
    with pytest.raises(RuntimeError, match="invalid_input: messages"):
        await call("add_memory")
    with pytest.raises(RuntimeError, match="not_found"):
        await call("get_memory", memory_id="nope")
    with pytest.raises(RuntimeError, match="unknown tool"):
        await call("context_rewrite", summary="x", tool_calls_summarized=1)
    with pytest.raises(RuntimeError, match="filters.x.between"):
        await call("get_memories", filters={"x": {"between": 1}})


def test_stdio(db_path: Path) -> None:
    async def main() -> None:
        async with stdio_session(db_path) as session:
            await exercise(session)

    anyio.run(main)


def test_streamable_http_with_keys(db_path: Path) -> None:
    from tests.test_http import key

    alice, bob = key(db_path, "--user", "alice"), key(db_path, "--user", "bob")
    served = Served(str(db_path))

    async def main() -> None:
        async with http_session(served.url, alice) as session:
            await exercise(session)
            bob_id = None
            async with http_session(served.url, bob) as b:
                bob_id = (await caller(b)("add_memory", text="Bob's secret"))["results"][0]["id"]
            with pytest.raises(RuntimeError, match="not_found"):
                await caller(session)("get_memory", memory_id=bob_id)
            with pytest.raises(RuntimeError, match="not_found"):
                await caller(session)("get_memories", filters={"user_id": "bob"})
        import httpx

        async with httpx.AsyncClient() as client:  # no key: refused before any MCP session starts
            r = await client.post(served.url + "/mcp/", json={"jsonrpc": "2.0", "id": 1, "method": "initialize"})
            assert r.status_code == 401

    try:
        anyio.run(main)
    finally:
        served.stop()


def test_the_seed_dream_workflow_through_mcp(db_path: Path) -> None:
    """Steps 2 and 5 of mem0-dream-skill.md, called exactly as the seed calls the tools."""
    async def main() -> None:
        async with stdio_session(db_path, user="alice") as session:
            call = caller(session)
            for text in ("Use PostgreSQL for auth", "Auth DB is PostgreSQL", "Deploy to ECS", "Deploy to Vercel"):
                await call("add_memory", messages=[{"role": "user", "content": text}], user_id="alice",
                           app_id="proj", metadata={"type": "decision", "confidence": 0.8}, infer=False)
            # Step 2: fetch all project memories, page by page
            got = await call("get_memories", filters={"AND": [{"user_id": "alice"}, {"app_id": "proj"}]},
                             page_size=200)
            assert got["total"] == 4 and not got["has_more"]
            by = {m["memory"]: m for m in got["results"]}
            # Step 5, merges: delete both, add the merged memory with infer=False
            await call("delete_memory", memory_id=by["Use PostgreSQL for auth"]["id"])
            await call("delete_memory", memory_id=by["Auth DB is PostgreSQL"]["id"])
            merged = await call("add_memory", messages=[{"role": "user", "content": "Auth DB is PostgreSQL"}],
                                user_id="alice", app_id="proj", infer=False,
                                metadata={"type": "decision", "branch": "main", "confidence": 0.8,
                                          "source": "mem0-dream"})
            # Step 5, resolved conflict: read the loser, then update it with its own text
            loser = await call("get_memory", memory_id=by["Deploy to ECS"]["id"])
            updated = await call("update_memory", memory_id=loser["id"], text=loser["memory"])
            assert updated["id"] == loser["id"]  # same text: kept in place, nothing wiped
            after = await call("get_memories", filters={"AND": [{"user_id": "alice"}, {"app_id": "proj"}]},
                               page_size=200)
            texts = sorted(m["memory"] for m in after["results"])
            assert texts == ["Auth DB is PostgreSQL", "Deploy to ECS", "Deploy to Vercel"]
            m = await call("get_memory", memory_id=merged["results"][0]["id"])
            # the seed reads metadata.type / .pinned / .confidence: there, and at the top level
            assert m["metadata"] == {"branch": "main", "source": "mem0-dream", "type": "decision", "confidence": 0.8}
            assert m["type"] == "decision" and m["confidence"] == 0.8 and m["app_id"] == "proj"

    anyio.run(main)
