"""A dream's plan as clients see it: the analysis as JSON, the plan's id, and a
person's choices read back from JSON.

The id is a digest of everything the report proposes and of the state of every
memory it names, so an apply that names it changes exactly what was reviewed:
a plan made again with another embedder, or over memories changed since, has
another id and is refused (``Conflict``) instead of applied.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from trulymem.dream.findings import Analysis
from trulymem.dream.run import Decisions
from trulymem.errors import Conflict, InvalidInput

__all__ = ["analysis_json", "by_number", "check_plan", "decisions_from", "plan_id"]


def analysis_json(a: Analysis | None) -> dict[str, Any] | None:
    if a is None:
        return None
    return {
        "plan_id": plan_id(a),
        "memories": a.memories,
        "merges": [{"ids": [m.id for m in g.items], "texts": [m.memory for m in g.items], "merged": g.merged,
                    "type": g.type, "confidence": g.confidence, "similarity": g.similarity} for g in a.merges],
        "conflicts": [{"a": c.a.id, "b": c.b.id, "a_text": c.a.memory, "b_text": c.b.memory, "topic": c.topic,
                       "suggested": c.winner, "why": c.why} for c in a.conflicts],
        "review": [{"a": r.a.id, "b": r.b.id, "a_text": r.a.memory, "b_text": r.b.memory, "type": r.merge.type,
                    "similarity": r.similarity, "why": r.why, "merged": r.merge.merged} for r in a.reviews],
        "review_more": a.reviews_more,
        "prunes": [{"id": p.item.id, "text": p.item.memory, "type": p.type, "age_days": p.age_days,
                    "reason": p.reason, "retention_days": p.retention_days, "why": p.why()} for p in a.prunes],
    }


def plan_id(a: Analysis) -> str:
    """What the report proposes and the state of each memory it names, as one digest."""
    named = sorted({m.id for g in a.merges for m in g.items} | {m.id for c in a.conflicts for m in (c.a, c.b)}
                   | {m.id for r in a.reviews for m in (r.a, r.b)} | {p.item.id for p in a.prunes})
    body = {"merges": [[[m.id for m in g.items], g.merged] for g in a.merges],
            "conflicts": [[c.a.id, c.b.id] for c in a.conflicts],
            "review": [[r.a.id, r.b.id, r.merge.merged] for r in a.reviews],
            "prunes": [p.item.id for p in a.prunes],
            "seen": [[i, a.seen[i].isoformat()] for i in named if i in a.seen]}
    digest = hashlib.sha256(json.dumps(body, sort_keys=True, ensure_ascii=False).encode("utf-8"))
    return digest.hexdigest()[:32]


def check_plan(a: Analysis, expected: object) -> None:
    """Refuse to apply anything but the plan the person reviewed."""
    if expected is None:
        return
    if not isinstance(expected, str) or not expected:
        raise InvalidInput("must be the plan_id of a reviewed report", field="plan_id")
    if plan_id(a) != expected:
        raise Conflict("the memories changed since this plan was reviewed (its plan_id no longer matches): "
                       "review the dream again", field="plan_id")


def _pair_keys(pairs: list[tuple[str, str]], ordered: bool) -> dict[str, int]:
    """Each pair by '<idA>:<idB>' and by its number, counted from 1 as the report counts
    ("Conflict 1 of 2"); ``ordered``: the ids only in the plan's order (A and B mean something)."""
    out = {}
    for i, (x, y) in enumerate(pairs):
        out[f"{x}:{y}"] = out[str(i + 1)] = i
        if not ordered:
            out[f"{y}:{x}"] = i
    return out


def _reversed(keys: dict[str, int], k: object) -> str | None:
    """The plan's name of a pair named the other way round, if it is one."""
    x, sep, y = str(k).partition(":")
    return f"{y}:{x}" if sep and f"{y}:{x}" in keys else None


def _index(keys: dict[str, int], k: object, field: str, what: str, n: int) -> int:
    i = keys.get(str(k))
    if i is None:
        raise InvalidInput(f"no {what} {k!r} in this plan (there are {n})", field=f"{field}.{k}")
    return i


