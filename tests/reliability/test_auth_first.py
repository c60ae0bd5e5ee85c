"""A keyed server authenticates before it looks at anything else (issue 30): a request without a
valid key gets 401 whatever is wrong with its body or parameters — never a 422, 400 or 413 that
tells a stranger how the API reads. With a valid key the same requests get their own answers."""

from __future__ import annotations

from pathlib import Path

import httpx

from tests.helpers import Served
from tests.test_http import key

BAD = [  # (method, path, params, raw body): each wrong in its own way
    ("POST", "/v1/memories", None, b'{"text": '),  # not JSON
    ("POST", "/v1/memories", None, b'{"bogus": 1}'),  # an unknown field
    ("POST", "/v1/memories/search", None, b'{"query": ""}'),
    ("POST", "/v1/tools/memory_commit", None, b'{"triplets": "nope"}'),
    ("GET", "/v1/memories", {"page": "abc"}, None),
    ("GET", "/v1/memories", {"filters": "{bad json"}, None),
    ("PATCH", "/v1/memories/x", None, b"[1, 2]"),
    ("POST", "/v1/dream", None, b'{"mode": "sideways"}'),
    ("POST", "/v3/memories/add/", None, b'{"messages": 5}'),
    ("GET", "/v1/graph/nodes/x", {"as_of": "yesterday-ish"}, None),
    ("POST", "/v1/memories", None, b'{"text": "' + b"x" * 3_000_000 + b'"}'),  # over --max-body
    ("POST", "/mcp/", None, b'{"jsonrpc": "2.0", "id": 1, "method": 7}'),
]


def test_unauthenticated_bad_requests_get_401(tmp_path: Path) -> None:
    db = str(tmp_path / "m.db")
    token = key(db, "--user", "alice")
    s = Served(db)
    try:
        with httpx.Client(base_url=s.url, timeout=60) as c:
            for auth in ({}, {"Authorization": "Bearer not-a-key"}, {"Authorization": "Token not-a-key"}):
                for method, path, params, body in BAD:
                    r = c.request(method, path, params=params, content=body,
                                  headers={**auth, "Content-Type": "application/json"})
                    assert r.status_code == 401, (auth, method, path, r.status_code, r.text[:200])
                    assert r.json()["error"]["type"] == "unauthorized" and r.headers["WWW-Authenticate"] == "Bearer"
            good = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
            statuses = [c.request(m, p, params=q, content=b, headers=good).status_code for m, p, q, b in BAD]
            assert 401 not in statuses and all(400 <= st < 500 for st in statuses), statuses
            assert c.get("/health").status_code == 200  # what holds no data needs no key
            assert c.get("/openapi.json").status_code == 200
    finally:
        s.stop()
