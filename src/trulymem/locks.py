"""Named locks in the store held by one process at a time, for long jobs (the dream, reindex).

A holder is ``host:pid:id``: a holder that died (same host, process gone) or whose lock
expired does not block. Wall-clock time, since the memory's clock may be simulated."""

from __future__ import annotations

import os
import socket
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime

from trulymem.errors import Conflict
from trulymem.model import new_id
from trulymem.store.base import Store


@contextmanager
def process_lock(store: Store, name: str, ttl_s: float, busy: str) -> Iterator[str]:
    """Hold lock ``name`` for the block and yield the owner string; while another live
    process holds it, raise ``Conflict`` saying ``busy`` and which process holds it."""
    owner = f"{socket.gethostname()}:{os.getpid()}:{new_id()}"
    holder = store.try_lock(name, owner, datetime.now(UTC), ttl_s)
    if holder is not None and _dead(holder):
        store.unlock(name, holder)
        holder = store.try_lock(name, owner, datetime.now(UTC), ttl_s)
    if holder is not None:
        host, pid = (holder.split(":") + [""])[:2]
        raise Conflict(f"{busy} (process {pid} on {host}); wait for it to finish "
                       f"(a stuck lock expires after {int(ttl_s // 60)} minutes)", field="lock")
    try:
        yield owner
    finally:
        store.unlock(name, owner)


def _dead(holder: str) -> bool:
    """Whether the lock's holder is a process of this host that is gone (killed mid-job)."""
    host, pid = (holder.split(":") + ["", ""])[:2]
    if host != socket.gethostname() or not pid.isdigit():
        return False
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    return False
