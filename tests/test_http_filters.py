"""trulymem's own list and delete-all routes read every query parameter or refuse it: a
filter is never dropped, so a delete is never wider than asked (a real server on loopback)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.helpers import Served

pytest.importorskip("fastapi")


@pytest.fixture
def served(db_path: Path) -> Iterator[Served]:
    s = Served(str(db_path))
    yield s
    s.stop()


def _texts(c: httpx.Client, **params: str) -> list[str]:
    r = c.get("/v1/memories", params={"user_id": "alice", **params})
    assert r.status_code == 200, r.text
    return sorted(m["memory"] for m in r.json()["results"])


def test_delete_all_honours_filters_and_refuses_what_it_cannot_read(served: Served) -> None:
    with httpx.Client(base_url=served.url, timeout=30) as c:
        for text, type_ in (("Deploy to ECS", "decision"), ("Standup at 10am", "process"), ("Likes tea", "pref")):
            r = c.post("/v1/memories", json={"user_id": "alice", "text": text, "metadata": {"type": type_}})
            assert r.status_code == 200, r.text
        all_three = _texts(c)
        for bad in ({"filters": "{not json"}, {"filters": "[1, 2]"}, {"filter": json.dumps({"type": "pref"})},
                    {"metadata_filters": "{}"}, {"filters": ""}, {"run_id": ""}, {"agent_id": ""}):
            r = c.delete("/v1/memories", params={"user_id": "alice", **bad})
            assert r.status_code == 422, (bad, r.text)
            assert r.json()["error"]["field"] in bad, r.text  # the one clear error names the parameter
            assert _texts(c) == all_three  # and nothing changed
        r = c.delete("/v1/memories", params=[("user_id", "alice"), ("user_id", "bob")])
        assert r.status_code == 422 and _texts(c) == all_three
        r = c.delete("/v1/memories", params={"user_id": "alice", "filters": json.dumps({"type": {"eq": "pref"}})})
        assert r.status_code == 200, r.text
        assert _texts(c) == ["Deploy to ECS", "Standup at 10am"]  # only the filtered one went
        assert _texts(c, filters=json.dumps({"type": {"eq": "process"}})) == ["Standup at 10am"]
        r = c.get("/v1/memories", params={"user_id": "alice", "typo": "x"})
        assert r.status_code == 422 and r.json()["error"]["field"] == "typo"
