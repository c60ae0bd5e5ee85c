"""How many BLAS threads embedders, vector search and the dream use: one, unless
``TRULYMEM_BLAS_THREADS`` or the config file's ``blas_threads`` says otherwise.

On two busy cores a second OpenBLAS thread stalls small matrix-vector products
(~18 ms a query); one thread doubled HTTP flat-out throughput and cut LoCoMo hybrid
p95 from ~40 to ~26 ms."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from trulymem.errors import ConfigError

ENV = "TRULYMEM_BLAS_THREADS"
KEY = "blas_threads"  # its name in the config file
_controller: list[Any] = []  # one ThreadpoolController, made on first use (it lists the loaded libraries)
_file: dict[tuple[str, int], str | None] = {}  # (config path, its mtime) -> the file's value: read once


def blas_threads() -> int:
    """The configured number of BLAS threads: ``TRULYMEM_BLAS_THREADS``, else ``blas_threads``
    in the config file, else 1."""
    value, where = os.environ.get(ENV, "").strip(), ENV
    if not value:
        value, where = (_from_file() or "").strip(), f"{KEY} in the config file"
    if not value:
        return 1
    try:
        n = int(value)
    except ValueError:
        raise ConfigError(f"{where} must be a whole number of threads, not {value!r}", field=KEY) from None
    if not 1 <= n <= 256:
        raise ConfigError(f"{where} must be between 1 and 256, not {n}", field=KEY)
    return n


def _from_file() -> str | None:
    """``blas_threads`` from the config file, read again only when the file changes."""
    from trulymem.config import config_path, read_config_file

    path = config_path()
    try:
        stamp = (str(path), path.stat().st_mtime_ns)
    except OSError:
        return None  # no config file
    if stamp not in _file:
        _file.clear()
        _file[stamp] = read_config_file(path).get(KEY)
    return _file[stamp]


@contextmanager
def limited(threads: int | None = None) -> Iterator[None]:
    """Run the block with at most ``threads`` (default ``blas_threads()``) BLAS threads."""
    import numpy  # noqa: F401  (BLAS must be loaded before the controller lists libraries)

    if not _controller:
        from threadpoolctl import ThreadpoolController  # type: ignore[import-untyped]

        _controller.append(ThreadpoolController())
    with _controller[0].limit(limits=threads or blas_threads(), user_api="blas"):
        yield
