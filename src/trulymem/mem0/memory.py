"""``trulymem.Memory`` / ``AsyncMemory``: mem0's Python API over trulymem's graph.

    from trulymem import Memory
    m = Memory()                                   # the configured database
    m.add("I live in Lisbon", user_id="alice")
    m.search("where do I live", user_id="alice")   # {"results": [{"id", "memory", "score", ...}]}

Both the older top-level ``user_id=`` form and the newer ``filters=`` form work.
Memories live in the same graph as triplets: recall and the dream see both.
"""

from __future__ import annotations

import asyncio
import warnings
from collections.abc import Callable
from datetime import datetime
from typing import Any, TypeVar

from trulymem.config import Settings
from trulymem.embed import get_embedder
from trulymem.errors import InvalidInput, NotFound
from trulymem.llm import LLM, get_llm
from trulymem.mem0 import ops as mem0_ops
from trulymem.model import Scope, utcnow
from trulymem.store.base import Store
from trulymem.store.sqlite import SQLiteStore
from trulymem.tools.base import ToolContext, validation_as_invalid

T = TypeVar("T")


class Memory:
    def __init__(self, db: str | Store | None = None, *, user_id: str | None = None, embedder: str | None = None,
                 llm: LLM | None = None, clock: Callable[[], datetime] = utcnow) -> None:
        settings = Settings.load(db=db if isinstance(db, str) else None, user=user_id, embedder=embedder)
        self.store = db if isinstance(db, Store) else SQLiteStore(settings.db)
        name = settings.embedder
        self.embedder = None if name == "none" else get_embedder(name)
        self.llm = llm if llm is not None else (get_llm(settings.llm) if settings.llm.model else None)
        self.default_user = user_id
        self.clock = clock
        self._warned = False

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> Memory:
        """``{"db": path, "user_id": ..., "embedder": name}`` (other mem0 settings are not needed here)."""
        allowed = {"db", "user_id", "embedder"}
        unknown = sorted(set(config) - allowed)
        if unknown:
            raise InvalidInput(f"unknown settings {unknown}; known: {sorted(allowed)}", field="config")
        return cls(config.get("db"), user_id=config.get("user_id"), embedder=config.get("embedder"))

    def close(self) -> None:
        self.store.close()

    def __enter__(self) -> Memory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _ctx(self, user_id: str | None = None, agent_id: str | None = None, app_id: str | None = None,
             run_id: str | None = None) -> ToolContext:
        scope = mem0_ops.scope_for(Scope.everyone(), user_id or self.default_user, agent_id, app_id, run_id)
        return ToolContext(store=self.store, scope=scope, now=self.clock(), embedder=self.embedder, llm=self.llm)

    def add(self, messages: Any, *, user_id: str | None = None, agent_id: str | None = None,
            run_id: str | None = None, app_id: str | None = None, metadata: dict[str, Any] | None = None,
            infer: bool = True) -> dict[str, Any]:
        ctx = self._ctx(user_id, agent_id, app_id, run_id)
        if ctx.scope.user_id is None:
            raise InvalidInput("add needs a user_id", field="user_id")
        with validation_as_invalid():
            out = mem0_ops.add(ctx, messages, metadata=metadata, infer=infer, llm=self.llm)
        note = out.pop("note", None)
        if note and not self._warned:
            warnings.warn(note, stacklevel=2)
            self._warned = True
        return out

    def search(self, query: str, *, user_id: str | None = None, agent_id: str | None = None,
               run_id: str | None = None, app_id: str | None = None, filters: dict[str, Any] | None = None,
               top_k: int | None = None, limit: int | None = None, threshold: float | None = None) -> dict[str, Any]:
        ctx = self._ctx(user_id, agent_id, app_id)
        filters = _with_run(filters, run_id)
        with validation_as_invalid():
            return mem0_ops.search(ctx, ctx.scope, query, filters=filters, top_k=top_k or limit or 10,
                                   threshold=threshold)

    def get(self, memory_id: str) -> dict[str, Any] | None:
        try:
            with validation_as_invalid():
                return mem0_ops.get(self._ctx(), memory_id, Scope.everyone())
        except NotFound:
            return None

    def get_all(self, *, user_id: str | None = None, agent_id: str | None = None, run_id: str | None = None,
                app_id: str | None = None, filters: dict[str, Any] | None = None, page: int = 1,
                page_size: int | None = None, limit: int | None = None) -> dict[str, Any]:
        ctx = self._ctx(user_id, agent_id, app_id)
        with validation_as_invalid():
            return mem0_ops.get_all(ctx, ctx.scope, filters=_with_run(filters, run_id), page=page,
                                    page_size=page_size or limit or 100)

    def update(self, memory_id: str, text: str | None = None, metadata: dict[str, Any] | None = None, *,
               data: str | None = None) -> dict[str, Any]:
        """``data`` is the older mem0 name of ``text``. Like mem0's, it names only the memory:
        this handle on the whole database changes it as its own user."""
        ctx, text = self._ctx(), text if text is not None else data
        with validation_as_invalid():
            mem0_ops.check_update(text, metadata)  # bad arguments are named before the id is looked up
            return mem0_ops.update(ctx, memory_id, mem0_ops.owner(ctx, memory_id), text=text, metadata=metadata)

    def delete(self, memory_id: str) -> dict[str, Any]:
        ctx = self._ctx()
        with validation_as_invalid():
            return mem0_ops.delete(ctx, memory_id, mem0_ops.owner(ctx, memory_id))

    def delete_all(self, *, user_id: str | None = None, agent_id: str | None = None, run_id: str | None = None,
                   app_id: str | None = None, filters: dict[str, Any] | None = None) -> dict[str, Any]:
        ctx = self._ctx(user_id, agent_id, app_id)
        with validation_as_invalid():
            return mem0_ops.delete_all(ctx, ctx.scope, _with_run(filters, run_id))

    def history(self, memory_id: str) -> list[dict[str, Any]]:
        with validation_as_invalid():
            return mem0_ops.history(self._ctx(), memory_id, Scope.everyone())

    def reset(self) -> dict[str, Any]:
        """Forget every memory of every user in this database (kept in history, like all deletes)."""
        ctx = self._ctx()
        with self.store.transaction():
            users = sorted({r["user_id"] for r in self.store.export_rows(Scope.everyone()) if r["record"] == "user"})
            total = sum(mem0_ops.delete_all(ctx, Scope(user_id=u))["deleted"] for u in users)
        return {"message": f"{total} memories deleted", "deleted": total}


