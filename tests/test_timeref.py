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
