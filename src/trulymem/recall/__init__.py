"""Recall: seed search, graph expansion, ranking and rendering."""

from trulymem.recall.config import PRESETS, RecallConfig
from trulymem.recall.engine import RecallQuery, recall
from trulymem.recall.results import RecalledFact, RecalledNode, RecallResult

__all__ = ["PRESETS", "RecallConfig", "RecallQuery", "RecallResult", "RecalledFact", "RecalledNode", "recall"]
