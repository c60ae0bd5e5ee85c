"""Embedders: one batch method each; pick one with ``get_embedder``.

Imported lazily: naming an embedder (``trulymem.embed.names``) must not load numpy."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from trulymem.embed.base import Embedder, cosine_top_k
    from trulymem.embed.hashing import HashingEmbedder
    from trulymem.embed.registry import available_embedders, get_embedder

_WHERE = {"Embedder": "base", "cosine_top_k": "base", "HashingEmbedder": "hashing",
          "available_embedders": "registry", "get_embedder": "registry"}

__all__ = ["Embedder", "HashingEmbedder", "available_embedders", "cosine_top_k", "get_embedder"]


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"trulymem.embed.{_WHERE[name]}"), name)
