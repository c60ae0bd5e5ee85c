"""``trulymem.Memory`` / ``AsyncMemory``: mem0's Python API over trulymem's graph.

    from trulymem import Memory
    m = Memory()                                   # the configured database
    m.add("I live in Lisbon", user_id="alice")
    m.search("where do I live", user_id="alice")   # {"results": [{"id", "memory", "score", ...}]}

Both the older top-level ``user_id=`` form and the newer ``filters=`` form work, and
``Memory.from_config(config_dict=...)`` reads mem0's configuration (``trulymem.mem0.config``).
A filter's ``"*"`` matches every memory, as over mem0's default vector store.
Memories live in the same graph as triplets: recall and the dream see both.
"""

from __future__ import annotations

import asyncio
import warnings
from collections.abc import Callable
from datetime import datetime
from typing import Any, TypeVar

from trulymem.config import Settings
from trulymem.embed import Embedder, get_embedder
from trulymem.errors import InvalidInput, NotFound
from trulymem.filters import with_run
from trulymem.llm import LLM, get_llm
from trulymem.mem0 import history as mem0_history
from trulymem.mem0 import ops as mem0_ops
from trulymem.mem0.config import read_config
from trulymem.model import Scope, utcnow
from trulymem.store import open_store
from trulymem.store.base import Store
from trulymem.tools.base import ToolContext, validation_as_invalid

T = TypeVar("T")
MEM0_KEYS = ("id", "memory", "hash", "metadata", "score", "created_at", "updated_at")  # mem0's MemoryItem
PROMOTED = ("user_id", "agent_id", "run_id", "actor_id", "role")  # shown by mem0 where the memory has them


