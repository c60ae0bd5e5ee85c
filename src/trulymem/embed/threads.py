"""How many BLAS threads embedders and vector search use: one, unless
``TRULYMEM_BLAS_THREADS`` says otherwise.

On two busy cores a second OpenBLAS thread stalls small matrix-vector products
(~18 ms a query); one thread doubled HTTP flat-out throughput and cut LoCoMo hybrid
p95 from ~40 to ~26 ms. Bulk jobs may ask for more with ``limited(n)``."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from trulymem.errors import ConfigError

ENV = "TRULYMEM_BLAS_THREADS"
_controller: list[Any] = []  # one ThreadpoolController, made on first use (it lists the loaded libraries)


def blas_threads() -> int:
    """The configured number of BLAS threads (``TRULYMEM_BLAS_THREADS``, default 1)."""
    value = os.environ.get(ENV, "").strip()
    if not value:
        return 1
    try:
        n = int(value)
    except ValueError:
        raise ConfigError(f"{ENV} must be a whole number of threads, not {value!r}", field="blas_threads") from None
    if not 1 <= n <= 256:
        raise ConfigError(f"{ENV} must be between 1 and 256, not {n}", field="blas_threads")
    return n


@contextmanager
def limited(threads: int | None = None) -> Iterator[None]:
    """Run the block with at most ``threads`` (default ``blas_threads()``) BLAS threads."""
    import numpy  # noqa: F401  (BLAS must be loaded before the controller lists libraries)

    if not _controller:
        from threadpoolctl import ThreadpoolController  # type: ignore[import-untyped]

        _controller.append(ThreadpoolController())
    with _controller[0].limit(limits=threads or blas_threads(), user_api="blas"):
        yield
