"""``add_memory``'s mem0 metadata keys with a meaning here are honoured, never kept as free
metadata (issue 30): ``speculation`` stores a guess (not a fact: recall marks it), ``valid_at``
the time it became true, ``app_id`` the app namespace (filterable, as mem0's app_id); a bad value
is a typed error naming the key that changes nothing, and an update cannot change them. Through
the library and HTTP; re-run over PostgreSQL by ``tests/contract/test_add_metadata_pg.py``."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx

from tests.helpers import Served, snapshot
from trulymem import TrulyMem

META = {"speculation": True, "valid_at": "2020-01-02T03:04:05Z", "app_id": "proj", "source_note": "chat"}


def check_stored(mem: TrulyMem, mid: str) -> None:
    got = mem.call("get_memory", {"memory_id": mid}).result
    assert got is not None
    assert got["speculation"] is True and got["app_id"] == "proj"
    assert got["metadata"] == {"source_note": "chat", "speculation": True}  # no valid_at/app_id as free keys
    fact = next(f for f in mem.history("user") if f.object == "maybe likes jazz")
    assert fact.valid_at == datetime(2020, 1, 2, 3, 4, 5, tzinfo=UTC) and fact.speculation
    assert "valid_at" not in fact.metadata and "app_id" not in fact.metadata
    # app_id is a scope: the app's filter and namespace find it, another app's do not
    assert mem.call("get_memories", {"filters": {"app_id": "proj"}}).result["total"] == 1  # type: ignore[index]
    assert mem.call("get_memories", {"app_id": "other"}).result["total"] == 0  # type: ignore[index]
    assert mem.with_scope(app_id="proj").call("get_memories", {}).result["total"] == 1  # type: ignore[index]
    # recall finds it as a guess, not a fact
    assert [f.speculation for f in mem.recall("jazz").facts if f.object == "maybe likes jazz"] == [True]


BAD: list[tuple[dict[str, Any], str]] = [
    ({"speculation": "yes"}, "metadata.speculation"),
    ({"valid_at": "last tuesday"}, "metadata.valid_at"),
    ({"valid_at": True}, "metadata.valid_at"),
    ({"app_id": "has spaces"}, "metadata.app_id"),
]


def test_the_library_honours_or_refuses(db_path: Path) -> None:
    with TrulyMem(db_path, user_id="alice") as mem:
        res = mem.call("add_memory", {"text": "maybe likes jazz", "metadata": META})
        assert res.ok, res.error
        mid = res.result["results"][0]["id"]  # type: ignore[index]
        check_stored(mem, mid)
        before = snapshot(mem)
        for meta, field in BAD:
            bad = mem.call("add_memory", {"text": "x", "metadata": meta})
            assert not bad.ok and bad.error == {**bad.error, "type": "invalid_input", "field": field}, bad.error  # type: ignore[dict-item]
        other = mem.call("add_memory", {"text": "x", "app_id": "other", "metadata": {"app_id": "proj"}})
        assert not other.ok and other.error["field"] == "metadata.app_id"  # type: ignore[index]
        for key in ("speculation", "valid_at", "app_id"):
            upd = mem.call("update_memory", {"memory_id": mid, "metadata": {key: META[key]}})
            assert not upd.ok and upd.error["field"] == f"metadata.{key}", upd.error  # type: ignore[index]
        assert snapshot(mem) == before


def test_http_honours_or_refuses(db_path: Path) -> None:
    s = Served(str(db_path))
    try:
        with httpx.Client(base_url=s.url, timeout=60, params={"user_id": "alice"}) as c:
            r = c.post("/v1/memories", json={"text": "maybe likes jazz", "metadata": META})
            assert r.status_code == 200, r.text
            mid = r.json()["results"][0]["id"]
            for meta, field in BAD:
                r = c.post("/v1/memories", json={"text": "x", "metadata": meta})
                assert r.status_code == 422 and r.json()["error"]["field"] == field, r.text
    finally:
        s.stop()
    with TrulyMem(db_path, user_id="alice") as mem:
        check_stored(mem, mid)


def test_messages_carry_it_too(db_path: Path) -> None:
    with TrulyMem(db_path, user_id="alice") as mem:
        res = mem.call("add_memory", {"messages": [{"role": "user", "content": "maybe likes jazz"}],
                                      "metadata": META})
        assert res.ok, res.error
        check_stored(mem, res.result["results"][0]["id"])  # type: ignore[index]
