"""A memory's versions under mem0's calls never lose or fuse data: an update to another
memory's text is refused (never two memories silently made one), an update keeps the
memory's ``created_at`` (so a date-filtered delete never reaches it), the same text added
with other metadata values is a new version whose old values stay in the history, and a
``"*"`` on a metadata key deletes only where the key is set."""

from __future__ import annotations

import time
from datetime import UTC, datetime
from pathlib import Path

import pytest

from trulymem import Memory
from trulymem.errors import Conflict


def _texts(m: Memory, **kw: object) -> set[str]:
    return {x["memory"] for x in m.get_all(**kw)["results"]}  # type: ignore[arg-type]


def test_an_update_to_another_memorys_text_is_refused_and_changes_nothing(db_path: Path) -> None:
    with Memory(str(db_path), embedder="hashing") as m:
        a = m.add("A text", user_id="alice", infer=False, metadata={"who": "A"})["results"][0]["id"]
        b = m.add("B text", user_id="alice", infer=False, metadata={"who": "B"})["results"][0]["id"]
        with pytest.raises(Conflict, match=b):
            m.update(a, text="B text")
        assert m.get(a)["memory"] == "A text" and m.get(a)["metadata"] == {"who": "A"}  # type: ignore[index]
        assert m.get(b)["metadata"] == {"who": "B"}  # type: ignore[index]
        assert [e["event"] for e in m.history(a)] == ["ADD"] and [e["event"] for e in m.history(b)] == ["ADD"]
        m.update(a, text="A text, corrected")  # other words still update in place of the id
        assert m.get(a)["memory"] == "A text, corrected"  # type: ignore[index]


def test_an_update_keeps_created_at_and_a_date_filtered_delete_spares_the_memory(db_path: Path) -> None:
    with Memory(str(db_path), embedder="hashing") as m:
        old = m.add("old memory", user_id="alice", infer=False)["results"][0]["id"]
        born = m.get(old)["created_at"]  # type: ignore[index]
        time.sleep(0.05)
        cut = datetime.now(UTC).isoformat()
        time.sleep(0.05)
        m.add("new memory", user_id="alice", infer=False)
        m.update(old, text="old memory, corrected")
        got = m.get(old)
        assert got["created_at"] == born and got["updated_at"] > cut  # type: ignore[index]
        listed = {x["id"]: x["created_at"] for x in m.get_all(user_id="alice")["results"]}
        assert listed[old] == born
        assert _texts(m, filters={"user_id": "alice", "created_at": {"lt": cut}}) == {"old memory, corrected"}
        m.delete_all(user_id="alice", filters={"created_at": {"gte": cut}})
        assert _texts(m, user_id="alice") == {"old memory, corrected"}


def test_the_same_text_with_other_metadata_is_a_new_version_keeping_the_old(db_path: Path) -> None:
    with Memory(str(db_path), embedder="hashing") as m:
        first = m.add("I walk my dog daily", user_id="alice", infer=False, metadata={"src": "a", "keep": 1})
        pid = first["results"][0]["id"]
        again = m.add("I walk my dog daily", user_id="alice", infer=False, metadata={"src": "b"})["results"][0]
        assert again["id"] == pid and again["event"] == "UPDATE"
        assert m.get(pid)["metadata"] == {"src": "b", "keep": 1}  # type: ignore[index]
        assert [e["event"] for e in m.history(pid)] == ["ADD", "UPDATE"]
        same = m.add("I walk my dog daily", user_id="alice", infer=False, metadata={"keep": 1})["results"][0]
        assert same["event"] == "NONE" and len(m.history(pid)) == 2  # nothing changed: no new version
        assert _texts(m, user_id="alice") == {"I walk my dog daily"}


def test_a_metadata_wildcard_deletes_only_where_the_key_is_set(db_path: Path) -> None:
    with Memory(str(db_path), embedder="hashing") as m:
        m.add("tagged", user_id="alice", infer=False, metadata={"cat": "x"})
        m.add("untagged", user_id="alice", infer=False)
        for spec in ({"cat": "*"}, {"metadata.cat": "*"}, {"metadata": {"cat": "*"}}):
            assert _texts(m, user_id="alice", filters=spec) == {"tagged", "untagged"}  # reads: mem0's rule
        m.delete_all(user_id="alice", filters={"cat": "*"})
        assert _texts(m, user_id="alice") == {"untagged"}


def test_a_dream_merge_keeps_its_members_metadata(db_path: Path) -> None:
    from trulymem import TrulyMem
    from trulymem.dream import run_dream

    with Memory(str(db_path), embedder="hashing") as m:
        m.add("Standup is at 02:00 UTC", user_id="alice", infer=False, metadata={"project": "tea", "prio": 3})
        m.add("Standup is at 2am UTC", user_id="alice", infer=False, metadata={"project": "tea", "owner": "kim"})
    with TrulyMem(db_path, user_id="alice") as mem:
        assert run_dream(mem, auto=True, emit=lambda _: None).applied.merged == 1  # type: ignore[union-attr]
    with Memory(str(db_path), embedder="hashing") as m:
        [merged] = m.get_all(user_id="alice", filters={"project": "tea"})["results"]
        assert {"project": "tea", "prio": 3, "owner": "kim"}.items() <= merged["metadata"].items()
        assert m.get_all(user_id="alice", filters={"owner": "kim"})["results"] == [merged]


def test_a_memory_id_works_as_32_hex_digits_too(db_path: Path) -> None:
    with Memory(str(db_path), embedder="hashing") as m:
        pid = m.add("I like tea", user_id="alice", infer=False)["results"][0]["id"]
        plain = pid.replace("-", "")
        assert m.get(plain)["id"] == pid  # type: ignore[index]
        m.update(plain, text="I like green tea")
        assert [e["event"] for e in m.history(plain)] == ["ADD", "UPDATE"]
        m.delete(plain)
        assert m.get(pid) is None


def test_ids_in_metadata_are_the_calls_own_or_refused(db_path: Path) -> None:
    from trulymem import InvalidInput

    with Memory(str(db_path), embedder="hashing") as m:
        with pytest.raises(InvalidInput) as exc:
            m.add("a note", user_id="alice", infer=False, metadata={"user_id": "bob"})
        assert exc.value.field == "metadata.user_id"
        pid = m.add("a note", user_id="alice", agent_id="kim", infer=False,
                    metadata={"user_id": "alice", "agent_id": "kim", "topic": "x"})["results"][0]["id"]
        got = m.get(pid)
        assert got["metadata"] == {"topic": "x"} and got["user_id"] == "alice"  # type: ignore[index]
        with pytest.raises(InvalidInput) as exc:
            m.update(pid, metadata={"user_id": "bob"})
        assert exc.value.field == "metadata.user_id"
        assert m.get_all(user_id="bob")["results"] == []