class Memory:
    def __init__(self, db: str | Store | None = None, *, user_id: str | None = None,
                 embedder: str | Embedder | None = None, llm: LLM | None = None,
                 clock: Callable[[], datetime] = utcnow, prompt: str | None = None) -> None:
        settings = Settings.load(db=db if isinstance(db, str) else None, user=user_id,
                                 embedder=embedder if isinstance(embedder, str) else None)
        self.store = db if isinstance(db, Store) else open_store(settings.db)
        name = settings.embedder
        self.embedder = embedder if isinstance(embedder, Embedder) else None if name == "none" else get_embedder(name)
        self.llm = llm if llm is not None else (get_llm(settings.llm) if settings.llm.model else None)
        self.default_user = user_id
        self.clock = clock
        self.prompt = prompt  # mem0's custom_fact_extraction_prompt: add's default instructions
        self._warned = False

    @classmethod
    def from_config(cls, config_dict: dict[str, Any]) -> Memory:
        """mem0's ``Memory.from_config(config_dict=...)``: mem0's keys (``llm``, ``embedder``,
        ``vector_store`` …, see ``trulymem.mem0.config``) and trulymem's (``db``, ``user_id``,
        ``embedder`` as a name). Settings trulymem has no use for are ignored with a warning;
        ones it cannot honour are an ``InvalidInput`` naming them."""
        read = read_config(config_dict)
        embedder: str | Embedder | None = read.embedder
        if read.embedder and read.embedder.startswith("openai:") and (read.embed_api_key or read.embed_base_url):
            from trulymem.embed.adapters import OpenAIEmbedder

            embedder = OpenAIEmbedder(read.embedder.removeprefix("openai:"), base_url=read.embed_base_url,
                                      api_key=read.embed_api_key)
        return cls(read.db, user_id=read.user_id, embedder=embedder,
                   llm=get_llm(read.llm) if read.llm is not None else None, prompt=read.prompt)

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

    def _filtered(self, filters: Any, user_id: str | None, agent_id: str | None, app_id: str | None) -> ToolContext:
        """The context of a filtered call: the ids named as arguments, else in the filters,
        else this handle's default user (an argument and a filter that differ: refused)."""
        ctx = self._ctx()
        defaults = Scope(user_id=self.default_user) if self.default_user else Scope.everyone()
        return ctx.within(mem0_ops.filtered_scope(defaults, filters, user_id, agent_id, app_id))

    def add(self, messages: Any, *, user_id: str | None = None, agent_id: str | None = None,
            run_id: str | None = None, metadata: dict[str, Any] | None = None, timestamp: Any = None,
            expiration_date: Any = None, infer: bool = True, memory_type: str | None = None,
            prompt: str | None = None, app_id: str | None = None) -> dict[str, Any]:
        """mem0's ``add``. ``prompt`` is added to the extraction instructions; ``timestamp``
        (platform-only in mem0 too), ``expiration_date`` and ``memory_type`` are refused."""
        _unsupported(timestamp=timestamp, expiration_date=expiration_date, memory_type=memory_type)
        ctx = self._ctx(user_id, agent_id, app_id, run_id)
        if ctx.scope.user_id is None:
            raise InvalidInput("add needs a user_id", field="user_id")
        with validation_as_invalid():
            out = mem0_ops.add(ctx, messages, metadata=metadata, infer=infer, llm=self.llm,
                               prompt=prompt if prompt is not None else self.prompt)
        note = out.pop("note", None)
        if note and not self._warned:
            warnings.warn(note, stacklevel=2)
            self._warned = True
        return out

    def search(self, query: str, *, top_k: int = 20, filters: dict[str, Any] | None = None,
               threshold: float | None = None, rerank: bool = False, explain: bool = False,
               reference_date: Any = None, show_expired: bool = False, user_id: str | None = None,
               agent_id: str | None = None, run_id: str | None = None, app_id: str | None = None,
               limit: int | None = None) -> dict[str, Any]:
        """mem0's ``search``. Recall already ranks (lexical, vector and graph), so ``rerank``
        changes nothing; ``explain`` and ``show_expired`` are accepted and change nothing (no
        score details, no expiry here); ``reference_date`` is refused, as in mem0."""
        _unsupported(reference_date=reference_date)
        _flags(rerank=rerank, explain=explain, show_expired=show_expired)
        with validation_as_invalid():
            ctx = self._filtered(filters, user_id, agent_id, app_id)
            out = mem0_ops.search(ctx, ctx.scope, query, filters=with_run(filters, run_id),
                                  top_k=limit if limit is not None else top_k, threshold=threshold, wildcard_any=True)
        return {"results": [mem0_item(r, score=True) for r in out["results"]]}

    def get(self, memory_id: str) -> dict[str, Any] | None:
        try:
            with validation_as_invalid():
                return mem0_item(mem0_ops.get(self._ctx(), memory_id, Scope.everyone()), score=True)
        except NotFound:
            return None

    def get_all(self, *, filters: dict[str, Any] | None = None, top_k: int | None = None,
                show_expired: bool = False, user_id: str | None = None, agent_id: str | None = None,
                run_id: str | None = None, app_id: str | None = None, page: int | None = None,
                page_size: int | None = None, limit: int | None = None) -> dict[str, Any]:
        """mem0's ``get_all``: ``{"results": [...]}``, at most ``top_k`` (default 100, mem0's
        is 20). Given ``page``/``page_size``, also ``total``, ``page``, ``page_size``,
        ``total_pages`` and ``has_more``."""
        _flags(show_expired=show_expired)
        size = next((n for n in (page_size, limit, top_k) if n is not None), 100)
        with validation_as_invalid():
            ctx = self._filtered(filters, user_id, agent_id, app_id)
            if ctx.scope.user_id is None and not (filters or agent_id or run_id or app_id):
                # as mem0 refuses it: every user's memories only when asked ({"user_id": "*"})
                raise InvalidInput("get_all needs a user_id, agent_id or run_id (argument or filter; "
                                   "{'user_id': '*'} for every user)", field="user_id")
            out = mem0_ops.get_all(ctx, ctx.scope, filters=with_run(filters, run_id), page=1 if page is None else page,
                                   page_size=size, wildcard_any=True)
        results = [mem0_item(r, score=False) for r in out["results"]]
        return {**out, "results": results} if page is not None or page_size is not None else {"results": results}

    def update(self, memory_id: str, text: str | None = None, metadata: dict[str, Any] | None = None,
               expiration_date: Any = None, data: str | None = None) -> dict[str, Any]:
        """mem0's ``update``: the memory keeps its id, the old text stays in ``history``.
        ``data`` is the older mem0 name of ``text``. Like mem0's, it names only the memory:
        this handle on the whole database changes it as its own user."""
        _unsupported(expiration_date=expiration_date)
        ctx, text = self._ctx(), text if text is not None else data
        with validation_as_invalid():
            mem0_ops.check_update(text, metadata)  # bad arguments are named before the id is looked up
            mem0_ops.update(ctx, memory_id, mem0_ops.owner(ctx, memory_id), text=text, metadata=metadata)
        return {"message": "Memory updated successfully!"}

    def delete(self, memory_id: str) -> dict[str, Any]:
        ctx = self._ctx()
        with validation_as_invalid():
            mem0_ops.delete(ctx, memory_id, mem0_ops.owner(ctx, memory_id))
        return {"message": "Memory deleted successfully!"}

    def delete_all(self, user_id: str | None = None, agent_id: str | None = None, run_id: str | None = None, *,
                   app_id: str | None = None, filters: dict[str, Any] | None = None) -> dict[str, Any]:
        """mem0's ``delete_all`` (the count is in the tools' and HTTP API's answer, not mem0's).
        A ``"*"`` here means "set" on every key, metadata too: reads follow mem0's vector store
        (``"*"`` on a metadata key matches everything), a delete is never wider than asked."""
        with validation_as_invalid():
            ctx = self._filtered(filters, user_id, agent_id, app_id)
            mem0_ops.delete_all(ctx, ctx.scope, with_run(filters, run_id))
        return {"message": "Memories deleted successfully!"}

    def history(self, memory_id: str) -> list[dict[str, Any]]:
        """mem0's ``history``: an id no memory ever had has no history, ``[]`` (as in mem0)."""
        try:
            with validation_as_invalid():
                return mem0_history.history(self._ctx(), memory_id, Scope.everyone())
        except NotFound:
            return []

    def reset(self) -> dict[str, Any]:
        """Forget every memory of every user in this database (kept in history, like all deletes)."""
        ctx = self._ctx()
        with self.store.transaction():
            users = sorted({r["user_id"] for r in self.store.export_rows(Scope.everyone()) if r["record"] == "user"})
            total = sum(mem0_ops.delete_all(ctx, Scope(user_id=u))["deleted"] for u in users)
        return {"message": f"{total} memories deleted", "deleted": total}


