"""Ids are UUIDv7, monotonic within a process: many made in one millisecond (a batch)
sort in the order they were made, so recall's tie-break by id is the same run to run."""

from __future__ import annotations

import threading
import uuid

import pytest

from trulymem import model
from trulymem.model import new_id


def test_ids_are_version_7_uuids_in_the_order_made() -> None:
    ids = [new_id() for _ in range(20_000)]  # many per millisecond
    assert ids == sorted(ids) and len(set(ids)) == len(ids)
    for i in (ids[0], ids[-1]):
        u = uuid.UUID(i)
        assert u.version == 7 and u.variant == uuid.RFC_4122 and str(u) == i


def test_a_clock_that_steps_back_does_not_reorder() -> None:
    first = new_id()
    now = [model.time.time_ns()]
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(model.time, "time_ns", lambda: now[0] - 5_000_000_000)  # 5 s back
        later = [new_id() for _ in range(100)]
    assert [first, *later] == sorted([first, *later])


def test_threads_never_share_an_id() -> None:
    out: list[list[str]] = [[] for _ in range(4)]

    def make(k: int) -> None:
        out[k] = [new_id() for _ in range(5_000)]
    threads = [threading.Thread(target=make, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    every = [i for part in out for i in part]
    assert len(set(every)) == len(every)
    assert all(part == sorted(part) for part in out)
