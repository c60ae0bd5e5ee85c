"""Tools are defined once — a name, a description, a typed input model, a function
and what it does to memory (reads, forgets, is idempotent) — and rendered from that
one definition for every interface: OpenAI function calling (strict or not),
Anthropic tool use, MCP (with its annotations), HTTP and the Python API."""

from __future__ import annotations

import dataclasses
import gc
import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Generic, TypeVar

from pydantic import BaseModel, ConfigDict, TypeAdapter, ValidationError, model_validator

from trulymem.embed.base import Embedder
from trulymem.errors import Forbidden, InvalidInput, NotFound, TrulyMemError
from trulymem.filters import names_other_user
from trulymem.limits import LIMITS, Limits, shown
from trulymem.llm.base import LLM
from trulymem.model import Node, NodeType, Scope
from trulymem.store.base import NodeQuery, Store
from trulymem.text import name_key
from trulymem.tools import schemas
from trulymem.tools.coerce import check_unicode, normalise

In = TypeVar("In", bound=BaseModel)


class InputPart(BaseModel):
    """Base of every input model: unknown fields are an error, not ignored. An object or
    array field may come as its JSON text, and null on an optional field means its
    default (see ``trulymem.tools.coerce``)."""

    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)

    @model_validator(mode="before")
    @classmethod
    def _decoded(cls, data: Any) -> Any:
        return normalise(cls, data)


class ToolInput(InputPart):
    """A tool's whole input; its text, nested parts included, must be valid Unicode
    (a lone surrogate can be neither stored nor searched) without NUL characters."""

    @model_validator(mode="before")
    @classmethod
    def _valid_unicode(cls, data: Any) -> Any:
        try:  # one C-speed pass for the common case; walk only to name the bad field
            text = json.dumps(data, ensure_ascii=False, default=str)
            text.encode("utf-8")
        except UnicodeEncodeError:
            check_unicode(data, [])
        except (TypeError, ValueError, RecursionError):
            pass  # not JSON-shaped: the field validators report it
        else:
            if "\\u0000" in text:  # JSON's spelling of a NUL (trulymem.store.nul)
                check_unicode(data, [])
        return data


@dataclass
class ToolContext:
    """What a tool runs against: the store, whose memory, the time, this turn's calls."""

    store: Store
    scope: Scope
    now: datetime
    turn_calls: list[str] | None = None
    turn_tokens: int | None = None  # size of those calls and their results (what context_rewrite replaces)
    embedder: Embedder | None = None
    llm: LLM | None = None  # for tools that can ask a model (add_memory with infer=True)
    limits: Limits = LIMITS  # complexity caps (filters, queries); a server may pass stricter ones
    # May name any user (an admin key, a keyless local server); a user's scope never may (Scope.everyone() always)
    admin: bool = False

    @property
    def names_users(self) -> bool:
        """Whether calls may name any user (and tool schemas offer a ``user_id``)."""
        return self.admin or self.scope.all_users

    def check_user(self, user_id: Any = None, filters: Any = None) -> None:
        """Refuse a call that names a user other than this context's own (as an argument, or
        anywhere in its filters) unless the context is an admin's: the model in a tool loop
        chooses those arguments, and a scoped memory must never act outside its scope."""
        own = self.scope.user_id
        if self.names_users or own is None:
            return
        named = "user_id" if user_id not in (None, own) else "filters.user_id" if names_other_user(filters, own) else None
        if named is not None:
            raise Forbidden(f"this memory is scoped to user {own!r}; it cannot name another user", field=named)

    def within(self, scope: Scope) -> ToolContext:
        """The same call (store, time, embedder, model) seen from another scope."""
        return dataclasses.replace(self, scope=scope)

    def beside(self, agent_id: str | None, app_id: str | None) -> ToolContext:
        """Write into another namespace of the same user (next to the facts being changed)."""
        return self.within(Scope(user_id=self.scope.user_id, agent_id=agent_id, app_id=app_id,
                                 session_id=self.scope.session_id))

    def node_ids(self, name: str, scope: Scope | None = None) -> list[str]:
        """Ids of the nodes this name resolves to (one per namespace the scope sees)."""
        return [n.id for n in self.store.nodes(NodeQuery(scope=scope or self.scope, keys=[name_key(name)]))]


def require_user(ctx: ToolContext) -> None:
    """Reads and edits of a user nobody has written for are a mistake (often a typo'd id)."""
    user = ctx.scope.user_id
    if user is not None and not ctx.store.user_exists(user):
        raise NotFound(f"unknown user {user!r}: no memories stored yet", field="user_id")


