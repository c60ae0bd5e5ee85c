"""Chat models for the agent runtime: one small interface, an OpenAI-compatible
client and a scripted model for tests and demos."""

from __future__ import annotations

from trulymem.config import LLMSettings
from trulymem.errors import ConfigError
from trulymem.llm.base import LLM, LLMResponse, Message, ToolCall, Usage
from trulymem.llm.scripted import Script, ScriptedLLM, estimate_tokens

__all__ = ["LLM", "LLMResponse", "Message", "Script", "ScriptedLLM", "ToolCall", "Usage", "estimate_tokens",
           "get_llm"]


def get_llm(settings: LLMSettings) -> LLM:
    """The configured chat model; :class:`ConfigError` with setup help when there is none.
    The model ``scripted`` with no base URL is the built-in demo model (:mod:`trulymem.llm.demo`)."""
    if not settings.model:
        raise ConfigError(LLMSettings.HELP, field="llm_model")
    from trulymem.llm.demo import demo_llm, wanted

    if wanted(settings):
        return demo_llm()
    from trulymem.llm.openai_chat import OpenAIChat

    return OpenAIChat(settings.model, base_url=settings.base_url, api_key=settings.api_key,
                      timeout=settings.timeout, max_retries=settings.retries)
