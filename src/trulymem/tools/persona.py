"""The AI's persona as ``HAS_PERSONA`` facts: ``(AI) -[role]-> (catgirl)``."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field, field_validator

from trulymem.limits import shown
from trulymem.model import MAX_RELATION, MAX_TEXT, EdgeKind, Fact, NodeType, Scope
from trulymem.store.base import FactQuery
from trulymem.text import name_key, relation_key
from trulymem.tools.base import Tool, ToolContext, ToolInput, register, require_user
from trulymem.tools.commit import TripletIn, commit_triplets

AI_NODE = "AI"
PersonaValue = str | list[str]


class PersonaSetInput(ToolInput):
    attributes: dict[str, PersonaValue] = Field(
        min_length=1, max_length=50,
        description="Persona attributes, e.g. {'role': 'catgirl', 'tone': 'playful', 'catchphrases': ['nya~']}.",
    )
    mode: Literal["merge", "replace"] = Field(
        "merge", description="merge: change only the given attributes; replace: the given attributes become the whole persona."
    )

    @field_validator("attributes")
    @classmethod
    def _check(cls, attrs: dict[str, PersonaValue]) -> dict[str, PersonaValue]:
        out: dict[str, PersonaValue] = {}
        seen: dict[str, str] = {}
        for name, value in attrs.items():
            name = name.strip()
            if not relation_key(name) or len(name) > MAX_RELATION:
                raise ValueError(f"attribute name {shown(name)} must have 1-{MAX_RELATION} visible characters")
            if relation_key(name) in seen:
                raise ValueError(f"attributes {seen[relation_key(name)]!r} and {name!r} are the same attribute")
            seen[relation_key(name)] = name
            values = [value] if isinstance(value, str) else value
            if not values or len(values) > 50:
                raise ValueError(f"attribute {name!r} needs 1-50 values")
            for v in values:
                if not name_key(v) or len(v) > MAX_TEXT:
                    raise ValueError(f"attribute {name!r} has an empty or over-long value")
            out[name] = value.strip() if isinstance(value, str) else [v.strip() for v in value]
        return out


class PersonaGetInput(ToolInput):
    pass


class PersonaResult(BaseModel):
    attributes: dict[str, PersonaValue]
    changed: list[str] = Field(default_factory=list)


def persona_facts(ctx: ToolContext, scope: Scope) -> list[Fact]:
    ai = ctx.node_ids(AI_NODE, scope)
    if not ai:
        return []
    return ctx.store.facts(FactQuery(scope=scope, subject_ids=ai, kinds=[EdgeKind.HAS_PERSONA], newest_first=False))


def as_attributes(facts: list[Fact]) -> dict[str, PersonaValue]:
    grouped: dict[str, list[str]] = {}
    for f in facts:
        grouped.setdefault(f.relation, []).append(f.object or "")
    return {k: v[0] if len(v) == 1 else v for k, v in grouped.items()}


def _persona_set(ctx: ToolContext, inp: PersonaSetInput) -> PersonaResult:
    own = ctx.scope.writable().namespace()  # change only the persona this scope writes
    current = persona_facts(ctx, own)
    wanted = {relation_key(k): (k, [v] if isinstance(v, str) else v) for k, v in inp.attributes.items()}
    stale = [
        f for f in current
        if (relation_key(f.relation) in wanted and name_key(f.object or "") not in
            {name_key(v) for v in wanted[relation_key(f.relation)][1]})
        or (inp.mode == "replace" and relation_key(f.relation) not in wanted)
    ]
    ctx.store.invalidate_facts([f.id for f in stale], ctx.now)
    triplets = [
        TripletIn(subject=AI_NODE, relation=name, object=v, object_type=NodeType.PERSONA, type="persona")
        for name, values in wanted.values() for v in values
    ]
    done = commit_triplets(ctx, triplets, kind=EdgeKind.HAS_PERSONA)
    changed = sorted({f.relation for f in stale} | {f.relation for f, status in done if status == "created"})
    return PersonaResult(attributes=as_attributes(persona_facts(ctx, own)), changed=changed)


def _persona_get(ctx: ToolContext, inp: PersonaGetInput) -> PersonaResult:
    require_user(ctx)
    return PersonaResult(attributes=as_attributes(persona_facts(ctx, ctx.scope)))


persona_set = register(Tool(
    name="persona_set",
    description="Set the AI's persona (role, character, tone, speaking_style, catchphrases). Old values stay in history.",
    input_model=PersonaSetInput,
    run=_persona_set,
    destructive=True,  # mode=replace drops attributes; a new value replaces the old one
    idempotent=True,
))
persona_get = register(Tool(
    name="persona_get",
    description="The AI's current persona attributes.",
    input_model=PersonaGetInput,
    run=_persona_get,
    writes=False,
))
