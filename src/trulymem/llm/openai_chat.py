"""Any OpenAI-compatible chat-completions endpoint with tool calling (OpenAI,
DeepSeek, Ollama, vLLM, LM Studio, OpenRouter …), through the ``openai`` package.

Retries with exponential backoff on 408/409/429/5xx and connection errors are
the ``openai`` client's own; what is left after them becomes one
:class:`LLMError` that says what to fix.
"""

from __future__ import annotations

from typing import Any

from trulymem.errors import ConfigError, LLMError
from trulymem.extras import needs
from trulymem.llm.base import LLM, LLMResponse, Message, OnText, ToolCall, Usage
from trulymem.llm.scripted import estimate_tokens
from trulymem.text.tokenize import count_tokens


class OpenAIChat(LLM):
    def __init__(self, model: str, *, base_url: str | None = None, api_key: str | None = None,
                 timeout: float = 60.0, max_retries: int = 3, temperature: float | None = None,
                 stream_usage: bool = True) -> None:
        try:
            import openai
        except ImportError as exc:  # pragma: no cover - depends on the install
            raise ConfigError(needs("the chat client", "openai", "openai")) from exc
        if not model.strip():
            raise ConfigError("no chat model named (set --model, TRULYMEM_LLM_MODEL or llm_model)")
        if not api_key and base_url is None:
            raise ConfigError("no API key for api.openai.com (set TRULYMEM_LLM_API_KEY or OPENAI_API_KEY, "
                              "or point TRULYMEM_LLM_BASE_URL at a local server)")
        self._openai = openai
        self.model = model
        self.base_url = base_url or "https://api.openai.com/v1"
        self.temperature = temperature
        self.stream_usage = stream_usage
        # Local servers (Ollama, vLLM, LM Studio) take any key; the client insists on one.
        self.client = openai.OpenAI(base_url=base_url, api_key=api_key or "not-needed", timeout=timeout,
                                    max_retries=max_retries)
        self.max_retries = max_retries

    def _complete(self, messages: list[Message], tools: list[dict[str, Any]], on_text: OnText | None) -> LLMResponse:
        kwargs: dict[str, Any] = {"model": self.model, "messages": messages}
        if tools:
            kwargs["tools"] = tools
        if self.temperature is not None:
            kwargs["temperature"] = self.temperature
        try:
            if on_text is None:
                return self._whole(kwargs)
            return self._streamed(kwargs, on_text, messages, tools)
        except self._openai.APIError as exc:
            raise self._explain(exc) from exc

    def _whole(self, kwargs: dict[str, Any]) -> LLMResponse:
        resp = self.client.chat.completions.create(**kwargs)
        if not resp.choices:
            raise LLMError(f"{self.base_url} answered with no choices")
        choice = resp.choices[0]
        msg = choice.message
        calls = [ToolCall(id=c.id, name=c.function.name, arguments=c.function.arguments or "")
                 for c in (msg.tool_calls or []) if getattr(c, "function", None) is not None]
        usage = Usage(prompt_tokens=resp.usage.prompt_tokens, completion_tokens=resp.usage.completion_tokens) \
            if resp.usage else Usage(estimated=True)
        return LLMResponse(content=msg.content, tool_calls=calls, usage=usage, finish_reason=choice.finish_reason)

    def _streamed(self, kwargs: dict[str, Any], on_text: OnText, messages: list[Message],
                  tools: list[dict[str, Any]]) -> LLMResponse:
        if self.stream_usage:
            kwargs["stream_options"] = {"include_usage": True}
        text: list[str] = []
        calls: dict[int, dict[str, str]] = {}
        usage: Usage | None = None
        finish: str | None = None
        for chunk in self.client.chat.completions.create(stream=True, **kwargs):
            if chunk.usage is not None:
                usage = Usage(prompt_tokens=chunk.usage.prompt_tokens, completion_tokens=chunk.usage.completion_tokens)
            for choice in chunk.choices:
                delta = choice.delta
                if delta.content:
                    text.append(delta.content)
                    on_text(delta.content)
                for part in delta.tool_calls or []:
                    call = calls.setdefault(part.index, {"id": "", "name": "", "arguments": ""})
                    if part.id:
                        call["id"] = part.id
                    if part.function is not None:
                        call["name"] += part.function.name or ""
                        call["arguments"] += part.function.arguments or ""
                finish = choice.finish_reason or finish
        content = "".join(text) or None
        tool_calls = [ToolCall(id=c["id"] or f"call_{i}", name=c["name"], arguments=c["arguments"])
                      for i, c in sorted(calls.items())]
        if usage is None:
            usage = Usage(prompt_tokens=estimate_tokens(messages, tools),
                          completion_tokens=count_tokens(content or ""), estimated=True)
        return LLMResponse(content=content, tool_calls=tool_calls, usage=usage, finish_reason=finish)

    def _explain(self, exc: Exception) -> LLMError:
        o = self._openai
        where = self.base_url
        if isinstance(exc, o.AuthenticationError | o.PermissionDeniedError):
            return LLMError(f"{where} refused the API key ({exc.status_code}); check TRULYMEM_LLM_API_KEY",
                            field="api_key")
        if isinstance(exc, o.NotFoundError):
            return LLMError(f"{where} does not know model {self.model!r} (404); check the model name and the "
                            "base URL (it usually ends in /v1)", field="model")
        if isinstance(exc, o.APITimeoutError):
            return LLMError(f"{where} did not answer in time after {self.max_retries} retries", field="base_url")
        if isinstance(exc, o.APIConnectionError):
            return LLMError(f"cannot reach {where}: {exc.__cause__ or exc}", field="base_url")
        if isinstance(exc, o.RateLimitError):
            return LLMError(f"{where} is rate limiting (429) after {self.max_retries} retries; try again later")
        if isinstance(exc, o.APIStatusError):
            return LLMError(f"{where} answered {exc.status_code}: {_message(exc)}"
                            + (f" (after {self.max_retries} retries)" if exc.status_code >= 500 else ""))
        return LLMError(f"{where}: {exc}")


def _message(exc: Any) -> str:
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        err = body.get("error", body)
        if isinstance(err, dict) and err.get("message"):
            return str(err["message"])
    return str(getattr(exc, "message", exc))