@dataclass(frozen=True)
class Tool(Generic[In]):
    name: str
    description: str
    input_model: type[In]
    run: Callable[[ToolContext, In], BaseModel]
    writes: bool = True
    bulk: bool = False  # may take thousands of items per call: pause the cyclic GC (see gc_paused)
    # Runs its own transaction(s): it calls a model first, and a write lock must not wait on the network.
    own_transaction: bool = False
    # Forgets or replaces what memory holds (history keeps it, but it is no longer current).
    destructive: bool = False
    # The same call twice changes nothing more than once.
    idempotent: bool = False

    def parameters(self, *, user_switch: bool = True) -> dict[str, Any]:
        """The input JSON schema with ``$ref``s inlined (some tool APIs reject ``$defs``).
        Without ``user_switch``, no ``user_id`` field: what a model working for one user is
        shown (the tool still accepts that user's own id, and refuses any other)."""
        out = schemas.inline_refs(self.input_model.model_json_schema())
        return out if user_switch else schemas.without_field(out, "user_id")

    def openai_schema(self, *, compact: bool = False, strict: bool = False, user_switch: bool = True) -> dict[str, Any]:
        """The OpenAI function schema, valid for strict mode (``trulymem.tools.schemas.strict``);
        ``strict`` also turns strict mode on. ``compact`` is the agent's non-strict rendering:
        what the tool checks itself anyway left out, which every model call pays for in tokens."""
        raw = self.parameters(user_switch=user_switch)
        params = schemas.compact(raw) if compact else schemas.strict(raw)
        fn: dict[str, Any] = {"name": self.name, "description": self.description, "parameters": params}
        if strict:
            fn["strict"] = True
        return {"type": "function", "function": fn}

    def mcp_schema(self, *, user_switch: bool = True) -> dict[str, Any]:
        """The MCP input schema: every property with a top-level ``type``."""
        out: dict[str, Any] = schemas.typed(self.parameters(user_switch=user_switch))
        return out

    def annotations(self) -> dict[str, bool]:
        """MCP's tool annotations (hints): a memory tool's world is closed."""
        if not self.writes:
            return {"readOnlyHint": True, "openWorldHint": False}
        return {"readOnlyHint": False, "destructiveHint": self.destructive, "idempotentHint": self.idempotent,
                "openWorldHint": False}

    def anthropic_schema(self, *, user_switch: bool = True) -> dict[str, Any]:
        return {"name": self.name, "description": self.description,
                "input_schema": self.parameters(user_switch=user_switch)}

    def decode(self, args: Any) -> Any:
        """``args`` as validation first sees them: JSON texts of object/array fields decoded,
        defaulted nulls dropped; for a caller that inspects arguments before the tool runs."""
        return normalise(self.input_model, args)

    def parse(self, args: dict[str, Any] | In) -> In:
        if isinstance(args, self.input_model):
            return args
        if not isinstance(args, dict):
            raise InvalidInput(f"arguments must be a JSON object, got {type(args).__name__}", field="arguments")
        try:
            return self.input_model.model_validate(args)
        except ValidationError as exc:
            raise invalid_from(exc) from None


@dataclass
class ToolResult:
    """What a tool call gives back, success or failure, as plain data."""

    tool: str
    ok: bool
    result: dict[str, Any] | None = None
    error: dict[str, Any] | None = field(default=None)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"tool": self.tool, "ok": self.ok}
        out["result" if self.ok else "error"] = self.result if self.ok else self.error
        return out


REGISTRY: dict[str, Tool[Any]] = {}


def register(tool: Tool[Any]) -> Tool[Any]:
    if tool.name in REGISTRY:
        raise RuntimeError(f"tool {tool.name} defined twice")
    REGISTRY[tool.name] = tool
    return tool


def get_tool(name: str) -> Tool[Any]:
    try:
        return REGISTRY[name]
    except KeyError:
        raise InvalidInput(f"unknown tool {shown(name)}; known: {', '.join(sorted(REGISTRY))}", field="tool") from None


def run_tool(tool: Tool[Any], ctx: ToolContext, args: dict[str, Any] | BaseModel) -> BaseModel:
    """Validate, then run in one transaction: all or nothing. Raises ``TrulyMemError``."""
    with gc_paused() if tool.bulk else nullcontext(), validation_as_invalid():
        parsed = tool.parse(args)
        if tool.own_transaction:
            return tool.run(ctx, parsed)
        with embedded_writes(ctx.store, ctx.embedder) if tool.writes else ctx.store.transaction(write=False):
            return tool.run(ctx, parsed)


