"""Hypothesis strategies for every tool's input, shared by the fuzz tests (``call()``, HTTP,
MCP) and ``bench/bench_reliability.py``: arguments drawn from the tool's own JSON schema (so
most reach the tool's code) and then made hostile — wrong types, huge or invalid strings,
deep nesting, huge numbers, nulls, unknown and missing fields.

``fuzz_tool`` runs one tool's examples through any interface: the interface's ``call`` says
what came back (``Outcome``) and ``snapshot`` what the database holds, and each example
is checked the same way everywhere — a failure is a typed error, never a 5xx, and changes
nothing. Big values are drawn as tokens and built just before the call (``realise``), so a
failing example stays printable.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import reduce
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from trulymem import TrulyMem
from trulymem.errors import TrulyMemError

MEMORY_ID = "<memory id>"  # replaced by a stored memory's id before the call
VOCAB = ["user", "alice", "bob", "T0", "tea", "likes", "AI", "role", "note", "in_progress", "paused", "已完成",
         "猫娘", "jazz", "memory", "preference", "user preference", "type", "pinned", "<x * 4001>", MEMORY_ID]


def _subclasses(cls: type) -> list[type]:
    return [s for c in cls.__subclasses__() for s in (c, *_subclasses(c))]


CODES = {c.code for c in _subclasses(TrulyMemError)}  # an error outside the tree is not a typed error
# what the HTTP layer itself answers beside the tools' errors (trulymem.server.errors)
HTTP_CODES = CODES | {"too_large", "not_found", "method_not_allowed", "unauthorized", "forbidden", "rate_limited"}


# --- hostile values ----------------------------------------------------------------------------

def _nest(depth: int, kind: str) -> Any:
    return reduce(lambda inner, _: [inner] if kind == "list" else {"k": inner}, range(depth), "x")


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
OPERATORS = ["eq", "ne", "gt", "gte", "lt", "lte", "in", "nin", "contains", "icontains"]
filters = st.recursive(
    st.one_of(st.builds(lambda v: {"memory": v}, st.sampled_from(VOCAB)),
              st.builds(lambda f, op, w: {f: {op: w}},
                        st.sampled_from(["memory", "type", "user_id", "app_id", "metadata.k", "created_at", "pinned"]),
                        st.sampled_from([*OPERATORS, "regex"]),
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


def realise(value: Any, mid: str) -> Any:
    """The drawn arguments with their tokens replaced: a stored memory's id, the big values."""
    if isinstance(value, str):
        return mid if value == MEMORY_ID else BIG.get(value, value)
    if isinstance(value, list):
        return [realise(v, mid) for v in value]
    if isinstance(value, dict):
        return {k: realise(v, mid) for k, v in value.items()}
    return value


def seed(mem: TrulyMem) -> str:
    """The data every fuzzed call meets: alice's facts, a task, a persona, a memory (its id is
    returned) and bob's memory."""
    mem.commit([{"subject": "user", "relation": "likes", "object": "tea", "type": "preference"},
                {"subject": "user", "relation": "lives_in", "object": "Lisbon"}])
    mem.task_create("T0", "a task", info_nodes=["tea"])
    mem.persona_set({"role": "guide"})
    res = mem.call("add_memory", {"text": "I like jazz", "metadata": {"k": 1}})
    mem.with_scope(user_id="bob").call("add_memory", {"text": "bob's secret"})
    return str(res.result["results"][0]["id"])  # type: ignore[index]


def to_json(value: Any) -> bytes:
    """A request body as a hostile client would send it: NaN as ``NaN``, lone surrogates
    escaped, integers of any length, nesting of any depth (the server must refuse, not the client)."""
    out: list[str] = []
    stack: list[Any] = [value]
    while stack:  # iterative: a 3,000-deep value is written, not a RecursionError
        item = stack.pop()
        if isinstance(item, _Raw):
            out.append(item.text)
        elif isinstance(item, dict):
            stack.append(_Raw("}"))
            for i, (k, v) in reversed(list(enumerate(item.items()))):
                stack += [v, _Raw((", " if i else "") + json.dumps(str(k)) + ": ")]
            out.append("{")
        elif isinstance(item, list | tuple):
            stack.append(_Raw("]"))
            for i, v in reversed(list(enumerate(item))):
                stack += [v, _Raw(", " if i else "")]
            out.append("[")
        elif isinstance(item, int) and not isinstance(item, bool):
            out.append(_digits(item))
        else:
            out.append(json.dumps(item, allow_nan=True))
    return "".join(out).encode()


