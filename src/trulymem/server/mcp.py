"""trulymem as an MCP server (the official ``mcp`` SDK): every tool of the registry
— the memory tools, the mem0 tool names, the dream — from the same definitions as
everywhere else, with MCP's annotations (read-only, destructive, idempotent); the
memory protocol as the server's ``instructions`` and as a prompt; trulymem's own
version. ``trulymem mcp`` serves it over stdio; ``trulymem serve`` mounts it over
streamable HTTP at ``/mcp``.

Arguments are validated by the tools themselves (naming the field), which also take
an object or array as its JSON text: the MCP Inspector sends them that way.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator, Callable
from typing import Any

import anyio

from trulymem.errors import TrulyMemError
from trulymem.server import protocol
from trulymem.tools import REGISTRY, ToolContext, ToolResult, call_tool

# Interactive or turn-bound tools that make no sense for an outside client.
HIDDEN = {"context_rewrite"}


def tool_names() -> list[str]:
    return [n for n in REGISTRY if n not in HIDDEN]


def server_version() -> str:
    """trulymem's installed version (the SDK would report its own)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("trulymem")
    except PackageNotFoundError:  # running from a source tree
        from trulymem import __version__

        return __version__


def build_server(make_ctx: Callable[[Any], ToolContext], name: str = "trulymem",
                 check: Callable[[Any, str, dict[str, Any]], None] | None = None) -> Any:
    """A low-level MCP server whose tools run against ``make_ctx(request)`` (one context per
    call; ``request`` is the HTTP request over streamable HTTP, ``None`` over stdio).
    ``check(request, tool, arguments)`` may refuse a call by raising."""
    import mcp.types as types
    from mcp.server.lowlevel import Server

    server: Any = Server(name, version=server_version(), instructions=protocol.INSTRUCTIONS)

    @server.list_tools()  # type: ignore[untyped-decorator]
    async def list_tools() -> list[types.Tool]:
        # a server for one user offers no user switch (its tools refuse another user anyway)
        switch = make_ctx(getattr(server.request_context, "request", None)).names_users
        return [types.Tool(name=n, description=REGISTRY[n].description,
                           inputSchema=REGISTRY[n].mcp_schema(user_switch=switch),
                           annotations=types.ToolAnnotations(**REGISTRY[n].annotations()))
                for n in tool_names()]

    @server.list_prompts()  # type: ignore[untyped-decorator]
    async def list_prompts() -> list[types.Prompt]:
        return [types.Prompt(name=protocol.PROMPT_NAME, description=protocol.PROMPT_DESCRIPTION,
                             arguments=[types.PromptArgument(**protocol.PROMPT_ARGUMENT)])]

    @server.get_prompt()  # type: ignore[untyped-decorator]
    async def get_prompt(prompt: str, arguments: dict[str, str] | None) -> types.GetPromptResult:
        if prompt != protocol.PROMPT_NAME:
            raise ValueError(f"unknown prompt {prompt!r}; known: {protocol.PROMPT_NAME}")
        unknown = sorted(set(arguments or {}) - {protocol.PROMPT_ARGUMENT["name"]})
        if unknown:
            raise ValueError(f"unknown prompt argument {unknown[0]!r}; known: message")
        messages = protocol.protocol_messages((arguments or {}).get("message"))
        return types.GetPromptResult(description=protocol.PROMPT_DESCRIPTION,
                                     messages=[types.PromptMessage.model_validate(m) for m in messages])

    # Our own validation names the offending field; the SDK's JSON-schema check would not.
    @server.call_tool(validate_input=False)  # type: ignore[untyped-decorator]
    async def call(name: str, arguments: dict[str, Any] | None) -> list[types.TextContent]:
        if name not in tool_names():
            raise ValueError(f"unknown tool {name!r}")
        request = getattr(server.request_context, "request", None)
        args = arguments or {}

        def run() -> Any:
            try:
                # decoded before the check, which must see the filters a JSON text spells
                decoded = REGISTRY[name].decode(args)
                if check is not None:
                    check(request, name, decoded)
                return call_tool(name, make_ctx(request), decoded)
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
    server = build_server(make_ctx)
    async with _stdio() as (read, write):
        await server.run(read, write, server.create_initialization_options())


@contextlib.asynccontextmanager
async def _stdio() -> AsyncIterator[tuple[Any, Any]]:
    """The MCP SDK's stdio transport, but every line read as ``/mcp`` reads a body
    (``parse_json``: nesting, number length, UTF-8) and a line refused answered with a
    JSON-RPC error to its id: the SDK's own reader logs a line it cannot parse (a 5,000-digit
    number, 200 levels of nesting) and never answers it, so the client's call waits for ever."""
    import sys
    from io import TextIOWrapper

    import mcp.types as types
    from mcp.shared.message import SessionMessage

    from trulymem.server.errors import HTTPError, jsonrpc_refusal, parse_json

    stdin = anyio.wrap_file(TextIOWrapper(sys.stdin.buffer, encoding="utf-8", errors="replace"))
    stdout = anyio.wrap_file(TextIOWrapper(sys.stdout.buffer, encoding="utf-8"))
    read_writer, read_stream = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    write_stream, write_reader = anyio.create_memory_object_stream[SessionMessage](0)

    async def reader() -> None:
        with contextlib.suppress(anyio.ClosedResourceError):  # the session ended first
            await _read_lines()

    async def _read_lines() -> None:
        async with read_writer:
            async for line in stdin:
                try:
                    parse_json(line.encode("utf-8", "replace"))
                    message = types.JSONRPCMessage.model_validate_json(line)
                except HTTPError as exc:
                    status, payload = jsonrpc_refusal(line.encode("utf-8", "replace"), exc.message)
                    if status == 200:  # the request's id is known: answer it
                        await write_stream.send(SessionMessage(types.JSONRPCMessage.model_validate(payload)))
                    else:
                        await read_writer.send(ValueError(payload["error"]["message"]))
                    continue
                except Exception as exc:  # what the SDK's reader does: the session logs it
                    await read_writer.send(exc)
                    continue
                await read_writer.send(SessionMessage(message))

    async def writer() -> None:
        with contextlib.suppress(anyio.ClosedResourceError):
            async with write_reader:
                async for out in write_reader:
                    await stdout.write(out.message.model_dump_json(by_alias=True, exclude_none=True) + "\n")
                    await stdout.flush()

    async with anyio.create_task_group() as tg:
        tg.start_soon(reader)
        tg.start_soon(writer)
        yield read_stream, write_stream
