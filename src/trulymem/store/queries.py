"""The reads both SQL backends build the same way — facts by query, counted or listed in
storage order, nodes by query, the task chain's head, stats, the steps of text search —
written once over the backend's ``Dialect``. ``SQLReads`` is the base both backends'
connections extend."""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any, ClassVar

from trulymem.embed.names import mismatch
from trulymem.errors import Conflict, InvalidInput
from trulymem.model import EdgeKind, Fact, Node, NodeType, Scope, as_utc
from trulymem.store.base import CURRENT, Edge, FactQuery, NodeQuery, Stats, Store, When
from trulymem.store.sql import Dialect, Phrase, like, scope_sql, when_sql

Built = tuple[str, list[Any]] | None  # WHERE clause and its parameters; None: nothing can match
COMMON = 1000  # a search phrase matching more nodes than this is not ranked (see _split_common)


def endpoint_sql(d: Dialect, side: str, ids: Sequence[str], known_user: bool) -> tuple[str, list[Any]]:
    """Facts f whose ``side`` ("subject" or "object") is one of the nodes ``ids``."""
    if known_user and d.endpoint_known_user:
        return d.any_of(d.endpoint_known_user.format(side=side), ids)
    cond, params = d.any_of("id", ids)
    return d.endpoint.format(side=side, ids=cond), params


def fact_where(q: FactQuery, d: Dialect) -> Built:
    where, params = scope_sql(q.scope, "f", d)
    if d.hint_user and any(v is not None for v in (q.ids, q.subject_ids, q.object_ids, q.node_ids)):
        # Ids and endpoints are far more selective than the user: keep the planner on their indexes.
        where = where.replace("f.user_id", "+f.user_id")
    clauses = [where]
    for col, values in (
        ("f.id", q.ids),
        ("f.session_id", q.session_ids),
        ("f.relation_key", q.relation_keys),
        ("f.kind", [str(k) for k in q.kinds] if q.kinds is not None else None),
        ("f.type", q.types),
        ("f.superseded_by", q.superseded_by),
    ):
        if values is not None:
            if not values:
                return None
            _add(clauses, params, d.any_of(col, values))
    known = q.scope.user_id is not None
    for side, ids in (("subject", q.subject_ids), ("object", q.object_ids)):
        if ids is not None:
            if not ids:
                return None
            _add(clauses, params, endpoint_sql(d, side, ids, known))
    if q.node_ids is not None:
        if not q.node_ids:
            return None
        (subj, sp), (obj, op) = (endpoint_sql(d, side, q.node_ids, known) for side in ("subject", "object"))
        _add(clauses, params, (f"({subj} OR {obj})", sp + op))
    if q.source is not None:
        _add(clauses, params, (f"f.source = {d.mark}", [q.source]))
    for col, text in ((d.endpoint_key.format(alias="s", side="subject"), q.subject_contains),
                      ("f.relation_key", q.relation_contains),
                      (d.endpoint_key.format(alias="o", side="object"), q.object_contains)):
        if text is not None:
            _add(clauses, params, (f"{col} LIKE {d.mark} ESCAPE '\\'", [like(text)]))
    _add(clauses, params, when_sql(q.when, d))
    return " AND ".join(clauses), params


def node_where(q: NodeQuery, d: Dialect) -> Built:
    where, params = scope_sql(q.scope, "n", d)
    if d.hint_user and q.ids is not None:
        where = where.replace("n.user_id", "+n.user_id")  # look up by id, then check the user
    clauses = [where]
    for col, values in (("n.id", q.ids), ("n.key", q.keys), ("n.type", q.types)):
        if values is not None:
            if not values:
                return None
            _add(clauses, params, d.any_of(col, values))
    if q.created_before is not None:
        _add(clauses, params, (f"n.created_at <= {d.mark}", [d.stamp(q.created_before)]))
    return " AND ".join(clauses), params


