"""mem0's ``Memory.from_config`` dictionary, read into what trulymem's ``Memory`` takes.

mem0's quickstart configures a vector store, an LLM and an embedder by provider::

    {"vector_store": {"provider": "qdrant", "config": {...}},
     "llm": {"provider": "openai", "config": {"model": "gpt-4.1-mini", "temperature": 0.1}},
     "embedder": {"provider": "openai", "config": {"model": "text-embedding-3-small"}}}

What applies is mapped: an OpenAI-compatible ``llm`` (``openai``, ``ollama``, ``lmstudio``,
``vllm``, ``deepseek``, ``together``, ``groq``, ``xai``: model, key, base URL) becomes
trulymem's chat model, an ``openai`` or ``huggingface`` ``embedder`` its embedder, and
``custom_fact_extraction_prompt`` the instructions ``add`` extracts facts with. What has no
counterpart because trulymem does that part itself (``vector_store``, ``graph_store``,
``history_db_path``: memories, their graph and history live in trulymem's database, ``db``;
``reranker``, ``custom_update_memory_prompt``, sampling options) is ignored with one
``UserWarning`` naming it. A provider trulymem cannot talk to (``anthropic``, ``gemini`` …)
or a key mem0 does not have is an ``InvalidInput`` naming it: a setting that would change
where memories go or which model writes them is never dropped silently.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from typing import Any

from trulymem.config import LLMSettings
from trulymem.errors import InvalidInput

OWN = {"db", "user_id", "embedder"}  # trulymem's own keys (``embedder`` as a name, e.g. "hashing")
DONE_BY_TRULYMEM = {"vector_store": "memories are stored in trulymem's database (the 'db' setting)",
                    "graph_store": "trulymem's memories are a graph already",
                    "history_db_path": "history is kept in trulymem's database",
                    "reranker": "recall ranks with its own fusion",
                    "custom_update_memory_prompt": "trulymem decides updates without a model call"}
ACCEPTED = {"version"}  # mem0's output version: trulymem answers in v1.1's shape
OPENAI_COMPATIBLE = {"openai": "openai_base_url", "ollama": "ollama_base_url", "lmstudio": "lmstudio_base_url",
                     "vllm": "vllm_base_url", "deepseek": "deepseek_base_url", "together": None, "groq": None,
                     "xai": "xai_base_url"}
DEFAULT_URLS = {"ollama": "http://localhost:11434/v1", "lmstudio": "http://localhost:1234/v1",
                "vllm": "http://localhost:8000/v1", "deepseek": "https://api.deepseek.com",
                "together": "https://api.together.xyz/v1", "groq": "https://api.groq.com/openai/v1",
                "xai": "https://api.x.ai/v1"}
LLM_TUNING = {"temperature", "max_tokens", "top_p", "top_k", "enable_vision", "vision_details", "http_client_proxies"}
EMBEDDER_PROVIDERS = {"openai": "openai:", "huggingface": "st:"}


@dataclass
class Mem0Config:
    """What a mem0 config dictionary sets, in trulymem's terms."""

    db: str | None = None
    user_id: str | None = None
    embedder: str | None = None
    embed_base_url: str | None = None
    embed_api_key: str | None = None
    llm: LLMSettings | None = None
    prompt: str | None = None
    ignored: list[str] = field(default_factory=list)


def _section(config: dict[str, Any], name: str) -> tuple[str, dict[str, Any]]:
    section = config[name]
    if not isinstance(section, dict) or not isinstance(section.get("provider"), str):
        raise InvalidInput("must be {'provider': ..., 'config': {...}}", field=name)
    unknown = sorted(set(section) - {"provider", "config"})
    if unknown:
        raise InvalidInput(f"unknown key {unknown[0]!r}; known: provider, config", field=name)
    inner = section.get("config") or {}
    if not isinstance(inner, dict):
        raise InvalidInput("must be an object", field=f"{name}.config")
    return section["provider"], inner


def _string(inner: dict[str, Any], key: str, where: str) -> str | None:
    value = inner.get(key)
    if value is not None and (not isinstance(value, str) or not value.strip()):
        raise InvalidInput("must be a non-empty string", field=f"{where}.{key}")
    return value


