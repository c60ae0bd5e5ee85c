"""OpenAI strict mode: every tool's schema follows the Structured Outputs rules, the
``openai`` package's own strict-schema helper finds nothing to change in it, and a
real ``openai`` client round trip (strict tools sent to a local OpenAI-compatible
server, the tool calls it answers run through ``TrulyMem.call``) works for every tool.
Also the decoding those schemas rely on: JSON text for objects, null for defaults."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

import pytest

from tests.helpers import snapshot, triplet
from trulymem import InvalidInput, TrulyMem, openai_tools
from trulymem.tools import REGISTRY

pytest.importorskip("openai")

from openai import OpenAI  # noqa: E402
from openai.lib._pydantic import _ensure_strict_json_schema  # noqa: E402

from trulymem.llm.scripted_server import ScriptedServer  # noqa: E402

# The subset of JSON Schema that strict mode accepts (OpenAI's Structured Outputs guide:
# "Supported schemas"); anything else, default/minLength/maxLength included, is refused.
ALLOWED = {"type", "properties", "required", "additionalProperties", "items", "anyOf", "enum", "const",
           "description", "pattern", "format", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
           "multipleOf", "minItems", "maxItems"}
TYPES = {"string", "number", "integer", "boolean", "object", "array", "null"}
FORMATS = {"date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"}


def strict_problems(schema: dict[str, Any]) -> list[str]:
    """What strict mode would refuse in a function's ``parameters``; empty when valid."""
    problems: list[str] = []
    counts = {"properties": 0, "enum": 0}
    if schema.get("type") != "object" or "anyOf" in schema:
        problems.append("/: the root must be an object, not anyOf")

    def walk(node: Any, path: str, depth: int) -> None:
        if not isinstance(node, dict):
            problems.append(f"{path}: not a schema")
            return
        for k in set(node) - ALLOWED:
            problems.append(f"{path}: keyword {k!r} is not supported")
        kinds = node.get("type")
        kinds = [kinds] if isinstance(kinds, str) else kinds
        if kinds is None and "anyOf" not in node and "enum" not in node and "const" not in node:
            problems.append(f"{path}: no type")
        for t in kinds or []:
            if t not in TYPES:
                problems.append(f"{path}: unknown type {t!r}")
        if node.get("format") not in (None, *FORMATS):
            problems.append(f"{path}: format {node['format']!r}")
        if "object" in (kinds or []):
            if depth > 10:
                problems.append(f"{path}: nested deeper than 10 levels")
            props = node.get("properties", {})
            counts["properties"] += len(props)
            if node.get("additionalProperties") is not False:
                problems.append(f"{path}: additionalProperties must be false")
            if sorted(node.get("required", [])) != sorted(props):
                problems.append(f"{path}: every property must be required")
            for name, sub in props.items():
                walk(sub, f"{path}/{name}", depth + 1)
        if "items" in node:
            walk(node["items"], f"{path}/items", depth)
        for i, alt in enumerate(node.get("anyOf", [])):
            walk(alt, f"{path}/anyOf/{i}", depth)
        counts["enum"] += len(node.get("enum", []))

    walk(schema, "", 1)
    if counts["properties"] > 5000 or counts["enum"] > 1000:
        problems.append(f"too large: {counts}")
    return problems


def test_every_tool_schema_is_strict_valid() -> None:
    tools = openai_tools(strict=True)
    assert len(tools) == len(REGISTRY) == 20
    for tool in tools:
        fn = tool["function"]
        assert isinstance(fn, dict) and fn["strict"] is True
        params = fn["parameters"]
        assert strict_problems(params) == [], fn["name"]
        # The openai package's own strict helper makes a schema strict; on ours it changes nothing.
        again = copy.deepcopy(params)
        assert _ensure_strict_json_schema(again, path=(), root=again) == params, fn["name"]
    # the default rendering is the same schemas, strict mode left to the caller
    assert [t["function"] for t in openai_tools()] == [
        {k: v for k, v in t["function"].items() if k != "strict"} for t in tools]  # type: ignore[union-attr]


def test_the_checker_refuses_what_strict_mode_refuses() -> None:
    loose = REGISTRY["add_memory"].parameters()
    found = " ".join(strict_problems(loose))
    for problem in ("every property must be required", "'default' is not supported", "'maxLength'",
                    "/metadata: additionalProperties must be false", "/messages"):
        assert problem in found


