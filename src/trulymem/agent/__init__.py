"""The agent runtime: chat turns that follow the memory protocol in code."""

from __future__ import annotations

from trulymem.agent.context import ContextBudget, history_reference
from trulymem.agent.runtime import AGENT_TOOLS, Agent, Limits, ToolTrace, TurnResult, TurnTrace

__all__ = ["AGENT_TOOLS", "Agent", "ContextBudget", "Limits", "ToolTrace", "TurnResult", "TurnTrace",
           "history_reference"]
