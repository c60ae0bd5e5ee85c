"""trulymem's tools in the agent frameworks people plug memory into, each the real package
against ``trulymem mcp`` (stdio) or a local server: the OpenAI Agents SDK (its strict
conversion of our MCP tools, and our strict function schemas as its ``FunctionTool``s),
langchain-mcp-adapters (tools loaded from our MCP server and called), and anthropic
(our tool schemas sent by its client to a scripted local Messages endpoint, the tool
call it answers run). No optional field may come out of a strict conversion as required
and non-null: a model would have to invent ``as_of``, ``time_range`` or ``state``."""

from __future__ import annotations

import json
import os
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import anyio
import pytest

from trulymem import TrulyMem, anthropic_tools, openai_tools

# the tools whose strict conversion must succeed (no free-form object among their fields)
STRICT_AFTER_CONVERSION = {"memory_recall", "task_set_state", "task_list", "get_memory", "delete_memory",
                           "memory_history"}


def mcp_params(db: Path) -> dict[str, Any]:
    return {"command": sys.executable, "args": ["-m", "trulymem", "mcp", "--db", str(db), "--user", "alice"],
            "env": {**os.environ, "TRULYMEM_EMBEDDER": "hashing"}}


def nullable(prop: dict[str, Any]) -> bool:
    kinds = prop.get("type")
    return (isinstance(kinds, list) and "null" in kinds) or kinds == "null" or any(
        nullable(a) for a in prop.get("anyOf") or [])


def forced(schema: dict[str, Any], original: dict[str, Any]) -> list[str]:
    """Properties a strict schema requires, non-null, that the tool does not require."""
    required = set(original.get("required") or [])
    return [name for name, prop in (schema.get("properties") or {}).items()
            if name in (schema.get("required") or []) and name not in required and not nullable(prop)]


def test_openai_agents_sdk_converts_our_mcp_tools_to_strict(tmp_path: Path) -> None:
    pytest.importorskip("agents")
    from agents.mcp import MCPServerStdio, MCPUtil
    from agents.tool_context import ToolContext

    async def main() -> None:
        async with MCPServerStdio(mcp_params(tmp_path / "m.db"), client_session_timeout_seconds=60) as server:
            tools = await server.list_tools()
            converted = {t.name: (t, MCPUtil.to_function_tool(t, server, convert_schemas_to_strict=True))
                         for t in tools}
            strict = {name for name, (_, ft) in converted.items() if ft.strict_json_schema}
            assert STRICT_AFTER_CONVERSION <= strict, STRICT_AFTER_CONVERSION - strict
            for name, (tool, ft) in converted.items():
                assert forced(ft.params_json_schema, tool.inputSchema) == [], name
            recall = converted["memory_recall"][1]
            props = recall.params_json_schema["properties"]
            assert all(nullable(props[k]) for k in ("as_of", "time_range", "max_tokens"))
            # what a strict model sends: every field, null for "not given" (the user exists from the first call)
            args = json.dumps({k: None for k in props} | {"query_intent": "AI,persona"})
            out = await recall.on_invoke_tool(ToolContext(context=None, tool_name="memory_recall", tool_call_id="1",
                                                          tool_arguments=args), args)
            text = out if isinstance(out, str) else out["text"] if isinstance(out, dict) else out[0]["text"]
            assert json.loads(text)["facts"] == []

    anyio.run(main)


def test_openai_agents_sdk_accepts_our_strict_function_schemas(tmp_path: Path) -> None:
    pytest.importorskip("agents")
    from agents import FunctionTool
    from agents.strict_schema import ensure_strict_json_schema
    from agents.tool_context import ToolContext

    with TrulyMem(tmp_path / "f.db", user_id="alice", embedder="hashing") as mem:
        mem.ensure_user()

        def invoker(name: str) -> Any:
            async def invoke(ctx: ToolContext[Any], args: str) -> str:
                res = mem.call(name, json.loads(args))
                assert res.ok, res.error
                return json.dumps(res.result, default=str)
            return invoke

        tools = {}
        for spec in openai_tools(strict=True):
            fn: Any = spec["function"]
            schema = fn["parameters"]
            assert ensure_strict_json_schema(json.loads(json.dumps(schema))) == schema, fn["name"]  # nothing to change
            tools[fn["name"]] = FunctionTool(name=fn["name"], description=fn["description"], params_json_schema=schema,
                                             on_invoke_tool=invoker(fn["name"]), strict_json_schema=True)

        async def main() -> None:
            commit = tools["memory_commit"]
            args = {k: None for k in commit.params_json_schema["properties"]}
            args["triplets"] = [{k: None for k in commit.params_json_schema["properties"]["triplets"]["items"][
                "properties"]} | {"subject": "user", "relation": "lives_in", "object": "Lisbon"}]
            raw = json.dumps(args)
            await commit.on_invoke_tool(ToolContext(context=None, tool_name="memory_commit", tool_call_id="1",
                                                    tool_arguments=raw), raw)
            recall = tools["memory_recall"]
            raw = json.dumps({k: None for k in recall.params_json_schema["properties"]} | {"query_intent": "Lisbon"})
            out = await recall.on_invoke_tool(ToolContext(context=None, tool_name="memory_recall", tool_call_id="2",
                                                          tool_arguments=raw), raw)
            assert "Lisbon" in json.loads(out)["text"]

        anyio.run(main)


