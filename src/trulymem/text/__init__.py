"""Text handling shared by every backend: name resolution and full-text tokens."""

from trulymem.text.normalize import name_key, relation_key
from trulymem.text.tokenize import fts_document, fts_match, phrases, query_terms, tokens

__all__ = ["fts_document", "fts_match", "name_key", "phrases", "query_terms", "relation_key", "tokens"]
