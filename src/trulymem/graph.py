"""``TrulyMem``: the Python facade over a store and the memory tools.

Every method is one tool call: validated, run in one transaction, and either
returns the tool's typed result or raises a ``TrulyMemError``. ``call`` is the
same for LLM-facing code: it never raises for bad input, it returns the error
as data.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Callable, Iterable
from datetime import datetime
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from trulymem.embed.base import Embedder
from trulymem.embed.names import cli_name, mismatch
from trulymem.embed.registry import LazyEmbedder
from trulymem.errors import ConfigError
from trulymem.model import Fact, Scope, utcnow
from trulymem.store.base import FactQuery, Store
from trulymem.text import relation_key
from trulymem.tools.base import ToolContext, require_user

# The tool modules, recall and transfer are imported where used: the command line opens a
# TrulyMem for every command and should not pay for what that command never runs.
if TYPE_CHECKING:
    from pydantic import BaseModel

    from trulymem.recall import RecallResult
    from trulymem.tools import ToolResult
    from trulymem.tools.commit import CommitResult
    from trulymem.tools.context import ContextRewriteResult
    from trulymem.tools.persona import PersonaResult
    from trulymem.tools.purge import PurgeResult
    from trulymem.tools.stats import StatsResult
    from trulymem.tools.tasks import TaskInfo, TaskListResult, TaskStateResult


# The module defining each tool the typed methods run: a command that runs one tool imports
# that module only, not every tool's models (tests/test_cli_start.py checks the map).
TOOL_MODULES = {"memory_commit": "commit", "memory_recall": "recall", "memory_purge": "purge",
                "task_create": "tasks", "task_set_state": "tasks", "task_list": "tasks", "persona_set": "persona",
                "persona_get": "persona", "context_rewrite": "context", "memory_stats": "stats",
                "memory_ingest": "ingest"}


def _tool(name: str) -> Any:
    """The registered tool ``name``, importing its module (or, for others, every tool's)."""
    from trulymem.tools import base, get_tool

    if name in TOOL_MODULES:
        importlib.import_module(f"trulymem.tools.{TOOL_MODULES[name]}")
        return base.get_tool(name)
    return get_tool(name)


def _args(**kwargs: Any) -> dict[str, Any]:
    return {k: v for k, v in kwargs.items() if v is not None}


class TrulyMem:
    """Graph memory for one scope (user, optionally agent/app/session).

    >>> mem = TrulyMem(":memory:", user_id="alice")
    >>> mem.commit([{"subject": "user", "relation": "likes", "object": "rock"}]).created  # doctest: +SKIP
    """

    def __init__(
        self,
        store: Store | str | Path = ":memory:",
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        app_id: str | None = None,
        session_id: str | None = None,
        scope: Scope | None = None,
        clock: Callable[[], datetime] = utcnow,
        embedder: Embedder | str | None = None,
    ) -> None:
        # Validate the scope first: a bad user id must not leave a database connection open.
        self.scope = scope or Scope(user_id=user_id, agent_id=agent_id, app_id=app_id, session_id=session_id)
        if isinstance(store, Store):
            self.store = store
        else:
            from trulymem.store import open_store

            self.store = open_store(store)
        self.clock = clock
        try:
            self.embedder = self._embedder(embedder)
            if str(store) == ":memory:" and self.scope.user_id is not None:
                self.ensure_user()  # a new in-memory store holds no mistyped user: reading it is an empty memory
        except BaseException:
            self.store.close()
            raise

    def _embedder(self, choice: Embedder | str | None) -> Embedder | None:
        """The embedder ``choice`` names (built on first use), checked against the database's
        model. ``auto`` is the model the database's vectors come from, else hashing."""
        if choice is None:
            return None
        stored = self.store.embedding_model()
        pending = self.store.settings("reindex.").get("reindex.model")
        if isinstance(choice, str):
            if choice.strip() == "auto" and stored is not None:
                choice = cli_name(stored) or choice
            if choice.strip() == "none":
                return None
            choice = LazyEmbedder(choice)
        if stored is not None and stored != choice.name:
            raise ConfigError(mismatch(stored, choice.name, pending), field="embedder")
        return choice

    @classmethod
    def open(cls, db: str | None = None, *, user_id: str | None = None, agent_id: str | None = None,
             app_id: str | None = None, session_id: str | None = None, embedder: str | None = None) -> TrulyMem:
        """Open the configured database (argument, ``TRULYMEM_DB``, config file, then
        the user data directory) for the configured or given user and embedder."""
        from trulymem.config import Settings

        s = Settings.load(db=db, user=user_id, agent=agent_id, app=app_id, embedder=embedder)
        return cls(s.db, user_id=s.user, agent_id=s.agent, app_id=s.app, session_id=session_id,
                   embedder=None if s.embedder == "none" else s.embedder)

    def with_scope(self, **fields: Any) -> TrulyMem:
        """The same store seen from another scope (fields not given are kept); closing
        either closes the shared store."""
        return TrulyMem(self.store, scope=self.scope.replace(**fields), clock=self.clock, embedder=self.embedder)

    def close(self) -> None:
        self.store.close()

    def __enter__(self) -> TrulyMem:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- generic --------------------------------------------------------------
    def context(self, turn_calls: list[str] | None = None, turn_tokens: int | None = None) -> ToolContext:
        """What a tool call runs against: this store and scope, now."""
        return ToolContext(store=self.store, scope=self.scope, now=self.clock(), turn_calls=turn_calls,
                           turn_tokens=turn_tokens, embedder=self.embedder)

    def run(self, tool: str, args: dict[str, Any], *, turn_calls: list[str] | None = None) -> BaseModel:
        """Run a tool by name; raises ``TrulyMemError`` on bad input."""
        from trulymem.tools.base import run_tool

        return run_tool(_tool(tool), self.context(turn_calls), args)

    def call(self, tool: str, args: dict[str, Any], *, turn_calls: list[str] | None = None) -> ToolResult:
        """Run a tool by name; failures come back as data (for LLM tool loops)."""
        from trulymem.tools import call_tool

        return call_tool(tool, self.context(turn_calls), args)

    # --- the tools, typed -----------------------------------------------------
    def commit(self, triplets: list[dict[str, Any]], *, turn_id: str | None = None,
               message_ids: list[str] | None = None, supersede: bool = True,
               user_message: str | None = None) -> CommitResult:
        """Store triplets; with ``supersede`` (the default) a stated new value of a single-valued
        relation (lives_in, birthday …) replaces the current one, which stays in history. With
        ``user_message``, a fact about the user it does not state is stored as speculation
        (``warnings`` says why)."""
        return self.run("memory_commit", _args(triplets=triplets, turn_id=turn_id, message_ids=message_ids,  # type: ignore[return-value]
                                               supersede=supersede, user_message=user_message))

    def recall(self, query_intent: str = "", *, depth: int = 2, seed_entities: list[str] | None = None,
               limit: int | None = None, time_range: dict[str, Any] | None = None, as_of: datetime | None = None,
               include_invalid: bool = False, preset: str | None = None,
               max_tokens: int | None = None) -> RecallResult:
        return self.run("memory_recall", _args(  # type: ignore[return-value]
            query_intent=query_intent, depth=depth, seed_entities=seed_entities, limit=limit,
            time_range=time_range, as_of=as_of, include_invalid=include_invalid, preset=preset,
            max_tokens=max_tokens))

    def purge(self, criteria: dict[str, Any], *, mode: str = "soft", replacement: dict[str, Any] | None = None,
              confirm: bool = False, dry_run: bool = False) -> PurgeResult:
        return self.run("memory_purge", _args(  # type: ignore[return-value]
            criteria=criteria, mode=mode, replacement=replacement, confirm=confirm, dry_run=dry_run))

    def task_create(self, task_id: str, description: str, info_nodes: list[str] | None = None) -> TaskInfo:
        return self.run("task_create", _args(task_id=task_id, description=description, info_nodes=info_nodes))  # type: ignore[return-value]

    def task_set_state(self, task_id: str, state: str) -> TaskStateResult:
        return self.run("task_set_state", {"task_id": task_id, "state": state})  # type: ignore[return-value]

    def task_list(self, limit: int = 20, state: str | None = None, kind: str = "task") -> TaskListResult:
        return self.run("task_list", _args(limit=limit, state=state, kind=kind))  # type: ignore[return-value]

    def persona_set(self, attributes: dict[str, str | list[str]], mode: str = "merge") -> PersonaResult:
        return self.run("persona_set", {"attributes": attributes, "mode": mode})  # type: ignore[return-value]

    def persona_get(self) -> PersonaResult:
        return self.run("persona_get", {})  # type: ignore[return-value]

    def context_rewrite(self, summary: str, tool_calls_summarized: int, turn_calls: list[str],
                        replaced: str | None = None) -> ContextRewriteResult:
        """Validate a summary of ``turn_calls``; with ``replaced`` (the calls' and results'
        text) it must also be shorter than what it replaces."""
        from trulymem.text.tokenize import count_tokens
        from trulymem.tools.base import run_tool

        ctx = self.context(turn_calls, None if replaced is None else count_tokens(replaced))
        return run_tool(_tool("context_rewrite"), ctx,  # type: ignore[return-value]
                        {"summary": summary, "tool_calls_summarized": tool_calls_summarized})

    def stats(self) -> StatsResult:
        return self.run("memory_stats", {})  # type: ignore[return-value]

    # --- history and transfer -------------------------------------------------
    def reindex(self, *, missing_only: bool = False, batch: int = 256,
                progress: Callable[[int, int], None] | None = None) -> int:
        """Give every node of the database a vector of this facade's embedder and search
        those from then on — all users, since one database holds one model's vectors (see
        ``trulymem.reindex``: atomic for readers, resumable). ``progress(done, total)`` is
        called after each batch. Returns the number of nodes embedded."""
        from trulymem.reindex import reindex

        if self.embedder is None:
            raise ConfigError("reindex needs an embedder", field="embedder")
        return reindex(self.store, self.embedder, missing_only=missing_only, batch=batch, progress=progress).embedded

    def user_exists(self) -> bool:
        """Whether anything was ever written for this scope's user."""
        with self.store.transaction(write=False):
            return self.store.user_exists(self.scope.writable().user_id)  # type: ignore[arg-type]

    def ensure_user(self) -> None:
        """Register the scope's user (writes do this implicitly); reads of a user
        nobody has registered fail with ``NotFound`` to catch mistyped ids."""
        with self.store.transaction():
            self.store.ensure_user(self.scope.writable().user_id, self.clock())  # type: ignore[arg-type]

    def history(self, subject: str, relation: str | None = None) -> list[Fact]:
        """Every version of the subject's facts, valid and invalidated, oldest first."""
        with self.store.transaction(write=False):
            require_user(self.context())
            ids = self.context().node_ids(subject)
            return self.store.facts(FactQuery(
                scope=self.scope, subject_ids=ids, validity="all", newest_first=False,
                relation_keys=[relation_key(relation)] if relation else None,
            ))

    def export_jsonl(self, out: IO[str], *, all_users: bool = False,
                     progress: Callable[[int, int], None] | None = None) -> int:
        """Write the scope's (or every user's) rows as JSON lines; returns the row count.
        ``progress(done, total)`` is called every 1,000 rows."""
        scope = Scope.everyone() if all_users else self.scope
        n = 0
        with self.store.transaction(write=False):
            if not all_users:
                require_user(self.context())
            total = 0
            if progress is not None:
                st = self.store.stats(scope)
                total = st.users + sum(st.nodes_by_type.values()) + sum(
                    v["valid"] + v["invalid"] for v in st.facts_by_kind.values())
            for row in self.store.export_rows(scope):
                out.write(json.dumps(row, ensure_ascii=False, sort_keys=True) + "\n")
                n += 1
                if progress is not None and n % 1000 == 0:
                    progress(n, max(n, total))
        return n

    def import_jsonl(self, lines: Iterable[str], *, all_users: bool = False,
                     progress: Callable[[int, int], None] | None = None) -> dict[str, int]:
        """Import rows written by ``export_jsonl``, all or nothing; identical rows are skipped.
        Then the new nodes get vectors of this facade's embedder, in short transactions of
        their own; ``embedded`` counts them, and ``unembedded`` the nodes still without a
        vector (all new ones without an embedder: ``trulymem reindex --missing`` adds them).
        ``progress(done, total)`` counts the rows, then those nodes.

        Rows must belong to this scope's user unless ``all_users`` (a whole-database restore);
        without it a global scope is read-only, as everywhere."""
        from trulymem.reindex import embed_missing
        from trulymem.transfer import check_rows, parse_lines

        scope = Scope.everyone() if all_users else self.scope.writable()
        rows = parse_lines(lines)
        # One bar for both steps: the rows, then the new nodes' vectors.
        work = len(rows) + (sum(r["record"] == "node" for r in rows) if self.embedder is not None else 0)
        step = progress or (lambda done, total: None)
        with self.store.transaction():
            check_rows(self.store, rows, scope)
            counts = self.store.import_rows(rows, progress=lambda done: step(done, work))
        step(len(rows), work)
        counts["embedded"] = 0 if self.embedder is None else embed_missing(
            self.store, self.embedder, progress=lambda done, total: step(len(rows) + done, len(rows) + total))
        with self.store.transaction(write=False):
            counts["unembedded"] = self.store.count_nodes_without_vectors(
                self.embedder.name if self.embedder is not None else None)
        return counts
