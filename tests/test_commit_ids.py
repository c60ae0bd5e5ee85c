"""``new_ids``: a batch of ids is what as many ``new_id`` calls make — UUIDv7, unique,
sorting in the order made, also across calls of either kind."""

from __future__ import annotations

import uuid

from trulymem.model import new_id, new_ids


def test_a_batch_of_ids_sorts_in_the_order_made() -> None:
    made = [new_id(), *new_ids(3000), new_id(), *new_ids(1), *new_ids(0), new_id()]
    assert len(made) == 3004 and len(set(made)) == len(made)
    assert made == sorted(made)
    for i in (made[0], made[1], made[1500], made[-1]):
        u = uuid.UUID(i)
        assert (u.version, u.variant) == (7, uuid.RFC_4122) and str(u) == i
