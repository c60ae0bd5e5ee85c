"""What the SQLite store's parts share: column lists and joins, conversions between
rows and models (timestamps, JSON, facts, nodes) and the SQL of scopes and ``When``."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from datetime import datetime
from functools import lru_cache
from typing import Any

from trulymem.model import EdgeKind, Fact, Node
from trulymem.store.sql import Dialect, TextSearch

# re-exported: the backend's modules import these from here
from trulymem.store.sql import dump_json as dump_json
from trulymem.store.sql import load_json as load_json
from trulymem.store.sql import opt as opt
from trulymem.text import fts_document, fts_match

_CHUNK = 500  # stays below SQLite's bound-parameter limit with room for scope params

FACT_COLS = (
    "f.id, f.user_id, f.agent_id, f.app_id, f.session_id, s.id, f.relation, o.id, "
    "f.kind, f.confidence, f.speculation, f.pinned, f.type, f.source, f.metadata, f.turn_id, "
    "f.message_ids, f.mention_count, f.created_at, f.updated_at, f.valid_at, f.invalid_at, "
    "f.superseded_by, s.name, o.name"
)
JOIN_NODES = "JOIN nodes s ON s.rid = f.subject_rid JOIN nodes o ON o.rid = f.object_rid"
FACT_FROM = f"facts f {JOIN_NODES}"
NODE_COLS = ("n.id, n.user_id, n.agent_id, n.app_id, n.name, n.key, n.type, n.summary, n.metadata, "
             "n.created_at, n.updated_at")


def ts(value: datetime) -> str:
    return value.isoformat(timespec="microseconds")


class Stamps:
    """``ts`` with a memo: a batch shares a handful of timestamps."""

    def __init__(self) -> None:
        self._seen: dict[datetime, str] = {}

    def __call__(self, value: datetime) -> str:
        out = self._seen.get(value)
        if out is None:
            out = self._seen[value] = ts(value)
        return out


dt = datetime.fromisoformat


def dt_opt(value: str | None) -> datetime | None:
    return None if value is None else datetime.fromisoformat(value)


def chunks(seq: Sequence[Any], size: int = _CHUNK) -> Iterator[Sequence[Any]]:
    for i in range(0, len(seq), size):
        yield seq[i : i + size]


def marks(n: int) -> str:
    return ",".join("?" * n)


@lru_cache(maxsize=8_192)
def fact_doc(relation: str, type_: str | None, kind: str) -> str:
    return fts_document(relation, type_ or "", kind if kind != EdgeKind.FACT else "")


_KINDS = {k.value: k for k in EdgeKind}  # a dict lookup is 5x cheaper than EdgeKind(value)


def row_to_fact(r: Sequence[Any]) -> Fact:
    # Rows come from our own schema: skip validation, parse what needs parsing (recall
    # builds ~200 of these per query, so every call here counts).
    invalid = r[21]
    return Fact(
        id=r[0], user_id=r[1], agent_id=r[2] or None, app_id=r[3] or None, session_id=r[4] or None,
        subject_id=r[5], relation=r[6], object_id=r[7], kind=_KINDS.get(r[8]) or EdgeKind(r[8]), confidence=r[9],
        speculation=bool(r[10]), pinned=bool(r[11]), type=r[12], source=r[13],
        metadata=load_json(r[14]), turn_id=r[15], message_ids=load_json(r[16]),
        mention_count=r[17], created_at=dt(r[18]), updated_at=dt(r[19]), valid_at=dt(r[20]),
        invalid_at=None if invalid is None else dt(invalid), superseded_by=r[22], subject=r[23], object=r[24],
    )


def row_to_node(r: Sequence[Any]) -> Node:
    return Node(
        id=r[0], user_id=r[1], agent_id=opt(r[2]), app_id=opt(r[3]), name=r[4], key=r[5],
        type=r[6], summary=r[7], metadata=load_json(r[8]), created_at=dt(r[9]), updated_at=dt(r[10]),
    )


_OWN_WEIGHT = 2.0  # a node's own text counts twice its context (LoCoMo: best recall@1 and @10 together)
_NODE_HITS = "FROM nodes_fts JOIN nodes n ON n.rid = nodes_fts.rowid WHERE nodes_fts MATCH ? AND {where}"
SEARCH = TextSearch(
    match=fts_match,
    counts="SELECT (SELECT count(*) FROM (SELECT 1 FROM nodes_fts WHERE nodes_fts MATCH j.value LIMIT ?)) "
           "FROM json_each(?) j ORDER BY j.key",
    # FTS5's bm25 is better when more negative
    rank=f"SELECT n.id, -bm25(nodes_fts, {_OWN_WEIGHT}, 1.0) AS score {_NODE_HITS} ORDER BY score DESC LIMIT ?",
    newest=f"SELECT n.id {_NODE_HITS} ORDER BY nodes_fts.rowid DESC LIMIT ?",
    # Walk the index newest-first instead of ranking every hit: relation words are common.
    facts=f"SELECT {FACT_COLS} FROM facts_fts JOIN facts f ON f.rid = facts_fts.rowid {JOIN_NODES} "
          "WHERE facts_fts MATCH ? AND {where} AND {when} ORDER BY facts_fts.rowid DESC LIMIT ?",
    event_time="json_extract(n.metadata, '$.time')",
)
DIALECT = Dialect(
    mark="?", true="1", stamp=ts, order="rid", arrays=False,
    endpoint="f.{side}_rid IN (SELECT rid FROM nodes WHERE {ids})", endpoint_known_user="",
    fact_node="f.{side}_rid = n.rid", vector_node="v.node_rid = n.rid", hint_user=True,
    fact_cols=FACT_COLS, fact_from=FACT_FROM, node_cols=NODE_COLS, fact_row=row_to_fact, node_row=row_to_node,
    search=SEARCH,
)


scope_sql = DIALECT.scope  # the backend's modules import these from here
when_sql = DIALECT.when
