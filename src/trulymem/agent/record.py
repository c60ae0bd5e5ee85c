"""Step 4 of the protocol and the must-write rules, as code.

Every turn becomes a TaskNode in the ``NEXT_TASK`` chain (the seed's
``task_create(task_id="Task_current_turn_ID", description=<summary>, info_nodes=[…])``),
completed as soon as it is recorded, linked by ``CONTAINS_INFO`` to the turn's
two messages (episodes) and to what the turn touched. The topic tasks (the idiom
chain …) keep their own states beside it. What the user stated and the model did
not commit is written here too, with the turn's provenance.
"""

from __future__ import annotations

from collections.abc import Iterable
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from trulymem.agent.extract import Statement
from trulymem.graph import TrulyMem
from trulymem.model import MAX_TEXT, Fact, Node, NodeType, TaskState
from trulymem.recall.chain import TURN_KIND
from trulymem.store.base import FactQuery, NodeQuery
from trulymem.text import name_key, relation_key
from trulymem.text.statements import USER_WORDS, denies
from trulymem.tools.base import embedded_writes
from trulymem.tools.commit import TripletIn, commit_triplets, supersede_single_valued
from trulymem.tools.tasks import create_task

_SNIPPET = 90


def snippet(text: str, n: int = _SNIPPET) -> str:
    one = " ".join(text.split())
    return one if len(one) <= n else one[: n - 1].rstrip() + "…"


def turn_summary(user: str, reply: str, topic: str | None) -> str:
    """The summary written at once, from the turn itself (a model may rewrite it later)."""
    head = f"[{topic}] " if topic else ""
    return f"{head}User: {snippet(user)}" + (f" | AI: {snippet(reply, 70)}" if reply else "")


@dataclass
class TurnRecord:
    """What step 4 needs to know about the turn."""

    turn_id: str
    session: str
    user: str
    reply: str
    at: datetime
    topic: str | None = None  # the long-running task this turn belongs to
    touched: list[str] = field(default_factory=list)  # node names the turn's tools wrote
    pending: bool = False  # a model will summarize it and extract from it later
    episodes: list[str] = field(default_factory=list)  # message ids stored, filled by record_turn

    @property
    def task_id(self) -> str:
        return f"Turn_{self.at:%Y%m%d_%H%M%S}_{self.turn_id[-6:]}"

    @property
    def message_ids(self) -> list[str]:
        return [f"{self.turn_id}:user"] + ([f"{self.turn_id}:AI"] if self.reply else [])


def record_turn(mem: TrulyMem, rec: TurnRecord) -> str:
    """Store the turn's messages as episodes and its TaskNode in the chain; returns the
    task id. The caller holds the transaction (all or nothing)."""
    msgs: list[dict[str, Any]] = []
    for speaker, text, mid in (("user", rec.user, rec.message_ids[0]), ("AI", rec.reply, f"{rec.turn_id}:AI")):
        # A message longer than one episode holds is stored as consecutive parts, never cut.
        for i, part in enumerate(parts(text)):
            msgs.append({"speaker": speaker, "text": part, "id": mid if i == 0 else f"{mid}.{i + 1}",
                         "session": rec.session, "timestamp": rec.at.isoformat()})
    mem.run("memory_ingest", {"messages": msgs})
    rec.episodes = [m["id"] for m in msgs]
    skip = USER_WORDS | {name_key("AI"), name_key(mem.scope.user_id or "")}
    info = [*rec.episodes, *([rec.topic] if rec.topic else []),
            *(n for n in dict.fromkeys(rec.touched) if name_key(n) not in skip and n != rec.topic)]
    meta = {"kind": TURN_KIND, "session": rec.session, "turn_id": rec.turn_id, "topic": rec.topic,
            "post": "pending" if rec.pending else "done"}
    ctx = mem.context()
    # searchable=False: the turn's words are found through its messages, not a second copy
    create_task(ctx, rec.task_id, turn_summary(rec.user, rec.reply, rec.topic), info[:100],
                state=TaskState.COMPLETED, metadata=meta, searchable=False)
    return rec.task_id


def parts(text: str, size: int = MAX_TEXT) -> list[str]:
    """``text`` in pieces of at most ``size`` characters, cut at whitespace where there is some."""
    out: list[str] = []
    rest = text.strip()
    while len(rest) > size:
        cut = rest.rfind(" ", size // 2, size)
        cut = cut if cut > 0 else size
        out.append(rest[:cut].rstrip())
        rest = rest[cut:].lstrip()
    return [*out, rest] if rest else out


def write_statements(mem: TrulyMem, statements: Iterable[Statement], *, turn_id: str, message_ids: list[str],
                     source: str, session: str) -> list[Fact]:
    """Commit what the user stated, unless memory already holds it as a current fact about
    the same thing with the same polarity (the model may have committed it in other words);
    new values of single-valued relations supersede old ones. Returns the facts written."""
    wanted = [s for s in statements if s.subject == "user"]
    if not wanted:
        return []
    ctx = mem.context()
    ctx.scope = ctx.scope.replace(session_id=session)
    ns = ctx.scope.namespace()
    user_ids = ctx.node_ids("user", ns)
    # Only the user's facts about these things: a user's node can carry tens of thousands.
    object_ids = [n.id for n in ctx.store.nodes(NodeQuery(scope=ns, keys=list({name_key(s.object) for s in wanted})))]
    current = ctx.store.facts(FactQuery(scope=ctx.scope.user_wide(), subject_ids=user_ids, object_ids=object_ids)) \
        if user_ids and object_ids else []
    held = {(name_key(f.object or ""), _polarity(f.relation)): f for f in current}
    fresh: list[TripletIn] = []
    for s in wanted:
        prior = held.get((name_key(s.object), _polarity(s.relation)))
        if prior is not None and (prior.turn_id == turn_id or relation_key(prior.relation) != relation_key(s.relation)):
            continue  # already stored this turn, or in other words
        fresh.append(TripletIn(**s.triplet(source)))
    if not fresh:
        return []
    done = commit_triplets(ctx, fresh, turn_id=turn_id, message_ids=message_ids)
    supersede_single_valued(ctx, [f for f, st in done if st == "created"])
    return [f for f, _ in done]


def writing(mem: TrulyMem) -> AbstractContextManager[None]:
    """One write transaction for the runtime's own writes, vectors included, as every tool call."""
    return embedded_writes(mem.store, mem.embedder)


def _polarity(relation: str) -> bool:
    return not denies(relation)


def turn_nodes(mem: TrulyMem, limit: int) -> list[Node]:
    """The newest ``limit`` TaskNodes of the chain (turn records and topic tasks), newest first."""
    ns = mem.scope.writable().namespace()
    return mem.store.nodes(NodeQuery(scope=ns, types=[NodeType.TASK], limit=limit))
