"""Every tool's input, fuzzed through ``TrulyMem.call()``: arguments drawn from the tool's own
JSON schema (so most reach the tool's code) and then made hostile — wrong types, huge or
invalid strings, deep nesting, huge numbers, nulls, unknown and missing fields. Every
failure must be one of the project's typed errors, and a failed call must change nothing.

``TRULYMEM_FUZZ_EXAMPLES`` sets the examples per tool (default 80: under a minute on a
small machine; the long benchmark run sets a few thousand).
"""

from __future__ import annotations

import json
import os
import time
from collections import Counter
from functools import reduce
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.helpers import snapshot
from trulymem import TrulyMem
from trulymem.errors import TrulyMemError
from trulymem.model import Scope
from trulymem.tools import REGISTRY

pytestmark = pytest.mark.reliability

EXAMPLES = int(os.environ.get("TRULYMEM_FUZZ_EXAMPLES", "80"))
MEMORY_ID = "<memory id>"  # replaced by a stored memory's id before the call
VOCAB = ["user", "alice", "bob", "T0", "tea", "likes", "AI", "role", "note", "in_progress", "paused", "已完成",
         "猫娘", "jazz", "memory", "preference", "user preference", "type", "pinned", "<x * 4001>", MEMORY_ID]


def _subclasses(cls: type) -> list[type]:
    return [s for c in cls.__subclasses__() for s in (c, *_subclasses(c))]


CODES = {c.code for c in _subclasses(TrulyMemError)}  # an error outside the tree is not a typed error


# --- hostile values ----------------------------------------------------------------------------

def _nest(depth: int, kind: str) -> Any:
    return reduce(lambda inner, _: [inner] if kind == "list" else {"k": inner}, range(depth), "x")


# Big values are drawn as tokens and built just before the call: a failing example stays printable.
BIG = {f"<{c} * {n}>": c * n for c, n in (("x", 100), ("x", 4_001), ("x", 70_000), ("x", 1_000_000),
                                          ("长", 5_000), ("长", 200_000))}
BIG |= {f"<{k} nested {d}>": _nest(d, k) for k in ("list", "dict") for d in (200, 3_000)}
BIG["<10 ** 5000>"] = 10 ** 5000

hostile = st.one_of(
    st.sampled_from([None, True, False, 0, -1, 2 ** 63, -(2 ** 63), 1.5, float("nan"), float("inf"),
                     -float("inf"), "", " ", "\x00", "\ud800", "x\udfffy", "\u200b\u200d", "\u202eevil", "🦀" * 3,
                     "a\u0301" * 5, "0001-01-01T00:00:00+01:00", "9999-12-31T23:59:59-01:00", "2026-13-45",
                     [], {}, [None], {"": None}, {"AND": []}, {"OR": "x"}, {"NOT": None}]),
    st.sampled_from(sorted(BIG)),
    st.text(max_size=20),
    st.lists(st.text(max_size=5), max_size=3),
    st.dictionaries(st.text(max_size=5), st.text(max_size=5), max_size=3),
)


# --- values from a JSON schema -----------------------------------------------------------------

json_leaf = st.one_of(st.sampled_from(VOCAB), st.sampled_from(VOCAB), st.none(), st.booleans(), st.integers(-3, 3))
metadata = st.dictionaries(st.sampled_from(["type", "pinned", "confidence", "k", "source"]),
                           st.one_of(json_leaf, st.floats(-1, 2)), max_size=3)
message = st.fixed_dictionaries({"content": st.one_of(st.sampled_from(VOCAB), st.text(max_size=30))},
                                optional={"role": st.sampled_from(["user", "assistant", "", "<x * 100>"])})
filters = st.recursive(
    st.one_of(st.builds(lambda v: {"memory": v}, st.sampled_from(VOCAB)),
              st.builds(lambda f, op, w: {f: {op: w}},
                        st.sampled_from(["memory", "type", "user_id", "app_id", "metadata.k", "created_at", "pinned"]),
                        st.sampled_from(["eq", "ne", "gt", "lte", "in", "nin", "contains", "icontains", "regex"]),
                        st.one_of(json_leaf, st.lists(json_leaf, max_size=3),
                                  st.sampled_from(["2026-01-01T00:00:00Z", "yesterday"])))),
    lambda inner: st.one_of(st.builds(lambda xs: {"OR": xs}, st.lists(inner, max_size=3)),
                            st.builds(lambda xs: {"AND": xs}, st.lists(inner, max_size=3)),
                            st.builds(lambda x: {"NOT": x}, inner)),
    max_leaves=6)


def _string(s: dict[str, Any]) -> st.SearchStrategy[Any]:
    if s.get("format") == "date-time":
        return st.sampled_from(["2026-01-01T00:00:00Z", "2025-06-01T12:00:00+02:00", "2026-02-01"])
    low, high = s.get("minLength", 0), min(s.get("maxLength", 40), 40)
    return st.one_of(st.sampled_from(VOCAB), st.text(min_size=low, max_size=max(low, high)))


