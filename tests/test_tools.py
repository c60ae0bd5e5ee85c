from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from tests.helpers import snapshot, triplet
from trulymem import InvalidInput, TrulyMem, anthropic_tools, openai_tools
from trulymem.tools import REGISTRY

EXPECTED = {"memory_commit", "memory_recall", "memory_purge", "task_create", "task_set_state", "task_list",
            "persona_set", "persona_get", "context_rewrite", "memory_stats", "memory_ingest", "memory_dream",
            "add_memory", "search_memories", "get_memories", "get_memory", "update_memory", "delete_memory",
            "delete_all_memories", "memory_history"}


def test_every_tool_renders_an_openai_schema() -> None:
    tools = openai_tools()
    assert {t["function"]["name"] for t in tools} == EXPECTED
    for t in tools:
        assert t["type"] == "function"
        fn = t["function"]
        assert fn["description"] and fn["parameters"]["type"] == "object"
        assert "$defs" not in json.dumps(fn["parameters"]) and "$ref" not in json.dumps(fn["parameters"])
        assert fn["parameters"].get("additionalProperties") is False
        assert "strict" not in fn  # valid for strict mode, which stays the caller's choice
    commit = next(t for t in tools if t["function"]["name"] == "memory_commit")["function"]["parameters"]
    item = commit["properties"]["triplets"]["items"]
    assert set(item["required"]) == set(item["properties"])  # strict: all required, optional ones nullable
    assert item["properties"]["confidence"]["maximum"] == 1.0
    assert item["properties"]["confidence"]["type"] == ["number", "null"]
    assert item["properties"]["subject"]["type"] == "string"


def test_anthropic_schema_is_the_same_definition() -> None:
    a = {t["name"]: t["input_schema"] for t in anthropic_tools()}
    assert a == {name: tool.parameters(user_switch=False) for name, tool in REGISTRY.items()}
    admin = {t["name"]: t["input_schema"] for t in anthropic_tools(user_switch=True)}
    assert admin == {name: tool.parameters() for name, tool in REGISTRY.items()}
    commit = a["memory_commit"]["properties"]["triplets"]["items"]
    assert set(commit["required"]) == {"subject", "relation", "object"}


def test_call_round_trips_every_tool(mem: TrulyMem) -> None:
    calls = [
        ("persona_set", {"attributes": {"role": "catgirl"}}),
        ("persona_get", {}),
        ("memory_commit", {"triplets": [triplet("user", "likes", "rock")]}),
        ("memory_recall", {"query_intent": "rock"}),
        ("task_create", {"task_id": "T1", "description": "d"}),
        ("task_set_state", {"task_id": "T1", "state": "paused"}),
        ("task_list", {}),
        ("memory_purge", {"criteria": {"object": "rock"}, "dry_run": True}),
        ("memory_stats", {}),
        ("add_memory", {"text": "I live in Lisbon"}),
        ("search_memories", {"query": "Lisbon"}),
        ("get_memories", {"page_size": 10}),
        ("delete_all_memories", {}),
        ("memory_dream", {"mode": "dry_run"}),
    ]
    for name, args in calls:
        res = mem.call(name, args)
        assert res.ok, (name, res.error)
        json.dumps(res.to_dict())  # results are plain JSON data
    assert set(REGISTRY) == EXPECTED


@pytest.mark.parametrize(("tool", "args", "field"), [
    ("memory_recall", {"query_intent": "x" * 1001}, "query_intent"),
    ("memory_recall", {"limit": 0}, "limit"),
    ("memory_recall", {"as_of": "yesterday-ish"}, "as_of"),
    ("memory_recall", {"preset": "turbo"}, "preset"),
    ("memory_recall", {"as_of": "0001-01-01T00:00:00+01:00"}, "as_of"),
    ("memory_recall", {"query_intent": "x\udfff"}, "query_intent"),
    ("memory_purge", {"criteria": {"subject": ""}}, "criteria.subject"),
    ("memory_purge", {"criteria": {"kind": "LOVES"}}, "criteria.kind"),
    ("task_create", {"task_id": "t"}, "description"),
    ("task_create", {"task_id": "t", "description": "d", "info_nodes": "not-a-list"}, "info_nodes"),
    ("task_set_state", {"task_id": "t", "state": "done-ish"}, "state"),
    ("persona_set", {"attributes": "role=cat"}, "attributes"),
    ("memory_stats", {"verbose": True}, "verbose"),
    ("add_memory", {"text": "x", "messages": [{"role": "user", "content": "y"}]}, "messages"),
    ("add_memory", {"messages": [{"role": "user"}]}, "messages.0.content"),
    ("get_memories", {"filters": {"AND": "x"}}, "filters.AND"),
    ("get_memories", {"filters": {"type": {"regex": "x"}}}, "filters.type.regex"),
    ("get_memories", {"page": 0}, "page"),
    ("search_memories", {"query": ""}, "query"),
    ("update_memory", {"memory_id": "nope"}, "text"),
    ("memory_dream", {"mode": "apply"}, "mode"),
])
def test_bad_input_is_one_error_naming_the_field(mem: TrulyMem, tool: str, args: dict, field: str) -> None:
    mem.commit([triplet("user", "likes", "rock")])
    mem.task_create("t0", "existing")
    before = snapshot(mem)
    res = mem.call(tool, args)
    assert not res.ok and res.error["field"] == field, res.error
    assert res.error["message"]
    assert snapshot(mem) == before


