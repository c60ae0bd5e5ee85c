"""A wall-clock budget for one request, readable anywhere below the server.

``trulymem serve`` opens a budget for every request (``request_budget`` seconds,
see ``ServerSettings``); code that can stop cleanly — a filter evaluation, a
search, a loop that has not written yet — calls :func:`check` and raises
:class:`~trulymem.errors.BudgetExceeded` instead of running on. The deadline is
a context variable, so it follows the request into the worker thread that runs
it without passing through every signature, and library calls made outside a
server have no budget (:func:`check` does nothing).

Nothing here stops running code: a budget is only honoured at the places that
check it, which are places where stopping leaves nothing half written.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from trulymem.errors import BudgetExceeded

_deadline: ContextVar[float | None] = ContextVar("trulymem_deadline", default=None)


@contextmanager
def time_budget(seconds: float | None, *, fresh: bool = False) -> Iterator[None]:
    """Run the block under a budget of ``seconds`` (``None`` or 0: none); an outer, earlier deadline
    wins unless ``fresh``. A server starts every request ``fresh``: a task inherits its creator's
    context, and uvicorn starts a keep-alive connection's next request from inside the previous
    one's task, whose deadline must not carry over."""
    if not seconds and not fresh:
        yield
        return
    deadline = time.monotonic() + seconds if seconds else None
    outer = None if fresh else _deadline.get()
    token = _deadline.set(deadline if outer is None or deadline is None else min(outer, deadline))
    try:
        yield
    finally:
        _deadline.reset(token)


def remaining() -> float | None:
    """Seconds left in the current budget (may be negative), or ``None`` without one."""
    deadline = _deadline.get()
    return None if deadline is None else deadline - time.monotonic()


def check(what: str = "the request") -> None:
    """Raise ``BudgetExceeded`` if the current budget has run out."""
    left = remaining()
    if left is not None and left <= 0:
        raise BudgetExceeded(f"{what} ran out of its time budget ({-left:.1f} s over); nothing was changed")
