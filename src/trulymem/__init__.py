"""trulymem: long-term graph memory for LLM agents, with no growing message history."""

from trulymem.config import Settings
from trulymem.errors import (
    BudgetExceeded,
    ConfigError,
    Conflict,
    InvalidInput,
    LLMError,
    NotFound,
    SchemaError,
    StoreError,
    TrulyMemError,
)
from trulymem.graph import TrulyMem
from trulymem.mem0 import AsyncMemory, Memory
from trulymem.model import EdgeKind, Fact, Node, NodeType, Scope, TaskState
from trulymem.recall import RecallConfig, RecallResult
from trulymem.store import SQLiteStore, Store
from trulymem.tools import ToolResult, anthropic_tools, openai_tools

__version__ = "0.1.0"

__all__ = [
    "AsyncMemory", "BudgetExceeded", "LLMError", "Memory",
    "ConfigError", "Conflict", "EdgeKind", "Fact", "InvalidInput", "Node", "NodeType", "NotFound",
    "RecallConfig", "RecallResult", "SQLiteStore", "SchemaError", "Scope", "Settings", "Store", "StoreError",
    "TaskState", "ToolResult", "TrulyMem", "TrulyMemError", "anthropic_tools", "openai_tools", "__version__",
]
