"""``trulymem serve --workers N``: N uvicorn worker processes on one port and one database.

uvicorn starts each worker as a fresh process that imports the app by name, so the app
is built here by a factory from the settings the parent process put in the environment
(``TRULYMEM_SERVE_WORKER``, JSON). The workers share nothing but the database: with
PostgreSQL every write is a transaction under the store's per-user locks and unique
constraints; SQLite serialises writers across processes itself. Each worker keeps the
request deadlines of ``connections.GuardedH11Protocol``; the cap on open connections is
the listener's of a single process, so with workers it is the kernel's backlog instead.
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import sys
from typing import Any

from trulymem.config import LLMSettings, ServerSettings
from trulymem.server.connections import BACKLOG, ConnectionGuard, GuardedH11Protocol, connection_limit
from trulymem.server.gcpolicy import DEFAULT_POLICY, apply_policy, parse_policy

ENV = "TRULYMEM_SERVE_WORKER"


def _spec() -> dict[str, Any]:
    raw = os.environ.get(ENV)
    return json.loads(raw) if raw else {}


def _limits(spec: dict[str, Any]) -> ServerSettings:
    return ServerSettings(**spec.get("limits", {}))


class WorkerProtocol(GuardedH11Protocol):
    """The guarded h11 protocol, its deadlines read from the parent's settings."""

    _limits = _limits(_spec())
    guard = ConnectionGuard(connection_limit(_limits.max_connections))
    header_timeout = _limits.header_timeout
    idle_timeout = _limits.idle_timeout


def app() -> Any:
    """The app factory each worker calls (``uvicorn --factory``)."""
    from trulymem.server.http import create_app

    spec = _spec()
    embedder = None
    if spec.get("embedder") not in (None, "none"):
        from trulymem.embed import get_embedder

        embedder = get_embedder(spec["embedder"])
    llm = None
    if spec.get("llm", {}).get("model"):
        from trulymem.llm import get_llm

        llm = get_llm(LLMSettings(**spec["llm"]))
    built = create_app(spec["db"], embedder=embedder, llm=llm, require_keys=spec["require_keys"],
                       limits=_limits(spec), mcp=spec["mcp"], default_user=spec["default_user"])
    if said := apply_policy(parse_policy(spec.get("gc", DEFAULT_POLICY))):  # a worker is a served process of its own
        print(f"worker {os.getpid()}: {said}", file=sys.stderr, flush=True)
    return built


def run_workers(workers: int, host: str, port: int, *, db: str, embedder: str, llm: LLMSettings,
                limits: ServerSettings, require_keys: bool, mcp: bool, default_user: str,
                gc_policy: str = DEFAULT_POLICY) -> None:
    """Serve with ``workers`` processes until interrupted (uvicorn restarts a worker that dies)."""
    import uvicorn

    os.environ[ENV] = json.dumps({
        "db": db, "embedder": embedder, "llm": dataclasses.asdict(llm), "limits": dataclasses.asdict(limits),
        "require_keys": require_keys, "mcp": mcp, "default_user": default_user, "gc": gc_policy,
    })
    uvicorn.run(f"{__name__}:app", factory=True, host=host, port=port, workers=workers,
                http=f"{__name__}:WorkerProtocol", loop="asyncio", ws="none", log_level="warning", access_log=False,
                backlog=BACKLOG, timeout_keep_alive=max(1, math.ceil(limits.idle_timeout)))
