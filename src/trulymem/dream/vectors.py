"""The dream's sentence vectors, cached in the store by model and text: a database that
has lived is re-read every night, and only what is new since the last pass is encoded."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence

import numpy as np

from trulymem import budget
from trulymem.embed.base import Embedder, Kind, Matrix
from trulymem.model import Scope
from trulymem.store.base import Store

Progress = Callable[[str, int, int | None], None]
_BATCH = 512  # texts encoded between progress reports


def digest(text: str) -> bytes:
    return hashlib.blake2b(text.encode("utf-8"), digest_size=16).digest()


class CachedEmbedder(Embedder):
    """``inner``'s passage vectors, read from the store's cache when there, encoded and
    cached when not; queries are never cached."""

    def __init__(self, inner: Embedder, store: Store, scope: Scope) -> None:
        self.inner, self.store, self.scope = inner, store, scope
        self.name, self.dim, self.semantic = inner.name, inner.dim, inner.semantic
        self._seen: dict[bytes, Matrix] = {}  # this pass's vectors, so blocks re-read nothing
        self.encoded = 0  # how many texts this pass had to encode

    def _embed(self, texts: Sequence[str], kind: Kind) -> Matrix:
        if kind == "query":
            return self.inner.embed_batch(texts, kind)
        return self.warm(texts)

    def warm(self, texts: Sequence[str], progress: Progress | None = None) -> Matrix:
        """Vectors for ``texts``, encoding (and caching) only the ones never seen before."""
        keys = [digest(t) for t in texts]
        want = [k for k in dict.fromkeys(keys) if k not in self._seen]
        if want:
            with self.store.transaction(write=False):
                cached = self.store.cached_vectors(self.scope, self.name, want)
            for k, raw in cached.items():
                self._seen[k] = np.frombuffer(raw, dtype=np.float32)
        first = {k: t for k, t in zip(keys, texts) if k not in self._seen}
        todo = list(first.items())
        for start in range(0, len(todo), _BATCH):
            budget.check("the dream's encoding")  # what is cached so far stays: the next pass skips it
            batch = todo[start:start + _BATCH]
            vecs = self.inner.embed_passages([t for _, t in batch])
            with self.store.transaction():
                self.store.put_cached_vectors(self.scope, self.name,
                                              [(k, v.tobytes()) for (k, _), v in zip(batch, vecs)])
            for (k, _), v in zip(batch, vecs):
                self._seen[k] = v
            self.encoded += len(batch)
            if progress is not None:
                progress("Encoding new memories", start + len(batch), len(todo))
        if not keys:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.stack([self._seen[k] for k in keys]).astype(np.float32, copy=False)

    def prune(self, texts: Sequence[str]) -> int:
        """Drop cached vectors of texts no longer among ``texts`` (deleted or changed memories)."""
        with self.store.transaction():
            return self.store.prune_cached_vectors(self.scope, self.name, [digest(t) for t in texts])
