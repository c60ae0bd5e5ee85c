"""trulymem as an MCP server (the official ``mcp`` SDK): every tool of the registry
— the memory tools, the mem0 tool names, the dream — with the same input schemas
as everywhere else. ``trulymem mcp`` serves it over stdio; ``trulymem serve``
mounts it over streamable HTTP at ``/mcp``.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import anyio

from trulymem.errors import TrulyMemError
from trulymem.tools import REGISTRY, ToolContext, ToolResult, call_tool

# Interactive or turn-bound tools that make no sense for an outside client.
HIDDEN = {"context_rewrite"}


def tool_names() -> list[str]:
    return [n for n in REGISTRY if n not in HIDDEN]


def build_server(make_ctx: Callable[[Any], ToolContext], name: str = "trulymem",
                 check: Callable[[Any, str, dict[str, Any]], None] | None = None) -> Any:
    """A low-level MCP server whose tools run against ``make_ctx(request)`` (one context per
    call; ``request`` is the HTTP request over streamable HTTP, ``None`` over stdio).
    ``check(request, tool, arguments)`` may refuse a call by raising."""
    import mcp.types as types
    from mcp.server.lowlevel import Server

    server: Any = Server(name)

    @server.list_tools()  # type: ignore[untyped-decorator]
    async def list_tools() -> list[types.Tool]:
        return [types.Tool(name=n, description=REGISTRY[n].description, inputSchema=REGISTRY[n].parameters())
                for n in tool_names()]

    # Our own validation names the offending field; the SDK's JSON-schema check would not.
    @server.call_tool(validate_input=False)  # type: ignore[untyped-decorator]
    async def call(name: str, arguments: dict[str, Any] | None) -> list[types.TextContent]:
        if name not in tool_names():
            raise ValueError(f"unknown tool {name!r}")
        request = getattr(server.request_context, "request", None)
        args = arguments or {}

        def run() -> Any:
            try:
                if check is not None:
                    check(request, name, args)
                return call_tool(name, make_ctx(request), args)
            except TrulyMemError as exc:
                return ToolResult(tool=name, ok=False, error=exc.to_dict())
            except Exception as exc:  # e.g. the HTTP layer refusing a key
                return ToolResult(tool=name, ok=False, error={"type": getattr(exc, "type", "error"),
                                                              "field": getattr(exc, "field", None),
                                                              "message": getattr(exc, "message", str(exc))})

        res = await anyio.to_thread.run_sync(run)
        if not res.ok:
            err = res.error or {}
            where = f"{err.get('field')}: " if err.get("field") else ""
            raise ValueError(f"{err.get('type', 'error')}: {where}{err.get('message', 'failed')}")
        return [types.TextContent(type="text", text=json.dumps(res.result, ensure_ascii=False, default=str))]

    return server


async def serve_stdio(make_ctx: Callable[[Any], ToolContext]) -> None:
    from mcp.server.stdio import stdio_server

    server = build_server(make_ctx)
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())
