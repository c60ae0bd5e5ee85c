"""A local OpenAI-compatible chat server that answers from a :class:`Script`.

Real HTTP and real JSON (plain and streamed as server-sent events), so the
``openai`` client and everything behind it run exactly as against a real
endpoint — for tests, demos and benchmarks without a model or a network::

    with ScriptedServer(["Hello!"], model="m", api_key="k") as srv:
        llm = OpenAIChat("m", base_url=srv.base_url, api_key="k")
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from trulymem.errors import LLMError
from trulymem.llm.scripted import Script, Step, estimate_tokens
from trulymem.text.tokenize import count_tokens


class ScriptedServer:
    def __init__(self, steps: Sequence[Step] | Script, *, model: str = "scripted", api_key: str | None = None,
                 host: str = "127.0.0.1", port: int = 0) -> None:
        self.script = steps if isinstance(steps, Script) else Script(steps)
        self.model = model
        self.api_key = api_key
        self.status_log: list[int] = []
        self._lock = threading.Lock()
        self.httpd = ThreadingHTTPServer((host, port), _handler(self))
        self.httpd.daemon_threads = True
        self._thread: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        host, port = self.httpd.server_address[:2]
        return f"http://{host!s}:{port}/v1" if isinstance(host, str) else f"http://127.0.0.1:{port}/v1"

    @property
    def requests(self) -> list[dict[str, Any]]:
        return self.script.requests

    def start(self) -> ScriptedServer:
        self._thread = threading.Thread(target=self.httpd.serve_forever, args=(0.05,), name="scripted-llm", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def __enter__(self) -> ScriptedServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # --- request handling ------------------------------------------------------
    def answer(self, body: dict[str, Any], auth: str | None) -> tuple[int, dict[str, Any] | list[dict[str, Any]]]:
        """HTTP status and either one JSON body or the chunks of a stream."""
        if self.api_key is not None and auth != f"Bearer {self.api_key}":
            return 401, _error("Incorrect API key provided.", "invalid_api_key")
        if body.get("model") != self.model:
            return 404, _error(f"The model `{body.get('model')}` does not exist.", "model_not_found")
        messages = body.get("messages")
        if not isinstance(messages, list):
            return 400, _error("messages must be a list", "invalid_request_error")
        with self._lock:
            try:
                step = self.script.next(messages, body.get("tools"))
            except LLMError as exc:
                return 500, _error(str(exc), "script_exhausted")
        if "error" in step:
            return int(step["error"]), _error(step["message"], "server_error")
        content, calls = step["content"], step["tool_calls"]
        prompt = estimate_tokens(messages, body.get("tools") or [])
        completion = count_tokens(content or "") + sum(count_tokens(c["arguments"]) for c in calls)
        usage = {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}
        finish = "tool_calls" if calls else "stop"
        rid, now = f"chatcmpl-{len(self.script.requests)}", int(time.time())
        head = {"id": rid, "created": now, "model": self.model}
        if not body.get("stream"):
            message: dict[str, Any] = {"role": "assistant", "content": content}
            if calls:
                message["tool_calls"] = [{"id": c["id"], "type": "function",
                                          "function": {"name": c["name"], "arguments": c["arguments"]}} for c in calls]
            return 200, {**head, "object": "chat.completion", "usage": usage,
                         "choices": [{"index": 0, "message": message, "finish_reason": finish}]}
        chunks: list[dict[str, Any]] = []

        def chunk(delta: dict[str, Any], reason: str | None = None) -> None:
            chunks.append({**head, "object": "chat.completion.chunk",
                           "choices": [{"index": 0, "delta": delta, "finish_reason": reason}]})

        chunk({"role": "assistant", "content": ""})
        for piece in _pieces(content or ""):
            chunk({"content": piece})
        for i, c in enumerate(calls):  # name first, arguments in two parts: as real servers split them
            chunk({"tool_calls": [{"index": i, "id": c["id"], "type": "function",
                                   "function": {"name": c["name"], "arguments": ""}}]})
            half = len(c["arguments"]) // 2
            for part in (c["arguments"][:half], c["arguments"][half:]):
                chunk({"tool_calls": [{"index": i, "function": {"arguments": part}}]})
        chunk({}, finish)
        if (body.get("stream_options") or {}).get("include_usage"):
            chunks.append({**head, "object": "chat.completion.chunk", "choices": [], "usage": usage})
        return 200, chunks


def _pieces(text: str, size: int = 8) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


def _error(message: str, code: str) -> dict[str, Any]:
    return {"error": {"message": message, "type": code, "code": code}}


def _handler(server: ScriptedServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:  # quiet
            pass

        def _send(self, status: int, payload: Any) -> None:
            server.status_log.append(status)
            if isinstance(payload, list):
                self.send_response(status)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Cache-Control", "no-cache")
                self.send_header("Connection", "close")
                self.end_headers()
                for item in payload:
                    self.wfile.write(f"data: {json.dumps(item, ensure_ascii=False)}\n\n".encode())
                self.wfile.write(b"data: [DONE]\n\n")
                self.wfile.flush()
                self.close_connection = True
                return
            data = json.dumps(payload, ensure_ascii=False).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:
            if self.path.rstrip("/") == "/v1/models":
                self._send(200, {"object": "list", "data": [{"id": server.model, "object": "model",
                                                             "owned_by": "trulymem"}]})
            else:
                self._send(404, _error(f"no route {self.path}", "not_found"))

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length)
            if self.path.rstrip("/") != "/v1/chat/completions":
                self._send(404, _error(f"no route {self.path}", "not_found"))
                return
            try:
                body = json.loads(raw)
            except json.JSONDecodeError:
                self._send(400, _error("body is not JSON", "invalid_request_error"))
                return
            status, payload = server.answer(body, self.headers.get("Authorization"))
            self._send(status, payload)

    return Handler
