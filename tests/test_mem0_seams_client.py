"""``test_mem0_seams`` through mem0ai's own platform client (``MemoryClient``, and
``AsyncMemoryClient`` for the deletes) against a real ``trulymem serve`` on loopback:
every delete path with filters removes exactly what it selects, what cannot be honoured
is refused with nothing deleted, retired memories and trulymem's metadata as the client
sees them."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests import test_platform_client
from tests.helpers import Served
from tests.test_http import key
from tests.test_mem0_seams import CASES, EVERYTHING, REFUSED, SEED, check_history, retire
from tests.test_platform_client import Sync

mem0_client = test_platform_client.mem0_client  # the fixture: mem0's telemetry off, nothing beyond loopback


@pytest.fixture
def served(db_path: Path) -> Iterator[Served]:
    s = Served(str(db_path), "--user", "alice")  # keyless: a request naming no user is alice's
    yield s
    s.stop()


@pytest.fixture
def client(served: Served, mem0_client: Any) -> Iterator[Any]:
    """mem0's own client on the keyless server (it must send a key: any will do)."""
    c = mem0_client.MemoryClient(api_key="anything", host=served.url)
    yield c
    c.client.close()


def alive(c: Any) -> set[tuple[str, str]]:
    return {(u, x["memory"]) for u in ("alice", "bob") for x in c.get_all(filters={"user_id": u})["results"]}


def seed(c: Any) -> dict[str, str]:
    """The seed, stored through the client (after forgetting what the last case left); text -> id."""
    for u in ("alice", "bob"):
        c.delete_all(user_id=u)
    ids = {}
    for text, user, where, meta in SEED:
        ids[text] = c.add(text, user_id=user, metadata=meta, infer=False, **where)["results"][0]["id"]
    assert alive(c) == EVERYTHING
    return ids


def error_class() -> type[Exception]:
    from mem0.exceptions import MemoryError as Mem0Error

    return Mem0Error


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_delete_all_removes_exactly_what_it_selects(served: Served, mem0_client: Any, mode: str) -> None:
    c: Any = mem0_client.MemoryClient(api_key="anything", host=served.url) if mode == "sync" else \
        Sync(mem0_client.AsyncMemoryClient(api_key="anything", host=served.url))
    try:
        for args, gone in CASES:
            seed(c)
            assert c.delete_all(**args)["message"]
            assert alive(c) == EVERYTHING - {("alice", t) for t in gone}, args
        seed(c)
        for args, field in REFUSED:
            with pytest.raises(error_class(), match=field.replace(".", r"\.")):
                c.delete_all(**args)
        assert alive(c) == EVERYTHING
        c.delete_all(filters={"user_id": "bob", "topic": "drink"})  # a named user, on a keyless server
        assert alive(c) == EVERYTHING - {("bob", "Bob drinks tea")}
    finally:
        c.close() if isinstance(c, Sync) else c.client.close()


def test_delete_all_query_parameters(served: Served, client: Any) -> None:
    """What mem0's client sends (``str()`` of a dict) and JSON alike; anything the route would
    otherwise leave unread is refused."""
    c = client
    with httpx.Client(base_url=served.url, timeout=30) as raw:
        for params, field in (({"user_id": "alice", "agent": "helper"}, "agent"),
                              ([("user_id", "alice"), ("agent_id", "helper"), ("agent_id", "other")], "agent_id"),
                              ({"filters": "['user_id']"}, "filters"), ({"filters": "{'user_id': 'alice'"}, "filters"),
                              ({"filters": "{'user_id': __import__('os')}"}, "filters"),
                              ({"filters": "{" * 300 + "}" * 300}, "filters"),
                              ({"filters": json.dumps({"user_id": "alice", "agent_id": {"eq": "a", "no": 1}})},
                               "filters.agent_id.no"),
                              ({"user_id": "alice", "metadata_filters": "{}"}, "metadata_filters")):
            seed(c)
            r = raw.delete("/v1/memories/", params=params)
            assert r.status_code == 422 and r.json()["error"]["field"].startswith(field), (params, r.text)
            assert alive(c) == EVERYTHING
        r = raw.delete("/v1/memories/", params={"filters": json.dumps({"AND": [{"user_id": "alice"},
                                                                             {"memory": {"icontains": "BIKE"}}]})})
        assert r.status_code == 200, r.text
        assert alive(c) == EVERYTHING - {("alice", "I ride a bike")}
        # the other routes refuse what they would leave unread too
        assert raw.post("/v3/memories/", json={"filters": {"user_id": "alice"}, "metadata_filters": {"a": 1}}
                        ).status_code == 422
        assert raw.post("/v3/memories/", params={"filters": "{}"}, json={}).status_code == 422
        assert raw.post("/v3/memories/add/", json={"messages": [{"role": "user", "content": "x"}],
                                                   "filters": {"user_id": "alice", "OR": []}}).status_code == 422


