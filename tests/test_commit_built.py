"""``built_triplet``: a triplet from parts the code built skips validation only when
``TripletIn`` would keep every part unchanged; anything else goes through ``TripletIn``."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from pydantic import ValidationError

from trulymem.model import MAX_NAME, NodeType
from trulymem.tools.commit import Link, TripletIn, built_triplet

WHEN = datetime(2024, 1, 1, tzinfo=UTC)


def test_plain_parts_make_a_link_equal_to_the_validated_triplet() -> None:
    t = built_triplet("Ada", "said", "D1:1", object_type=NodeType.EPISODE, type="episode", valid_at=WHEN)
    assert isinstance(t, Link)
    v = TripletIn(subject="Ada", relation="said", object="D1:1", object_type=NodeType.EPISODE, type="episode",
                  valid_at=WHEN)
    for field in TripletIn.model_fields:
        assert getattr(t, field) == getattr(v, field), field


def test_parts_validation_would_change_or_refuse_are_validated() -> None:
    marked = built_triplet("Ada [speculation]", "likes", "rock")
    assert isinstance(marked, TripletIn) and (marked.subject, marked.speculation) == ("Ada", True)
    padded = built_triplet(" Ada", "likes", "rock ")
    assert isinstance(padded, TripletIn) and (padded.subject, padded.object) == ("Ada", "rock")
    with pytest.raises(ValidationError):
        built_triplet("A" * (MAX_NAME + 1), "profile_of", "Ada")
    with pytest.raises(ValidationError):
        built_triplet("\u200b", "likes", "rock")  # no visible character
