"""The working-memory task chain: ``task_create``, ``task_set_state``, ``task_list``.

Each task is a ``TaskNode`` with exactly one valid ``HAS_STATE`` fact, optional
``CONTAINS_INFO`` facts, and a ``NEXT_TASK`` fact from the task created before
it, so the chain is a real list in the graph, ordered by when each task was
written (under the write lock), whatever the writers' clocks say; the store
refuses a second successor or predecessor.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, Field

from trulymem.errors import Conflict, InvalidInput, NotFound
from trulymem.model import EdgeKind, Node, NodeType, Scope, TaskState
from trulymem.recall import chain
from trulymem.recall.chain import DESCRIPTION, TURN_KIND, TURN_PREFIX
from trulymem.recall.results import shown_messages
from trulymem.store.base import FactQuery, NodeQuery, Store
from trulymem.text import name_key
from trulymem.text.statements import USER_WORDS
from trulymem.tools.base import Tool, ToolContext, ToolInput, register, require_user
from trulymem.tools.commit import TripletIn, commit_triplets
from trulymem.tools.fields import Name, Text
from trulymem.tools.persona import AI_NODE


class TaskCreateInput(ToolInput):
    task_id: Name = Field(description="A unique task name, e.g. 'Task_idiom_chain'.")
    description: Text = Field(description="What this task/turn is about, e.g. 'Idiom chain game, current: 为所欲为'.")
    info_nodes: list[Name] = Field(default_factory=list, max_length=100, description="Names of related memory nodes.")


class TaskSetStateInput(ToolInput):
    task_id: Name
    state: str = Field(description="in_progress, paused, completed, cancelled or archived (进行中/已暂停/已完成/已取消/归档).")


class TaskListInput(ToolInput):
    limit: int = Field(20, ge=1, le=500)
    state: str | None = Field(None, description="Only tasks currently in this state.")
    kind: Literal["task", "turn", "all"] = Field(
        "task", description="Tasks ('task', the default), the records of conversation turns ('turn'), or the "
                            "whole chain ('all'), newest first: turns are listed apart from tasks.")


class TaskInfo(BaseModel):
    task_id: str
    node_id: str
    description: str | None
    state: str | None
    previous_task: str | None = None
    info_nodes: list[str] = Field(default_factory=list)
    created_at: str
    kind: str = Field("task", description="'turn' for the record of one conversation turn, else 'task'.")


class TaskStateResult(BaseModel):
    task_id: str
    previous_state: str | None
    state: str
    changed: bool


class TaskListResult(BaseModel):
    tasks: list[TaskInfo]




def description_of(task: Node) -> str | None:
    return task.summary or task.metadata.get(DESCRIPTION)


def _find_task(ctx: ToolContext, task_id: str) -> Node:
    require_user(ctx)
    found = ctx.store.nodes(NodeQuery(scope=ctx.scope, keys=[name_key(task_id)], types=[NodeType.TASK]))
    if not found:
        raise NotFound(f"no task named {task_id!r}", field="task_id")
    if len(found) > 1:
        raise InvalidInput(f"{task_id!r} names tasks of several agents/apps; set agent_id or app_id", field="task_id")
    return found[0]


def _task_create(ctx: ToolContext, inp: TaskCreateInput) -> TaskInfo:
    if name_key(inp.task_id).startswith(TURN_PREFIX):
        # the protocol's record of one turn (step 4): done once written, listed apart from the
        # tasks, so a paused topic is not pushed out of the open tasks by the turns after it
        return create_task(ctx, inp.task_id, inp.description, inp.info_nodes, state=TaskState.COMPLETED,
                           metadata={"kind": TURN_KIND})
    return create_task(ctx, inp.task_id, inp.description, inp.info_nodes)


def create_task(ctx: ToolContext, task_id: str, description: str, info_nodes: list[str], *,
                state: TaskState = TaskState.IN_PROGRESS, metadata: dict[str, Any] | None = None,
                searchable: bool = True) -> TaskInfo:
    """A TaskNode at the head of the chain (``NEXT_TASK`` from the current head), in ``state``,
    linked by ``CONTAINS_INFO`` to ``info_nodes``: plain entities among them become InfoNodes,
    whether they were committed before or after (typed nodes keep their type). Without
    ``searchable`` the description is kept in the node's metadata, out of the full-text and
    vector indexes (a turn record's words are its messages', which are indexed themselves)."""
    with ctx.store.transaction():  # joins the caller's: the head is read under the write lock
        return _create_task(ctx, task_id, description, info_nodes, state, metadata, searchable)


def _create_task(ctx: ToolContext, task_id: str, description: str, info_nodes: list[str], state: TaskState,
                 metadata: dict[str, Any] | None, searchable: bool) -> TaskInfo:
    key = name_key(task_id)
    ns = ctx.scope.writable().namespace()  # the chain this scope writes
    for node in ctx.store.nodes(NodeQuery(scope=ns, keys=[key])):
        if node.type == NodeType.TASK:
            raise Conflict(f"task {task_id!r} already exists; use task_set_state to change it", field="task_id")
        # Retyping a node that already carries memories would mix them into the chain (and its order).
        if node.type != NodeType.ENTITY or ctx.store.count_facts(FactQuery(scope=ns, node_ids=[node.id],
                                                                             validity="all")):
            raise Conflict(f"{task_id!r} already names a {node.type} with memories; choose another task_id",
                           field="task_id")
    if key in {name_key(i) for i in info_nodes}:
        raise InvalidInput("a task cannot be its own info node", field="info_nodes")
    # The head, not the newest by time: clocks of concurrent writers disagree, and only the
    # write lock we hold orders them (the store's unique indexes refuse a second successor).
    head = ctx.store.chain_head(ns)
    previous = [head] if head is not None else []
    triplets = [
        TripletIn(subject=task_id, subject_type=NodeType.TASK, relation=EdgeKind.HAS_STATE,
                  object=state.value, object_type=NodeType.STATE),
    ]
    if previous:
        triplets.append(TripletIn(subject=previous[0].name, subject_type=NodeType.TASK, relation=EdgeKind.NEXT_TASK,
                                  object=task_id, object_type=NodeType.TASK))
    roots = USER_WORDS | {name_key(AI_NODE), name_key(ctx.scope.user_id or "")}  # linked, never retyped
    triplets += [TripletIn(subject=task_id, relation=EdgeKind.CONTAINS_INFO, object=info,
                           object_type=None if name_key(info) in roots else NodeType.INFO)
                 for info in dict.fromkeys(info_nodes)]
    done = commit_triplets(ctx, triplets)
    task_node = ctx.store.nodes(NodeQuery(scope=ns, keys=[key], types=[NodeType.TASK]))[0]
    meta = metadata if searchable else {**(metadata or {}), DESCRIPTION: description}
    ctx.store.update_node(task_node.id, ctx.now, summary=description if searchable else None, metadata=meta)
    return TaskInfo(
        task_id=task_node.name, node_id=task_node.id, description=description,
        state=state.value, previous_task=previous[0].name if previous else None,
        info_nodes=[f.object or "" for f, _ in done if f.kind == EdgeKind.CONTAINS_INFO],
        created_at=task_node.created_at.isoformat(), kind=str((metadata or {}).get("kind") or "task"),
    )


def current_states(ctx: ToolContext, task_ids: list[str]) -> dict[str, str]:
    facts = ctx.store.facts(FactQuery(scope=ctx.scope.user_wide(),
                                      subject_ids=task_ids, kinds=[EdgeKind.HAS_STATE]))
    return {f.subject_id: f.object for f in facts}  # type: ignore[misc]


def _task_set_state(ctx: ToolContext, inp: TaskSetStateInput) -> TaskStateResult:
    ctx.scope.writable()
    state = TaskState.parse(inp.state)
    task = _find_task(ctx, inp.task_id)
    current = ctx.store.facts(FactQuery(scope=ctx.scope.user_wide(), subject_ids=[task.id], kinds=[EdgeKind.HAS_STATE]))
    previous = current[0].object if current else None
    if [f.object for f in current] == [state.value]:
        return TaskStateResult(task_id=task.name, previous_state=previous, state=state.value, changed=False)
    ctx.store.invalidate_facts([f.id for f in current], ctx.now)
    commit_triplets(ctx.beside(task.agent_id, task.app_id), [TripletIn(
        subject=task.name, subject_type=NodeType.TASK, relation=EdgeKind.HAS_STATE,
        object=state.value, object_type=NodeType.STATE,
    )])
    return TaskStateResult(task_id=task.name, previous_state=previous, state=state.value, changed=True)


_KIND_SCAN = 5000  # chain entries read at most to find ``limit`` of one kind


def list_tasks(ctx: ToolContext, limit: int, state: TaskState | None = None, *,
               states: list[TaskState] | None = None, kind: str | None = None) -> list[TaskInfo]:
    """The chain newest first, or only the tasks currently in ``state`` (or any of ``states``);
    ``kind`` "task" or "turn": only tasks, or only turn records (a turn is a TaskNode too,
    and thousands of them would push the tasks out of a newest-first page)."""
    wanted = states or ([state] if state else None)
    if wanted:
        tasks = [t for t in chain.tasks_in_state(ctx.store, ctx.scope, wanted, _KIND_SCAN if kind else limit)
                 if kind is None or chain.is_turn(t) == (kind == "turn")][:limit]
    elif kind:
        tasks = chain_entries(ctx.store, ctx.scope, limit, kind == "turn")
    else:
        tasks = ctx.store.nodes(NodeQuery(scope=ctx.scope, types=[NodeType.TASK], limit=limit))
    return task_infos(ctx, tasks)


def chain_entries(store: Store, scope: Scope, limit: int, turns: bool, before: datetime | None = None,
                  page: int = 200) -> list[Node]:
    """The newest ``limit`` chain entries (created by ``before``) that are (or are not) turn
    records, read a page at a time."""
    out: list[Node] = []
    seen: set[str] = set()
    while len(out) < limit and len(seen) < _KIND_SCAN:
        read = store.nodes(NodeQuery(scope=scope, types=[NodeType.TASK], limit=page, created_before=before))
        fresh = [n for n in read if n.id not in seen]  # created_before is inclusive: ties come again
        if not fresh:
            break
        seen.update(n.id for n in fresh)
        out += [n for n in fresh if chain.is_turn(n) == turns]
        before = read[-1].created_at
    return out[:limit]


def task_infos(ctx: ToolContext, tasks: list[Node]) -> list[TaskInfo]:
    if not tasks:
        return []
    ids = [t.id for t in tasks]
    states = current_states(ctx, ids)
    links = ctx.store.facts(FactQuery(scope=ctx.scope.user_wide(),
                                      node_ids=ids, kinds=[EdgeKind.NEXT_TASK, EdgeKind.CONTAINS_INFO],
                                      newest_first=False))
    prev = {f.object_id: f.subject for f in links if f.kind == EdgeKind.NEXT_TASK}
    info: dict[str, list[str]] = {}
    wanted = set(ids)
    shown = shown_messages(ctx.store, ctx.scope, [f for f in links if f.kind == EdgeKind.CONTAINS_INFO])
    for f in links:
        if f.kind == EdgeKind.CONTAINS_INFO and f.subject_id in wanted:  # a message by its words, never its id
            info.setdefault(f.subject_id, []).append(shown.get(f.object_id) or f.object or "")
    return [
        TaskInfo(task_id=t.name, node_id=t.id, description=description_of(t), state=states.get(t.id),
                 previous_task=prev.get(t.id), info_nodes=info.get(t.id, []), created_at=t.created_at.isoformat(),
                 kind=str(t.metadata.get("kind") or "task"))
        for t in tasks
    ]


def _task_list(ctx: ToolContext, inp: TaskListInput) -> TaskListResult:
    require_user(ctx)
    state = TaskState.parse(inp.state) if inp.state else None
    return TaskListResult(tasks=list_tasks(ctx, inp.limit, state, kind=None if inp.kind == "all" else inp.kind))


task_create = register(Tool(
    name="task_create",
    description=(
        "Record this turn or a new task in the working-memory chain: a TaskNode in state in_progress, "
        "linked by NEXT_TASK from the previous task and by CONTAINS_INFO to related memory nodes. A task_id "
        "starting with 'Turn_' records one conversation turn: it is stored completed and listed apart from tasks."
    ),
    input_model=TaskCreateInput,
    run=_task_create,
))
task_set_state = register(Tool(
    name="task_set_state",
    description="Change a task's state (in_progress, paused, completed, cancelled, archived); the old state is kept in history.",
    input_model=TaskSetStateInput,
    run=_task_set_state,
    idempotent=True,
))
task_list = register(Tool(
    name="task_list",
    description="The working-memory task chain, newest first, with each task's current state and info nodes.",
    input_model=TaskListInput,
    run=_task_list,
    writes=False,
))
