"""Facts in the PostgreSQL store: the existing-triple lookup and the writes (insert with
their text vectors, reinforce, invalidate, delete); the reads are ``store.queries``'."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from trulymem.errors import Conflict
from trulymem.model import Fact
from trulymem.store.postgres.connection import PostgresBase
from trulymem.store.postgres.rows import (
    FACT_COLS_NAMED,
    chunks,
    dump_json,
    fact_tsv,
    row_to_fact,
)
from trulymem.text import relation_key

_COLUMNS = (
    ("id", "text"), ("user_id", "text"), ("agent_id", "text"), ("app_id", "text"), ("session_id", "text"),
    ("subject_id", "text"), ("relation", "text"), ("relation_key", "text"), ("object_id", "text"), ("kind", "text"),
    ("confidence", "float8"), ("speculation", "bool"), ("pinned", "bool"), ("type", "text"), ("source", "text"),
    ("metadata", "text"), ("turn_id", "text"), ("message_ids", "text"), ("mention_count", "int"),
    ("created_at", "timestamptz"), ("updated_at", "timestamptz"), ("valid_at", "timestamptz"),
    ("invalid_at", "timestamptz"), ("superseded_by", "text"), ("tsv", "tsvector"),
)
_COPY = f"COPY facts({', '.join(c for c, _ in _COLUMNS)}) FROM STDIN"


class FactMixin(PostgresBase):
    """Facts: ``active_facts_for`` and the writes."""

    def active_facts_for(self, triples: Sequence[tuple[str, str, str]]) -> dict[tuple[str, str, str], Fact]:
        out: dict[tuple[str, str, str], Fact] = {}
        # a node this transaction created, and no fact inserted since names, is in no fact: a new
        # user's or name's triples need no probe (others cannot see the node until it commits)
        fresh = self._tx.fresh
        unique = [t for t in dict.fromkeys(triples) if t[0] not in fresh and t[2] not in fresh]
        owners = self._user_of([s for s, _, _ in unique])
        by_user: dict[str, list[tuple[str, str, str]]] = {}
        for t in unique:
            if t[0] in owners:
                by_user.setdefault(owners[t[0]], []).append(t)
        for user, mine in by_user.items():
            for chunk in chunks(mine):
                # Each triple one probe of the partial unique index (LATERAL ... LIMIT 1: at most one
                # row matches, and a plan cannot turn the probes into a hash of every fact of the user,
                # which planner statistics older than a bulk load chose: 70-110 ms per 1,000 triples
                # at 25k facts); the user bound, not joined from nodes, else the planner walked every
                # fact of each subject (0.4-1.3 s per 1,000 triples at 100k facts); the names after.
                rows = self._q(
                    "WITH hit AS MATERIALIZED (SELECT f.* FROM unnest(%s::text[], %s::text[], %s::text[]) "
                    "AS v(s, r, o) CROSS JOIN LATERAL (SELECT f.* FROM facts f WHERE f.user_id = %s "
                    "AND f.subject_id = v.s AND f.relation_key = v.r AND f.object_id = v.o AND f.invalid_at IS NULL "
                    f"LIMIT 1) f) SELECT {FACT_COLS_NAMED}, f.relation_key FROM hit f",
                    ([t[0] for t in chunk], [t[1] for t in chunk], [t[2] for t in chunk], user))
                for r in rows:
                    out[(r[5], r[25], r[7])] = row_to_fact(r)
        return out

    def insert_facts(self, facts: Sequence[Fact]) -> None:
        if not facts:
            return
        self._lock_users([f.user_id for f in facts])
        self._check_nodes(facts)
        if self._tx.fresh:
            self._tx.fresh.difference_update(n for f in facts for n in (f.subject_id, f.object_id))
        # Times as ISO text, each distinct one formatted once (a batch shares its `now`): COPY's
        # own datetime dumping was 7 of the 10 us it took to format a row.
        stamps: dict[datetime | None, str | None] = {None: None}

        def iso(t: datetime | None) -> str | None:
            text = stamps.get(t)
            if text is None and t is not None:
                text = stamps[t] = t.isoformat()
            return text

        rows = ((f.id, f.user_id, f.agent_id or "", f.app_id or "", f.session_id or "", f.subject_id, f.relation,
                 relation_key(f.relation), f.object_id, f.kind.value, f.confidence, f.speculation, f.pinned, f.type,
                 f.source, dump_json(f.metadata), f.turn_id, dump_json(f.message_ids), f.mention_count,
                 iso(f.created_at), iso(f.updated_at), iso(f.valid_at), iso(f.invalid_at), f.superseded_by,
                 fact_tsv(f.relation, f.type, f.kind.value))
                for f in facts)
        # COPY: rows stream in order (storage order), no per-value array building; made as they are sent
        self._copy(_COPY, rows)
        self._grown += len(facts)

    def _check_nodes(self, facts: Sequence[Fact]) -> None:
        """``Conflict`` naming the first endpoint that is not a node of the fact's user (nodes this
        transaction resolved are known to be)."""
        known = self._tx.owners
        wanted = {(f.user_id, n) for f in facts for n in (f.subject_id, f.object_id) if known.get(n) != f.user_id}
        if not wanted:
            return
        users = [u for u, _ in wanted]
        ids = [i for _, i in wanted]
        found = {(u, i) for u, i in self._q(
            "SELECT n.user_id, n.id FROM nodes n JOIN unnest(%s::text[], %s::text[]) AS w(u, i) "
            "ON n.user_id = w.u AND n.id = w.i", (users, ids))}
        missing = next((n for f in facts for n in (f.subject_id, f.object_id)
                        if (f.user_id, n) in wanted and (f.user_id, n) not in found), None)
        if missing is not None:
            raise Conflict(f"node {missing} does not exist", field="node_id")

    def reinforce_facts(self, updates: Sequence[Fact]) -> None:
        last = list({(f.user_id, f.id): f for f in updates}.values())  # one row per fact: the last update wins
        for chunk in chunks(last):
            self._q(
                "UPDATE facts f SET mention_count = u.m, updated_at = u.t, confidence = u.c, speculation = u.s, "
                "pinned = u.p, metadata = u.md, type = u.ty, kind = u.k, tsv = u.v::tsvector "
                "FROM unnest(%s::int[], %s::timestamptz[], %s::float8[], %s::bool[], %s::bool[], %s::text[], "
                "%s::text[], %s::text[], %s::text[], %s::text[], %s::text[]) AS u(m, t, c, s, p, md, ty, k, v, usr, i) "
                "WHERE f.user_id = u.usr AND f.id = u.i",
                ([f.mention_count for f in chunk], [f.updated_at for f in chunk], [f.confidence for f in chunk],
                 [f.speculation for f in chunk], [f.pinned for f in chunk], [dump_json(f.metadata) for f in chunk],
                 [f.type for f in chunk], [f.kind.value for f in chunk],
                 [fact_tsv(f.relation, f.type, f.kind.value) for f in chunk], [f.user_id for f in chunk],
                 [f.id for f in chunk]))

    def invalidate_facts(self, ids: Sequence[str], at: datetime, superseded_by: str | None = None) -> None:
        for chunk in chunks(list(ids)):
            self._q("UPDATE facts SET invalid_at = COALESCE(invalid_at, %s), "
                    "superseded_by = COALESCE(%s, superseded_by) WHERE id = ANY(%s)", (at, superseded_by, list(chunk)))

    def supersede_facts(self, pairs: Sequence[tuple[str, str]], at: datetime) -> None:
        for chunk in chunks(list(pairs)):
            self._q("UPDATE facts f SET invalid_at = COALESCE(f.invalid_at, %s), superseded_by = p.s "
                    "FROM unnest(%s::text[], %s::text[]) AS p(i, s) WHERE f.id = p.i",
                    (at, [i for i, _ in chunk], [s for _, s in chunk]))

    def delete_facts(self, ids: Sequence[str]) -> None:
        for chunk in chunks(list(ids)):
            self._q("DELETE FROM facts WHERE id = ANY(%s)", (list(chunk),))
