from __future__ import annotations

import pytest

from tests.helpers import snapshot
from trulymem import InvalidInput, TrulyMem


def test_merge_changes_only_given_attributes(mem: TrulyMem) -> None:
    mem.persona_set({"role": "catgirl", "tone": "playful", "catchphrases": ["nya~", "喵"]})
    res = mem.persona_set({"tone": "calm"})
    assert res.attributes == {"role": "catgirl", "tone": "calm", "catchphrases": ["nya~", "喵"]}
    assert res.changed == ["tone"]
    assert [(f.object, f.is_valid) for f in mem.history("AI", "tone")] == [("playful", False), ("calm", True)]


def test_replace_drops_attributes_not_given(mem: TrulyMem) -> None:
    mem.persona_set({"role": "catgirl", "tone": "playful"})
    res = mem.persona_set({"role": "butler"}, mode="replace")
    assert res.attributes == {"role": "butler"}
    assert mem.persona_get().attributes == {"role": "butler"}


def test_setting_the_same_value_is_idempotent(mem: TrulyMem) -> None:
    mem.persona_set({"role": "catgirl"})
    res = mem.persona_set({"Role": "Catgirl"})
    assert res.changed == []
    assert len(mem.history("AI")) == 1


def test_persona_recall_by_intent(mem: TrulyMem) -> None:
    mem.persona_set({"role": "catgirl", "speaking_style": "ends with nya"})
    mem.commit([{"subject": "user", "relation": "likes", "object": "rock"}])
    res = mem.recall("AI,persona,role,character,tone,speaking_style", depth=2)
    assert "Persona: " in res.text and "catgirl" in res.text and "nya" in res.text
    assert "rock" not in res.text


@pytest.mark.parametrize("attrs", [{}, {"": "x"}, {"role": ""}, {"role": []}, {"role": 5}, {"role": "\u200b"},
                                   {"\u200b": "x"}, {"speaking style": "formal", "speaking_style": "casual"}])
def test_bad_persona_input(mem: TrulyMem, attrs) -> None:
    mem.persona_set({"role": "catgirl"})
    before = snapshot(mem)
    with pytest.raises(InvalidInput) as exc:
        mem.persona_set(attrs)
    assert exc.value.field is not None and exc.value.field.startswith("attributes")
    with pytest.raises(InvalidInput) as exc:
        mem.persona_set({"role": "x"}, mode="overwrite")
    assert exc.value.field == "mode"
    assert snapshot(mem) == before


def test_correcting_a_persona_fact_keeps_it_in_the_persona(mem: TrulyMem) -> None:
    mem.persona_set({"role": "catgirl", "tone": "playful"})
    mem.purge({"subject": "AI", "relation": "role"}, mode="supersede", replacement={"object": "butler"})
    assert mem.persona_get().attributes == {"role": "butler", "tone": "playful"}


def test_persona_adopts_a_fact_committed_before(mem: TrulyMem) -> None:
    mem.commit([{"subject": "AI", "relation": "role", "object": "catgirl"}])
    assert mem.persona_set({"role": "catgirl"}).attributes == {"role": "catgirl"}