def test_entity_and_batch_deletes(client: Any) -> None:
    c = client
    for call, gone in ((lambda ids: c.delete_users(agent_id="helper"), {("alice", "I drink tea"),
                                                                         ("alice", "I drink coffee")}),
                       (lambda ids: c.delete_users(run_id="r1"), {("alice", "I drink tea"), ("alice", "I ride a bike")}),
                       (lambda ids: c.delete_users(user_id="bob"), {("bob", "Bob drinks tea")}),
                       (lambda ids: c.batch_delete([{"memory_id": ids["I drink coffee"]}]), {("alice", "I drink coffee")}),
                       (lambda ids: c.batch_delete([{"memory_id": ids["I drink coffee"]},
                                                    {"memory_id": ids["I live in Lisbon"]}]),
                        {("alice", "I drink coffee"), ("alice", "I live in Lisbon")})):
        ids = seed(c)
        call(ids)
        assert alive(c) == EVERYTHING - gone
    ids = seed(c)
    for bad, field in (([{"memory_id": ids["I drink tea"]}, {"memory_id": "nope"}], "memories.1"),
                       ([{"memory_id": ids["I drink tea"], "filters": {"user_id": "alice"}}], "memories.0.filters")):
        with pytest.raises(error_class(), match=field.replace(".", r"\.")):
            c.batch_delete(bad)
    assert alive(c) == EVERYTHING  # all or none
    # a name with no memories here (a typo, or a run already deleted) is refused, never "deleted"
    for unknown in ({"user_id": "alcie"}, {"agent_id": "nobody"}, {"run_id": "r9"}, {"app_id": "nowhere"}):
        with pytest.raises(error_class(), match="has memories here"):
            c.delete_users(**unknown)
    assert alive(c) == EVERYTHING
    # a keyless server acts on a memory by id as its own user, whichever user that is
    c.batch_delete([{"memory_id": ids["I drink tea"]}, {"memory_id": ids["Bob drinks tea"]}])
    assert alive(c) == EVERYTHING - {("alice", "I drink tea"), ("bob", "Bob drinks tea")}


def test_deletes_with_a_users_key(db_path: Path, mem0_client: Any) -> None:
    alice, bob = key(db_path, "--user", "alice"), key(db_path, "--user", "bob")
    served = Served(str(db_path))
    try:
        a = mem0_client.MemoryClient(api_key=alice, host=served.url)
        b = mem0_client.MemoryClient(api_key=bob, host=served.url)

        def both() -> set[tuple[str, str]]:
            return {("alice", x["memory"]) for x in a.get_all()["results"]} | {
                ("bob", x["memory"]) for x in b.get_all()["results"]}

        def reseed() -> None:
            a.delete_all()
            b.delete_all()
            for text, user, where, meta in SEED:
                (a if user == "alice" else b).add(text, metadata=meta, infer=False, **where)
            assert both() == EVERYTHING

        for args, gone in (({"filters": {"agent_id": "helper"}}, {"I drink tea", "I drink coffee"}),
                           ({"run_id": "r1"}, {"I drink tea", "I ride a bike"}),
                           ({}, {"I drink tea", "I drink coffee", "I ride a bike", "I live in Lisbon"})):
            reseed()
            a.delete_all(**args)
            assert both() == EVERYTHING - {("alice", t) for t in gone}, args
        reseed()
        for args in ({"filters": {"user_id": "bob"}}, {"filters": {"OR": [{"user_id": "bob"}]}}, {"user_id": "bob"}):
            with pytest.raises(error_class()):
                a.delete_all(**args)
        assert both() == EVERYTHING
        a.client.close()
        b.client.close()
    finally:
        served.stop()


def test_retired_memories_through_the_client(db_path: Path, mem0_client: Any) -> None:
    ids = retire(str(db_path))
    served = Served(str(db_path), "--user", "alice")
    try:
        c = mem0_client.MemoryClient(api_key="anything", host=served.url)
        from mem0.exceptions import MemoryNotFoundError

        for old, successor in ((ids["a"], ids["merged"]), (ids["ecs"], ids["vercel"])):
            with pytest.raises(MemoryNotFoundError, match=successor):
                c.get(old)
            with pytest.raises(MemoryNotFoundError, match=successor):
                c.update(old, text="x")
            with pytest.raises(MemoryNotFoundError, match=successor):
                c.delete(old)
        with pytest.raises(MemoryNotFoundError, match="deleted"):
            c.get(ids["old"])
        check_history(c.history, ids)
        with pytest.raises(MemoryNotFoundError):  # all or none: the current one is not deleted either
            c.batch_delete([{"memory_id": ids["vercel"]}, {"memory_id": ids["ecs"]}])
        listed = {x["memory"]: x for x in c.get_all(filters={"user_id": "alice"})["results"]}
        assert set(listed) == {"Auth DB is PostgreSQL (for auth)", "Deploy to Vercel"}
        assert listed["Auth DB is PostgreSQL (for auth)"]["metadata"]["type"] == "decision"
        c.client.close()
    finally:
        served.stop()


def test_metadata_through_the_client(client: Any) -> None:
    c = client
    ids = seed(c)
    expected = {"I drink tea": {"topic": "drink", "type": "preference"}, "I ride a bike": {"topic": "sport",
                "pinned": True}, "I live in Lisbon": {"type": "profile", "confidence": 0.5}}
    listed = {x["memory"]: x["metadata"] for x in c.get_all(filters={"user_id": "alice"})["results"]}
    assert {t: listed[t] for t in expected} == expected
    for text, meta in expected.items():
        assert c.get(ids[text])["metadata"] == meta
    found = c.search("bike", filters={"AND": [{"user_id": "alice"}, {"metadata": {"pinned": True}}]})["results"]
    assert [(x["memory"], x["metadata"]) for x in found] == [("I ride a bike", expected["I ride a bike"])]
