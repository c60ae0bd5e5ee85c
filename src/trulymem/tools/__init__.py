"""The memory tools, each defined once (see ``base``) and registered by name.

The tool modules are imported when something asks for the registry (``REGISTRY``,
``get_tool``, ``call_tool``, the schema renderings), not when this package is: a
program that runs one tool loads that tool's module only (``trulymem.graph``), and
``trulymem.mem0.ops`` can use ``tools.base`` while ``tools.mem0`` uses it, without
an import cycle."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from trulymem.tools import base
from trulymem.tools.base import Tool, ToolContext, ToolResult, run_tool

if TYPE_CHECKING:
    from trulymem.tools.base import REGISTRY

MODULES = ("commit", "context", "ingest", "mem0", "persona", "purge", "recall", "stats", "tasks")


def load_all() -> dict[str, Tool[Any]]:
    """Import every tool module (each registers its tools); returns the full registry."""
    for name in MODULES:
        importlib.import_module(f"trulymem.tools.{name}")
    return base.REGISTRY


def get_tool(name: str) -> Tool[Any]:
    load_all()
    return base.get_tool(name)


def call_tool(name: str, ctx: ToolContext, args: dict[str, Any]) -> ToolResult:
    """``base.call_tool`` with every tool registered: an unknown name is an error result."""
    load_all()
    return base.call_tool(name, ctx, args)


def openai_tools(names: list[str] | None = None, *, strict: bool = False,
                 user_switch: bool = False) -> list[dict[str, object]]:
    """OpenAI function-calling schemas for the named tools (default: all). They are valid
    for strict mode either way (free-form objects as JSON text, every field required and
    nullable when optional); ``strict=True`` also turns it on (``"strict": true``).
    A model works for the user its memory is scoped to: no ``user_id`` field unless
    ``user_switch`` (for an admin's model, whose memory is ``Scope.everyone()``)."""
    return [get_tool(n).openai_schema(strict=strict, user_switch=user_switch) for n in (names or list(load_all()))]


def anthropic_tools(names: list[str] | None = None, *, user_switch: bool = False) -> list[dict[str, object]]:
    """Anthropic tool-use schemas for the named tools (default: all); ``user_switch`` as in ``openai_tools``."""
    return [get_tool(n).anthropic_schema(user_switch=user_switch) for n in (names or list(load_all()))]


def __getattr__(name: str) -> Any:
    if name == "REGISTRY":
        return load_all()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["REGISTRY", "Tool", "ToolContext", "ToolResult", "call_tool", "get_tool", "load_all", "run_tool",
           "openai_tools", "anthropic_tools"]
