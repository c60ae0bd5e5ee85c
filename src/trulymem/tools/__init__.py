"""The memory tools, each defined once (see ``base``) and registered by name."""

from trulymem.tools import commit, context, ingest, mem0, persona, purge, recall, stats, tasks  # noqa: F401  (registers)
from trulymem.tools.base import REGISTRY, Tool, ToolContext, ToolResult, call_tool, get_tool, run_tool


def openai_tools(names: list[str] | None = None, *, strict: bool = False) -> list[dict[str, object]]:
    """OpenAI function-calling schemas for the named tools (default: all). They are valid
    for strict mode either way (free-form objects as JSON text, every field required and
    nullable when optional); ``strict=True`` also turns it on (``"strict": true``)."""
    return [get_tool(n).openai_schema(strict=strict) for n in (names or list(REGISTRY))]


def anthropic_tools(names: list[str] | None = None) -> list[dict[str, object]]:
    return [get_tool(n).anthropic_schema() for n in (names or list(REGISTRY))]


__all__ = ["REGISTRY", "Tool", "ToolContext", "ToolResult", "call_tool", "get_tool", "run_tool",
           "openai_tools", "anthropic_tools"]
