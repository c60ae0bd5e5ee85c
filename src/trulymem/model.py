"""Plain typed data: scopes, nodes, facts. No I/O lives here."""

from __future__ import annotations

import dataclasses
import os
import re
import sys
import threading
import time
from array import array
from dataclasses import dataclass
from datetime import UTC, datetime
from enum import StrEnum
from typing import Annotated, Any, TypeVar

from pydantic import AfterValidator, Field, TypeAdapter

from trulymem.errors import InvalidInput
from trulymem.limits import shown

MAX_ID_LEN = 128
MAX_NAME = 500  # subjects, task ids
MAX_TEXT = 4000  # objects, descriptions: a node name can be a sentence
MAX_RELATION = 100
T = TypeVar("T")
_ID_OK = re.compile(r"^[^\x00-\x1f\x7f]+$")


def utcnow() -> datetime:
    return datetime.now(UTC)


_RAND_BITS = 74  # rand_a (12) and rand_b (62) of RFC 9562's layout
_last_id = [0, 0]  # the last id's milliseconds and random bits, in this process
_id_lock = threading.Lock()
_LOW_62 = (1 << 62) - 1
_VARIANT = 0x2 << 62


def new_id() -> str:
    """A UUIDv7 (RFC 9562): 48 bits of milliseconds, the version, 74 random bits —
    monotonic within a process (RFC 9562 6.2): ids made in the same millisecond count up
    from the last one by a random step, so they sort in the order they were made. Recall
    breaks score ties by id; with purely random bits a batch, which makes many ids per
    millisecond, returned ties in a different order from run to run.

    Time-ordered ids keep the id indexes append-mostly, and they are UUIDs as mem0's
    ids are. Rows written before this are 32 hex digits; ``mem0.ids`` shows those
    in UUID form."""
    return new_ids(1)[0]


def new_ids(n: int) -> list[str]:
    """``n`` ids as ``new_id`` makes them one by one, in one go (one lock, one read of the
    random source): a batch write makes thousands."""
    if n <= 0:  # nothing made: the last id's time must not follow a clock that stepped back
        return []
    noise = os.urandom(3 * n)  # a 24-bit step per id (the 3-byte step of new_id's 4 bytes >> 8)
    ms = time.time_ns() // 1_000_000
    out: list[str] = []
    head = ""
    with _id_lock:
        last_ms, rand = _last_id
        for step in _steps(noise):
            if ms > last_ms:
                rand = int.from_bytes(os.urandom(10), "big") >> (80 - _RAND_BITS + 1)  # top half free to count in
            else:  # the same millisecond (or the clock stepped back): count up from the last id
                ms, rand = last_ms, rand + 1 + step
                if rand >> _RAND_BITS:  # the counter ran out: borrow the next millisecond
                    ms, rand = ms + 1, int.from_bytes(os.urandom(10), "big") >> (80 - _RAND_BITS + 1)
            if ms != last_ms or not out:
                head = f"{ms:012x}"
                head = f"{head[:8]}-{head[8:]}-7"  # the time and the version, shared within a millisecond
            last_ms = ms
            low = f"{_VARIANT | (rand & _LOW_62):016x}"  # RFC 4122 variant over rand_b
            out.append(f"{head}{rand >> 62:03x}-{low[:4]}-{low[4:]}")
        _last_id[:] = [last_ms, rand]
    return out


