"""Steps 1 and 2 of the memory protocol, done in code before the model is called:
the persona and the working-memory task chain (plus what memory holds about
the user's message) rendered into one compact system context within a token
budget — so a turn that needs no tool is one round trip.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field

from trulymem.agent.record import turn_nodes
from trulymem.graph import TrulyMem
from trulymem.model import EdgeKind, Node, NodeType, TaskState
from trulymem.recall.chain import is_turn
from trulymem.recall.render import render_text
from trulymem.store.base import FactQuery, NodeQuery
from trulymem.text import name_key
from trulymem.text.tokenize import count_tokens
from trulymem.tools.base import ToolContext
from trulymem.tools.ingest import latest_episodes
from trulymem.tools.recall import MAX_QUERY
from trulymem.tools.tasks import TaskInfo, description_of, list_tasks

_SHOWN_TYPES = {NodeType.TASK.value, NodeType.STATE.value, NodeType.PERSONA.value}
_SHOWN_KINDS = {EdgeKind.HAS_STATE.value, EdgeKind.NEXT_TASK.value, EdgeKind.CONTAINS_INFO.value,
                EdgeKind.HAS_PERSONA.value}
_LIST_MARKS = re.compile(r"[,，、;；|]+")
DEFAULT_IDENTITY = "You are TrulyMEM, a helpful assistant with long-term memory."

# "just now / before / last time / that thing" and their Chinese forms: the user
# points at something earlier, so the chain and older turns are recalled deeper.
HISTORY_REFERENCE = re.compile(
    r"\b(?:just now|earlier|before|last time|previous(?:ly)?|that thing|the other (?:day|thing)|"
    r"we (?:talked|discussed|said)|you (?:said|told me|mentioned)|again|continue|resume|back to)\b"
    r"|刚才|刚刚|之前|上次|上回|以前|那个|那件事|继续|接着|回到",
    re.IGNORECASE,
)

RULES = """\
How your memory works: there is no chat history. Everything you know about earlier turns is in the
sections above, recalled from a graph memory; whatever is not written to memory is forgotten.
- When the user states a preference, a fact about themselves, a plan or their situation, store it
  with memory_commit (subject "user"). Anything you only infer must be stored with speculation=true.
