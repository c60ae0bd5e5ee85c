"""A dependency-free lexical embedder: hashed words and character n-grams.

Not semantic, but deterministic, instant and language-agnostic (CJK runs give
character bigrams, English words give 3-5-grams, so "running" is near "runner").
It is the fallback when no model embedder is installed."""

from __future__ import annotations

import zlib
from collections.abc import Sequence

import numpy as np

from trulymem.embed.base import Embedder, Kind, Matrix
from trulymem.embed.names import HASHING
from trulymem.text.tokenize import tokens


class HashingEmbedder(Embedder):
    semantic = False

    def __init__(self, dim: int = 512) -> None:
        self.dim = dim
        self.name = HASHING if dim == 512 else f"hashing-ngram-{dim}"

    def _features(self, text: str) -> list[str]:
        feats: list[str] = []
        for tok in tokens(text):
            feats.append("w:" + tok)
            if len(tok) > 3 and tok.isascii():
                padded = f"<{tok}>"
                feats.extend("g:" + padded[i : i + n] for n in (3, 4, 5) for i in range(len(padded) - n + 1))
        return feats

    def _embed(self, texts: Sequence[str], kind: Kind) -> Matrix:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for feat in self._features(text):
                h = zlib.crc32(feat.encode("utf-8"))
                weight = 1.0 if feat[0] == "w" else 0.3
                out[row, h % self.dim] += weight if (h >> 31) & 1 else -weight
        return out
