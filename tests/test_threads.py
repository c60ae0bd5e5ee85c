"""One BLAS thread by default for every embedder and vector operation (TRULYMEM_BLAS_THREADS)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest
from threadpoolctl import threadpool_info

import trulymem.embed.base as embed_base
from trulymem import TrulyMem
from trulymem.embed.base import Embedder, Kind, Matrix
from trulymem.embed.hashing import HashingEmbedder
from trulymem.embed.threads import blas_threads
from trulymem.errors import ConfigError

needs_blas = pytest.mark.skipif(not any(i["user_api"] == "blas" for i in threadpool_info()),
                                reason="numpy has no BLAS library here")


def blas_now() -> set[int]:
    return {int(i["num_threads"]) for i in threadpool_info() if i["user_api"] == "blas"}


class Recording(Embedder):
    """The hashing embedder, noting the BLAS threads it ran with."""

    def __init__(self) -> None:
        self._inner = HashingEmbedder()
        self.name, self.dim = self._inner.name, self._inner.dim
        self.seen: list[set[int]] = []

    def _embed(self, texts: Sequence[str], kind: Kind) -> Matrix:
        self.seen.append(blas_now())
        return self._inner._embed(texts, kind)


@needs_blas
@pytest.mark.parametrize(("env", "want"), [(None, 1), ("2", 2)])
def test_embedders_and_vector_search_run_on_the_configured_threads(
        db_path: Path, monkeypatch: pytest.MonkeyPatch, env: str | None, want: int) -> None:
    if env is not None:
        monkeypatch.setenv("TRULYMEM_BLAS_THREADS", env)
    emb = Recording()
    mem = TrulyMem(db_path, user_id="u", embedder=emb)
    mem.commit([{"subject": "alpha", "relation": "likes", "object": "beta"}])
    searched: list[set[int]] = []
    real = embed_base.cosine_top_k

    def spy(query: np.ndarray, matrix: np.ndarray, k: int) -> list[tuple[int, float]]:
        searched.append(blas_now())
        return real(query, matrix, k)

    monkeypatch.setattr(embed_base, "cosine_top_k", spy)
    assert mem.recall("alpha", depth=1).facts
    assert emb.seen and all(s == {want} for s in emb.seen)
    assert searched and all(s == {want} for s in searched)
    mem.close()


def test_a_bad_thread_count_is_one_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRULYMEM_BLAS_THREADS", "many")
    with pytest.raises(ConfigError, match="TRULYMEM_BLAS_THREADS"):
        blas_threads()
    monkeypatch.setenv("TRULYMEM_BLAS_THREADS", "0")
    with pytest.raises(ConfigError, match="between 1 and 256"):
        blas_threads()


def test_the_config_file_sets_the_threads_and_the_environment_wins(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    import trulymem.embed.threads as threads

    monkeypatch.setattr(threads, "_RECHECK", 0.0)  # the file is looked at again once a second; here at once
    config = tmp_path / "config.toml"
    monkeypatch.setenv("TRULYMEM_CONFIG", str(config))
    assert blas_threads() == 1  # no file
    config.write_text("blas_threads = 3\n")
    assert blas_threads() == 3
    monkeypatch.setenv("TRULYMEM_BLAS_THREADS", "2")
    assert blas_threads() == 2
    monkeypatch.delenv("TRULYMEM_BLAS_THREADS")
    config.write_text('blas_threads = "lots"\n')
    with pytest.raises(ConfigError, match="blas_threads in the config file"):
        blas_threads()


@needs_blas
@pytest.mark.parametrize("configured", [None, 2])
def test_the_dream_encodes_on_the_configured_threads(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                     configured: int | None) -> None:
    from trulymem.dream import _encoder

    if configured is not None:
        config = tmp_path / "config.toml"
        config.write_text(f"blas_threads = {configured}\n")
        monkeypatch.setenv("TRULYMEM_CONFIG", str(config))
    _encoder.cache_clear()
    enc = _encoder()
    if enc is None:
        pytest.skip("the bundled encoder is not installed")
    seen: list[set[int]] = []
    encode = enc._model.encode  # type: ignore[attr-defined]

    def recording(texts: list[str]) -> np.ndarray:
        seen.append(blas_now())
        return encode(texts)  # type: ignore[no-any-return]

    monkeypatch.setattr(enc._model, "encode", recording)  # type: ignore[attr-defined]
    enc.embed_passages(["the cat sat on the mat", "a dog ran in the park"])
    assert seen == [{configured or 1}]
    _encoder.cache_clear()  # the next test's settings, not these


@needs_blas
def test_the_count_stays_set_between_blocks(db_path: Path) -> None:
    """Put back after each block, the count went up and down under a server's worker threads,
    waking OpenBLAS's spinning threads between products (50-100x the CPU per product)."""
    from threadpoolctl import threadpool_limits

    with threadpool_limits(2, user_api="blas"):
        mem = TrulyMem(db_path, user_id="u", embedder="hashing")
        mem.commit([{"subject": "alpha", "relation": "likes", "object": "beta"}])
        assert mem.recall("alpha", depth=1).facts
        assert blas_now() == {1}  # still the configured count after the blocks
        mem.close()
