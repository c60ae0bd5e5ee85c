"""``POST /v1/chat``: one turn of the protocol agent (``trulymem.agent``), streamed.

The body is ``{"message": "...", "session_id"?, "user_id"?, "stream"?: true}``. Streamed
(the default), the answer is server-sent events: ``token`` events with the reply's text
as the model writes it, a ``tool`` event as each tool call finishes (its name, arguments,
result or error), then one ``done`` event with the reply and the turn's trace
(what was recalled, which tools were called, what was written), or one ``error``
event in the API's error shape. With ``"stream": false`` it is one JSON object
``{"reply", "trace"}``. The turn runs in a worker thread; the model is the server's
(``trulymem serve --model``, ``TRULYMEM_LLM_MODEL`` …). Each request is a fresh agent: no
history is carried between turns but the memory itself, as the runtime intends.

``GET /v1/chat`` says, before any turn, whether the server has a model and whether it is the
demo one, so the web app can tell how to start a server that chats.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable
from typing import Any

from fastapi import Body, FastAPI, Request
from starlette.concurrency import run_in_threadpool
from starlette.responses import StreamingResponse

from trulymem.errors import InvalidInput, TrulyMemError
from trulymem.llm.base import LLM
from trulymem.server.errors import HTTPError
from trulymem.tools import ToolContext

MAX_MESSAGE = 8000
NO_MODEL = ("This server has no chat model, so chat cannot answer. Restart it with `trulymem serve --model scripted` "
            "for the built-in demo model (no API key; it only recalls and stores by rules), or with a real model: "
            "`trulymem serve --model gpt-4o-mini --api-key sk-...`, or for Ollama `trulymem serve --base-url "
            "http://localhost:11434/v1 --model qwen2.5` (or set TRULYMEM_LLM_MODEL, TRULYMEM_LLM_BASE_URL, "
            "TRULYMEM_LLM_API_KEY).")
DEMO = ("Demo model: it answers questions with the facts memory_recall finds and stores what you state by rules; "
        "the memory is real, the wording canned. Start the server with --model NAME for a real model.")
Context = Callable[[Request, str | None], ToolContext]


def _check(payload: dict[str, Any]) -> tuple[str, str | None, bool]:
    message = payload.get("message")
    if not isinstance(message, str) or not message.strip():
        raise InvalidInput("the user's message is required", field="message")
    if len(message) > MAX_MESSAGE:
        raise InvalidInput(f"is longer than {MAX_MESSAGE} characters", field="message")
    session = payload.get("session_id")
    if session is not None and not isinstance(session, str):
        raise InvalidInput("must be a string", field="session_id")
    stream = payload.get("stream", True)
    if not isinstance(stream, bool):
        raise InvalidInput("must be true or false", field="stream")
    unknown = set(payload) - {"message", "session_id", "user_id", "stream"}
    if unknown:
        raise InvalidInput(f"unknown fields: {', '.join(sorted(unknown))}", field=sorted(unknown)[0])
    return message, session, stream


def _agent(memory: Any, llm: LLM, session: str, on_tool: Callable[[dict[str, Any]], None] | None) -> Any:
    from trulymem.agent import Agent

    class Reporting(Agent):
        """The runtime, telling each tool call as it finishes (so a client can follow the writes)."""

        def _run_calls(self, calls: Any, st: Any, text: str, trace: Any) -> None:
            done = len(trace.tools)
            super()._run_calls(calls, st, text, trace)
            for call in trace.tools[done:]:
                if on_tool is not None:
                    on_tool(call.model_dump(mode="json"))

    # rules only: a second model call after each reply (summaries) would cost the server's model a turn more
    return Reporting(memory, llm, session_id=session, extract="rules")


def _turn(ctx: ToolContext, llm: LLM, message: str, session: str | None,
          on_text: Callable[[str], None] | None,
          on_tool: Callable[[dict[str, Any]], None] | None = None) -> dict[str, Any]:
    from trulymem.graph import TrulyMem

    memory = TrulyMem(ctx.store, scope=ctx.scope.writable(), embedder=ctx.embedder)
    agent = _agent(memory, llm, session or "web", on_tool)
    try:
        res = agent.turn(message, on_text=on_text)
    finally:
        agent.close(0)
    return {"reply": res.reply, "trace": res.trace.model_dump(mode="json")}


def _sse(event: str, data: Any) -> bytes:
    return f"event: {event}\ndata: {json.dumps(data, ensure_ascii=False, default=str)}\n\n".encode()


Runner = Callable[[Callable[[str], None], Callable[[dict[str, Any]], None]], dict[str, Any]]


async def _events(run: Runner) -> AsyncIterator[bytes]:
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue[tuple[str, Any]] = asyncio.Queue()

    def on_text(text: str) -> None:
        loop.call_soon_threadsafe(queue.put_nowait, ("token", {"text": text}))

    def on_tool(call: dict[str, Any]) -> None:
        loop.call_soon_threadsafe(queue.put_nowait, ("tool", call))

    async def work() -> None:
        try:
            done = await run_in_threadpool(run, on_text, on_tool)
            queue.put_nowait(("done", done))
        except TrulyMemError as exc:
            queue.put_nowait(("error", {"error": exc.to_dict()}))
        except Exception as exc:  # the stream has started: an error can only be an event now
            queue.put_nowait(("error", {"error": {"type": "internal_error", "field": None,
                                                  "message": f"the turn failed: {type(exc).__name__}"}}))

    task = asyncio.create_task(work())
    yield b": turn started\n\n"  # headers and a first byte at once: the client knows it is connected
    try:
        while True:
            event, data = await queue.get()
            yield _sse(event, data)
            if event in ("done", "error"):
                break
    finally:
        await task


def mount(app: FastAPI, context: Context, llm: LLM | None) -> None:
    from trulymem.llm.demo import is_demo

    demo = is_demo(llm)

    @app.get("/v1/chat", summary="Whether this server can chat: its model is set, or the demo one, or none")
    async def chat_ready() -> dict[str, Any]:  # nobody's memory in it: answered before signing in
        return {"ready": llm is not None, "demo": demo, "message": NO_MODEL if llm is None else DEMO if demo else None}

    @app.post("/v1/chat", summary="One chat turn with the memory agent; streamed as server-sent events")
    async def chat(request: Request, payload: dict[str, Any] = Body(...)) -> Any:  # noqa: B008
        message, session, stream = _check(payload)
        user = payload.get("user_id")
        ctx = context(request, user if isinstance(user, str) else None)
        if llm is None:
            # what this server is not set up for (501), unlike a config error met while serving (500)
            raise HTTPError(501, "config_error", NO_MODEL, field="llm")
        if not stream:
            return await run_in_threadpool(_turn, ctx, llm, message, session, None)

        def run(on_text: Callable[[str], None], on_tool: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
            return _turn(ctx, llm, message, session, on_text, on_tool)

        return StreamingResponse(_events(run), media_type="text/event-stream",
                                 headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})
