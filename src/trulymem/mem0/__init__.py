"""The mem0-compatible layer: ``Memory`` / ``AsyncMemory`` (mem0's Python API, in
``memory``) over mem0's memory operations on the graph (``ops``), which the mem0
tools and the HTTP API share."""

from trulymem.mem0.memory import AsyncMemory, Memory

__all__ = ["AsyncMemory", "Memory"]