def _llm(config: dict[str, Any], out: Mem0Config) -> None:
    provider, inner = _section(config, "llm")
    if provider not in OPENAI_COMPATIBLE:
        raise InvalidInput(f"provider {provider!r} is not supported: trulymem talks to OpenAI-compatible servers "
                           f"({', '.join(sorted(OPENAI_COMPATIBLE))}; any other through 'openai' with "
                           "openai_base_url)", field="llm.provider")
    url_key = OPENAI_COMPATIBLE[provider]
    known = {"model", "api_key", *([url_key] if url_key else []), *LLM_TUNING}
    unknown = sorted(set(inner) - known)
    if unknown:
        raise InvalidInput(f"unknown key {unknown[0]!r} for provider {provider!r}", field="llm.config")
    base_url = (_string(inner, url_key, "llm.config") if url_key else None) or DEFAULT_URLS.get(provider)
    out.llm = LLMSettings(model=_string(inner, "model", "llm.config") or "gpt-4.1-nano-2025-04-14",
                          base_url=base_url, api_key=_string(inner, "api_key", "llm.config"))
    out.ignored += [f"llm.config.{k}" for k in sorted(set(inner) & LLM_TUNING)]


def _embedder(config: dict[str, Any], out: Mem0Config) -> None:
    provider, inner = _section(config, "embedder")
    if provider not in EMBEDDER_PROVIDERS:
        raise InvalidInput(f"provider {provider!r} is not supported; use {' or '.join(EMBEDDER_PROVIDERS)}, or "
                           "trulymem's own embedder by name ('embedder': 'hashing')", field="embedder.provider")
    known = {"model", "api_key", "openai_base_url", "embedding_dims", "model_kwargs"}
    unknown = sorted(set(inner) - known)
    if unknown:
        raise InvalidInput(f"unknown key {unknown[0]!r} for provider {provider!r}", field="embedder.config")
    model = _string(inner, "model", "embedder.config") or (
        "text-embedding-3-small" if provider == "openai" else "multi-qa-MiniLM-L6-cos-v1")
    out.embedder = EMBEDDER_PROVIDERS[provider] + model
    out.embed_api_key = _string(inner, "api_key", "embedder.config")
    out.embed_base_url = _string(inner, "openai_base_url", "embedder.config")
    out.ignored += [f"embedder.config.{k}" for k in ("embedding_dims", "model_kwargs") if k in inner]


def read_config(config: Any) -> Mem0Config:
    """``config`` (mem0's shape, trulymem's keys, or both) read; a warning names what is ignored."""
    if not isinstance(config, dict):
        raise InvalidInput("must be a dictionary", field="config_dict")
    known = OWN | set(DONE_BY_TRULYMEM) | ACCEPTED | {"llm", "embedder", "custom_fact_extraction_prompt"}
    unknown = sorted(k for k in config if k not in known)
    if unknown:
        raise InvalidInput(f"unknown setting {unknown[0]!r}; known: {', '.join(sorted(known))}", field="config_dict")
    out = Mem0Config(db=_string(config, "db", "config_dict"), user_id=_string(config, "user_id", "config_dict"))
    if config.get("llm") is not None:
        _llm(config, out)
    if isinstance(config.get("embedder"), str):
        out.embedder = _string(config, "embedder", "config_dict")
    elif config.get("embedder") is not None:
        _embedder(config, out)
    for name in ("vector_store", "graph_store", "reranker"):
        if config.get(name) is not None:
            _section(config, name)  # ignored, but a malformed one is still a mistake worth naming
    out.prompt = _string(config, "custom_fact_extraction_prompt", "config_dict")
    out.ignored = [k for k in DONE_BY_TRULYMEM if config.get(k) is not None] + out.ignored
    if out.ignored:
        reasons = "; ".join(f"{k} ({DONE_BY_TRULYMEM[k]})" if k in DONE_BY_TRULYMEM else k for k in out.ignored)
        warnings.warn(f"trulymem ignores these mem0 settings: {reasons}", UserWarning, stacklevel=3)
    return out