def test_a_failing_call_rolls_back_everything(mem: TrulyMem) -> None:
    mem.commit([triplet("user", "likes", "rock")])
    before = snapshot(mem)
    # the persona part would be written before the failure inside one transaction
    from trulymem.errors import StoreError

    original = mem.store.reinforce_facts

    def boom(updates):  # type: ignore[no-untyped-def]
        raise StoreError("disk on fire")

    mem.store.reinforce_facts = boom  # type: ignore[method-assign]
    try:
        res = mem.call("memory_commit", {"triplets": [triplet("new", "r", "x"), triplet("user", "likes", "rock")]})
    finally:
        mem.store.reinforce_facts = original  # type: ignore[method-assign]
    assert not res.ok and res.error["type"] == "store_error"
    assert snapshot(mem) == before


class TestContextRewrite:
    CALLS = ["memory_recall", "memory_recall", "memory_commit"]

    def test_accepts_a_summary_that_names_tools_and_count(self, mem: TrulyMem) -> None:
        res = mem.context_rewrite("Summarizing 3 calls: memory_recall twice found the persona and the chain, "
                                  "memory_commit stored the idiom.", 3, self.CALLS)
        assert res.tools == {"memory_recall": 2, "memory_commit": 1} and res.tool_calls_summarized == 3

    @pytest.mark.parametrize("summary", [
        "three calls: memory_recall, memory_commit",
        "Summarized 3 tool calls (memory_recall, memory_commit).",
        "共三次调用: memory_recall ×2, memory_commit ×1",
        "调用了3次：memory_recall、memory_commit",
        "3个工具调用：memory_recall、memory_commit",
    ])
    def test_number_in_words_or_chinese(self, mem: TrulyMem, summary: str) -> None:
        assert mem.context_rewrite(summary, 3, self.CALLS).tools == {"memory_recall": 2, "memory_commit": 1}
        assert mem.context_rewrite("共两次调用：memory_recall、memory_commit", 2, ["memory_recall", "memory_commit"])

    @pytest.mark.parametrize(("summary", "n", "field", "needle"), [
        ("3 calls: memory_recall and memory_commit", 2, "tool_calls_summarized", "made 3"),
        ("3 calls: memory_recall only", 3, "summary", "memory_commit"),
        ("memory_recall and memory_commit were called", 3, "summary", "how many"),
        ("13 calls: memory_recall, memory_commit", 3, "summary", "how many"),
        ("memory_recall found 3 results, memory_commit stored them", 3, "summary", "how many"),
        ("memory_recall 找到一个人设, memory_commit 写入", 3, "summary", "how many"),
        ("memory_recall 找到三个人设, memory_commit 写入", 3, "summary", "how many"),
    ])
    def test_rejects_with_the_reason(self, mem: TrulyMem, summary: str, n: int, field: str, needle: str) -> None:
        with pytest.raises(InvalidInput) as exc:
            mem.context_rewrite(summary, n, self.CALLS)
        assert exc.value.field == field and needle in exc.value.message

    @pytest.mark.parametrize("summary", [
        '{"calls": 3, "memory_recall": 2, "memory_commit": 1}',
        '```json\n[{"tool": "memory_recall", "n": 2}, {"tool": "memory_commit", "n": 1}]\n```',
        '{"summary": "3 calls: memory_recall, memory_commit", ',
    ])
    def test_rejects_json(self, mem: TrulyMem, summary: str) -> None:
        with pytest.raises(InvalidInput) as exc:
            mem.context_rewrite(summary, 3, self.CALLS)
        assert exc.value.field == "summary" and "JSON" in exc.value.message

    def test_must_be_shorter_than_what_it_replaces(self, mem: TrulyMem) -> None:
        summary = "3 calls: memory_recall twice found the persona and the chain, memory_commit stored the idiom."
        replaced = '{"tool": "memory_recall", "ok": true, "result": {"text": "AI role catgirl"}}' * 2
        assert mem.context_rewrite(summary, 3, self.CALLS, replaced=replaced * 3).tools["memory_recall"] == 2
        with pytest.raises(InvalidInput) as exc:
            mem.context_rewrite(summary, 3, self.CALLS, replaced=replaced[:60])
        assert exc.value.field == "summary" and "not shorter" in exc.value.message

    def test_needs_a_turn(self, mem: TrulyMem) -> None:
        res = mem.call("context_rewrite", {"summary": "1 call: memory_recall", "tool_calls_summarized": 1})
        assert not res.ok and "agent turn" in res.error["message"]
        with pytest.raises(InvalidInput):
            mem.context_rewrite("0 calls", 1, [])


def test_compact_schemas_keep_the_shape_and_drop_what_the_tool_checks() -> None:
    import json as _json

    from trulymem.agent import AGENT_TOOLS
    from trulymem.tools.base import get_tool

    def walk(node: Any, path: str = "") -> Iterator[tuple[str, Any]]:
        if isinstance(node, dict):
            for k, v in node.items():
                yield f"{path}/{k}", v
                yield from walk(v, f"{path}/{k}")
        elif isinstance(node, list):
            for i, v in enumerate(node):
                yield from walk(v, f"{path}/{i}")

    for name in AGENT_TOOLS:
        full, small = get_tool(name).parameters(), get_tool(name).openai_schema(compact=True)["function"]["parameters"]
        assert len(_json.dumps(small)) < len(_json.dumps(full))
        # the optional sub-object's anyOf [object, null] becomes the object itself
        required = {p.replace("/anyOf/0", ""): v for p, v in walk(full) if p.endswith("/required")}
        assert required == {p: v for p, v in walk(small) if p.endswith("/required")}, name
        assert not any(p.endswith(("/maxLength", "/pattern")) or v == {"type": "null"} for p, v in walk(small)), name
        assert set(small["properties"]) == set(full["properties"])
