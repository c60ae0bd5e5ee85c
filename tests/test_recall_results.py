"""recall.results.built: the same model as pydantic's model_construct, field for field."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from trulymem import TrulyMem
from trulymem.recall.results import RecalledFact, RecalledNode, built


def _fact_fields() -> dict[str, object]:
    at = datetime(2024, 5, 1, 12, 0, tzinfo=UTC)
    return dict(id="f1", subject="Ines", relation="adopted", object="a cat", kind="fact", confidence=0.9,
                speculation=False, pinned=True, type=None, valid=True, mention_count=2, created_at=at,
                valid_at=at, invalid_at=None, superseded_by=None, subject_id="n1", object_id="n2", score=0.5,
                hop=1, why=["match"], text="Ines adopted a cat")


def test_built_equals_model_construct() -> None:
    fields = _fact_fields()
    fast, slow = built(RecalledFact, dict(fields)), RecalledFact.model_construct(**fields)
    assert fast == slow
    assert fast.model_fields_set == slow.model_fields_set
    assert fast.model_dump_json() == slow.model_dump_json()
    node = dict(id="n1", name="Ines", type="EntityNode", summary=None, metadata={"k": 1}, score=1.0, hop=0,
                why=["name:Ines"], created_at=fields["created_at"])
    assert built(RecalledNode, dict(node)) == RecalledNode.model_construct(**node)
    assert built(RecalledNode, dict(node)).model_dump() == RecalledNode(**node).model_dump()


def test_every_field_is_named() -> None:
    # built() fills no defaults: recall passes every field, and a new field must be passed too
    assert set(_fact_fields()) == set(RecalledFact.model_fields)


def test_recall_returns_whole_models(tmp_path: Path) -> None:
    # what the engine passes to built(): every field of each model, on real results
    with TrulyMem(tmp_path / "m.db", user_id="u", embedder="hashing") as mem:
        mem.commit([{"subject": "user", "relation": "likes", "object": "green tea"},
                    {"subject": "user", "relation": "lives_in", "object": "Porto"}])
        res = mem.recall("tea in Porto", depth=2)
    assert res.facts and res.nodes
    for obj in [*res.facts, *res.nodes]:
        assert set(obj.__dict__) == set(type(obj).model_fields), type(obj).__name__
        assert type(obj).model_validate(obj.model_dump()) == obj  # the values pass the model's own checks
