"""Compact text of a recall result for an LLM's context."""

from __future__ import annotations

from trulymem.model import EdgeKind, NodeType
from trulymem.recall.chain import DESCRIPTION, TURN_KIND
from trulymem.recall.results import RecalledFact, RecalledNode


def _line(f: RecalledFact) -> str:
    text = f.text
    if not f.valid:
        text += f" (no longer valid since {f.invalid_at:%Y-%m-%d %H:%M})" if f.invalid_at else " (no longer valid)"
    if f.confidence < 1.0:
        text += f" (confidence {f.confidence:.2f})"
    return text


_CITABLE = 16  # a message id short enough to cite ("D3:14"); longer ones are generated and say nothing


def episode_line(n: RecalledNode) -> str:
    """``[D1:3 · 2023-05-08 13:56] Caroline: …`` — turn id (a short one) and time first, for citing."""
    meta = n.metadata
    turn = meta.get("turn_id")
    turn = turn if isinstance(turn, str) and len(turn) <= _CITABLE else None  # not a generated id: text and time
    where = " · ".join(str(x) for x in (turn, str(meta.get("time", ""))[:16].replace("T", " ")) if x)
    return f"[{where}] {n.summary or n.name}" if where else (n.summary or n.name)


def _described(n: RecalledNode) -> str:
    """A task's description (a turn record keeps it in its metadata, out of the text index)."""
    meta = n.metadata.get(DESCRIPTION)
    return n.summary or (meta if isinstance(meta, str) else "")


def render_text(nodes: list[RecalledNode], facts: list[RecalledFact]) -> str:
    lines: list[str] = []
    persona = [f for f in facts if f.kind == EdgeKind.HAS_PERSONA and f.valid]
    if persona:
        attrs: dict[str, list[str]] = {}
        for f in persona:
            attrs.setdefault(f.relation, []).append(f.object)
        lines.append("Persona: " + "; ".join(f"{k}={', '.join(v)}" for k, v in attrs.items()))
    chain = sorted((n for n in nodes if n.type == NodeType.TASK), key=lambda n: n.created_at, reverse=True)
    tasks = [n for n in chain if n.metadata.get("kind") != TURN_KIND]
    if tasks:
        state = {f.subject_id: f.object for f in facts if f.kind == EdgeKind.HAS_STATE and f.valid}
        info: dict[str, list[str]] = {}
        episode_ids = {n.id for n in nodes if n.type == NodeType.EPISODE}
        for f in facts:  # a message linked to a task is shown by its text, below, not by its id
            if f.kind == EdgeKind.CONTAINS_INFO and f.valid and f.object_id not in episode_ids:
                info.setdefault(f.subject_id, []).append(f.object)
        lines.append("Tasks (newest first):")
        for n in tasks:
            line = f"- {n.name}" + (f" [{state[n.id]}]" if n.id in state else "")
            if described := _described(n):
                line += f" {described}"
            if n.id in info:
                line += f" (info: {', '.join(info[n.id])})"
            lines.append(line)
    # What was stated comes before the conversation it came from. Episode links (said,
    # in_session, mentions …) are provenance, shown as the excerpts below.
    plain = [f for f in facts if f.type != "episode" and (f.kind not in (
        EdgeKind.HAS_PERSONA, EdgeKind.HAS_STATE, EdgeKind.NEXT_TASK, EdgeKind.CONTAINS_INFO) or not f.valid)]
    if plain:
        lines.append("Facts:")
        lines.extend(f"- {_line(f)}" for f in plain)
    turns = [n for n in chain if n.metadata.get("kind") == TURN_KIND]
    if turns:  # the conversation's own records, apart from the tasks (those the query reached)
        lines.append("Turns (newest first):")
        lines.extend(f"- {n.created_at:%Y-%m-%d %H:%M} {_described(n) or n.name}" for n in turns)
    episodes = [n for n in nodes if n.type == NodeType.EPISODE]
    if episodes:
        lines.append("Conversation excerpts:")
        lines.extend(f"- {episode_line(n)}" for n in episodes)
    return "\n".join(lines) if lines else "(no memories found)"
