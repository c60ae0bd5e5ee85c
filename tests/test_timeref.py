"""Dates in a query: a written-out day wins over relative words, and shifts count."""

from __future__ import annotations

from datetime import UTC, datetime

from trulymem.recall.timeref import time_range_in

NOW = datetime(2026, 3, 10, 15, 0, tzinfo=UTC)


def _days(query: str) -> tuple[str, str]:
    hit = time_range_in(query, NOW)
    assert hit is not None, query
    return hit[0].date().isoformat(), hit[1].date().isoformat()


def test_a_written_day_wins_over_relative_words() -> None:
    # "last weekend" next to a date is the weekend before that date, not before today
    assert _days("Where did Ola hike last weekend before 9 June, 2024?") == ("2024-06-02", "2024-06-09")
    assert _days("what did we cook yesterday") == ("2026-03-09", "2026-03-09")  # no date: relative as before


def test_shifts_count_units() -> None:
    assert _days("the cat Ines adopted two weeks before 20 October 2021") == ("2021-10-06", "2021-10-20")
    assert _days("3 days before 5 May 2023") == ("2023-05-02", "2023-05-05")
    assert _days("a few days after 1 March 2022") == ("2022-03-01", "2022-03-04")
    # a weekday before a date: within the week before it (the anchor day included)
    assert _days("the Saturday before 14 January 2025") == ("2025-01-07", "2025-01-14")
    assert _days("the week before August 3, 2023") == ("2023-07-27", "2023-08-03")


def test_a_month_without_a_year_is_the_latest_one_with_memories() -> None:
    from trulymem.recall.timeref import latest_with_memories, year_implied

    may = time_range_in("where did we hike in May?", NOW)
    assert may is not None and may[0].year == 2026 and year_implied(may[2])
    said = {2024}  # the words were said in May 2024 only
    hint = latest_with_memories(may, lambda s, e: s.year in said)
    assert (hint[0].date().isoformat(), hint[1].date().isoformat()) == ("2024-05-01", "2024-05-31")
    assert latest_with_memories(may, lambda s, e: False) == may  # nothing anywhere: as it was
    written = time_range_in("where did we hike in May 2025?", NOW)
    assert written is not None and not year_implied(written[2])
    assert latest_with_memories(written, lambda s, e: s.year in said) == written  # a written year stays
    assert not year_implied("yesterday") and not year_implied("last week")


def test_recall_boosts_last_years_may_for_in_may(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from trulymem import TrulyMem
    from trulymem.model import NodeType

    talk = [("2024-05-12T10:00:00+00:00", "Bea", "We hiked up to the old lighthouse, windy but lovely."),
            ("2024-09-02T10:00:00+00:00", "Bea", "Another hike, this time along the river."),
            ("2024-09-03T10:00:00+00:00", "Ola", "I hiked nowhere, I painted all week.")]
    with TrulyMem(tmp_path / "m.db", user_id="u", embedder=None, clock=lambda: NOW) as mem:
        mem.run("memory_ingest", {"messages": [{"speaker": s, "text": t, "id": f"S{i}:1", "session": f"S{i}",
                                                "timestamp": ts} for i, (ts, s, t) in enumerate(talk, 1)]})
        res = mem.recall("Where did Bea hike in May?", depth=0)
    first = next(n for n in res.nodes if n.type == NodeType.EPISODE)
    assert first.metadata.get("turn_id") == "S1:1" and "time:in may" in first.why
