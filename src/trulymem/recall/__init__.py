"""Recall: seed search, graph expansion, ranking and rendering."""

from trulymem.recall.config import PRESETS, RecallConfig
from trulymem.recall.engine import RecallQuery, RecallResult, RecalledFact, RecalledNode, recall

__all__ = ["PRESETS", "RecallConfig", "RecallQuery", "RecallResult", "RecalledFact", "RecalledNode", "recall"]