def test_langchain_mcp_adapters_load_and_call_our_tools(tmp_path: Path) -> None:
    pytest.importorskip("langchain_mcp_adapters")
    from langchain_mcp_adapters.client import MultiServerMCPClient

    async def main() -> None:
        client = MultiServerMCPClient({"trulymem": {**mcp_params(tmp_path / "l.db"), "transport": "stdio"}})
        tools = {t.name: t for t in await client.get_tools()}
        assert {"memory_recall", "memory_commit", "add_memory", "search_memories"} <= set(tools)
        assert tools["memory_recall"].args_schema is not None
        first = await tools["memory_recall"].ainvoke({"query_intent": "AI,persona"})  # a fresh user: no error
        assert "no memories found" in str(first)
        await tools["add_memory"].ainvoke({"messages": [{"role": "user", "content": "I deploy to ECS"}],
                                            "infer": False})
        found = await tools["search_memories"].ainvoke({"query": "where do I deploy", "top_k": 3})
        assert "I deploy to ECS" in str(found)

    anyio.run(main)


class _Messages(BaseHTTPRequestHandler):
    """A scripted Anthropic Messages endpoint: the first answer calls ``memory_commit``,
    the next one says it is done; every request body is kept."""

    seen: list[dict[str, Any]]

    def do_POST(self) -> None:  # noqa: N802 (http.server's name)
        body = json.loads(self.rfile.read(int(self.headers["content-length"])))
        self.seen.append(body)
        first = len(self.seen) == 1
        content: list[dict[str, Any]] = [{"type": "tool_use", "id": "toolu_1", "name": "memory_commit", "input": {
            "triplets": [{"subject": "user", "relation": "prefers", "object": "green tea"}]}}] if first else [
            {"type": "text", "text": "Noted."}]
        reply = {"id": f"msg_{len(self.seen)}", "type": "message", "role": "assistant", "model": body["model"],
                 "content": content, "stop_reason": "tool_use" if first else "end_turn", "stop_sequence": None,
                 "usage": {"input_tokens": 10, "output_tokens": 5}}
        data = json.dumps(reply).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def messages_server() -> Iterator[tuple[str, list[dict[str, Any]]]]:
    seen: list[dict[str, Any]] = []
    handler = type("Handler", (_Messages,), {"seen": seen})
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}", seen
    finally:
        httpd.shutdown()
        httpd.server_close()


def test_anthropic_client_sends_our_tools_and_runs_the_call(tmp_path: Path,
                                                             messages_server: tuple[str, list[dict[str, Any]]]) -> None:
    anthropic = pytest.importorskip("anthropic")
    from anthropic.types import ToolParam
    from pydantic import TypeAdapter

    url, seen = messages_server
    tools = anthropic_tools()
    for t in tools:
        TypeAdapter(ToolParam).validate_python(t)  # the shape anthropic's types describe
    client = anthropic.Anthropic(api_key="local", base_url=url, max_retries=0)
    with TrulyMem(tmp_path / "a.db", user_id="alice", embedder="hashing") as mem:
        history: list[Any] = [{"role": "user", "content": "I prefer green tea."}]
        reply = client.messages.create(model="scripted", max_tokens=100, tools=tools,  # type: ignore[arg-type]
                                       messages=history)
        assert reply.stop_reason == "tool_use"
        call = next(b for b in reply.content if b.type == "tool_use")
        res = mem.call(call.name, call.input)
        assert res.ok, res.error
        history += [{"role": "assistant", "content": reply.content},
                    {"role": "user", "content": [{"type": "tool_result", "tool_use_id": call.id,
                                                  "content": json.dumps(res.result, default=str)}]}]
        done = client.messages.create(model="scripted", max_tokens=100, tools=tools,  # type: ignore[arg-type]
                                      messages=history)
        assert done.content[0].type == "text"
        assert "green tea" in mem.call("memory_recall", {"query_intent": "tea"}).result["text"]
    assert [t["name"] for t in seen[0]["tools"]] == [t["name"] for t in tools]
    assert seen[0]["tools"][0]["input_schema"]["type"] == "object"
    assert seen[1]["messages"][-1]["content"][0]["type"] == "tool_result"
    client.close()
