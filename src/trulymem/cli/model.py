"""The chat model options ``chat`` and ``serve`` share: one meaning, one resolution."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import click

from trulymem.config import LLMSettings
from trulymem.llm.demo import NAME as DEMO_MODEL

DEMO_SAID = ("a built-in demo model that only recalls and stores by rules: questions are answered with the facts "
             "memory_recall finds, statements are stored by the rule extractor; no API key, nothing leaves "
             "this machine")


def model_options(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``--model``, ``--base-url``, ``--api-key``; each unset falls back to the settings."""
    fn = click.option("--api-key", help="API key [env TRULYMEM_LLM_API_KEY or OPENAI_API_KEY].")(fn)
    fn = click.option("--base-url", help="OpenAI-compatible endpoint, e.g. http://localhost:11434/v1 "
                                         "[env TRULYMEM_LLM_BASE_URL, default api.openai.com].")(fn)
    return click.option("--model", help=f"Chat model name [env TRULYMEM_LLM_MODEL]; '{DEMO_MODEL}': a built-in "
                                        "demo model that answers from memory, no API key (with no --base-url).")(fn)


def llm_settings(settings: LLMSettings, model: str | None, base_url: str | None,
                 api_key: str | None) -> LLMSettings:
    """The settings with the options given on the command line; ``trulymem.llm.get_llm`` turns
    them into the model (the demo one for ``scripted``)."""
    return dataclasses.replace(settings, model=model or settings.model, base_url=base_url or settings.base_url,
                               api_key=api_key or settings.api_key)