def from_schema(s: dict[str, Any], name: str = "") -> st.SearchStrategy[Any]:
    """Values matching a tool's (inlined) JSON schema, kept small."""
    if name == "filters":
        return st.one_of(st.none(), filters)
    if name == "metadata":
        return st.one_of(st.none(), metadata)
    if name == "messages" and s.get("type") == "object" and "properties" not in s:  # mem0's free-form messages
        return message
    if "enum" in s:
        return st.sampled_from(s["enum"])
    if "anyOf" in s:
        return st.one_of([from_schema(alt, name) for alt in s["anyOf"]])
    kind = s.get("type")
    if kind == "string":
        return _string(s)
    if kind == "integer":
        return st.integers(s.get("minimum", -3), min(s.get("maximum", 30), 30))
    if kind == "number":
        return st.floats(s.get("minimum", -2.0), s.get("maximum", 2.0), allow_nan=False)
    if kind == "boolean":
        return st.booleans()
    if kind == "null":
        return st.none()
    if kind == "array":
        return st.lists(from_schema(s.get("items", {}), name), min_size=s.get("minItems", 0),
                        max_size=max(s.get("minItems", 0), min(s.get("maxItems", 3), 3)))
    if kind == "object" or "properties" in s:
        props = s.get("properties", {})
        if props:
            required = set(s.get("required", []))
            return st.fixed_dictionaries({k: from_schema(v, k) for k, v in props.items() if k in required},
                                         optional={k: from_schema(v, k) for k, v in props.items() if k not in required})
        extra = s.get("additionalProperties")
        values = from_schema(extra, name) if isinstance(extra, dict) else json_leaf
        return st.dictionaries(st.sampled_from(VOCAB), values, min_size=s.get("minProperties", 0), max_size=3)
    return json_leaf


@st.composite
def tool_args(draw: st.DrawFn, schema: dict[str, Any]) -> Any:
    """Valid arguments, or valid ones with some fields made hostile, fields added or dropped,
    or not an object at all."""
    args = draw(from_schema(schema))
    how = draw(st.sampled_from(["valid", "valid", "hostile field", "hostile field", "unknown field",
                                "missing field", "not an object"]))
    if how == "not an object":
        return draw(hostile.filter(lambda v: not isinstance(v, dict)))
    if how == "hostile field" and schema.get("properties"):
        for key in draw(st.lists(st.sampled_from(sorted(schema["properties"])), min_size=1, max_size=2, unique=True)):
            args[key] = draw(hostile)
    elif how == "unknown field":
        args[draw(st.sampled_from(["extra", "", "user id", "__class__"]))] = draw(hostile)
    elif how == "missing field" and schema.get("required"):
        args.pop(draw(st.sampled_from(schema["required"])), None)
    return args


def _realise(value: Any, mid: str) -> Any:
    """The drawn arguments with their tokens replaced: a stored memory's id, the big values."""
    if isinstance(value, str):
        return mid if value == MEMORY_ID else BIG.get(value, value)
    if isinstance(value, list):
        return [_realise(v, mid) for v in value]
    if isinstance(value, dict):
        return {k: _realise(v, mid) for k, v in value.items()}
    return value


# --- the store and the check -------------------------------------------------------------------

def _seeded() -> tuple[TrulyMem, str]:
    mem = TrulyMem(":memory:", user_id="alice", embedder="hashing")
    mem.commit([{"subject": "user", "relation": "likes", "object": "tea", "type": "preference"},
                {"subject": "user", "relation": "lives_in", "object": "Lisbon"}])
    mem.task_create("T0", "a task", info_nodes=["tea"])
    mem.persona_set({"role": "guide"})
    res = mem.call("add_memory", {"text": "I like jazz", "metadata": {"k": 1}})
    mem.with_scope(user_id="bob").call("add_memory", {"text": "bob's secret"})
    return mem, res.result["results"][0]["id"]  # type: ignore[index]


CALLS: Counter[str] = Counter()
OUTCOMES: Counter[str] = Counter()


def _fuzz(name: str) -> None:
    tool = REGISTRY[name]

    @settings(max_examples=EXAMPLES, deadline=None, database=None, derandomize=False,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.large_base_example,
                                     HealthCheck.filter_too_much])
    @given(args=tool_args(tool.parameters()), scope=st.sampled_from(["alice", "alice/agent", "everyone"]))
    def run(args: Any, scope: str) -> None:
        mem, mid = _seeded()
        try:
            caller = {"alice": mem, "alice/agent": mem.with_scope(agent_id="a1"),
                      "everyone": TrulyMem(mem.store, scope=Scope.everyone(), embedder=mem.embedder)}[scope]
            args = _realise(args, mid)
            before = snapshot(mem)
            res = caller.call(name, args)  # anything but a TrulyMemError escapes here and fails the test
            CALLS[name] += 1
            if res.ok:
                OUTCOMES["ok"] += 1
                json.dumps(res.to_dict())  # plain JSON data
                return
            err = res.error or {}
            OUTCOMES[str(err.get("type"))] += 1
            assert err.get("type") in CODES, err
            assert isinstance(err.get("message"), str) and err["message"], err
            assert "validation error for" not in err["message"] and len(err["message"]) < 2_000, err
            assert snapshot(mem) == before, f"{name} failed ({err}) but changed the store"
        finally:
            mem.close()

    run()


def test_every_tool_input_fuzzed_through_call() -> None:
    started = time.monotonic()
    for name in sorted(REGISTRY):
        _fuzz(name)
    kinds = ", ".join(f"{k} {n}" for k, n in OUTCOMES.most_common())
    print(f"\nfuzzed {sum(CALLS.values())} calls over {len(CALLS)} tools in {time.monotonic() - started:.0f} s: {kinds}")
    assert set(CALLS) == set(REGISTRY)
