"""Applying the dream a person reviewed: the plan made again exactly as the review made it,
checked against the reviewed plan's id, then applied with the person's choices.

The review (``memory_dream``'s dry run) and the apply share one path to the plan,
``run_dream``'s dry run: the dream's own embedder (the sentence encoder behind the
store's vector cache, not recall's), the pairs a person kept apart before, the
retention rules and the same clock. An apply that names the reviewed ``plan_id``
changes exactly what was shown, or nothing (``Conflict``).
"""

from __future__ import annotations

from typing import Any

from trulymem import budget
from trulymem.dream import DreamResult, run_dream
from trulymem.dream.findings import Analysis
from trulymem.dream.plan import by_number, check_plan, decisions_from
from trulymem.dream.report import summary
from trulymem.dream.run import apply_dream, dream_lock
from trulymem.errors import InvalidInput
from trulymem.graph import TrulyMem

__all__ = ["apply_reviewed", "remake_plan"]


def _quiet(_: str) -> None:
    """The dry run's report is for a person at a terminal; here the plan is what counts."""


def remake_plan(mem: TrulyMem) -> DreamResult:
    """The plan for ``mem``'s scope, made as the review makes it (nothing applied)."""
    return run_dream(mem, dry_run=True, emit=_quiet)


def apply_reviewed(mem: TrulyMem, payload: dict[str, Any], *, branch: str | None) -> tuple[DreamResult, str]:
    """Make the plan again, refuse it if it is not the reviewed one (``payload["plan_id"]``,
    when given: ``Conflict``), read the person's choices (``choices``, ``review``,
    ``skip_merges``, ``skip_prunes``; a choice naming nothing in the plan: ``InvalidInput``)
    and apply them as one journaled, undoable run. Returns the result and its summary line;
    with nothing to do, nothing is written and the result's ``applied`` is ``None``."""
    numbered = by_number(payload)
    if numbered is not None and payload.get("plan_id") is None:
        raise InvalidInput("names an item by its number: send the plan_id of the report it was read from "
                           "(or name it by its ids)", field=numbered)
    result = remake_plan(mem)
    analysis = result.analysis or Analysis(memories=0)
    check_plan(analysis, payload.get("plan_id"))
    decided = decisions_from(payload, analysis)
    if analysis.empty:
        return result, "Nothing to apply."
    budget.check("the dream's analysis")  # the last point before anything is written
    with dream_lock(mem.store, mem.scope):
        result.applied = apply_dream(mem.context(), analysis, decided, branch=branch)
    result.status = "applied"
    a = result.applied
    return result, summary(a.merged, a.pruned, a.resolved, a.skipped, a.reviewed, len(a.kept))
