"""A chat model that replays a script: for tests, demos and benchmarks.

A script is a list of steps, one per round trip. A step is the reply text, a
``{"content": ..., "tool_calls": [{"name": ..., "arguments": {...} or "raw json"}]}``
dict, an ``{"error": status}`` dict (servers built on :class:`Script` answer
with that HTTP status), or a function of the request's messages returning
either of the first two — so a reply can quote what memory put in the prompt.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

from trulymem.errors import LLMError
from trulymem.llm.base import LLM, LLMResponse, Message, OnText, ToolCall, Usage
from trulymem.text.tokenize import count_tokens

Step = str | dict[str, Any] | Callable[[list[Message]], "str | dict[str, Any]"]


def estimate_tokens(messages: Sequence[Message], tools: Sequence[dict[str, Any]] = ()) -> int:
    """Prompt size counted like every other budget here (``count_tokens``)."""
    return count_tokens(json.dumps(list(messages), ensure_ascii=False)) + (
        count_tokens(json.dumps(list(tools), ensure_ascii=False)) if tools else 0)


class Script:
    """The steps, consumed one per request; the requests are kept for inspection."""

    def __init__(self, steps: Sequence[Step]) -> None:
        self.steps = list(steps)
        self.requests: list[dict[str, Any]] = []
        self._calls = 0

    @property
    def remaining(self) -> int:
        return len(self.steps)

    def next(self, messages: list[Message], tools: list[dict[str, Any]] | None = None) -> dict[str, Any]:
        """The next step as ``{"content", "tool_calls"}`` or ``{"error": status}``."""
        self.requests.append({"messages": messages, "tools": tools or []})
        if not self.steps:
            raise LLMError(f"the script has no step left for request {len(self.requests)}")
        step = self.steps.pop(0)
        if callable(step):
            step = step(messages)
        if isinstance(step, str):
            step = {"content": step}
        if "error" in step:
            return {"error": int(step["error"]), "message": step.get("message", "scripted error")}
        calls = []
        for call in step.get("tool_calls", []):
            self._calls += 1
            args = call.get("arguments", {})
            calls.append({"id": call.get("id", f"call_{self._calls}"), "name": call["name"],
                          "arguments": args if isinstance(args, str) else json.dumps(args, ensure_ascii=False)})
        return {"content": step.get("content"), "tool_calls": calls}


class ScriptedLLM(LLM):
    """Replays a :class:`Script` in-process (no network). Errors in the script raise
    :class:`LLMError` the way a failing server would after its retries."""

    def __init__(self, steps: Sequence[Step] | Script, model: str = "scripted") -> None:
        self.script = steps if isinstance(steps, Script) else Script(steps)
        self.model = model

    @property
    def requests(self) -> list[dict[str, Any]]:
        return self.script.requests

    def _complete(self, messages: list[Message], tools: list[dict[str, Any]], on_text: OnText | None) -> LLMResponse:
        step = self.script.next(messages, tools)
        if "error" in step:
            raise LLMError(f"scripted server error {step['error']}: {step['message']}")
        content = step["content"]
        if content and on_text:
            on_text(content)
        return LLMResponse(
            content=content, tool_calls=[ToolCall(**c) for c in step["tool_calls"]],
            finish_reason="tool_calls" if step["tool_calls"] else "stop",
            usage=Usage(prompt_tokens=estimate_tokens(messages, tools),
                        completion_tokens=count_tokens(content or "") + sum(count_tokens(c["arguments"])
                                                                          for c in step["tool_calls"]),
                        estimated=True),
        )
