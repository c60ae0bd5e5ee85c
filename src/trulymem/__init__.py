"""trulymem: long-term graph memory for LLM agents, with no growing message history.

The names below are imported on first use (PEP 562): ``import trulymem`` and the
command line's start-up stay fast, and nothing heavy (numpy, every tool's models)
loads until a program touches it."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from trulymem.errors import (
    BudgetExceeded,
    ConfigError,
    Conflict,
    Forbidden,
    InvalidInput,
    LLMError,
    NotFound,
    SchemaError,
    StoreBusy,
    StoreError,
    TrulyMemError,
)

if TYPE_CHECKING:
    from trulymem.config import Settings
    from trulymem.graph import TrulyMem
    from trulymem.mem0 import AsyncMemory, Memory
    from trulymem.model import EdgeKind, Fact, Node, NodeType, Scope, TaskState
    from trulymem.recall import RecallConfig, RecallResult
    from trulymem.store import SQLiteStore, Store
    from trulymem.tools import ToolResult, anthropic_tools, openai_tools

__version__ = "0.1.0"

_LAZY = {
    "Settings": "config", "TrulyMem": "graph", "AsyncMemory": "mem0", "Memory": "mem0",
    "EdgeKind": "model", "Fact": "model", "Node": "model", "NodeType": "model", "Scope": "model", "TaskState": "model",
    "RecallConfig": "recall", "RecallResult": "recall", "SQLiteStore": "store", "Store": "store",
    "ToolResult": "tools", "anthropic_tools": "tools", "openai_tools": "tools",
}

__all__ = [
    "AsyncMemory", "BudgetExceeded", "LLMError", "Memory",
    "ConfigError", "Conflict", "EdgeKind", "Fact", "Forbidden", "InvalidInput", "Node", "NodeType", "NotFound",
    "RecallConfig", "RecallResult", "SQLiteStore", "SchemaError", "Scope", "Settings", "Store", "StoreBusy", "StoreError",
    "TaskState", "ToolResult", "TrulyMem", "TrulyMemError", "anthropic_tools", "openai_tools", "__version__",
]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'trulymem' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"trulymem.{module}"), name)
    globals()[name] = value  # once: later reads are plain attribute lookups
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