def test_free_form_objects_are_json_text_in_strict_schemas() -> None:
    params = {t["function"]["name"]: t["function"]["parameters"] for t in openai_tools()}  # type: ignore[index]
    assert params["add_memory"]["properties"]["metadata"]["type"] == ["string", "null"]
    assert params["add_memory"]["properties"]["messages"]["type"] == ["string", "null"]
    assert params["get_memories"]["properties"]["filters"]["type"] == ["string", "null"]
    assert params["persona_set"]["properties"]["attributes"]["type"] == "string"  # required: not nullable
    item = params["memory_commit"]["properties"]["triplets"]["items"]
    assert item["properties"]["metadata"]["type"] == ["string", "null"]
    assert "JSON object" in item["properties"]["metadata"]["description"]
    assert "Null means 1.0" in item["properties"]["confidence"]["description"]


# --- the round trip ---------------------------------------------------------------

def fill(schema: dict[str, Any], given: Any) -> Any:
    """A strict model's arguments: what it means to say, and null for every other field."""
    if isinstance(given, dict):
        obj = schema if schema.get("type") == "object" else next(a for a in schema["anyOf"] if a.get("type") == "object")
        return {k: fill(p, given[k]) if k in given else None for k, p in obj["properties"].items()}
    if isinstance(given, list):
        return [fill(schema["items"], g) for g in given]
    return given


def strict_model(server: ScriptedServer, calls: Callable[[], list[tuple[str, dict[str, Any]]]]) -> Any:
    """A scripted step answering with tool calls shaped by the tools the request carried, checked
    against their schemas as strict decoding guarantees."""
    import jsonschema

    def step(messages: list[dict[str, Any]]) -> dict[str, Any]:
        sent = {t["function"]["name"]: t["function"] for t in server.requests[-1]["tools"]}
        out = []
        for name, given in calls():
            fn = sent[name]
            assert fn["strict"] is True
            args = fill(fn["parameters"], given)
            jsonschema.validate(args, fn["parameters"])
            out.append({"name": name, "arguments": args})
        return {"content": None, "tool_calls": out}

    return step


def test_strict_round_trip_through_the_openai_client(mem: TrulyMem) -> None:
    state: dict[str, Any] = {}
    meta = json.dumps({"source_app": "chat"})
    first = [
        ("persona_set", {"attributes": json.dumps({"role": "catgirl", "catchphrases": ["nya~", "喵"]})}),
        ("memory_commit", {"triplets": [{"subject": "user", "relation": "likes", "object": "rock", "metadata": meta,
                                         "type": "preference"},
                                        {"subject": "user", "relation": "lives_in", "object": "Paris"}]}),
        ("task_create", {"task_id": "Task_idiom_chain", "description": "Idiom chain, current: 为所欲为"}),
        ("task_set_state", {"task_id": "Task_idiom_chain", "state": "paused"}),
        ("memory_ingest", {"messages": [{"speaker": "alice", "text": "I like rock", "id": "m1"}]}),
        ("add_memory", {"messages": json.dumps([{"role": "user", "content": "I live in Lisbon"}]),
                        "metadata": json.dumps({"type": "location"})}),
        ("memory_purge", {"criteria": {"subject": "user", "relation": "lives_in"}, "mode": "supersede",
                          "replacement": {"object": "Berlin", "metadata": json.dumps({"why": "moved"})}}),
    ]
    second = [
        ("persona_get", {}),
        ("memory_recall", {"query_intent": "rock"}),
        ("task_list", {}),
        ("memory_stats", {}),
        ("search_memories", {"query": "Lisbon", "filters": json.dumps({"type": "location"})}),
        ("get_memories", {"filters": json.dumps({"AND": [{"type": "location"}]}), "page_size": 10}),
        ("get_memory", {"memory_id": state.get("mid", "")}),
        ("update_memory", {"memory_id": state.get("mid", ""), "metadata": json.dumps({"checked": True})}),
        ("memory_history", {"memory_id": state.get("mid", "")}),
        ("context_rewrite", {"summary": "1 call: memory_recall said the user likes rock.",
                             "tool_calls_summarized": 1}),
        ("memory_dream", {"mode": "dry_run"}),
        ("delete_memory", {"memory_id": state.get("mid", "")}),
        ("delete_all_memories", {"filters": json.dumps({"type": "preference"})}),
    ]
    assert {n for n, _ in first + second} == set(REGISTRY)
    with ScriptedServer([], model="m", api_key="k") as server:
        server.script.steps = [strict_model(server, lambda: first), strict_model(server, lambda: [
            (n, {**a, "memory_id": state["mid"]} if "memory_id" in a else a) for n, a in second])]
        client = OpenAI(base_url=server.base_url, api_key="k", max_retries=0)
        results: dict[str, Any] = {}
        for round_ in (first, second):
            # parse() is the SDK's strict path: it refuses any tool that is not strict
            res = client.chat.completions.parse(model="m", messages=[{"role": "user", "content": "go"}],
                                                tools=openai_tools(strict=True))  # type: ignore[arg-type]
            assert server.requests[-1]["tools"] == openai_tools(strict=True)
            calls = res.choices[0].message.tool_calls or []
            assert [c.function.name for c in calls] == [n for n, _ in round_]
            for c in calls:
                out = mem.call(c.function.name, c.function.parsed_arguments,  # type: ignore[arg-type]
                               turn_calls=["memory_recall"])
                assert out.ok, (c.function.name, out.error)
                results[c.function.name] = out.result
            if round_ is first:
                state["mid"] = results["add_memory"]["results"][0]["id"]
    # what the JSON texts and nulls meant arrived intact
    assert mem.persona_get().attributes == {"role": "catgirl", "catchphrases": ["nya~", "喵"]}
    likes = next(f for f in mem.history("user", "likes") if f.object == "rock")
    assert likes.confidence == 1.0 and likes.type == "preference" and likes.metadata == {"source_app": "chat"}
    berlin = next(f for f in mem.history("user", "lives_in") if f.is_valid)
    assert berlin.object == "Berlin" and berlin.metadata == {"why": "moved"}
    assert [m["memory"] for m in results["get_memories"]["results"]] == ["I live in Lisbon"]
    assert results["search_memories"]["results"][0]["id"] == state["mid"]
    updated = next(f for f in mem.history("user") if f.id == results["update_memory"]["id"])
    assert updated.metadata == {"checked": True}
    assert results["memory_recall"]["text"]


