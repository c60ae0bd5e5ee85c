"""Choosing an embedder by name: ``hashing``, ``use``, ``e5``, ``openai:<model>``,
``st:<path>``, ``model2vec:<path>``, or ``auto`` (the best one installed)."""

from __future__ import annotations

import importlib.util
import os

from trulymem.embed.base import Embedder
from trulymem.embed.hashing import HashingEmbedder
from trulymem.errors import ConfigError

# Best first; each entry needs only what its package ships (no download at run time).
# Measured on LoCoMo dev (bench/bench_locomo.py): fused with BM25, the hashing embedder
# gains recall@10 while USE loses it and costs ~160 ms per query encoding on 2 cores, so
# USE is opt-in ("use") until a bundled model beats full text.
_AUTO: list[tuple[str, str]] = []


def available_embedders() -> list[str]:
    """Names ``get_embedder`` can build on this install without a network."""
    return [name for name, module in _AUTO if importlib.util.find_spec(module)] + ["hashing"]


def get_embedder(name: str = "auto") -> Embedder:
    name = name.strip()
    if name == "auto":
        name = available_embedders()[0]
    if name == "hashing":
        return HashingEmbedder()
    if name == "use":
        from trulymem.embed.adapters import USEEmbedder

        return USEEmbedder()
    if name == "e5":
        from trulymem.embed.adapters import E5Embedder

        return E5Embedder()
    kind, sep, arg = name.partition(":")
    if sep and arg:
        from trulymem.embed import adapters

        if kind == "openai":
            return adapters.OpenAIEmbedder(arg, base_url=os.environ.get("TRULYMEM_EMBED_BASE_URL"),
                                           api_key=os.environ.get("TRULYMEM_EMBED_API_KEY"))
        if kind == "st":
            return adapters.SentenceTransformerEmbedder(arg)
        if kind == "model2vec":
            return adapters.Model2VecEmbedder(arg)
    raise ConfigError(f"unknown embedder {name!r}; use auto, hashing, use, e5, openai:<model>, st:<path> "
                      "or model2vec:<path>")
