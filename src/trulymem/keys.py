"""API keys for the HTTP server: each bound to one user or an admin, stored hashed.

A key looks like ``tm_<id>_<secret>``; only ``sha256(secret)`` is kept (the secret
is 32 random bytes, so a plain hash is as good as a slow one). Keys live in the
database they open, so ``--db`` decides which keys are valid.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
from dataclasses import asdict, dataclass
from datetime import datetime
from typing import Literal

from trulymem.errors import InvalidInput, NotFound
from trulymem.model import check_identifier, utcnow
from trulymem.store.base import Store

PREFIX = "api_key:"
Role = Literal["user", "admin"]


@dataclass
class ApiKey:
    id: str
    role: Role
    user_id: str | None
    label: str | None
    hash: str
    created_at: str
    revoked_at: str | None = None

    def public(self) -> dict[str, str | None]:
        d = asdict(self)
        d.pop("hash")
        return d


def _hash(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def create_key(store: Store, *, user_id: str | None = None, admin: bool = False, label: str | None = None,
               now: datetime | None = None) -> tuple[ApiKey, str]:
    """A new key; returns it and the token, which is shown once and never stored."""
    if admin == (user_id is not None):
        raise InvalidInput("a key is either for one user (--user) or an admin (--admin)", field="user_id")
    if user_id is not None:
        check_identifier(user_id, "user_id", required=True)
    key_id, secret = secrets.token_hex(4), secrets.token_urlsafe(32)
    key = ApiKey(id=key_id, role="admin" if admin else "user", user_id=user_id, label=label, hash=_hash(secret),
                 created_at=(now or utcnow()).isoformat())
    with store.transaction():
        if user_id is not None:  # the key's user exists from its first call: a read is empty, not "unknown user"
            store.ensure_user(user_id, now or utcnow())
        store.put_setting(PREFIX + key_id, json.dumps(asdict(key)))
    return key, f"tm_{key_id}_{secret}"


def list_keys(store: Store) -> list[ApiKey]:
    return [ApiKey(**json.loads(v)) for v in store.settings(PREFIX).values()]


def revoke_key(store: Store, key_id: str, now: datetime | None = None) -> ApiKey:
    raw = store.settings(PREFIX + key_id).get(PREFIX + key_id)
    if raw is None:
        raise NotFound(f"no API key {key_id!r}", field="key_id")
    key = ApiKey(**json.loads(raw))
    if key.revoked_at is None:
        key.revoked_at = (now or utcnow()).isoformat()
        store.put_setting(PREFIX + key_id, json.dumps(asdict(key)))
    return key


def verify(store: Store, token: str) -> ApiKey | None:
    """The active key this token belongs to, or ``None``."""
    parts = token.split("_", 2)
    if len(parts) != 3 or parts[0] != "tm":
        return None
    raw = store.settings(PREFIX + parts[1]).get(PREFIX + parts[1])
    if raw is None:
        return None
    key = ApiKey(**json.loads(raw))
    if key.revoked_at is not None or not hmac.compare_digest(key.hash, _hash(parts[2])):
        return None
    return key


def any_active(store: Store) -> bool:
    return any(k.revoked_at is None for k in list_keys(store))
