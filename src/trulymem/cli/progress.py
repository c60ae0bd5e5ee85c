"""Progress bars for long commands: rich, on stderr, and only once the work has taken
a while — a quick command prints nothing extra, and neither does one whose stderr is
not a terminal (a log or a pipe)."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.console import Console

Step = Callable[[int, int], None]
DELAY_S = 2.0  # shorter work is over before a bar would help


@contextmanager
def progress(label: str, console: Console | None = None, *, delay: float = DELAY_S) -> Iterator[Step]:
    """A ``step(done, total)`` callback that shows a bar labelled ``label`` from the first
    call ``delay`` seconds after the start, on ``console`` (default: stderr, when it is a
    terminal); the bar is gone when the block ends."""
    from trulymem.cli.base import err

    if console is None and not err.is_terminal:
        yield lambda done, total: None
        return
    started = time.monotonic()
    state: dict[str, Any] = {}

    def step(done: int, total: int) -> None:
        if "bar" not in state:
            if time.monotonic() - started < delay:
                return
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

            bar = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                           console=console or err.rich, transient=True)
            bar.start()
            state["bar"], state["task"] = bar, bar.add_task(label, total=total)
        state["bar"].update(state["task"], completed=done, total=total)

    try:
        yield step
    finally:
        if "bar" in state:
            state["bar"].stop()