def _steps(noise: bytes) -> list[int]:
    """Each 3 bytes of ``noise`` as a big-endian number, as ``int.from_bytes`` reads them one
    at a time, but in C: each put in the low bytes of a big-endian 32-bit word."""
    if array("I").itemsize != 4:
        return [int.from_bytes(noise[i : i + 3], "big") for i in range(0, len(noise), 3)]
    words = bytearray(len(noise) // 3 * 4)
    for k in range(3):
        words[k + 1 :: 4] = noise[k::3]
    steps = array("I", bytes(words))
    if sys.byteorder == "little":
        steps.byteswap()
    return steps.tolist()


def as_utc(value: datetime) -> datetime:
    """Naive datetimes are taken as UTC; aware ones are converted to UTC."""
    if value.tzinfo is None:
        return value.replace(tzinfo=UTC)
    try:
        return value.astimezone(UTC)
    except OverflowError:
        raise ValueError("is outside the range of dates that can be stored") from None


class NodeType(StrEnum):
    PERSONA = "PersonaNode"
    TASK = "TaskNode"
    STATE = "StateNode"
    INFO = "InfoNode"
    ENTITY = "EntityNode"
    EPISODE = "EpisodeNode"  # one message of an ingested conversation


class EdgeKind(StrEnum):
    HAS_PERSONA = "HAS_PERSONA"
    NEXT_TASK = "NEXT_TASK"
    HAS_STATE = "HAS_STATE"
    CONTAINS_INFO = "CONTAINS_INFO"
    RELATES_TO = "RELATES_TO"
    FACT = "FACT"


class TaskState(StrEnum):
    IN_PROGRESS = "in_progress"
    PAUSED = "paused"
    COMPLETED = "completed"
    CANCELLED = "cancelled"
    ARCHIVED = "archived"

    @classmethod
    def parse(cls, value: str) -> TaskState:
        """Accept the English names (any case, spaces or hyphens) and the seed's Chinese ones."""
        key = value.strip().casefold().replace(" ", "_").replace("-", "_")
        found = _STATE_ALIASES.get(key)
        if found is None:
            allowed = ", ".join([s.value for s in cls] + list(_STATE_ZH))
            raise InvalidInput(f"unknown task state {shown(value)}; use one of: {allowed}", field="state")
        return found


_STATE_ZH = {
    "进行中": TaskState.IN_PROGRESS,
    "已暂停": TaskState.PAUSED,
    "已完成": TaskState.COMPLETED,
    "已取消": TaskState.CANCELLED,
    "归档": TaskState.ARCHIVED,
}
_STATE_ALIASES = {s.value: s for s in TaskState} | _STATE_ZH | {
    "canceled": TaskState.CANCELLED,
    "inprogress": TaskState.IN_PROGRESS,
    "暂停": TaskState.PAUSED,
    "完成": TaskState.COMPLETED,
    "取消": TaskState.CANCELLED,
    "已归档": TaskState.ARCHIVED,
}


def check_identifier(value: str | None, field: str, *, required: bool = False) -> str | None:
    """Scope ids: non-empty, at most 128 characters, no control characters."""
    if value is None:
        if required:
            raise InvalidInput("is required", field=field)
        return None
    if not isinstance(value, str):
        raise InvalidInput(f"must be a string, got {type(value).__name__}", field=field)
    value = value.strip()
    if not value:
        raise InvalidInput("must not be empty", field=field)
    if len(value) > MAX_ID_LEN:
        raise InvalidInput(f"is longer than {MAX_ID_LEN} characters", field=field)
    if not _ID_OK.match(value):
        raise InvalidInput("must not contain control characters", field=field)
    return value


@dataclass(frozen=True)
class Scope:
    """Whose memory a call reads or writes.

    ``user_id`` is required; reading across users needs ``Scope.everyone()``,
    which is read-only. ``agent_id`` and ``app_id`` name a namespace: writes go
    into exactly that namespace (unset means the user's shared one), reads see
    every namespace matching the fields that are set — unless ``exact``, which
    matches unset fields as unset. ``session_id`` is provenance: it is recorded
    on every fact written and does not narrow reads (long-term memory spans
    sessions); select a session's facts with an explicit criterion.
    """

    user_id: str | None = None
    agent_id: str | None = None
    app_id: str | None = None
    session_id: str | None = None
    all_users: bool = False
    exact: bool = False

    def __post_init__(self) -> None:
        for name in ("user_id", "agent_id", "app_id", "session_id"):
            object.__setattr__(self, name, check_identifier(getattr(self, name), name))
        if self.user_id is None and not self.all_users:
            raise InvalidInput("is required (use Scope.everyone() to read across users)", field="user_id")

    @classmethod
    def everyone(cls) -> Scope:
        return cls(all_users=True)

    def replace(self, **fields: Any) -> Scope:
        return dataclasses.replace(self, **fields)

    def user_wide(self) -> Scope:
        """All of this scope's user (or of every user, for ``everyone()``): for lookups by id."""
        return Scope(user_id=self.user_id, all_users=self.all_users)

    def namespace(self) -> Scope:
        """The one namespace this scope writes into, for reads that precede a write."""
        return Scope(user_id=self.user_id, agent_id=self.agent_id, app_id=self.app_id, exact=True)

    def writable(self) -> Scope:
        if self.user_id is None:
            raise InvalidInput("writes need one user; a global scope is read-only", field="user_id")
        return self


UTCDatetime = Annotated[datetime, AfterValidator(as_utc)]


# Node and Fact are slotted dataclasses rather than pydantic models: the store
# builds tens of thousands per second. ``to_json``/``from_json`` validate them
# with pydantic where data crosses a boundary (export/import).
@dataclass(slots=True, kw_only=True)
class Node:
    """A thing in the graph. ``key`` is the resolved name that makes it unique per namespace."""

    id: str = dataclasses.field(default_factory=lambda: new_id())
    user_id: str
    agent_id: str | None = None
    app_id: str | None = None
    name: str
    key: str
    type: str = NodeType.ENTITY.value
    summary: str | None = None
    metadata: dict[str, Any] = dataclasses.field(default_factory=dict)
    created_at: UTCDatetime
    updated_at: UTCDatetime


@dataclass(slots=True, kw_only=True)
class Fact:
    """An edge ``(subject) -[relation]-> (object)`` with confidence, provenance and time.

    A fact is *valid* while ``invalid_at`` is unset. Correcting or purging a fact
    sets ``invalid_at`` (and ``superseded_by`` when a replacement exists); the row
    stays for history and as-of queries.
    """

    id: str = dataclasses.field(default_factory=lambda: new_id())
    user_id: str
    agent_id: str | None = None
    app_id: str | None = None
    session_id: str | None = None
    subject_id: str
    relation: str
    object_id: str
    kind: EdgeKind = EdgeKind.FACT
    confidence: Annotated[float, Field(ge=0.0, le=1.0)] = 1.0
    speculation: bool = False
    pinned: bool = False
    type: str | None = None
    source: str | None = None
    metadata: dict[str, Any] = dataclasses.field(default_factory=dict)
    turn_id: str | None = None
    message_ids: list[str] = dataclasses.field(default_factory=list)
    mention_count: int = 1
    created_at: UTCDatetime
    updated_at: UTCDatetime
    valid_at: UTCDatetime
    invalid_at: UTCDatetime | None = None
    superseded_by: str | None = None
    # Display names of the endpoints, filled in by the store on reads.
    subject: str | None = None
    object: str | None = None

    @property
    def is_valid(self) -> bool:
        return self.invalid_at is None

    def valid_as_of(self, when: datetime) -> bool:
        return self.created_at <= when and self.valid_at <= when and (
            self.invalid_at is None or self.invalid_at > when
        )

    def render(self) -> str:
        return triple_text(self.subject or "", self.relation, self.object or "", self.speculation)


def triple_text(subject: str, relation: str, obj: str, speculation: bool) -> str:
    """``subject relation object``, with the seed's ``[speculation]`` mark on the subject."""
    return f"{subject}{'[speculation]' if speculation else ''} {relation} {obj}"


_ADAPTERS: dict[type, TypeAdapter[Any]] = {}


def _adapter(cls: type) -> TypeAdapter[Any]:
    if cls not in _ADAPTERS:
        _ADAPTERS[cls] = TypeAdapter(cls)
    return _ADAPTERS[cls]


def to_json(obj: Node | Fact, *, exclude: set[str] | None = None) -> dict[str, Any]:
    """A node or fact as JSON-able data (datetimes as ISO strings)."""
    return _adapter(type(obj)).dump_python(obj, mode="json", exclude=exclude)  # type: ignore[no-any-return]


def from_json(cls: type[T], data: dict[str, Any]) -> T:
    """Validate JSON data into a ``Node`` or ``Fact``; raises pydantic's ``ValidationError``."""
    return _adapter(cls).validate_python(data)  # type: ignore[no-any-return]
