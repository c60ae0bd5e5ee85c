"""A dependency-free lexical embedder: hashed words and character n-grams.

Not semantic, but deterministic, instant and language-agnostic (CJK runs give
character bigrams, English words give 3-5-grams, so "running" is near "runner").
It is the fallback when no model embedder is installed."""

from __future__ import annotations

import zlib
from array import array
from collections.abc import Sequence

import numpy as np

from trulymem.embed.base import Embedder, Kind, Matrix
from trulymem.embed.names import HASHING
from trulymem.text.tokenize import tokens

_CACHED_TOKENS = 200_000  # bounds the cache (~100 MB at worst; a vocabulary is far smaller)
_WORD_CRC, _GRAM_CRC = zlib.crc32(b"w:"), zlib.crc32(b"g:")


class HashingEmbedder(Embedder):
    semantic = False

    def __init__(self, dim: int = 512) -> None:
        self.dim = dim
        self.name = HASHING if dim == 512 else f"hashing-ngram-{dim}"
        # token -> its features' (column, signed weight): words repeat, so most tokens of a
        # batch are hashed once (an import of 50k nodes: 9.7 s -> ~2 s of embedding). Typed
        # arrays: a text's features are copied in C and reach numpy without a conversion
        self._columns: dict[str, tuple[array[int], array[float]]] = {}

    def _token(self, tok: str) -> tuple[array[int], array[float]]:
        hit = self._columns.get(tok)
        if hit is None:
            # features: the word ("w:" + token, weight 1) and, for an ASCII token of four or more
            # letters, the 3-, 4- and 5-grams of "<token>" ("g:" + gram, weight 0.3); each is hashed
            # (CRC-32, continued from its prefix's) to a column, its top bit giving the sign
            enc = tok.encode("utf-8")
            hashes = [zlib.crc32(enc, _WORD_CRC)]
            if len(tok) > 3 and tok.isascii():
                padded = b"<" + enc + b">"
                hashes += [zlib.crc32(padded[i : i + n], _GRAM_CRC) for n in (3, 4, 5)
                           for i in range(len(padded) - n + 1)]
            weights = array("d", [0.3 if (h >> 31) & 1 else -0.3 for h in hashes])
            weights[0] = 1.0 if (hashes[0] >> 31) & 1 else -1.0  # the word itself weighs 1
            hit = (array("q", [h % self.dim for h in hashes]), weights)
            if len(self._columns) < _CACHED_TOKENS:
                self._columns[tok] = hit
        return hit

    def _embed(self, texts: Sequence[str], kind: Kind) -> Matrix:
        # Columns without their row offset, one length per text: the offsets are added by numpy
        # (a per-item generator here was a quarter of the hashing embedder's time on LoCoMo ingest).
        flat: array[int] = array("q")
        weights: array[float] = array("d")
        lengths: list[int] = []
        cached, token = self._columns.get, self._token
        for text in texts:
            start = len(flat)
            for tok in tokens(text):
                cols, ws = cached(tok) or token(tok)
                flat += cols
                weights += ws
            lengths.append(len(flat) - start)
        rows = np.repeat(np.arange(len(texts), dtype=np.int64) * self.dim, lengths)
        sums = np.bincount(np.frombuffer(flat, dtype=np.int64) + rows, weights=np.frombuffer(weights, dtype=np.float64),
                           minlength=len(texts) * self.dim)
        return sums.reshape(len(texts), self.dim).astype(np.float32)
