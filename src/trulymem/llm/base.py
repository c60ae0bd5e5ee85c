"""The chat-model interface the agent runtime talks to.

Messages and tool schemas use the OpenAI chat-completions shapes (plain dicts):
every OpenAI-compatible server speaks them and other APIs map onto them. A
client implements one method, ``_complete``; ``complete`` adds the timing.
"""

from __future__ import annotations

import json
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from typing import Any

from pydantic import BaseModel, Field

Message = dict[str, Any]
OnText = Callable[[str], None]


class ToolCall(BaseModel):
    id: str
    name: str
    arguments: str = Field(description="The raw JSON text the model produced; may be malformed.")

    def as_message_part(self) -> dict[str, Any]:
        return {"id": self.id, "type": "function", "function": {"name": self.name, "arguments": self.arguments}}


class Usage(BaseModel):
    prompt_tokens: int = 0
    completion_tokens: int = 0
    estimated: bool = Field(False, description="Counted locally: the server reported no usage.")


class LLMResponse(BaseModel):
    content: str | None = None
    tool_calls: list[ToolCall] = Field(default_factory=list)
    usage: Usage = Field(default_factory=Usage)
    finish_reason: str | None = None
    latency_ms: float = 0.0

    def as_message(self) -> Message:
        """The assistant message to append to the history."""
        msg: Message = {"role": "assistant", "content": self.content}
        if self.tool_calls:
            msg["tool_calls"] = [c.as_message_part() for c in self.tool_calls]
        return msg


def json_reply(text: str | None) -> Any:
    """The JSON a model was asked to answer with, code fences tolerated; ``ValueError`` if none."""
    body = (text or "").strip().removeprefix("```json").removeprefix("```").removesuffix("```").strip()
    return json.loads(body)  # JSONDecodeError is a ValueError


class LLM(ABC):
    """A chat model with tool calling."""

    model: str = "unknown"

    def complete(self, messages: Sequence[Message], tools: Sequence[dict[str, Any]] = (), *,
                 on_text: OnText | None = None) -> LLMResponse:
        """One round trip. ``on_text`` receives the reply as it streams (when given)."""
        t0 = time.perf_counter()
        res = self._complete(list(messages), list(tools), on_text)
        res.latency_ms = (time.perf_counter() - t0) * 1000
        return res

    @abstractmethod
    def _complete(self, messages: list[Message], tools: list[dict[str, Any]], on_text: OnText | None) -> LLMResponse:
        ...