class _Raw:
    def __init__(self, text: str) -> None:
        self.text = text


def _digits(n: int) -> str:
    import sys

    old = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)
    try:
        return str(n)
    finally:
        sys.set_int_max_str_digits(old)


# --- one tool's examples through one interface -----------------------------------------------

@dataclass
class Outcome:
    """What one call answered: ``ok``, or the error's ``type`` and ``message``; ``status`` over
    HTTP; ``untyped`` says why the answer is not one of the project's errors."""

    ok: bool
    type: str | None = None
    message: str = ""
    status: int | None = None
    untyped: str | None = None


@dataclass
class Tally:
    """Counts over every call of one interface; ``problems`` holds the first few violations."""

    calls: Counter[str] = field(default_factory=Counter)
    outcomes: Counter[str] = field(default_factory=Counter)
    untyped: int = 0
    server_errors: int = 0
    partial_writes: int = 0
    skipped: int = 0
    problems: list[str] = field(default_factory=list)

    def problem(self, what: str, name: str, args: Any, strict: bool) -> None:
        """Record (or, ``strict``, raise) a violation; ``args`` as drawn, with the big values
        still tokens, so the report stays printable."""
        text = f"{name}: {what}; args {repr(args)[:300]}"
        if strict:
            raise AssertionError(text)
        if len(self.problems) < 20:
            self.problems.append(text)

    def summary(self) -> str:
        kinds = ", ".join(f"{k} {n}" for k, n in self.outcomes.most_common())
        return (f"{sum(self.calls.values())} calls over {len(self.calls)} tools ({kinds}); untyped errors "
                f"{self.untyped}, 5xx {self.server_errors}, partial writes {self.partial_writes}, "
                f"not sendable {self.skipped}")


Caller = Callable[[str, Any, str], Outcome | None]  # (tool, arguments, scope) -> outcome; None: not sendable


def fuzz_tool(name: str, schema: dict[str, Any], call: Caller, snapshot: Callable[[], list[str]],
              memory_id: Callable[[], str], tally: Tally, *, examples: int, scopes: list[str],
              strict: bool = True, before_each: Callable[[], None] | None = None) -> None:
    """Run ``examples`` drawn arguments for one tool through ``call`` and check each answer:
    a typed error (``CODES`` / ``HTTP_CODES``), no 5xx, and no change to ``snapshot()`` after
    a failure. ``strict`` raises on the first violation (so hypothesis shrinks it); otherwise
    the violations are counted in ``tally``."""

    @settings(max_examples=examples, deadline=None, database=None, derandomize=False,
              suppress_health_check=list(HealthCheck))
    @given(args=tool_args(schema), scope=st.sampled_from(scopes))
    def run(args: Any, scope: str) -> None:
        if before_each is not None:
            before_each()
        drawn, args = args, realise(args, memory_id())
        before = snapshot()
        out = call(name, args, scope)
        if out is None:
            tally.skipped += 1
            return
        tally.calls[name] += 1
        if out.ok:
            tally.outcomes["ok"] += 1
            return
        tally.outcomes[str(out.status or out.type)] += 1
        if out.status is not None and out.status >= 500:
            tally.server_errors += 1
            tally.problem(f"answered {out.status}: {out.message[:200]}", name, (scope, drawn), strict)
        if out.untyped is not None:
            tally.untyped += 1
            tally.problem(f"untyped error: {out.untyped[:300]}", name, (scope, drawn), strict)
        if snapshot() != before:
            tally.partial_writes += 1
            tally.problem(f"failed ({out.type}: {out.message[:100]}) but changed the store", name, (scope, drawn), strict)

    run()