# --- what the schemas rely on: decoding on the way in ------------------------------

def test_objects_and_arrays_may_come_as_json_text(mem: TrulyMem) -> None:
    res = mem.call("memory_commit", {"triplets": json.dumps([triplet("user", "likes", "jazz")]),
                                     "message_ids": '["m1"]'})
    assert res.ok, res.error
    res = mem.call("memory_commit", {"triplets": [{**triplet("user", "likes", "tea"), "metadata": '{"k": 1}'}]})
    assert res.ok, res.error
    assert next(f for f in mem.history("user", "likes") if f.object == "tea").metadata == {"k": 1}
    # a text field that looks like JSON stays text
    res = mem.call("add_memory", {"text": '["not", "a", "list"]'})
    assert res.ok and res.result["results"][0]["memory"] == '["not", "a", "list"]'  # type: ignore[index]


def test_null_means_the_default(mem: TrulyMem) -> None:
    res = mem.call("memory_commit", {"triplets": [{**triplet("user", "likes", "jazz"), "confidence": None,
                                                   "speculation": None, "pinned": None, "metadata": None}],
                                     "supersede": None, "message_ids": None})
    assert res.ok, res.error
    (fact,) = mem.history("user", "likes")
    assert fact.confidence == 1.0 and not fact.speculation and not fact.pinned
    res = mem.call("memory_recall", {"query_intent": None, "depth": None, "limit": None, "preset": None})
    assert res.ok, res.error
    # a required field is never defaulted
    res = mem.call("task_set_state", {"task_id": "T", "state": None})
    assert not res.ok and res.error["field"] == "state"  # type: ignore[index]


@pytest.mark.parametrize(("args", "field", "message"), [
    ({"triplets": "[{not json"}, "triplets", "not valid JSON"),
    ({"triplets": [{**triplet("u", "r", "o"), "metadata": "{'single': 'quotes'}"}]}, "triplets.0.metadata",
     "not valid JSON"),
    ({"triplets": "[" * 100_000 + "]" * 100_000}, "triplets", "nested too deeply"),
    ({"triplets": '"a string"'}, "triplets", "valid list"),
    ({"triplets": [{**triplet("u", "r", "o"), "metadata": '{"x": "\\ud800"}'}]}, "triplets.0.metadata.x",
     "not valid Unicode"),
])
def test_bad_json_text_is_one_typed_error_and_changes_nothing(mem: TrulyMem, args: dict[str, Any], field: str,
                                                              message: str) -> None:
    mem.commit([triplet("user", "likes", "rock")])
    before = snapshot(mem)
    with pytest.raises(InvalidInput) as err:
        mem.run("memory_commit", args)
    assert err.value.field == field and message in err.value.message
    assert snapshot(mem) == before


def test_the_tools_command_prints_strict_schemas() -> None:
    from click.testing import CliRunner

    from trulymem.cli import main

    out = CliRunner().invoke(main, ["tools", "--format", "openai", "--strict"])
    assert out.exit_code == 0 and json.loads(out.output) == openai_tools(strict=True)
    refused = CliRunner().invoke(main, ["tools", "--format", "anthropic", "--strict"])
    assert refused.exit_code == 2 and "--strict is for --format openai" in refused.output
