"""The storage contract every backend implements.

Operations (tools, recall, export) depend on this module only, never on a
backend, and nothing outside ``store/`` branches on which backend it has. The
contract is deliberately small: batch get-or-create
of nodes, batch insert/reinforce/invalidate/delete of facts, one fact query, one
node query, text search, neighbourhood expansion, stats and raw row transfer.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal

from trulymem.model import EdgeKind, Fact, Node, NodeType, Scope

Validity = Literal["current", "invalid", "all"]


@dataclass(frozen=True)
class When:
    """Which facts count in time: ``validity`` now, or with ``as_of`` what was valid
    then ("current") or recorded by then ("all"); ``valid_from``/``valid_to`` bound
    the event time."""

    validity: Validity = "current"
    as_of: datetime | None = None
    valid_from: datetime | None = None
    valid_to: datetime | None = None


CURRENT = When()  # the facts valid now


@dataclass(frozen=True)
class NodeSpec:
    """A node to resolve or create: ``key`` is its identity, ``name`` its display form."""

    key: str
    name: str
    type: str


def replaces(prev_type: str | None, type_: str) -> bool:
    """A later mention of a node replaces the one kept (``prev_type``, ``None`` when none is):
    the first one is kept unless a specific type follows the generic ``EntityNode``."""
    return prev_type is None or (prev_type == NodeType.ENTITY and type_ != NodeType.ENTITY)


def by_key(specs: Sequence[NodeSpec]) -> dict[str, NodeSpec]:
    """One spec per key, in first-seen order (see ``replaces``)."""
    wanted: dict[str, NodeSpec] = {}
    for spec in specs:
        prev = wanted.get(spec.key)
        if replaces(prev.type if prev else None, spec.type):
            wanted[spec.key] = spec
    return wanted


@dataclass
class FactQuery:
    """Facts matching every set field (AND). ``None`` means "don't filter"; an
    empty list means "match nothing" — so an unresolved criterion never widens."""

    scope: Scope
    ids: Sequence[str] | None = None
    session_ids: Sequence[str] | None = None
    subject_ids: Sequence[str] | None = None
    object_ids: Sequence[str] | None = None
    node_ids: Sequence[str] | None = None  # either endpoint
    relation_keys: Sequence[str] | None = None
    kinds: Sequence[EdgeKind] | None = None
    types: Sequence[str] | None = None
    source: str | None = None
    superseded_by: Sequence[str] | None = None  # facts replaced by any of these
    subject_contains: str | None = None
    relation_contains: str | None = None
    object_contains: str | None = None
    validity: Validity = "current"
    as_of: datetime | None = None  # see When
    valid_from: datetime | None = None
    valid_to: datetime | None = None
    newest_first: bool = True
    limit: int | None = None

    @property
    def when(self) -> When:
        return When(self.validity, self.as_of, self.valid_from, self.valid_to)


@dataclass
class NodeQuery:
    scope: Scope
    ids: Sequence[str] | None = None
    keys: Sequence[str] | None = None
    types: Sequence[str] | None = None
    created_before: datetime | None = None  # only nodes that existed at this time
    newest_first: bool = True
    limit: int | None = None


@dataclass
class Change:
    """One row a run touched: ``created`` rows are removed on undo, ``changed`` rows get
    ``before`` back. ``before``/``after`` are ``export_rows`` dicts (``after`` lets undo
    check that nothing changed the row since)."""

    record: Literal["fact", "node"]
    item_id: str
    action: Literal["created", "changed"]
    before: dict[str, Any] | None = None
    after: dict[str, Any] | None = None


@dataclass
class Run:
    id: str
    kind: str
    user_id: str
    agent_id: str | None
    app_id: str | None
    created_at: datetime
    undone_at: datetime | None = None
    summary: dict[str, Any] = field(default_factory=dict)


@dataclass(slots=True)  # not frozen: recall builds ~200 per query, and a frozen init costs twice
class Edge:
    """A fact as graph expansion and ranking see it: its endpoints and the fields that
    score it, without its JSON columns or names (``Store.neighbor_edges``)."""

    id: str
    subject_id: str
    object_id: str
    confidence: float
    speculation: bool
    pinned: bool
    updated_at: datetime
    valid_at: datetime
    subject_type: str | None = None  # the endpoints' node types, where the read had them
    object_type: str | None = None

    @classmethod
    def of(cls, f: Fact) -> Edge:
        return cls(f.id, f.subject_id, f.object_id, f.confidence, f.speculation, f.pinned, f.updated_at, f.valid_at)


@dataclass
class Stats:
    nodes_by_type: dict[str, int] = field(default_factory=dict)
    facts_by_kind: dict[str, dict[str, int]] = field(default_factory=dict)
    users: int = 0


class Store(ABC):
    """A graph store. Every method runs inside the caller's ``transaction()``."""

    @abstractmethod
    def transaction(self, *, write: bool = True) -> AbstractContextManager[None]:
        """All-or-nothing unit of work; nested calls join the outer one."""

    @abstractmethod
    def close(self) -> None: ...

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # users
    @abstractmethod
    def ensure_user(self, user_id: str, now: datetime) -> None: ...

    @abstractmethod
    def user_exists(self, user_id: str) -> bool: ...

    # nodes
    @abstractmethod
    def resolve_nodes(self, scope: Scope, specs: Sequence[NodeSpec], now: datetime) -> dict[str, str]:
        """Get or create one node per spec in the scope's namespace; returns key -> node id.

        A node stored as the generic ``EntityNode`` takes the more specific type
        when a spec names one."""

    def update_node(self, node_id: str, now: datetime, *, summary: str | None = None,
                    metadata: dict[str, Any] | None = None) -> None:
        """Set a node's summary (and metadata, when given); its text index and vector follow."""
        self.update_nodes([(node_id, summary, metadata)], now)

    @abstractmethod
    def update_nodes(self, updates: Sequence[tuple[str, str | None, dict[str, Any] | None]], now: datetime) -> None:
        """``update_node`` for many ``(node id, summary, metadata)`` at once, in a few statements
        (an ingest rewrites every episode and profile it touched)."""

    @abstractmethod
    def nodes(self, query: NodeQuery) -> list[Node]: ...

    @abstractmethod
    def chain_head(self, scope: Scope) -> Node | None:
        """The head of the ``NEXT_TASK`` chain in the scope's one namespace: the task with no
        current successor (the newest such, should a hard purge have cut the chain), or
        ``None`` without tasks. Call it inside the write transaction that extends the chain:
        the choice must not depend on anyone's clock."""

    @abstractmethod
    def fact_counts(self, node_ids: Sequence[str]) -> dict[str, int]:
        """How many facts, valid or not, touch each node (nodes with none are left out)."""

    @abstractmethod
    def delete_orphan_nodes(self, node_ids: Sequence[str]) -> list[str]:
        """Delete those of ``node_ids`` that no fact references; returns the deleted ids."""

    # facts
    @abstractmethod
    def facts(self, query: FactQuery) -> list[Fact]: ...

    @abstractmethod
    def count_facts(self, query: FactQuery) -> int:
        """How many facts match ``query``; at most ``query.limit`` when it is set (the count
        stops there: ``limit=1`` asks whether any does)."""

    @abstractmethod
    def active_facts_for(self, triples: Sequence[tuple[str, str, str]]) -> dict[tuple[str, str, str], Fact]:
        """Currently valid facts by ``(subject_id, relation_key, object_id)``."""

    @abstractmethod
    def insert_facts(self, facts: Sequence[Fact]) -> None: ...

    @abstractmethod
    def reinforce_facts(self, updates: Sequence[Fact]) -> None:
        """Write back mention_count, updated_at, confidence, speculation, pinned, metadata, type, kind."""

    @abstractmethod
    def invalidate_facts(self, ids: Sequence[str], at: datetime, superseded_by: str | None = None) -> None: ...

    @abstractmethod
    def supersede_facts(self, pairs: Sequence[tuple[str, str]], at: datetime) -> None:
        """Invalidate each ``(fact id, successor id)``'s fact as ``superseded_by`` its successor,
        in one batch (a dream's merges: thousands of groups, one statement)."""

    @abstractmethod
    def delete_facts(self, ids: Sequence[str]) -> None: ...

    # retrieval
    @abstractmethod
    def search_nodes(self, scope: Scope, phrases: Sequence[tuple[str, ...]], limit: int, *,
                     during: tuple[datetime, datetime] | None = None) -> list[tuple[str, float]]:
        """Nodes whose name or summary contains any phrase (tokens from ``text.phrases``):
        ``(node_id, score)`` best first, score > 0, higher is better. With ``during``,
        only nodes whose event time (metadata ``time``, as ``memory_ingest`` writes it)
        falls in ``[start, end]``."""

    @abstractmethod
    def search_facts(self, scope: Scope, phrases: Sequence[tuple[str, ...]], limit: int, *,
                     when: When = CURRENT) -> list[Fact]:
        """Facts whose own text (relation and labels) contains any phrase, newest first."""

    @abstractmethod
    def neighbors(
        self,
        scope: Scope,
        node_ids: Sequence[str],
        *,
        per_node: int,
        when: When = CURRENT,
    ) -> list[Fact]:
        """Facts touching each node in either direction, at most ``per_node`` per
        node and direction (pinned first, then most recently updated)."""

    @abstractmethod
    def neighbor_edges(self, scope: Scope, node_ids: Sequence[str], *, per_node: int,
                       when: When = CURRENT) -> list[Edge]:
        """``neighbors`` as ``Edge``s: the same facts in the same order, read without the
        columns only a returned fact needs (recall fetches those for what it returns), with
        their endpoints' types."""

    @abstractmethod
    def node_types(self, scope: Scope, node_ids: Sequence[str], *,
                   created_before: datetime | None = None) -> dict[str, str]:
        """The type of each of ``node_ids`` in ``scope`` (that existed at ``created_before``);
        a node not there is left out."""

    @abstractmethod
    def live_nodes(self, node_ids: Sequence[str], when: When = CURRENT) -> set[str]:
        """Those of ``node_ids`` that some fact counting under ``when`` (its validity and
        ``as_of``) touches. A node all of whose facts were invalidated is forgotten: recall
        leaves it out unless invalid facts are asked for."""

    # vectors: one searched model per database (its "embedding model"), at most one vector per
    # node and model; a reindex builds another model's vectors beside them, then switches
    @abstractmethod
    def dirty_nodes(self) -> list[Node]:
        """Nodes created, or whose text changed, in the current transaction (each once):
        what an embedder must (re)embed before the transaction commits."""

    @abstractmethod
    def embedding_model(self) -> str | None:
        """The model whose vectors recall searches (``None``: no model yet)."""

    @abstractmethod
    def set_embedding_model(self, name: str) -> None:
        """Record the model of the vectors; ``Conflict`` if vectors of another model are searched."""

    @abstractmethod
    def switch_embedding_model(self, name: str) -> None:
        """Search ``name``'s vectors from now on, in one statement (readers see the old model's
        vectors or the new one's, never a mix): a reindex's last step. The other models'
        vectors stay until ``drop_vectors`` removes them."""

    @abstractmethod
    def put_vectors(self, items: Sequence[tuple[str, Any]], model: str | None = None) -> None:
        """Store (node id, float32 vector) pairs of ``model`` (default: the searched one),
        replacing earlier ones. A vector of the searched model drops the node's vectors of
        other models: they were made from its earlier text."""

    @abstractmethod
    def delete_all_vectors(self) -> int: ...

    @abstractmethod
    def drop_vectors(self, keep: Sequence[str], limit: int) -> int:
        """Delete at most ``limit`` vectors of models not in ``keep``; returns how many."""

    @abstractmethod
    def nodes_to_embed(self, model: str, limit: int, *, after: str | None = None,
                       missing_only: bool = True) -> tuple[list[Node], str | None]:
        """Nodes in storage order after the cursor ``after`` (``None``: from the first),
        ``limit`` at a time, and the cursor of the last one returned (``None`` when none
        are left); with ``missing_only`` only those without a vector of ``model``."""

    @abstractmethod
    def count_nodes_to_embed(self, model: str, *, after: str | None = None, missing_only: bool = True) -> int: ...

    def nodes_without_vectors(self, limit: int, model: str | None = None) -> list[Node]:
        """Up to ``limit`` nodes without a vector of ``model`` (default: the searched one)."""
        return self.nodes_to_embed(model or self.embedding_model() or "", limit)[0]

    def count_nodes_without_vectors(self, model: str | None = None) -> int:
        return self.count_nodes_to_embed(model or self.embedding_model() or "")

    @abstractmethod
    def vector_search(self, scope: Scope, query: Any, limit: int, model: str | None = None) -> list[tuple[str, float]]:
        """``(node_id, cosine)`` of the scope's nodes nearest to ``query`` among the vectors
        of ``model`` (default: the searched one), best first."""

    # a cache of text vectors by model (not the recall index): bulk passes encode only what is new
    @abstractmethod
    def cached_vectors(self, scope: Scope, model: str, digests: Sequence[bytes]) -> dict[bytes, bytes]:
        """The cached float32 vector bytes for those text digests that have one (one user's
        scope: its agent and app, as set, name the cache's namespace)."""

    @abstractmethod
    def put_cached_vectors(self, scope: Scope, model: str, items: Sequence[tuple[bytes, bytes]]) -> None:
        """Cache (digest, float32 vector bytes) pairs, replacing earlier ones."""

    @abstractmethod
    def prune_cached_vectors(self, scope: Scope, model: str, keep: Sequence[bytes]) -> int:
        """Drop the scope's cached vectors of ``model`` whose digest is not in ``keep``
        (texts no longer stored); returns how many went."""

    @abstractmethod
    def list_facts(self, query: FactQuery, after: str | None, limit: int) -> tuple[list[Fact], str | None]:
        """Facts matching ``query`` in the order they were stored, ``limit`` at a time:
        ``(facts, cursor)``; pass the cursor back for the next ones (``None`` at the end).
        The cursor is opaque; ``newest_first`` and ``limit`` of the query are ignored."""

    @abstractmethod
    def restore_rows(self, rows: Sequence[dict[str, Any]]) -> None:
        """Put existing facts and nodes back exactly as in these ``export_rows`` dicts
        (in place: their order in exports does not change)."""

    # small named settings (API keys, …) kept with the data
    @abstractmethod
    def settings(self, prefix: str) -> dict[str, str]:
        """Every setting whose key starts with ``prefix``."""

    @abstractmethod
    def put_setting(self, key: str, value: str | None) -> None:
        """Set a setting; ``None`` removes it."""

    # journaled runs and locks
    @abstractmethod
    def save_run(self, run: Run, changes: Sequence[Change], first_seq: int = 0) -> None:
        """Record ``run`` (or update its summary) and append ``changes`` from position
        ``first_seq``: a long run is journaled step by step, each step with its writes."""

    @abstractmethod
    def runs(self, user_id: str, kind: str, limit: int = 20) -> list[Run]:
        """Newest first."""

    @abstractmethod
    def run_changes(self, run_id: str) -> list[Change]:
        """In the order they were made."""

    @abstractmethod
    def mark_run_undone(self, run_id: str, at: datetime) -> None: ...

    @abstractmethod
    def try_lock(self, name: str, owner: str, now: datetime, ttl_s: float) -> str | None:
        """Take the lock unless another owner holds an unexpired one; returns that owner
        (refused) or ``None`` (taken). Runs in its own transaction."""

    @abstractmethod
    def unlock(self, name: str, owner: str) -> None: ...

    # bookkeeping
    @abstractmethod
    def stats(self, scope: Scope) -> Stats: ...

    @abstractmethod
    def export_rows(self, scope: Scope) -> Iterator[dict[str, Any]]:
        """Every user, node and fact row of the scope as plain JSON-able dicts."""

    @abstractmethod
    def import_rows(self, rows: Sequence[dict[str, Any]],
                    progress: Callable[[int], None] | None = None) -> dict[str, int]:
        """Insert rows from ``export_rows`` (checked by ``trulymem.transfer.check_rows``);
        identical rows already present are skipped, conflicting ones raise ``Conflict``.
        ``progress(rows_done)`` is called every 1,000 rows."""
