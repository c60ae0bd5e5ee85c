"""Complexity caps (``trulymem.limits``) on filters and queries, on every path: the library,
``call()``, HTTP and MCP; and the filter evaluation they bound (issue 12, item 5)."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.helpers import Served, snapshot
from trulymem import InvalidInput, Memory, TrulyMem
from trulymem.filters import compile_filter
from trulymem.limits import LIMITS
from trulymem.memories import MemoryItem


def nested(depth: int) -> dict[str, Any]:
    spec: dict[str, Any] = {"type": "note"}
    for _ in range(depth):
        spec = {"NOT": spec}
    return spec


OVER_CAP: dict[str, dict[str, Any]] = {
    "conditions": {"OR": [{"memory": {"contains": f"w{i}"}} for i in range(LIMITS.filter_conditions + 1)]},
    "depth": nested(LIMITS.filter_depth + 1),
    "characters": {"memory": {"contains": "x" * (LIMITS.filter_chars + 1)}},
    "in-list characters": {"type": {"in": ["abcdefghij"] * (LIMITS.filter_chars // 10)}},
    "deep value": {"metadata.k": {"eq": json.loads("[" * 50 + "]" * 50)}},
    "huge integer": {"metadata.k": {"gt": 10 ** 20_000}},
}
AT_CAP = {"OR": [{"memory": {"contains": f"needle {i}"}} for i in range(LIMITS.filter_conditions - 1)]
          + [{"NOT": nested(LIMITS.filter_depth - 2)}]}


@pytest.fixture
def filled(mem: TrulyMem) -> TrulyMem:
    mem.call("memory_commit", {"triplets": [
        {"subject": "user", "relation": "memory", "object": f"memory {i} about needle {i % 150}", "type": "note"}
        for i in range(300)]})
    return mem


@pytest.mark.parametrize("case", list(OVER_CAP))
@pytest.mark.parametrize("tool", ["get_memories", "search_memories", "delete_all_memories"])
def test_filters_over_a_cap_are_refused(filled: TrulyMem, tool: str, case: str) -> None:
    args: dict[str, Any] = {"filters": OVER_CAP[case]}
    if tool == "search_memories":
        args["query"] = "needle"
    before = snapshot(filled)
    res = filled.call(tool, args)
    assert not res.ok and res.error is not None
    assert res.error["type"] == "invalid_input" and res.error["field"] == "filters", res.error
    assert snapshot(filled) == before


def test_a_filter_at_the_caps_runs(filled: TrulyMem) -> None:
    res = filled.call("get_memories", {"filters": AT_CAP, "page_size": 1000})
    assert res.ok, res.error
    assert res.result["total"] == 300  # type: ignore[index]  # the NOT of "type is note" is false: the needles decide
    gone = filled.call("delete_all_memories", {"filters": AT_CAP})
    assert gone.ok and gone.result["deleted"] == 300  # type: ignore[index]


def test_queries_over_the_cap_are_refused(filled: TrulyMem, db_path: Path) -> None:
    long = "word " * (LIMITS.search_query_chars // 5 + 1)
    for tool, args, field in (("search_memories", {"query": long}, "query"),
                              ("memory_recall", {"query_intent": "x" * (LIMITS.recall_query_chars + 1)},
                               "query_intent")):
        res = filled.call(tool, args)
        assert not res.ok and res.error["field"] == field, res.error  # type: ignore[index]
    with Memory(str(db_path), embedder="hashing") as m:
        with pytest.raises(InvalidInput) as exc:
            m.search("word " * 100_000, user_id="alice")
        assert exc.value.field == "query"
        with pytest.raises(InvalidInput) as exc:
            m.get_all(user_id="alice", filters=OVER_CAP["conditions"])
        assert exc.value.field == "filters"


# --- the evaluation is the plain meaning of the filter, pooled or not ------------------------

NOW = datetime(2026, 1, 1, tzinfo=UTC)
WORDS = ["tea", "Tea", "coffee", "jazz", ""]
_value = st.one_of(st.sampled_from(WORDS), st.integers(-2, 2), st.none(), st.booleans())
_field = st.sampled_from(["memory", "type", "metadata.k", "k", "created_at", "pinned"])


def _want(op: str, field: str) -> st.SearchStrategy[Any]:
    if op in ("contains", "icontains"):
        return st.sampled_from(WORDS[:-1])
    if field == "created_at":
        one = st.sampled_from([(NOW + timedelta(days=d)).isoformat() for d in (-1, 0, 1)])
        return st.lists(one, max_size=3) if op in ("in", "nin") else one
    return st.lists(_value, max_size=3) if op in ("in", "nin") else _value


@st.composite
def leaf(draw: st.DrawFn) -> dict[str, Any]:
    field, op = draw(_field), draw(st.sampled_from(["eq", "ne", "gt", "lte", "in", "nin", "contains", "icontains"]))
    want = draw(_want(op, field))
    return {field: want} if op == "eq" and draw(st.booleans()) else {field: {op: want}}


filters = st.recursive(leaf(), lambda inner: st.one_of(
    st.builds(lambda xs: {"OR": xs}, st.lists(inner, min_size=1, max_size=4)),
    st.builds(lambda xs: {"AND": xs}, st.lists(inner, min_size=1, max_size=3)),
    st.builds(lambda x: {"NOT": x}, inner)), max_leaves=12)
items = st.builds(lambda text, type_, k, pinned, days: MemoryItem(
    id="i", memory=text, hash="h", metadata={} if k is None else {"k": k}, type=type_, pinned=pinned, subject="user",
    relation="memory", object=text, user_id="alice", created_at=NOW + timedelta(days=days), updated_at=NOW),
    st.sampled_from(["tea time", "I like TEA", "coffee and jazz", ""]), st.sampled_from([None, "tea", "jazz"]),
    _value, st.booleans(), st.integers(-1, 1))


def reference(spec: dict[str, Any], item: MemoryItem) -> bool:
    """The filter language read literally, one condition at a time."""
    def value(field: str) -> Any:
        if field.startswith("metadata."):
            return item.metadata.get(field[9:])
        return getattr(item, field) if field in MemoryItem.model_fields else item.metadata.get(field)

    def test(field: str, op: str, want: Any) -> bool:
        h = value(field)
        if field == "created_at" and op not in ("contains", "icontains"):
            want = [datetime.fromisoformat(w) for w in want] if isinstance(want, list) else datetime.fromisoformat(want)
        if op in ("eq", "ne"):
            return (h == want) == (op == "eq")
        if op in ("in", "nin"):
            return any(h == w for w in want) == (op == "in")
        if op == "contains":
            return isinstance(h, str | list) and want in h
        if op == "icontains":
            return isinstance(h, str) and want.casefold() in h.casefold()
        try:
            return h is not None and (h > want if op == "gt" else h <= want)
        except TypeError:
            return False

    out = True
    for key, v in spec.items():
        if key == "OR":
            out &= any(reference(s, item) for s in v)
        elif key == "AND":
            out &= all(reference(s, item) for s in v)
        elif key == "NOT":
            out &= not reference(v, item)
        elif isinstance(v, dict):
            out &= all(test(key, op, w) for op, w in v.items())
        else:
            out &= test(key, "eq", v)
    return out


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(filters, st.lists(items, min_size=1, max_size=6))
def test_compiled_filters_mean_what_they_say(spec: dict[str, Any], batch: list[MemoryItem]) -> None:
    if _unordered(spec):  # a comparison with nothing to order by is refused, never "matches nothing"
        with pytest.raises(InvalidInput, match="takes a number, a string or a date-time"):
            compile_filter(spec)
        return
    test = compile_filter(spec)
    assert [test(i) for i in batch] == [reference(spec, i) for i in batch]


def _unordered(spec: Any) -> bool:
    """``gt``/``lte`` given a value that has no order (null, true/false, a list, an object)."""
    if isinstance(spec, list):
        return any(_unordered(s) for s in spec)
    if not isinstance(spec, dict):
        return False
    return any(op in ("gt", "lte") and (isinstance(w, bool) or not isinstance(w, int | float | str))
               for v in spec.values() if isinstance(v, dict) for op, w in v.items()) or \
        any(_unordered(v) for k, v in spec.items() if k in ("OR", "AND", "NOT"))


# --- HTTP and MCP ----------------------------------------------------------------------------

def test_http_and_mcp_refuse_over_cap_requests(db_path: Path) -> None:
    with TrulyMem(db_path, user_id="alice") as mem:
        mem.call("add_memory", {"text": "tea"})
    s = Served(str(db_path))
    try:
        with httpx.Client(base_url=s.url, timeout=30) as c:
            wide = {"OR": [{"memory": {"contains": f"w{i}"}} for i in range(5_000)]}
            for r in (c.post("/v1/memories/list", json={"user_id": "alice", "filters": wide}),
                      c.get("/v1/memories", params={"user_id": "alice", "filters": json.dumps(OVER_CAP["depth"])}),
                      c.request("DELETE", "/v1/memories", params={"user_id": "alice"}),  # no filter: allowed
                      c.post("/v1/memories/search", json={"user_id": "alice", "query": "word " * 20_000})):
                if r.request.method == "DELETE":
                    assert r.status_code == 200 and r.json()["deleted"] == 1
                    continue
                assert r.status_code == 422, r.text
                assert r.json()["error"]["field"] in ("filters", "query")
        anyio.run(_mcp_over_cap, s.url)
    finally:
        s.stop()


async def _mcp_over_cap(url: str) -> None:
    from tests.test_mcp import caller, http_session

    async with http_session(url) as session:
        call = caller(session)
        with pytest.raises(RuntimeError, match="invalid_input: filters"):
            await call("get_memories", user_id="alice", filters=OVER_CAP["conditions"])
        with pytest.raises(RuntimeError, match="invalid_input: query"):
            await call("search_memories", user_id="alice", query="word " * 1_000)
