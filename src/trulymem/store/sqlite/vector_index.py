"""The vectors ``vector_search`` reads, kept per process and scope: exact cosine below
``ann_threshold()`` vectors, an HNSW index (usearch) above it. A write never reloads
them: rows written since are read by rowid (``put_vectors`` gives every write a new,
higher rowid) and added; see ``docs/adr-vector-index.md``.

Rows not yet in the HNSW index stay in an exact "delta" matrix searched beside it and
move into the index a few at a time per search, so a write followed by a search costs a
small exact scan, not an index rebuild. A large delta (a first build, a big load) moves
in a background thread instead, in short slices under the set's lock: searches go on
meanwhile, exact over what is not yet indexed, and the index is saved every
``_SAVE_EVERY`` seconds of building, so a crash mid-build loses at most that much."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from trulymem.errors import ConfigError

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

THRESHOLD_ENV = "TRULYMEM_ANN_THRESHOLD"
EF_ENV = "TRULYMEM_ANN_EF"
EXACT_ENV = "TRULYMEM_ANN_EXACT"
_CONNECTIVITY = 16
_EF_ADD = 64  # half of usearch's default: 2-4x faster inserts on hashing vectors, recall@10 within ~0.03
_MERGE_SECONDS = 0.003  # a search moves delta rows into the index for about this long
_BUILD_SLICE = 0.02  # the background build holds the set's lock this long at a time ...
_BUILD_PAUSE = 0.002  # ... and lets searches in for at least this long between slices
_SAVE_EVERY = 60.0  # seconds of background building between saves (a crash loses at most this)


def _env_int(name: str, default: int, low: int) -> int:
    value = os.environ.get(name, "").strip()
    if not value:
        return default
    try:
        n = int(value)
    except ValueError:
        raise ConfigError(f"{name} must be a whole number, not {value!r}", field=name.lower()) from None
    if n < low:
        raise ConfigError(f"{name} must be at least {low}, not {n}", field=name.lower())
    return n


def ann_threshold() -> int:
    """Vectors in a scope from which search uses the HNSW index (``TRULYMEM_ANN_THRESHOLD``)."""
    return _env_int(THRESHOLD_ENV, 20_000, 1)


def ann_suits(model: str) -> bool:
    """Whether ``model``'s vectors are searched through the index above the threshold.
    ``TRULYMEM_ANN_EXACT`` lists model-name prefixes kept exact at any size (default
    ``hashing``: its vectors of unrelated texts are near-orthogonal, the worst case for a graph
    index — recall@10 measured 0.79 at 10k, 0.51 at 1M, against 0.98 for the USE encoder's at
    20k — so exact search, slower but right, is kept for them). Empty: every model indexed."""
    raw = os.environ.get(EXACT_ENV)
    prefixes = ["hashing"] if raw is None else [p.strip() for p in raw.split(",") if p.strip()]
    return not any(model.startswith(p) for p in prefixes)


def ann_ef() -> int:
    """Candidates the HNSW search explores (``TRULYMEM_ANN_EF``): recall against latency."""
    return _env_int(EF_ENV, 128, 10)


def _new_index(dim: int) -> Any:
    try:
        from usearch.index import Index
    except ImportError as exc:  # a core dependency: only a broken install lands here
        raise ConfigError("vector search above the exact threshold needs 'usearch' (pip install usearch)") from exc
    # f16: half the memory of f32 (1.7 KB per 512-d vector with the graph) for ~1e-3 of score error.
    return Index(ndim=dim, metric="cos", dtype="f16", connectivity=_CONNECTIVITY, expansion_add=_EF_ADD,
                 expansion_search=ann_ef())


class VectorSet:
    """The vectors of one scope and model: an HNSW index of the rows up to rowid ``merged``
    and an exact delta of the rows read since, oldest first."""

    def __init__(self, dim: int) -> None:
        import numpy as np

        self.dim = dim
        self.seen = 0  # highest node_vectors rowid read
        self.merged = 0  # highest rowid whose row went into the index
        self.index: Any = None
        self.saved_at = -1  # ``merged`` when the index was last saved
        self._matrix = np.zeros((0, dim), dtype=np.float32)
        self._rids: list[int] = []  # per delta row; -1 once replaced or gone
        self._rowids: list[int] = []
        self._pos: dict[int, int] = {}  # node rid -> its live delta row
        self._start = 0  # delta rows before this were merged
        self._dead = 0
        # Held by every reader and writer of this set; the background build holds it in slices.
        self.lock = threading.RLock()
        self._builder: threading.Thread | None = None
        self._stop = threading.Event()
        self.build_error: BaseException | None = None  # a failed build is not retried: search stays exact

    def __len__(self) -> int:
        return (len(self.index) if self.index is not None else 0) + len(self._pos)

    @property
    def delta(self) -> int:
        return len(self._pos)

    def memory_bytes(self) -> int:
        idx = int(self.index.memory_usage) if self.index is not None else 0
        return idx + int(self._matrix.nbytes) + 100 * len(self._rids)

    # --- writes ---------------------------------------------------------------
    def reserve(self, rows: int) -> None:
        """Room for ``rows`` more delta rows at once (a first load knows its size: no doubling)."""
        import numpy as np

        need = len(self._rids) + rows
        if need > self._matrix.shape[0]:
            grown = np.zeros((need, self.dim), dtype=np.float32)
            grown[: len(self._rids)] = self._matrix[: len(self._rids)]
            self._matrix = grown

    def add(self, rowids: list[int], rids: list[int], vecs: npt.NDArray[np.float32]) -> None:
        """Rows read from the database (rowid order); a node already here is replaced."""
        import numpy as np

        end = len(self._rids)
        need = end + len(rids)
        if need > self._matrix.shape[0]:
            grown = np.zeros((max(need, 2 * self._matrix.shape[0], 1024), self.dim), dtype=np.float32)
            grown[:end] = self._matrix[:end]
            self._matrix = grown
        self._matrix[end:need] = vecs
        for i, rid in enumerate(rids):
            self.forget(rid, keep_index=True)
            self._pos[rid] = end + i
        self._rids.extend(rids)
        self._rowids.extend(rowids)
        if rowids:
            self.seen = max(self.seen, rowids[-1])

    def forget(self, rid: int, *, keep_index: bool = False) -> None:
        """Drop a node's vector (gone from the database, or ``keep_index``: replaced by a newer row)."""
        old = self._pos.pop(rid, None)
        if old is not None:
            self._rids[old] = -1
            self._matrix[old] = 0.0
            self._dead += 1
        if not keep_index and self.index is not None and rid in self.index:
            self.index.remove(rid)

    def merge_some(self, threads: int) -> None:
        """Move the oldest delta rows into the index, 8 at a time, for about ``_MERGE_SECONDS``."""
        import time

        deadline = time.perf_counter() + _MERGE_SECONDS
        while self._pos and time.perf_counter() < deadline:
            self.merge(threads, limit=8)

    @property
    def building(self) -> bool:
        return self._builder is not None and self._builder.is_alive()

    def build_in_background(self, threads: int, save: Callable[[VectorSet], None] | None = None) -> None:
        """Move the whole delta into the index in a daemon thread (no-op if one is at it)."""
        if self.building or self.build_error is not None:
            return
        self._stop.clear()
        self._builder = threading.Thread(target=self.build, args=(threads, save), daemon=True,
                                         name="trulymem-vector-index")
        self._builder.start()

    def build(self, threads: int, save: Callable[[VectorSet], None] | None = None) -> None:
        """Move the delta into the index slice by slice, letting searches in between; save it
        every ``_SAVE_EVERY`` seconds and at the end. Stops early when ``stop_building`` is called."""
        saved = time.monotonic()
        try:
            while not self._stop.is_set():
                with self.lock:
                    deadline = time.perf_counter() + _BUILD_SLICE
                    while self._pos:
                        self.merge(threads, limit=32)
                        if time.perf_counter() >= deadline:
                            break
                    done = not self._pos
                if save is not None and (done or time.monotonic() - saved >= _SAVE_EVERY):
                    save(self)
                    saved = time.monotonic()
                if done:
                    return
                time.sleep(_BUILD_PAUSE)
        except (RuntimeError, MemoryError, ValueError) as exc:  # usearch's errors: searches stay exact
            self.build_error = exc

    def build_now(self, threads: int, save: Callable[[VectorSet], None] | None = None) -> None:
        """``build`` in the calling thread, once a background build (if any) has stopped."""
        self.stop_building()
        self._stop.clear()
        self.build(threads, save)

    def stop_building(self, timeout: float | None = None) -> None:
        """Ask the background build to stop after its current slice and wait for it."""
        self._stop.set()
        if self._builder is not None:
            self._builder.join(timeout)

    def wait_built(self, timeout: float | None = None) -> bool:
        """Wait for the background build; whether it finished."""
        if self._builder is not None:
            self._builder.join(timeout)
        return not self.building

    def merge(self, threads: int, *, limit: int | None = None) -> int:
        """Move up to ``limit`` (all when ``None``) of the oldest delta rows into the index."""
        if self.index is None:
            self.index = _new_index(self.dim)
        moved = 0
        end = len(self._rids) if limit is None else min(len(self._rids), self._start + limit)
        while self._start < end:  # in slices: a copy of the whole delta at 1M vectors would be 2 GB
            moved += self._merge_rows(threads, min(end, self._start + 16_384))
        if self._start > 4096 and self._start * 2 > len(self._rids):
            self._compact()
        return moved

    def _merge_rows(self, threads: int, end: int) -> int:
        import numpy as np

        live = [i for i in range(self._start, end) if self._rids[i] >= 0]
        if live:
            keys = np.asarray([self._rids[i] for i in live], dtype=np.uint64)
            stale = [int(k) for k in keys if int(k) in self.index]
            if stale:
                self.index.remove(stale)
            self.index.add(keys, self._matrix[live], threads=threads)
            for i in live:
                del self._pos[self._rids[i]]
        self.merged = max(self.merged, self._rowids[end - 1])
        self._dead -= sum(1 for i in range(self._start, end) if self._rids[i] < 0)
        self._start = end
        return len(live)

    def _compact(self) -> None:
        keep = [i for i in range(self._start, len(self._rids)) if self._rids[i] >= 0]
        self._matrix = self._matrix[keep].copy()
        self._rids = [self._rids[i] for i in keep]
        self._rowids = [self._rowids[i] for i in keep]
        self._pos = {rid: i for i, rid in enumerate(self._rids)}
        self._start = self._dead = 0

    # --- search ---------------------------------------------------------------
    def search(self, query: npt.NDArray[np.float32], k: int, threads: int) -> list[tuple[int, float]]:
        """Up to ``k`` (node rid, cosine) pairs, best first: exact over the delta, HNSW over the index."""
        from trulymem.embed.base import cosine_top_k

        if self._dead * 2 > len(self._rids) - self._start > 1024:
            self._compact()
        out: list[tuple[int, float]] = []
        view = self._matrix[self._start : len(self._rids)]
        for i, score in cosine_top_k(query, view, k + self._dead):
            rid = self._rids[self._start + i]
            if rid >= 0:
                out.append((rid, score))
        if self.index is not None and len(self.index):
            found = self.index.search(query, min(len(self.index), k), threads=threads)
            out.extend((int(key), 1.0 - float(dist)) for key, dist in zip(found.keys, found.distances)
                       if int(key) not in self._pos)  # a newer row of that node is in the delta
        out.sort(key=lambda x: -x[1])
        return out[:k]

    # --- persistence ----------------------------------------------------------
    def save(self, folder: Path, stem: str) -> None:
        """Write the index as ``<stem>-<merged>.usearch`` (atomically), dropping older saves."""
        with self.lock:
            if self.index is None or self.saved_at == self.merged:
                return
            folder.mkdir(mode=0o700, exist_ok=True)
            final = folder / f"{stem}-{self.merged}.usearch"
            tmp = final.with_suffix(".tmp")
            self.index.save(str(tmp))
            tmp.replace(final)  # a crash before this leaves the previous save whole
            for old in [*folder.glob(f"{stem}-*.usearch"), *folder.glob(f"{stem}-*.tmp")]:
                if old != final:  # older saves, and what a crash mid-save left
                    old.unlink(missing_ok=True)
            self.saved_at = self.merged

    @classmethod
    def load(cls, folder: Path, stem: str, dim: int, newest_rowid: int) -> VectorSet | None:
        """The saved index of ``stem`` if there is a usable one (same dimension, no later than the database)."""
        from usearch.index import Index

        for path in sorted(folder.glob(f"{stem}-*.usearch"), key=lambda p: p.stat().st_mtime, reverse=True):
            try:
                merged = int(path.stem.rsplit("-", 1)[1])
                index = Index.restore(str(path), connectivity=_CONNECTIVITY, expansion_add=_EF_ADD,
                                      expansion_search=ann_ef())
            except (ValueError, RuntimeError, OSError):
                continue
            if index is None or index.ndim != dim or merged > newest_rowid:
                continue
            out = cls(dim)
            out.index, out.merged, out.seen, out.saved_at = index, merged, merged, merged
            return out
        return None
