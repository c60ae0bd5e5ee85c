"""Input field types with the limits every tool shares."""

from __future__ import annotations

import json
from typing import Annotated, Any

from pydantic import AfterValidator, Field, StringConstraints

from trulymem.limits import LIMITS
from trulymem.model import MAX_NAME, MAX_RELATION, MAX_TEXT
from trulymem.text import name_key

MAX_LABEL = 64
MAX_METADATA_BYTES = 16_384
MAX_TRIPLETS = 5000
MAX_MESSAGE = 32_000  # a user's message (a pasted page included), read whole by memory_commit's check

def _visible(value: str) -> str:
    if not name_key(value):
        raise ValueError("must contain visible characters")
    return value


Name = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=MAX_NAME), AfterValidator(_visible)]
Text = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=MAX_TEXT), AfterValidator(_visible)]
Message = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=MAX_MESSAGE),
                    AfterValidator(_visible)]
# A search query: text to match, as long as a memory may be (see trulymem.limits).
Query = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=LIMITS.search_query_chars),
                  AfterValidator(_visible)]
Relation = Annotated[
    str, StringConstraints(strip_whitespace=True, min_length=1, max_length=MAX_RELATION), AfterValidator(_visible)
]
Label = Annotated[
    str, StringConstraints(strip_whitespace=True, min_length=1, max_length=MAX_LABEL, pattern=r"^[\w.:-]+$")
]
NodeTypeName = Annotated[
    str, StringConstraints(strip_whitespace=True, min_length=1, max_length=MAX_LABEL, pattern=r"^[A-Za-z][A-Za-z0-9_]*$")
]
Confidence = Annotated[float, Field(ge=0.0, le=1.0)]


def _small_json(value: dict[str, Any]) -> dict[str, Any]:
    """JSON objects only: string keys, valid Unicode, at most 16 KB — returned as they will be stored."""
    if not value:
        return {}
    try:
        text = json.dumps(value, ensure_ascii=False, sort_keys=True)
        size = len(text.encode("utf-8"))
    except TypeError as exc:
        raise ValueError(f"must be JSON with string keys: {exc}") from None
    except UnicodeEncodeError:
        raise ValueError("contains text that is not valid Unicode (a lone surrogate)") from None
    except ValueError as exc:
        raise ValueError(f"must be JSON-serialisable: {exc}") from None
    except RecursionError:
        raise ValueError("is nested too deeply") from None
    if size > MAX_METADATA_BYTES:
        raise ValueError(f"is {size} bytes of JSON; the limit is {MAX_METADATA_BYTES}")
    parsed: dict[str, Any] = json.loads(text)
    return parsed


Metadata = Annotated[dict[str, Any], AfterValidator(_small_json)]