- The task chain is your working memory. When the user changes topic, pause the current task
  (task_set_state) and task_create a new one; when they come back, set the old one in_progress.
  Keep state that must survive the turn (a game's current move, a draft) in memory_commit facts
  attached to the task via task_create info_nodes.
- Use memory_recall for anything older that is not shown above; memory_purge to correct or forget.
- After many tool calls you may call context_rewrite alone, naming each tool and how many calls it
  summarizes; the tool results are then replaced by your summary.
- Answer in the persona's voice."""


@dataclass
class Recalled:
    """What the runtime put in front of the model this turn (part of the trace)."""

    persona: dict[str, str | list[str]] = field(default_factory=dict)
    tasks: list[TaskInfo] = field(default_factory=list)  # open topic tasks: in progress or paused
    chain: list[TaskInfo] = field(default_factory=list)  # the newest chain entries, turn records included
    task_info: dict[str, list[str]] = field(default_factory=dict)  # task -> "node: relation object" lines
    last_turns: list[str] = field(default_factory=list)
    previous_session: list[str] = field(default_factory=list)  # "last time": the session before this one
    previous_session_at: str | None = None
    memories: str = ""
    history_reference: str | None = None
    tokens: int = 0
    ms: float = 0.0


@dataclass(frozen=True)
class ContextBudget:
    total: int = 1500          # tokens for everything recalled
    open_tasks: int = 100      # open tasks (in progress or paused): every one, each turn, up to this many
    tasks: int = 6             # chain entries shown on an ordinary turn
    tasks_deep: int = 20       # ... and when the user refers to earlier turns
    previous_turns: int = 8    # turns of the previous session shown for "last time"
    session_scan: int = 500    # chain entries searched for the previous session
    last_turns: int = 2        # latest turn records (user + reply) shown
    last_turns_deep: int = 6
    info_facts: int = 6        # facts shown per info node of a task


def history_reference(text: str) -> str | None:
    m = HISTORY_REFERENCE.search(text)
    return m.group(0) if m else None


def _task_lines(tasks: list[TaskInfo], info: dict[str, list[str]]) -> list[str]:
    lines = []
    for t in tasks:
        lines.append(f"- {t.task_id} [{t.state or '?'}] {t.description or ''}".rstrip())
        lines.extend(f"    {x}" for x in info.get(t.task_id, []))
    return lines


def _chain_lines(chain: list[TaskInfo]) -> list[str]:
    return [f"- {t.created_at[:16].replace('T', ' ')} {t.task_id if t.kind != 'turn' else 'turn'}"
            f"{'' if t.kind == 'turn' else f' [{t.state}]'}: {t.description or ''}".rstrip() for t in chain]


def recall_context(mem: TrulyMem, ctx: ToolContext, text: str, session: str,
                   budget: ContextBudget | None = None) -> Recalled:
    budget = budget or ContextBudget()
    t0 = time.perf_counter()
    out = Recalled(history_reference=history_reference(text))
    deep = out.history_reference is not None
    n_tasks = budget.tasks_deep if deep else budget.tasks
    out.persona = mem.persona_get().attributes
    # every open task, however many turns or other tasks came since (the protocol's step 2)
    out.tasks = list_tasks(ctx, budget.open_tasks, states=[TaskState.IN_PROGRESS, TaskState.PAUSED], kind="task")
    out.task_info = _info_facts(ctx, out.tasks, budget.info_facts)
    out.chain = list_tasks(ctx, n_tasks)
    episodes = latest_episodes(ctx, ctx.scope.writable().namespace(), session,
                               budget.last_turns_deep if deep else budget.last_turns)
    out.last_turns = [n.summary or n.name for n in episodes]
    if deep:
        _previous_session(mem, out, session, budget)
    used = count_tokens("\n".join([*map(str, out.persona.values()), *_task_lines(out.tasks, out.task_info),
                                   *_chain_lines(out.chain), *out.last_turns, *out.previous_session]))
    left = max(0, budget.total - used)
    if text.strip() and left > 50:
        # A message is words, not a comma-separated intent: recall it as one list of words.
        query = _LIST_MARKS.sub(" ", text)[:MAX_QUERY]  # a long message: its beginning is the query
        res = mem.recall(query, depth=3 if deep else 1, max_tokens=left, preset="deep" if deep else None)
        # What the sections above already show (persona, chain, latest turns) is not repeated.
        shown = {n.id for n in episodes}
        nodes = [n for n in res.nodes if n.type not in _SHOWN_TYPES and n.id not in shown]
        facts = [f for f in res.facts if f.kind not in _SHOWN_KINDS]
        out.memories = _within(render_text(nodes, facts), left) if nodes or facts else ""
    out.ms = (time.perf_counter() - t0) * 1000
    return out


def _within(text: str, budget: int) -> str:
    """``text`` cut to whole lines within ``budget`` tokens: the recall budgets its own
    rendering, which holds items this context shows elsewhere or leaves out."""
    lines = text.splitlines()
    while lines and count_tokens("\n".join(lines)) > budget:
        lines.pop()
    return "\n".join(lines)


def _previous_session(mem: TrulyMem, out: Recalled, session: str, budget: ContextBudget) -> None:
    """The turns of the most recent earlier session, found by time (the chain), not by words:
    "what did we talk about last time?" shares no word with the answer."""
    turns: list[Node] = []
    previous: str | None = None
    for node in turn_nodes(mem, budget.session_scan):  # newest first
        s = node.metadata.get("session") if is_turn(node) else None
        if s is None or s == session:
            if previous is not None and s == session:
                break
            continue
        if previous is None:
            previous = str(s)
        elif s != previous:
            break
        turns.append(node)
    turns = turns[: budget.previous_turns][::-1]
    if turns:
        out.previous_session_at = f"{turns[0].created_at:%Y-%m-%d %H:%M}"
        out.previous_session = [f"- {n.created_at:%H:%M} {description_of(n) or ''}" for n in turns]


def _info_facts(ctx: ToolContext, tasks: list[TaskInfo], per_node: int) -> dict[str, list[str]]:
    """Current facts of each task's info nodes (turn records left out: they are shown as turns)."""
    names = {i for t in tasks for i in t.info_nodes}
    if not names:
        return {}
    nodes = [n for n in ctx.store.nodes(NodeQuery(scope=ctx.scope, keys=[name_key(x) for x in names]))
             if n.type != NodeType.EPISODE]
    facts = ctx.store.facts(FactQuery(scope=ctx.scope.user_wide(), subject_ids=[n.id for n in nodes],
                                      newest_first=True, limit=per_node * len(nodes) + 50))
    lines: dict[str, list[str]] = {}
    for n in nodes:
        mine = [f for f in facts if f.subject_id == n.id][:per_node]
        lines[n.key] = [f"{n.name}: {f.relation} {f.object}" for f in reversed(mine)]
    out: dict[str, list[str]] = {}
    for t in tasks:
        rows = [ln for i in t.info_nodes for ln in lines.get(name_key(i), [])]
        if rows:
            out[t.task_id] = rows
    return out


def system_prompt(r: Recalled, identity: str = DEFAULT_IDENTITY) -> str:
    parts = [identity]
    if r.persona:
        parts.append("## Persona (from memory; stay in it)\n" + "\n".join(
            f"{k}: {', '.join(v) if isinstance(v, list) else v}" for k, v in r.persona.items()))
    else:
        parts.append("## Persona\nNone stored: use the default identity.")
    parts.append("## Open tasks (working memory: in progress or paused)\n"
                 + ("\n".join(_task_lines(r.tasks, r.task_info)) or "None."))
    chain_tasks = [t for t in r.chain if t.kind != "turn"]
    if chain_tasks:
        parts.append("## Task chain (tasks in time order, newest first)\n" + "\n".join(_chain_lines(chain_tasks)))
    turns = [t for t in r.chain if t.kind == "turn"]
    if turns:  # the chain's turn records, apart from the tasks
        parts.append("## Recent turns (newest first)\n" + "\n".join(_chain_lines(turns)))
    if r.previous_session:
        parts.append(f"## Last time: the previous conversation ({r.previous_session_at}, oldest first)\n"
                     + "\n".join(r.previous_session))
    if r.last_turns:
        parts.append("## Latest messages of this conversation (from memory)\n" + "\n".join(r.last_turns))
    if r.memories:
        parts.append("## Memories related to the user's message\n" + r.memories)
    if r.history_reference:
        parts.append(f"(The user refers to earlier conversation — {r.history_reference!r}; the chain and "
                     "turns above were recalled deeper. Use memory_recall if it is still not there.)")
    parts.append(RULES)
    prompt = "\n\n".join(parts)
    r.tokens = count_tokens(prompt)
    return prompt