def _with_run(filters: dict[str, Any] | None, run_id: str | None) -> dict[str, Any] | None:
    if run_id is None:
        return filters
    return {"AND": [filters, {"run_id": run_id}]} if filters else {"run_id": run_id}


class AsyncMemory:
    """``Memory`` for asyncio code: the same methods, awaited (run in a worker thread)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.sync = Memory(*args, **kwargs)

    async def _run(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        return await asyncio.to_thread(fn, *args, **kwargs)

    async def add(self, messages: Any, **kw: Any) -> dict[str, Any]:
        return await self._run(self.sync.add, messages, **kw)

    async def search(self, query: str, **kw: Any) -> dict[str, Any]:
        return await self._run(self.sync.search, query, **kw)

    async def get(self, memory_id: str) -> dict[str, Any] | None:
        return await self._run(self.sync.get, memory_id)

    async def get_all(self, **kw: Any) -> dict[str, Any]:
        return await self._run(self.sync.get_all, **kw)

    async def update(self, memory_id: str, text: str | None = None, metadata: dict[str, Any] | None = None,
                     **kw: Any) -> dict[str, Any]:
        return await self._run(self.sync.update, memory_id, text, metadata, **kw)

    async def delete(self, memory_id: str) -> dict[str, Any]:
        return await self._run(self.sync.delete, memory_id)

    async def delete_all(self, **kw: Any) -> dict[str, Any]:
        return await self._run(self.sync.delete_all, **kw)

    async def history(self, memory_id: str) -> list[dict[str, Any]]:
        return await self._run(self.sync.history, memory_id)

    async def reset(self) -> dict[str, Any]:
        return await self._run(self.sync.reset)

    def close(self) -> None:
        self.sync.close()
