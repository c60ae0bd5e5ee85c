"""Embedders: one batch method each; pick one with ``get_embedder``."""

from trulymem.embed.base import Embedder, cosine_top_k
from trulymem.embed.hashing import HashingEmbedder
from trulymem.embed.registry import available_embedders, get_embedder

__all__ = ["Embedder", "HashingEmbedder", "available_embedders", "cosine_top_k", "get_embedder"]