@contextmanager
def validation_as_invalid(field: str | None = None) -> Iterator[None]:
    """The one place a pydantic ``ValidationError`` becomes ``InvalidInput``: around every
    tool run (a model built inside a tool, such as a ``TripletIn``, included) and every
    ``trulymem.Memory`` method. Never chained: pydantic's text repeats the input."""
    try:
        yield
    except ValidationError as exc:
        raise invalid_from(exc, field) from None


_ADAPTERS: dict[Any, TypeAdapter[Any]] = {}


def validate_as(kind: Any, value: Any, field: str) -> Any:
    """``value`` checked (and normalised) as the input field type ``kind`` — ``Text``,
    ``Label``, ``Metadata`` … — with the errors of the tool inputs, named ``field``."""
    adapter = _ADAPTERS.get(kind)
    if adapter is None:
        adapter = _ADAPTERS[kind] = TypeAdapter(kind)
    if isinstance(value, str):
        check_unicode(value, [field])
    with validation_as_invalid(field):
        return adapter.validate_python(value)


@contextmanager
def embedded_writes(store: Store, embedder: Embedder | None) -> Iterator[None]:
    """A write transaction whose new and changed nodes get their vectors before it commits:
    no node without its vector."""
    with store.transaction():
        yield
        if embedder is not None:
            embed_dirty(store, embedder)


def node_text(node: Node) -> str:
    """What a node's vector stands for: an episode is its message, anything else its name and summary."""
    if node.type == NodeType.EPISODE:
        return node.summary or node.name
    return f"{node.name}: {node.summary}" if node.summary else node.name


def embed_nodes(store: Store, embedder: Embedder, nodes: list[Node]) -> int:
    """Store ``embedder``'s vectors for ``nodes``; returns how many."""
    if nodes:
        store.set_embedding_model(embedder.name)
        vecs = embedder.embed_passages([node_text(n) for n in nodes])
        store.put_vectors([(n.id, v) for n, v in zip(nodes, vecs)])
    return len(nodes)


def embed_dirty(store: Store, embedder: Embedder) -> int:
    """Embed the nodes the current transaction created or changed; returns how many."""
    return embed_nodes(store, embedder, store.dirty_nodes())


@contextmanager
def gc_paused() -> Iterator[None]:
    """Pause CPython's cyclic garbage collector for one bulk call.

    A 5,000-triplet commit allocates a few hundred thousand short-lived, acyclic
    objects; the collector's passes over them cost ~20% of the call (measured with
    bench/bench_core.py). Reference counting still frees everything, and the previous
    state is restored afterwards."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def call_tool(name: str, ctx: ToolContext, args: dict[str, Any]) -> ToolResult:
    """Like ``run_tool`` but every expected failure comes back as data for an LLM."""
    try:
        tool = get_tool(name)
        out = run_tool(tool, ctx, args)
    except TrulyMemError as exc:
        return ToolResult(tool=name, ok=False, error=exc.to_dict())
    return ToolResult(tool=name, ok=True, result=out.model_dump(mode="json"))


_PATTERNS = {r"^[\w.:-]+$": "may hold only letters, digits and _ . : - (no spaces)",
             r"^[A-Za-z][A-Za-z0-9_]*$": "must be a letter, then letters, digits or _"}


def invalid_from(exc: ValidationError, field: str | None = None) -> InvalidInput:
    """One ``InvalidInput`` for pydantic's errors: the first one's location (under ``field``)
    and message, without the input it was given."""
    errors = exc.errors(include_input=False, include_url=False)
    if not errors:
        return InvalidInput("is not valid", field=field)
    first = errors[0]
    loc = ".".join(p for p in (field, ".".join(str(p) for p in first["loc"])) if p) or None
    msg = first["msg"].removeprefix("Value error, ")
    if first["type"] == "string_pattern_mismatch":
        msg = _PATTERNS.get(str((first.get("ctx") or {}).get("pattern")), msg)
    original = (first.get("ctx") or {}).get("error")
    if isinstance(original, InvalidInput):
        # A validator that named its own field: keep it, under the location it ran at.
        if original.field and not (loc or "").endswith(original.field):
            loc = ".".join(p for p in (loc, original.field) if p)
        msg = original.message
    if first["type"] == "extra_forbidden":
        msg = "is not a known field"
    elif first["type"] == "missing":
        msg = "is required"
    if len(errors) > 1:
        msg += f" (and {len(errors) - 1} more problem{'s' if len(errors) > 2 else ''})"
    return InvalidInput(msg, field=loc)
