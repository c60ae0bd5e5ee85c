"""The embedder contract: implement ``_embed`` for a batch, get the rest for free."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import TYPE_CHECKING, Literal, TypeAlias

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

Kind = Literal["query", "passage"]
# A string at run time: importing this module (every tool does) must not load numpy.
Matrix: TypeAlias = "npt.NDArray[np.float32]"


class Embedder(ABC):
    """Turns texts into L2-normalised float32 vectors of a fixed dimension.

    ``name`` identifies the model and its settings: vectors of different names
    are never compared (the store refuses to mix them)."""

    name: str
    dim: int
    semantic: bool = True  # False for lexical stand-ins (hashing): their cosine measures shared spelling

    @abstractmethod
    def _embed(self, texts: Sequence[str], kind: Kind) -> Matrix:
        """Vectors for a non-empty batch, shape ``(len(texts), dim)``."""

    def embed_batch(self, texts: Sequence[str], kind: Kind = "passage") -> Matrix:
        import numpy as np

        from trulymem.embed.threads import limited

        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        with limited():
            vecs = np.asarray(self._embed(list(texts), kind), dtype=np.float32)
        norms = np.linalg.norm(vecs, axis=1, keepdims=True)
        out: Matrix = (vecs / np.where(norms == 0, 1, norms)).astype(np.float32, copy=False)
        return out

    def embed_query(self, text: str) -> npt.NDArray[np.float32]:
        row: npt.NDArray[np.float32] = self.embed_batch([text], "query")[0]
        return row

    def embed_passages(self, texts: Sequence[str]) -> Matrix:
        return self.embed_batch(texts, "passage")


def cosine_top_k(query: npt.NDArray[np.float32], matrix: Matrix, k: int) -> list[tuple[int, float]]:
    """Indices and scores of the ``k`` rows most similar to ``query`` (rows normalised)."""
    import numpy as np

    from trulymem.embed.threads import limited

    if matrix.shape[0] == 0 or k <= 0:
        return []
    with limited():
        scores = matrix @ query
    k = min(k, scores.shape[0])
    idx = np.argpartition(-scores, k - 1)[:k]
    idx = idx[np.argsort(-scores[idx])]
    return [(int(i), float(scores[i])) for i in idx]
