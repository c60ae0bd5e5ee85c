"""Recall: seed search, graph expansion, ranking and rendering."""

from trulymem.recall.config import PRESETS, RecallConfig
from trulymem.recall.engine import RecalledFact, RecalledNode, RecallQuery, RecallResult, recall

__all__ = ["PRESETS", "RecallConfig", "RecallQuery", "RecallResult", "RecalledFact", "RecalledNode", "recall"]