def neighbor_sql(d: Dialect, scope: Scope, ids: Sequence[str], per_node: int, when: When) -> tuple[str, list[Any]]:
    """The light rows of ``Store.neighbors``: per node and direction its ``per_node`` facts,
    pinned first, newest first, each node's lookup a capped walk of its endpoint index. Rows
    (direction, node's position, fact id, subject id, object id, confidence, speculation,
    pinned, updated_at, valid_at, subject type, object type), each node's in the order its
    index gives them."""
    where, sparams = scope_sql(scope, "f", d)
    if d.hint_user:
        where = where.replace("f.user_id", "+f.user_id")  # keep the planner on the endpoint index
    wsql, wparams = when_sql(when, d)
    known = scope.user_id is not None
    joins = d.fact_from.removeprefix("facts f ")
    # a list of ids as rows j(value, key): PostgreSQL unnests an array, SQLite reads JSON
    nodes = (f"unnest({d.mark}::text[]) WITH ORDINALITY AS j(value, key)" if d.arrays else f"json_each({d.mark}) j")
    parts = []
    for direction, side in enumerate(("subject", "object")):
        cond = f"{_one_endpoint(d, side, known)} AND {where} AND {wsql} ORDER BY f.pinned DESC, f.updated_at DESC"
        capped = f"FROM facts f WHERE {cond} LIMIT {d.mark}"
        if d.arrays:  # LATERAL: each node's capped lookup, in its index's order; the endpoint types
            # as subqueries, not joins: planning the joins cost PostgreSQL more than running it
            types = [f"(SELECT n.type FROM nodes n WHERE {d.fact_node.format(side=s)})" for s in ("subject", "object")]
            source = nodes
            if known:  # the asked node's own type once per node, not once per row (OFFSET 0: not pulled up)
                types[direction] = "j.type"
                source = (f"(SELECT u.value, u.key, (SELECT n.type FROM nodes n WHERE n.user_id = {d.mark} "
                          f"AND n.id = u.value) AS type FROM {nodes.replace(' j(', ' u(')} OFFSET 0) j")
            parts.append(f"SELECT {direction} AS dir, j.key AS ord, f.id, f.subject_id, f.object_id, f.confidence, "
                         f"f.speculation, f.pinned, f.updated_at, f.valid_at, {', '.join(types)} FROM {source} "
                         f"CROSS JOIN LATERAL (SELECT {_EDGE_COLS} {capped}) f")
        else:  # no LATERAL in SQLite: the capped lookup picks row ids, ordered as its index walks
            head = (f"SELECT {direction} AS dir, j.key AS ord, f.id, s.id AS sid, o.id AS oid, f.confidence, "
                    f"f.speculation, f.pinned, f.updated_at, f.valid_at, s.type, o.type FROM {nodes} ")
            parts.append(f"SELECT * FROM ({head}JOIN facts f ON f.{d.order} IN (SELECT f.{d.order} {capped}) "
                         f"{joins} ORDER BY j.key, f.pinned DESC, f.updated_at DESC, f.{d.order} DESC)")
    params = [*([scope.user_id] if d.arrays and known else []), d.list_param(ids), *sparams, *wparams, per_node]
    return " UNION ALL ".join(parts), params * 2


_EDGE_COLS = "f.user_id, f.id, f.subject_id, f.object_id, f.confidence, f.speculation, f.pinned, f.updated_at, f.valid_at"


def _one_endpoint(d: Dialect, side: str, known_user: bool) -> str:
    """Facts f whose ``side`` is the node ``j.value``, as an equality the planner walks its
    endpoint index for in order (an ``IN`` list makes SQLite sort every fact of a hub)."""
    if known_user and d.endpoint_known_user:
        return f"{d.endpoint_known_user.format(side=side)} = j.value"
    cond = d.endpoint.format(side=side, ids="id = j.value")
    if d.hint_user:  # SQLite: node ids are unique, so the subquery is one row
        cond = cond.replace(" IN (SELECT", " = (SELECT", 1)
    return cond


def _stamp(value: Any) -> datetime:
    """A timestamp column as read: ISO text (SQLite) or a datetime (PostgreSQL)."""
    return value if isinstance(value, datetime) else datetime.fromisoformat(value)


def _add(clauses: list[str], params: list[Any], part: tuple[str, list[Any]]) -> None:
    clauses.append(part[0])
    params.extend(part[1])


