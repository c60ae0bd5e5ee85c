"""The user by name: read from the memories, used only to put restatements in front of a person."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from trulymem import TrulyMem
from trulymem.dream import analyze, dream_embedder, load_retention
from trulymem.dream.owner import as_user, user_name
from trulymem.memories import MEMORY_RELATION, MemoryItem, iter_memories


def item(text: str, relation: str = MEMORY_RELATION, n: int = 0) -> MemoryItem:
    now = datetime.now(UTC)
    return MemoryItem(id=f"m{n}", memory=text if relation == MEMORY_RELATION else f"user {relation} {text}", hash="h",
                      subject="user", relation=relation, object=text, user_id="u", created_at=now, updated_at=now)


PRIYA = ["Priya prefers short answers.", "Priya's husband is Ben.", "Priya lives in Leeds.", "Priya is allergic to nuts.",
         "Priya usually runs at 7am.", "Priya 喜欢喝乌龙茶。"]


def test_a_stated_name_is_the_users_name() -> None:
    assert user_name([item("Tomás Berg", "name")]) == "Tomás"
    assert user_name([item("The user's name is Priya."), item("Ben likes jazz.")]) == "Priya"
    assert user_name([item("用户叫 Kiki。")]) == "Kiki"


@pytest.mark.parametrize(("extra", "want"), [
    ([], "Priya"),
    (["Ben prefers tea.", "Ben lives in York.", "Ben's sister is Ana.", "Ben usually cooks."], None),  # no clear margin
    (["Her partner Mei prefers tea."] * 8, "Priya"),  # a relative named beside her is someone else
])
def test_the_one_person_spoken_of_far_more_than_anyone(extra: list[str], want: str | None) -> None:
    assert user_name([item(t, n=k) for k, t in enumerate(PRIYA + extra)]) == want


def test_too_few_mentions_name_no_one() -> None:
    assert user_name([item(t) for t in PRIYA[:3]]) is None


@pytest.mark.parametrize(("text", "read"), [
    ("Priya prefers tea.", "The user prefers tea."),
    ("Priya's son is Arun.", "The user's son is Arun."),
    ("Ask Priya first.", "Ask the user first."),
    ("Priya 喜欢喝乌龙茶。", "用户 喜欢喝乌龙茶。"),
    ("Priya-Lane Ltd is a client.", "Priya-Lane Ltd is a client."),  # a part of another name stays
    ("She bakes bread on Sundays.", "The user bakes bread on Sundays."),  # an opening pronoun is the user
    ("His sister lives in Leeds.", "The user's sister lives in Leeds."),
    ("He'd rather see the whole file.", "The user would rather see the whole file."),
    ("他女朋友是设计师。", "用户女朋友是设计师。"),
    ("他们住在上海。", "他们住在上海。"),  # "they" are others
])
def test_the_rules_read_the_name_as_the_user(text: str, read: str) -> None:
    assert as_user(item(text), "Priya").memory == read


@pytest.mark.parametrize("pair", [
    ("Priya drinks her coffee black, no sugar.", "The user takes her coffee black with no sugar."),
    # told apart while "Priya" and "the user" read as two people (or a name in two languages): read again
    ("Priya speaks German.", "Priya 会说德语。"),
    ("用户每周二和周四晚上去攀岩馆练抱石。", "Priya 每逢周二、周四晚上都会去抱石。"),
    ("Priya wants at least two reviewers on every pipeline PR.", "Priya 要求每个管道 PR 至少要有 2 位 reviewer。"),
])
def test_a_restatement_by_name_is_reviewed_in_its_own_words(tmp_path: Path, pair: tuple[str, str]) -> None:
    texts = PRIYA + list(pair)
    with TrulyMem(tmp_path / "o.db", user_id="u", app_id="p") as mem:
        mem.commit([{"subject": "user", "relation": MEMORY_RELATION, "object": t, "type": "pref"} for t in texts],
                   supersede=False)
        items = list(iter_memories(mem.store, mem.scope))
        got = analyze(items, load_retention(), datetime.now(UTC), embedder=dream_embedder("auto", mem.embedder))
    pairs = [{r.a.memory, r.b.memory} for r in got.reviews]
    assert set(texts[-2:]) in pairs  # shown as written: the name is not rewritten in what a person sees
    assert not got.merges and not got.conflicts


def test_a_lived_database_reads_the_user_by_name_without_encoding_again(tmp_path: Path) -> None:
    """The texts read as "the user …" are cached beside the memories' own: a second pass over
    an unchanged database encodes nothing."""
    from trulymem.dream import run_dream

    def encoded(mem: TrulyMem) -> int:
        seen: list[tuple[str, int, int | None]] = []
        run_dream(mem, project_dir=tmp_path, dry_run=True, emit=lambda _: None,
                  progress=lambda what, done, total: seen.append((what, done, total)))
        return max((s[1] for s in seen if s[0] == "Encoding new memories"), default=0)

    texts = PRIYA + ["Priya drinks her coffee black, no sugar.", "She walks to work."]
    with TrulyMem(tmp_path / "l.db", user_id="u", app_id="p") as mem:
        mem.commit([{"subject": "user", "relation": MEMORY_RELATION, "object": t, "type": "pref"} for t in texts])
        assert encoded(mem) == len(texts) + 8  # each memory, and the 8 that name her or open with "She", as read
    with TrulyMem(tmp_path / "l.db", user_id="u", app_id="p") as mem:
        assert encoded(mem) == 0
