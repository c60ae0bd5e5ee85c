"""What MCP clients other than our own see, with the SDK's real client over stdio
(`trulymem mcp`) and streamable HTTP (`trulymem serve`, /mcp): object and array
arguments sent as JSON text, the way the official MCP Inspector CLI sends them
(``npx @modelcontextprotocol/inspector --cli … --tool-arg key=value``, emulated here
exactly: it needs node and a network), tool annotations, trulymem's own version,
the memory protocol as instructions and as a prompt."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from importlib.metadata import version
from pathlib import Path
from typing import Any

import anyio
import pytest

from tests.helpers import Served

pytest.importorskip("mcp")

from mcp import ClientSession, McpError, StdioServerParameters  # noqa: E402
from mcp.client.stdio import stdio_client  # noqa: E402
from mcp.client.streamable_http import streamable_http_client  # noqa: E402
from mcp.types import InitializeResult, Tool  # noqa: E402

Session = tuple[ClientSession, InitializeResult]
READS = {"memory_recall", "task_list", "persona_get", "memory_stats", "search_memories", "get_memories",
         "get_memory", "memory_history"}


@asynccontextmanager
async def stdio(db: Path) -> AsyncIterator[Session]:
    params = StdioServerParameters(command=sys.executable, args=["-m", "trulymem", "mcp", "--db", str(db), "--user",
                                                                 "alice"],
                                   env={**os.environ, "TRULYMEM_EMBEDDER": "hashing"})
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        yield session, await session.initialize()


@asynccontextmanager
async def http(url: str, token: str) -> AsyncIterator[Session]:
    import httpx

    async with httpx.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=30) as client, \
            streamable_http_client(url + "/mcp/", http_client=client) as (read, write, _), \
            ClientSession(read, write) as session:
        yield session, await session.initialize()


def inspector_args(tool: Tool, params: dict[str, str]) -> dict[str, Any]:
    """The Inspector CLI's ``convertParameters`` (cli/src/client/tools.ts): each ``key=value``
    converted by its property's top-level ``type`` alone when that is one type name;
    anything else (a nullable field's ``["boolean", "null"]`` too) stays a string, which
    the tools decode (``test_mcp_inspector_cli.py`` runs the real CLI)."""
    out: dict[str, Any] = {}
    for key, value in params.items():
        kind = (tool.inputSchema.get("properties") or {}).get(key, {}).get("type")
        if not value:
            out[key] = value
        elif kind in ("number", "integer"):
            out[key] = float(value) if "." in value else int(value)
        elif kind == "boolean":
            out[key] = value.lower() == "true"
        elif kind in ("object", "array"):
            try:
                out[key] = json.loads(value)
            except ValueError:
                out[key] = value
        else:
            out[key] = value
    return out


def caller(session: ClientSession) -> Callable[..., Awaitable[Any]]:
    async def call(name: str, args: dict[str, Any]) -> Any:
        res = await session.call_tool(name, args)
        text = res.content[0].text if res.content else ""  # type: ignore[union-attr]
        if res.isError:
            raise RuntimeError(text)
        return json.loads(text)

    return call


def untyped(schema: dict[str, Any], path: str = "") -> list[str]:
    """Properties, at any depth, without a top-level ``type``."""
    out = []
    for name, prop in (schema.get("properties") or {}).items():
        if "type" not in prop:
            out.append(f"{path}/{name}")
        out += untyped(prop, f"{path}/{name}")
        if isinstance(prop.get("items"), dict):
            out += untyped(prop["items"], f"{path}/{name}[]")
    return out


async def inspect(session: ClientSession, init: InitializeResult) -> None:
    assert init.serverInfo.name == "trulymem" and init.serverInfo.version == version("trulymem")
    steps = init.instructions or ""
    for step in ('memory_recall(query_intent="AI,persona,role,character,tone,speaking_style"',
                 'memory_recall(query_intent="TaskNode,working_memory,task_chain"', "memory_commit",
                 "task_create(task_id="):
        assert step in steps
    assert init.capabilities.prompts is not None

    tools = {t.name: t for t in (await session.list_tools()).tools}
    for name, tool in tools.items():
        assert tool.inputSchema["type"] == "object" and untyped(tool.inputSchema) == [], name
        hints = tool.annotations
        assert hints is not None and hints.openWorldHint is False
        assert hints.readOnlyHint is (name in READS), name
    for name in ("delete_all_memories", "delete_memory", "memory_purge", "update_memory", "memory_dream"):
        assert tools[name].annotations.destructiveHint is True, name  # type: ignore[union-attr]
    for name in ("memory_commit", "add_memory", "task_create", "memory_ingest"):
        assert tools[name].annotations.destructiveHint is False, name  # type: ignore[union-attr]
    assert tools["delete_all_memories"].annotations.idempotentHint is True  # type: ignore[union-attr]
    assert tools["add_memory"].annotations.idempotentHint is False  # type: ignore[union-attr]

    call = caller(session)
    # `--tool-arg messages=[…] metadata={…} infer=false`, converted by the Inspector from our schemas
    args = inspector_args(tools["add_memory"], {
        "messages": '[{"role": "user", "content": "Deploy to ECS"}]', "metadata": '{"type": "decision"}',
        "infer": "false", "app_id": "proj"})
    assert args["messages"].startswith("[") and args["infer"] == "false"  # nullable: sent as the text typed
    await call("add_memory", args)
    # and as the issue saw them: the JSON text itself, which older schemas made the Inspector send
    await call("add_memory", {"messages": '[{"role": "user", "content": "Auth DB is PostgreSQL"}]',
                              "metadata": '{"type": "decision", "confidence": 0.8}', "app_id": "proj"})
    got = await call("get_memories", {"filters": '{"AND": [{"app_id": "proj"}, {"type": "decision"}]}',
                                      "page_size": "10"})
    assert sorted(m["memory"] for m in got["results"]) == ["Auth DB is PostgreSQL", "Deploy to ECS"]
    await call("memory_commit", {"triplets": '[{"subject": "user", "relation": "lives_in", "object": "Paris"}]'})
    purged = await call("memory_purge", {"criteria": '{"subject": "user", "relation": "lives_in"}',
                                         "mode": "supersede", "replacement": '{"object": "Berlin"}'})
    assert purged["replacement_id"] and len(purged["matched"]) == 1
    # text that is not JSON: one typed error naming the field, nothing written
    with pytest.raises(RuntimeError, match="invalid_input: filters: must be a JSON object or array"):
        await call("get_memories", {"filters": '{"app_id": "proj"'})
    with pytest.raises(RuntimeError, match="invalid_input: messages: .*not valid JSON"):
        await call("add_memory", {"messages": "[{'role': 'user'}]"})
    assert (await call("get_memories", {"page_size": 100}))["total"] == 3

    prompts = (await session.list_prompts()).prompts
    assert [p.name for p in prompts] == ["memory_protocol"]
    assert [a.name for a in prompts[0].arguments or []] == ["message"]
    prompt = await session.get_prompt("memory_protocol", {"message": "Let's play idiom chain: 为所欲为"})
    texts = [m.content.text for m in prompt.messages]  # type: ignore[union-attr]
    assert texts == [steps, "Let's play idiom chain: 为所欲为"]
    assert [m.role for m in prompt.messages] == ["user", "user"]
    assert len((await session.get_prompt("memory_protocol")).messages) == 1
    with pytest.raises(McpError, match="unknown prompt"):
        await session.get_prompt("nope")


def test_inspector_over_stdio(db_path: Path) -> None:
    async def main() -> None:
        async with stdio(db_path) as (session, init):
            await inspect(session, init)

    anyio.run(main)


def test_inspector_over_streamable_http(db_path: Path) -> None:
    from tests.test_http import key

    token = key(db_path, "--user", "alice")
    served = Served(str(db_path))

    async def main() -> None:
        async with http(served.url, token) as (session, init):
            await inspect(session, init)
            # a key's user is checked on the filters a JSON text spells, too
            with pytest.raises(RuntimeError, match="not_found"):
                await caller(session)("get_memories", {"filters": '{"user_id": "bob"}'})
            with pytest.raises(RuntimeError, match="not_found"):
                await caller(session)("delete_all_memories", {"filters": '{"OR": [{"user_id": "bob"}]}'})

    try:
        anyio.run(main)
    finally:
        served.stop()
