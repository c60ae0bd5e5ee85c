"""The working-memory chain for a query that asks for it (step 2 of the memory protocol):
every open task (in progress or paused) with its state, its info nodes and their facts,
however many turn records were written since — beside the newest entries of the chain.

Turn records (one TaskNode per conversation turn, ``metadata.kind == "turn"``) stay in
the chain; they are the newest entries, so "the newest N tasks" alone loses a paused
topic after N turns.
"""

from __future__ import annotations

from dataclasses import dataclass

from trulymem.model import EdgeKind, Fact, Node, NodeType, Scope, TaskState
from trulymem.store.base import FactQuery, NodeQuery, Store, When

OPEN_STATES = (TaskState.IN_PROGRESS, TaskState.PAUSED)
TURN_KIND = "turn"  # node metadata "kind" of a per-turn record (agent/record.py writes them)
TURN_PREFIX = "turn_"  # name key of a turn record task_create writes for a client (the protocol's step 4)
DESCRIPTION = "description"  # node metadata key of a description kept out of the search indexes


def is_turn(node: Node) -> bool:
    return node.type == NodeType.TASK and node.metadata.get("kind") == TURN_KIND


def tasks_in_state(store: Store, scope: Scope, states: list[TaskState] | tuple[TaskState, ...], limit: int | None,
                   when: When | None = None) -> list[Node]:
    """The newest ``limit`` tasks whose state is one of ``states``, newest first — found through
    the state nodes, so thousands of finished turn records are never scanned."""
    when = when or When()
    state_ids = [n.id for n in store.nodes(NodeQuery(scope=scope, keys=[s.value for s in states],
                                                     types=[NodeType.STATE], created_before=when.as_of))]
    if not state_ids:
        return []
    facts = store.facts(FactQuery(scope=scope.user_wide(), object_ids=state_ids, kinds=[EdgeKind.HAS_STATE],
                                  validity=when.validity, as_of=when.as_of))
    ids = list(dict.fromkeys(f.subject_id for f in facts))
    return store.nodes(NodeQuery(scope=scope, ids=ids, types=[NodeType.TASK], limit=limit,
                                 created_before=when.as_of)) if ids else []


@dataclass
class OpenChain:
    tasks: list[Node]   # open tasks, newest first
    facts: list[Fact]   # their HAS_STATE and CONTAINS_INFO facts, then their info nodes' own facts


def open_chain(store: Store, scope: Scope, when: When, info_facts: int, max_tasks: int = 50) -> OpenChain:
    """Every open task (at most ``max_tasks``) with its state and info links, and the newest
    ``info_facts`` facts of each info node (a game's current move, a draft)."""
    tasks = [t for t in tasks_in_state(store, scope, OPEN_STATES, max_tasks, when) if not is_turn(t)]
    if not tasks:
        return OpenChain([], [])
    wide = scope.user_wide()
    links = store.facts(FactQuery(scope=wide, subject_ids=[t.id for t in tasks],
                                  kinds=[EdgeKind.HAS_STATE, EdgeKind.CONTAINS_INFO],
                                  validity=when.validity, as_of=when.as_of))
    info_ids = list(dict.fromkeys(f.object_id for f in links if f.kind == EdgeKind.CONTAINS_INFO))
    own: list[Fact] = []
    if info_ids and info_facts:
        held = store.facts(FactQuery(scope=wide, subject_ids=info_ids, validity=when.validity, as_of=when.as_of,
                                     limit=info_facts * len(info_ids) + 50))
        count: dict[str, int] = {}
        for f in held:  # newest first: each info node's newest few
            if f.type != "episode" and count.get(f.subject_id, 0) < info_facts:
                count[f.subject_id] = count.get(f.subject_id, 0) + 1
                own.append(f)
    return OpenChain(tasks, [*links, *own])