def _mapping(payload: dict[str, Any], field: str) -> dict[str, Any]:
    value = payload.get(field) or {}
    if not isinstance(value, dict):
        raise InvalidInput("must map items ('<idA>:<idB>' or their number) to a choice", field=field)
    return value


def _id_list(payload: dict[str, Any], field: str) -> list[str]:
    value = payload.get(field) or []
    if not isinstance(value, list) or not all(isinstance(v, str | int) for v in value):
        raise InvalidInput("must be a list of ids (or numbers) from the plan", field=field)
    return [str(v) for v in value]


def _choices(payload: dict[str, Any], field: str, what: str, pairs: list[tuple[str, str]],
             answers: dict[str, str], wrong: str, *, ordered: bool) -> dict[int, str | None]:
    """``payload[field]``: pair ('<idA>:<idB>' or its number) -> an answer or skip. ``ordered``:
    the answers name the plan's sides (A, B), so a pair named the other way round is refused."""
    keys = _pair_keys(pairs, ordered)
    out: dict[int, str | None] = {}
    for k, v in _mapping(payload, field).items():
        if ordered and k not in keys and (plan := _reversed(keys, k)) is not None:
            raise InvalidInput(f"names the {what} the other way round: the plan names it {plan!r} (A is its first id)",
                               field=f"{field}.{k}")
        i = _index(keys, k, field, what, len(pairs))
        choice = str(v).casefold()
        if choice != "skip" and choice not in answers:
            raise InvalidInput(wrong, field=f"{field}.{k}")
        out[i] = None if choice == "skip" else answers[choice]
    return out


def by_number(payload: dict[str, Any]) -> str | None:
    """The first decision given by its place in a plan rather than by ids, if any: a number
    means something only in the plan it was read from."""
    for field in ("choices", "review"):
        value = payload.get(field)
        if isinstance(value, dict) and (k := next((str(k) for k in value if str(k).isdigit()), None)) is not None:
            return f"{field}.{k}"
    for field in ("skip_merges", "skip_prunes"):
        value = payload.get(field)
        if isinstance(value, list) and any(isinstance(v, int) or str(v).isdigit() for v in value):
            return field
    return None


def decisions_from(payload: dict[str, Any], a: Analysis) -> Decisions:
    """A person's choices as JSON: ``choices`` (conflict -> A / B / skip), ``review``
    (pair -> merge / keep / skip), ``skip_merges`` (merges by their first id, their ids
    joined by ':', or their number) and ``skip_prunes`` (memory ids or numbers). Numbers
    count from 1, as the report does. Anything naming an item the plan does not have is
    refused, naming it."""
    d = Decisions()
    conflicts = _choices(payload, "choices", "conflict", [(c.a.id, c.b.id) for c in a.conflicts],
                         {"a": "A", "b": "B"}, "must be A, B or skip", ordered=True)
    d.conflicts = conflicts  # type: ignore[assignment]  # values are "A" / "B" / None: Choice
    reviews = _choices(payload, "review", "pair to review", [(r.a.id, r.b.id) for r in a.reviews],
                       {"merge": "merge", "keep": "keep"}, "must be merge, keep or skip", ordered=False)
    d.reviews = reviews  # type: ignore[assignment]  # values are "merge" / "keep" / None: ReviewChoice
    merges: dict[str, int] = {}
    for i, g in enumerate(a.merges):
        ids = [m.id for m in g.items]
        merges.update({ids[0]: i, ":".join(ids): i, str(i + 1): i})
    d.skip_merges = {_index(merges, k, "skip_merges", "merge", len(a.merges)) for k in _id_list(payload, "skip_merges")}
    prunes = {p.item.id: i for i, p in enumerate(a.prunes)} | {str(i + 1): i for i in range(len(a.prunes))}
    d.skip_prunes = {_index(prunes, k, "skip_prunes", "prune", len(a.prunes)) for k in _id_list(payload, "skip_prunes")}
    return d