class SQLReads(Store):
    """``facts``, ``count_facts``, ``list_facts``, ``nodes``, ``chain_head`` and ``stats`` of an
    SQL backend: the backend gives its ``dialect`` and ``_q``."""

    dialect: ClassVar[Dialect]

    @abstractmethod
    def _q(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]: ...

    def _reading(self, scope: Scope) -> None:
        """Called before reading the scope's rows (PostgreSQL: a write transaction takes the user's lock)."""

    def facts(self, query: FactQuery) -> list[Fact]:
        d = self.dialect
        rows = self._by_age(query, f"SELECT {d.fact_cols} FROM {d.fact_from}", "f")
        return [d.fact_row(r) for r in rows]

    def count_facts(self, query: FactQuery) -> int:
        self._reading(query.scope)
        built = fact_where(query, self.dialect)
        if built is None:
            return 0
        where, params = built
        if query.limit is not None:  # a capped count stops at the limit (all of a hub's facts are not read)
            return int(self._q(f"SELECT count(*) FROM (SELECT 1 FROM {self.dialect.fact_from} WHERE {where} "
                               f"LIMIT {self.dialect.mark}) c", [*params, query.limit])[0][0])
        return int(self._q(f"SELECT count(*) FROM {self.dialect.fact_from} WHERE {where}", params)[0][0])

    def list_facts(self, query: FactQuery, after: str | None, limit: int) -> tuple[list[Fact], str | None]:
        self._reading(query.scope)
        d = self.dialect
        built = fact_where(query, d)
        if built is None:
            return [], None
        where, params = built
        if after is not None:
            if not after.isdigit():
                raise InvalidInput("is not a cursor this listing returned", field="cursor")
            where += f" AND f.{d.order} > {d.mark}"
            params.append(int(after))
        rows = self._q(f"SELECT {d.fact_cols}, f.{d.order} FROM {d.fact_from} WHERE {where} "
                       f"ORDER BY f.{d.order} LIMIT {d.mark}", [*params, limit + 1])
        more = len(rows) > limit
        rows = rows[:limit]
        return [d.fact_row(r) for r in rows], (str(rows[-1][-1]) if more and rows else None)

    def nodes(self, query: NodeQuery) -> list[Node]:
        rows = self._by_age(query, f"SELECT {self.dialect.node_cols} FROM nodes n", "n")
        return [self.dialect.node_row(r) for r in rows]

    def _by_age(self, query: FactQuery | NodeQuery, head: str, alias: str) -> list[tuple[Any, ...]]:
        """``head`` where ``query`` matches, newest (or oldest) first by creation, then storage order."""
        self._reading(query.scope)
        d = self.dialect
        built = fact_where(query, d) if isinstance(query, FactQuery) else node_where(query, d)
        if built is None:
            return []
        where, params = built
        order = "DESC" if query.newest_first else "ASC"
        sql = f"{head} WHERE {where} ORDER BY {alias}.created_at {order}, {alias}.{d.order} {order}"
        if query.limit is not None:
            sql += f" LIMIT {d.mark}"
            params = [*params, query.limit]
        return self._q(sql, params)

    def chain_head(self, scope: Scope) -> Node | None:
        self._reading(scope)
        d = self.dialect
        where, params = scope_sql(scope.namespace(), "n", d)
        rows = self._q(
            f"SELECT {d.node_cols} FROM nodes n WHERE {where} AND n.type = {d.mark} AND NOT EXISTS ("
            f"SELECT 1 FROM facts f WHERE {d.fact_node.format(side='subject')} AND f.kind = {d.mark} "
            f"AND f.invalid_at IS NULL) ORDER BY n.created_at DESC, n.{d.order} DESC LIMIT 1",
            [*params, NodeType.TASK.value, EdgeKind.NEXT_TASK.value],
        )
        return d.node_row(rows[0]) if rows else None

    def stats(self, scope: Scope) -> Stats:
        st = Stats()
        nwhere, nparams = scope_sql(scope, "n", self.dialect)
        for t, c in self._q(f"SELECT type, count(*) FROM nodes n WHERE {nwhere} GROUP BY type", nparams):
            st.nodes_by_type[t] = int(c)
        fwhere, fparams = scope_sql(scope, "f", self.dialect)
        for kind, valid, c in self._q(
            f"SELECT kind, invalid_at IS NULL, count(*) FROM facts f WHERE {fwhere} GROUP BY 1, 2", fparams
        ):
            st.facts_by_kind.setdefault(kind, {"valid": 0, "invalid": 0})["valid" if valid else "invalid"] = int(c)
        if scope.user_id is None:
            st.users = int(self._q("SELECT count(*) FROM users")[0][0])
        else:
            st.users = int(self.user_exists(scope.user_id))
        return st

    def search_nodes(self, scope: Scope, phrases: Sequence[Phrase], limit: int, *,
                     during: tuple[datetime, datetime] | None = None) -> list[tuple[str, float]]:
        ts, m = self.dialect.search, self.dialect.mark
        where, params = scope_sql(scope, "n", self.dialect)
        if during is not None:
            # Event times are ISO strings in UTC: compare at whole seconds, end exclusive.
            start, end = (as_utc(t).replace(microsecond=0) for t in during)
            where += f" AND {ts.event_time} >= {m} AND {ts.event_time} < {m}"
            params = [*params, start.isoformat(), (end + timedelta(seconds=1)).isoformat()]
            return self._rank_nodes(where, params, ts.match(list(phrases)), limit)
        rare, common = self._split_common(phrases)
        if rare:
            return self._rank_nodes(where, params, ts.match(rare), limit)
        match = ts.match(common)
        if match is None:
            return []
        rows = self._q(ts.newest.format(where=where), (match, *params, limit))  # only common words
        return [(r[0], 0.1) for r in rows]  # newest matches, a low flat score

    def _rank_nodes(self, where: str, params: list[Any], match: str | None, limit: int) -> list[tuple[str, float]]:
        if match is None:
            return []
        rows = self._q(self.dialect.search.rank.format(where=where), (match, *params, limit))
        return [(r[0], float(r[1])) for r in rows]

    def _split_common(self, phrases: Sequence[Phrase]) -> tuple[list[Phrase], list[Phrase]]:
        """Separate phrases matching more than ``COMMON`` nodes: ranking every hit of a word
        that is everywhere ("entity", "user") costs more than it tells. One statement for all."""
        ts = self.dialect.search
        todo = [(p, q) for p in list(phrases)[:16] if (q := ts.match([p])) is not None]
        if not todo:
            return [], []
        counts = self._q(ts.counts, (COMMON + 1, self.dialect.list_param([q for _, q in todo])))
        rare = [p for (p, _), (n,) in zip(todo, counts) if n <= COMMON]
        return rare, [p for (p, _), (n,) in zip(todo, counts) if n > COMMON]

    def search_facts(self, scope: Scope, phrases: Sequence[Phrase], limit: int, *,
                     when: When = CURRENT) -> list[Fact]:
        d = self.dialect
        match = d.search.match(list(phrases))
        if match is None:
            return []
        where, params = scope_sql(scope, "f", d)
        wsql, wparams = when_sql(when, d)
        rows: list[tuple[Any, ...]] | None = None
        if d.search.facts_common is None:
            common = False
        elif d.search.facts_counted is not None and not self._known_common(match, where, wsql, [*params, *wparams]):
            # count and collect in one statement; a common word's collected rows are dropped for the walk
            counted = self._q(d.search.facts_counted.format(where=where, when=wsql),
                              (match, *params, *wparams, COMMON + 1, limit))
            common = bool(counted) and int(counted[0][-1]) > COMMON
            if common:
                self._known_common(match, where, wsql, [*params, *wparams], add=True)
            else:
                rows = [r[:-1] for r in counted]
        else:
            common = self._common_facts(match, where, wsql, [*params, *wparams])
        if common:
            # a relation word matches a share of all facts: the newest few are found by walking
            # back from the newest fact, not by collecting and sorting every match
            rows = self._walk_common(scope, match, where, wsql, [*params, *wparams], limit)
        elif rows is None:
            rows = self._q(d.search.facts.format(where=where, when=wsql), (match, *params, *wparams, limit))
        if common and len(rows) < limit:
            # fewer than asked: the walk read every fact of the scope, so the word is no longer
            # common (a purge); ask again next time rather than walk all of them on every call
            self.__dict__["_common_seen"].discard((match, where, wsql, *params, *wparams))
        return [d.fact_row(r) for r in rows]

    def _walk_common(self, scope: Scope, match: str, where: str, when: str, params: list[Any],
                     limit: int) -> list[tuple[Any, ...]]:
        """The newest ``limit`` facts matching a common word, walking back in storage order."""
        sql = self.dialect.search.facts_common or ""
        return self._q(sql.format(where=where, when=when), (match, *params, limit))

    def _common_facts(self, match: str, where: str, when: str, params: list[Any]) -> bool:
        """Whether more than ``COMMON`` facts match (``TextSearch.fact_count``). A yes is kept per
        store (facts are seldom deleted; both statements return the same facts, and a walk that
        finds fewer than it was asked for forgets the yes); a no is asked again, as a word
        becomes common."""
        if self._known_common(match, where, when, params):
            return True
        count = self.dialect.search.fact_count
        if count is None or int(self._q(count.format(where=where, when=when), (match, *params, COMMON + 1))[0][0]) <= COMMON:
            return False
        return self._known_common(match, where, when, params, add=True)

    def _known_common(self, match: str, where: str, when: str, params: list[Any], *, add: bool = False) -> bool:
        """Whether this search is remembered as common (``add``: remember it)."""
        seen: set[tuple[Any, ...]] = self.__dict__.setdefault("_common_seen", set())
        key = (match, where, when, *params)
        if add:
            if len(seen) >= 10_000:
                seen.clear()
            seen.add(key)
        return key in seen

    def neighbor_edges(self, scope: Scope, node_ids: Sequence[str], *, per_node: int,
                       when: When = CURRENT) -> list[Edge]:
        self._reading(scope)
        ids = list(dict.fromkeys(node_ids))
        if not ids:
            return []
        sql, params = neighbor_sql(self.dialect, scope, ids, per_node, when)
        raw = self._q(sql, params)
        if not raw:
            return []
        at = datetime.fromisoformat if isinstance(raw[0][8], str) else _stamp  # ~200 rows per recall
        edges = [Edge(r[2], r[3], r[4], r[5], bool(r[6]), bool(r[7]), at(r[8]), at(r[9]), r[10], r[11]) for r in raw]
        # outgoing first, then incoming; per node in the order given; pinned first, newest first;
        # ties keep the order the endpoint index gave them (the row's position), as ``neighbors``
        keys = [(r[0], r[1], not e.pinned, -e.updated_at.timestamp(), i) for i, (r, e) in enumerate(zip(raw, edges))]
        keys.sort()
        out: dict[str, Edge] = {}
        for k in keys:
            e = edges[k[4]]
            out.setdefault(e.id, e)
        return list(out.values())

    def node_types(self, scope: Scope, node_ids: Sequence[str], *,
                   created_before: datetime | None = None) -> dict[str, str]:
        self._reading(scope)
        built = node_where(NodeQuery(scope=scope, ids=list(dict.fromkeys(node_ids)), created_before=created_before),
                           self.dialect)
        if built is None:
            return {}
        where, params = built
        return {r[0]: r[1] for r in self._q(f"SELECT n.id, n.type FROM nodes n WHERE {where}", params)}

    # vectors: the settings and node listings both backends keep alike
    def embedding_model(self) -> str | None:
        rows = self._q("SELECT value FROM settings WHERE key = 'embedder'")
        return str(rows[0][0]) if rows else None

    def set_embedding_model(self, name: str) -> None:
        current = self.embedding_model()
        if current == name:
            return
        if current is not None and self._q(f"SELECT 1 FROM node_vectors WHERE model = {self.dialect.mark} LIMIT 1",
                                           (current,)):
            raise Conflict(mismatch(current, name) + " (a database never mixes two models)", field="embedder")
        self.switch_embedding_model(name)

    def _to_embed_sql(self, model: str, after: str | None, missing_only: bool) -> tuple[str, list[Any]]:
        d = self.dialect
        where = [f"n.{d.order} > {d.mark}"]
        params: list[Any] = [int(after) if after else 0]
        if missing_only:
            where.append(f"NOT EXISTS (SELECT 1 FROM node_vectors v WHERE {d.vector_node} AND v.model = {d.mark})")
            params.append(model)
        return " AND ".join(where), params

    def nodes_to_embed(self, model: str, limit: int, *, after: str | None = None,
                       missing_only: bool = True) -> tuple[list[Node], str | None]:
        d = self.dialect
        where, params = self._to_embed_sql(model, after, missing_only)
        rows = self._q(f"SELECT n.{d.order}, {d.node_cols} FROM nodes n WHERE {where} ORDER BY n.{d.order} "
                       f"LIMIT {d.mark}", [*params, limit])
        return [d.node_row(r[1:]) for r in rows], (str(rows[-1][0]) if rows else None)

    def count_nodes_to_embed(self, model: str, *, after: str | None = None, missing_only: bool = True) -> int:
        where, params = self._to_embed_sql(model, after, missing_only)
        return int(self._q(f"SELECT count(*) FROM nodes n WHERE {where}", params)[0][0])

    @staticmethod
    def _cache_key(scope: Scope) -> tuple[str, str]:
        """The text-vector cache's (user, part) of a scope."""
        if scope.user_id is None:
            raise InvalidInput("the vector cache is kept per user: name the user", field="user_id")
        return scope.user_id, f"{scope.agent_id or '*'}/{scope.app_id or '*'}"
