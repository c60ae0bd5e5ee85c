"""``new_ids``: a batch of ids is what as many ``new_id`` calls make — UUIDv7, unique,
sorting in the order made, also across calls of either kind."""

from __future__ import annotations

import time
import uuid

import pytest

from trulymem.model import new_id, new_ids


def test_a_batch_of_ids_sorts_in_the_order_made() -> None:
    made = [new_id(), *new_ids(3000), new_id(), *new_ids(1), *new_ids(0), new_id()]
    assert len(made) == 3004 and len(set(made)) == len(made)
    assert made == sorted(made)
    for i in (made[0], made[1], made[1500], made[-1]):
        u = uuid.UUID(i)
        assert (u.version, u.variant) == (7, uuid.RFC_4122) and str(u) == i


def test_ids_keep_their_order_when_the_clock_steps_back(monkeypatch: pytest.MonkeyPatch) -> None:
    first = new_id()
    now = time.time_ns()
    monkeypatch.setattr(time, "time_ns", lambda: now - 5_000_000_000)  # NTP stepped the clock back 5 s
    assert new_ids(0) == []  # a batch of reinforcements only: makes no id, moves nothing
    later = [*new_ids(2), new_id()]
    monkeypatch.setattr(time, "time_ns", lambda: now - 4_000_000_000)
    later += [new_id(), *new_ids(3)]
    assert [first, *later] == sorted([first, *later]) and len(set(later)) == len(later)
