"""The dream's output, in exactly the seed's formats."""

from __future__ import annotations

from trulymem.dream.analyze import Analysis, Contradiction, Merge, Review

HEADER = "## dream — consolidation report"
NOTHING_TO_DO = "Dream complete. No duplicate, contradictory, or stale memories found."
CANCELLED = "Cancelled. No changes made."
REMINDER = ("mem0-dream detected {n} contradiction(s) requiring manual review. "
            "Run `trulymem dream` to resolve them interactively.")


def no_memories(project: str) -> str:
    return f"No memories found for project {project}. Nothing to consolidate."


def clip(text: str, n: int = 100) -> str:
    text = " ".join(text.split())
    return text if len(text) <= n else text[: n - 1] + "…"


def merge_line(g: Merge) -> str:
    return " + ".join(f"[mem0:{m.id}]" for m in g.items) + f' → "{clip(g.merged)}"'


def conflict_line(c: Contradiction) -> str:
    return f'[mem0:{c.a.id}] vs [mem0:{c.b.id}] — "{clip(c.topic)}" [A/B/skip]'


def review_line(r: Review) -> str:
    return f'[mem0:{r.a.id}] ~ [mem0:{r.b.id}] — "{clip(r.a.memory, 60)}" / "{clip(r.b.memory, 60)}" [merge/keep/skip]'


def proposed(a: Analysis) -> str:
    """The seed's line; pairs to review, when there are any, named after it."""
    n = len(a.reviews)
    review = f" {n} pair{'s' if n != 1 else ''} to review." if n else ""
    return f"Proposed: {len(a.merges)} merges, {len(a.prunes)} prunes, {len(a.conflicts)} conflicts.{review}"


def report(a: Analysis) -> str:
    """Everything up to the final ``Proposed: …`` line (sections with no items left out)."""
    lines = [HEADER, ""]
    if a.merges:
        lines += [f"Merges ({len(a.merges)}):", *(f"  {merge_line(g)}" for g in a.merges), ""]
    if a.conflicts:
        more = [f"  … {a.conflicts_more} more, shown once these are resolved"] if a.conflicts_more else []
        lines += [f"Conflicts ({len(a.conflicts)}):", *(f"  {conflict_line(c)}" for c in a.conflicts), *more, ""]
    if a.reviews:
        more = [f"  … {a.reviews_more} more, shown once these are decided"] if a.reviews_more else []
        lines += [f"Review ({len(a.reviews)}): alike, not provably the same — a person decides",
                  *(f"  {review_line(r)}" for r in a.reviews), *more, ""]
    if a.prunes:
        lines += [f"Prune ({len(a.prunes)}):",
                  *(f"  [mem0:{p.item.id}] — {p.type}, {p.age_days}d old ({p.why()})" for p in a.prunes), ""]
    return "\n".join(lines)


def summary(merged: int, pruned: int, resolved: int, skipped: int, reviewed: int | None = None,
            kept: int | None = None) -> str:
    """The seed's line; what was decided on review, when anything was, after it."""
    review = f", reviewed: {reviewed} merged, {kept} kept apart" if reviewed or kept else ""
    return (f"Dream complete — merged: {merged}, pruned: {pruned}, conflicts resolved: {resolved}, "
            f"skipped: {skipped}{review}")


def auto_line(project: str, merged: int, pruned: int, skipped: int, review: int = 0) -> str:
    """The seed's line; pairs left to review (never applied without a person), when any, after it."""
    left = f" review_skipped={review}" if review else ""
    return f"[mem0-dream --auto] project={project} merged={merged} pruned={pruned} conflicts_skipped={skipped}{left}"
