"""How many BLAS threads embedders, vector search and the dream use: one, unless
``TRULYMEM_BLAS_THREADS`` or the config file's ``blas_threads`` says otherwise. The
count is set for the whole process the first time one of them runs (see ``limited``).

On two busy cores a second OpenBLAS thread stalls small matrix-vector products
(~18 ms a query); one thread doubled HTTP flat-out throughput and cut LoCoMo hybrid
p95 from ~40 to ~26 ms."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from trulymem.errors import ConfigError

ENV = "TRULYMEM_BLAS_THREADS"
KEY = "blas_threads"  # its name in the config file
_blas: list[list[Any]] = []  # the BLAS libraries' threadpoolctl controllers, listed on first use
_file: dict[tuple[str, int], str | None] = {}  # (config path, its mtime) -> the file's value: read once
_paths: dict[tuple[str | None, ...], Any] = {}  # the environment config_path() reads -> the path
_PATH_ENV = ("TRULYMEM_CONFIG", "XDG_CONFIG_HOME", "HOME", "APPDATA", "LOCALAPPDATA")
_checked: dict[tuple[str | None, ...], tuple[float, str | None]] = {}  # env -> (when checked, value)
_RECHECK = 1.0  # seconds a config file's value is trusted before its mtime is looked at again


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

    env = tuple(os.environ.get(k) for k in _PATH_ENV)
    now = time.monotonic()
    seen = _checked.get(env)
    if seen is not None and now - seen[0] < _RECHECK:  # a search asks several times: stat once a second
        return seen[1]
    path = _paths.get(env)
    if path is None:  # platformdirs works it out in ~15 us
        path = _paths[env] = config_path()
    try:
        stamp = (str(path), path.stat().st_mtime_ns)
    except OSError:
        value = None  # no config file
    else:
        if stamp not in _file:
            _file.clear()
            _file[stamp] = read_config_file(path).get(KEY)
        value = _file[stamp]
    _checked[env] = (now, value)
    return value


@contextmanager
def limited(threads: int | None = None) -> Iterator[None]:
    """Run the block with ``threads`` (default ``blas_threads()``) BLAS threads.

    The count is the process's, and it is left set after the block rather than put back:
    raising it wakes OpenBLAS's threads, which then spin, and with a server's worker
    threads entering and leaving blocks all the time the count went up and down between
    its products — 8.7-19 ms of CPU per 2,000 x 512 product with 8 threads, against 0.15 ms
    when it stays. (threadpoolctl's own ``limit()`` also costs ~35 us a call.)"""
    want = threads or blas_threads()
    for lib in _libraries():
        if lib.get_num_threads() != want:
            lib.set_num_threads(want)
    yield


def _libraries() -> list[Any]:
    if not _blas:
        import numpy  # noqa: F401  (BLAS must be loaded before the controller lists libraries)
        from threadpoolctl import ThreadpoolController  # type: ignore[import-untyped]

        _blas.append(list(ThreadpoolController().select(user_api="blas").lib_controllers))
    return _blas[0]