def mem0_item(item: dict[str, Any], *, score: bool) -> dict[str, Any]:
    """An item with exactly mem0's keys: its seven (``score`` not in ``get_all``'s), then
    the ids, ``actor_id`` and ``role`` where set; trulymem's own fields (type, pinned,
    confidence, speculation: already in ``metadata`` where set, as every mem0-shaped answer
    has them) and ``app_id`` in ``metadata``, as mem0 keeps every other stored key there."""
    out = {k: item.get(k) for k in MEM0_KEYS if score or k != "score"}
    out.update({k: item[k] for k in PROMOTED if item.get(k) is not None})
    meta = {**item.get("metadata", {}), **({"app_id": item["app_id"]} if item.get("app_id") else {})}
    out["metadata"] = meta or None
    return out


def _unsupported(**given: Any) -> None:
    for name, value in given.items():
        if value is not None:
            raise InvalidInput("is not supported by trulymem's Memory (leave it unset)", field=name)


def _flags(**given: Any) -> None:
    for name, value in given.items():
        if not isinstance(value, bool):
            raise InvalidInput("must be true or false", field=name)


class AsyncMemory:
    """``Memory`` for asyncio code: the same methods, awaited (run in a worker thread)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.sync = Memory(*args, **kwargs)

    @classmethod
    def from_config(cls, config_dict: dict[str, Any]) -> AsyncMemory:
        """``Memory.from_config``, for asyncio code."""
        out = cls.__new__(cls)
        out.sync = Memory.from_config(config_dict)
        return out

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
