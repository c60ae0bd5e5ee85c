"""What the PostgreSQL store's parts share: column lists and joins, row <-> model
conversions and the SQL of scopes and ``When`` (``%s`` placeholders)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from functools import lru_cache
from typing import Any

from trulymem.model import EdgeKind, Fact, Node
from trulymem.store.postgres.text import tsquery, tsvector
from trulymem.store.sql import Dialect, TextSearch

# re-exported: the backend's modules import these from here
from trulymem.store.sql import dump_json as dump_json
from trulymem.store.sql import load_json as load_json
from trulymem.store.sql import opt as opt
from trulymem.text import fts_document

FACT_COLS = (
    "f.id, f.user_id, f.agent_id, f.app_id, f.session_id, f.subject_id, f.relation, f.object_id, "
    "f.kind, f.confidence, f.speculation, f.pinned, f.type, f.source, f.metadata, f.turn_id, "
    "f.message_ids, f.mention_count, f.created_at, f.updated_at, f.valid_at, f.invalid_at, "
    "f.superseded_by, s.name, o.name"
)
JOIN_NODES = ("JOIN nodes s ON s.user_id = f.user_id AND s.id = f.subject_id "
              "JOIN nodes o ON o.user_id = f.user_id AND o.id = f.object_id")
FACT_FROM = f"facts f {JOIN_NODES}"
# FACT_COLS over facts f alone: the endpoints' names looked up per row
FACT_COLS_NAMED = FACT_COLS.replace("s.name, o.name", ", ".join(
    f"(SELECT {a}.name FROM nodes {a} WHERE {a}.user_id = f.user_id AND {a}.id = f.{side}_id)"
    for a, side in (("s", "subject"), ("o", "object"))))
NODE_COLS = ("n.id, n.user_id, n.agent_id, n.app_id, n.name, n.key, n.type, n.summary, n.metadata, "
             "n.created_at, n.updated_at")
CHUNK = 1000


def utc(value: datetime) -> datetime:
    # psycopg answers in the session's zone (UTC) as a ZoneInfo: the models use datetime.UTC
    return value.replace(tzinfo=UTC)


def utc_opt(value: datetime | None) -> datetime | None:
    return None if value is None else value.replace(tzinfo=UTC)


def chunks(seq: Sequence[Any], size: int = CHUNK) -> Iterator[Sequence[Any]]:
    for i in range(0, len(seq), size):
        yield seq[i : i + size]


@lru_cache(maxsize=8_192)
def fact_tsv(relation: str, type_: str | None, kind: str) -> str:
    return tsvector(fts_document(relation, type_ or "", kind if kind != EdgeKind.FACT else ""))


def node_tsv(name: str, summary: str | None, context: object) -> str:
    return tsvector(fts_document(name, summary or ""), fts_document(context if isinstance(context, str) else ""))


def row_to_fact(r: Sequence[Any]) -> Fact:
    return Fact(
        id=r[0], user_id=r[1], agent_id=opt(r[2]), app_id=opt(r[3]), session_id=opt(r[4]),
        subject_id=r[5], relation=r[6], object_id=r[7], kind=EdgeKind(r[8]), confidence=r[9],
        speculation=r[10], pinned=r[11], type=r[12], source=r[13],
        metadata=load_json(r[14]), turn_id=r[15], message_ids=load_json(r[16]),
        mention_count=r[17], created_at=utc(r[18]), updated_at=utc(r[19]), valid_at=utc(r[20]),
        invalid_at=utc_opt(r[21]), superseded_by=r[22], subject=r[23], object=r[24],
    )


def row_to_node(r: Sequence[Any]) -> Node:
    return Node(
        id=r[0], user_id=r[1], agent_id=opt(r[2]), app_id=opt(r[3]), name=r[4], key=r[5],
        type=r[6], summary=r[7], metadata=load_json(r[8]), created_at=utc(r[9]), updated_at=utc(r[10]),
    )


SEARCH = TextSearch(
    match=tsquery,
    counts="SELECT (SELECT count(*) FROM (SELECT 1 FROM nodes WHERE tsv @@ x.q::tsquery LIMIT %s) c) "
           "FROM unnest(%s::text[]) WITH ORDINALITY AS x(q, i) ORDER BY x.i",
    # ts_rank weights {D, C, B, A}: a node's own text (A) counts twice its context (B), as bm25's column weights
    rank="SELECT n.id, greatest(ts_rank('{{0, 0, 0.5, 1.0}}', n.tsv, q), 1e-9) AS score "
         "FROM nodes n, CAST(%s AS tsquery) q WHERE n.tsv @@ q AND {where} ORDER BY score DESC, n.seq LIMIT %s",
    newest="SELECT n.id FROM nodes n WHERE n.tsv @@ %s::tsquery AND {where} ORDER BY n.seq DESC LIMIT %s",
    # Matches first (the GIN index), newest of them after: walking the storage order backwards
    # and testing each row, the plan PostgreSQL prefers, reads every fact when a word is rare.
    # The endpoints' names as subqueries: planning joins cost more than running the statement.
    facts="WITH m AS MATERIALIZED (SELECT f.user_id, f.id, f.seq FROM facts f "
          "WHERE f.tsv @@ %s::tsquery AND {where} AND {when}), "
          "newest AS (SELECT * FROM m ORDER BY seq DESC LIMIT %s) "
          f"SELECT {FACT_COLS_NAMED} FROM newest JOIN facts f ON f.user_id = newest.user_id AND f.id = newest.id "
          "ORDER BY f.seq DESC",
    fact_count="SELECT count(*) FROM (SELECT 1 FROM facts f WHERE f.tsv @@ %s::tsquery AND {where} AND {when} "
               "LIMIT %s) c",
    # both in one: the matches up to the cap (all of them when the word is not common), the newest
    # of them, and how many there were: one GIN scan and one round trip where recall made two
    facts_counted="WITH m AS MATERIALIZED (SELECT f.user_id, f.id, f.seq FROM facts f "
                  "WHERE f.tsv @@ %s::tsquery AND {where} AND {when} LIMIT %s), "
                  "newest AS (SELECT * FROM m ORDER BY seq DESC LIMIT %s) "
                  f"SELECT {FACT_COLS_NAMED}, (SELECT count(*) FROM m) FROM newest "
                  "JOIN facts f ON f.user_id = newest.user_id AND f.id = newest.id ORDER BY f.seq DESC",
    # a common match (a relation word: a share of all facts): the walk back finds the newest at once
    facts_common=f"SELECT {FACT_COLS_NAMED} FROM facts f WHERE f.tsv @@ %s::tsquery AND {{where}} AND {{when}} "
                 "ORDER BY f.seq DESC LIMIT %s",
    event_time="(n.metadata::jsonb ->> 'time')",
)
DIALECT = Dialect(
    mark="%s", true="true", stamp=lambda t: t, order="seq", arrays=True,
    # across users, the nodes' own user_id keeps the lookup on the (user_id, endpoint) indexes
    endpoint="(f.user_id, f.{side}_id) IN (SELECT user_id, id FROM nodes WHERE {ids})",
    endpoint_known_user="f.{side}_id",  # the (user_id, subject_id|object_id) indexes answer directly
    fact_node="f.user_id = n.user_id AND f.{side}_id = n.id", hint_user=False,
    vector_node="v.user_id = n.user_id AND v.node_id = n.id",
    # the endpoints' names and keys as subqueries, not joins: planning the joins cost more than
    # running a lookup of facts by id (0.75 vs 0.38 ms)
    fact_cols=FACT_COLS_NAMED, fact_from="facts f",
    endpoint_key="(SELECT {alias}.key FROM nodes {alias} WHERE {alias}.user_id = f.user_id AND {alias}.id = f.{side}_id)",
    node_cols=NODE_COLS, fact_row=row_to_fact, node_row=row_to_node, search=SEARCH,
)


scope_sql = DIALECT.scope  # the backend's modules import these from here
when_sql = DIALECT.when
