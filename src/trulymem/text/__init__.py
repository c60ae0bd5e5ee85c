"""Text handling shared by every backend: name resolution and full-text tokens."""

from trulymem.text.normalize import name_key, relation_key, clean_text
from trulymem.text.tokenize import fts_document, fts_query, query_terms

__all__ = ["name_key", "relation_key", "clean_text", "fts_document", "fts_query", "query_terms"]
