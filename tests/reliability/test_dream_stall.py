"""A dream never stalls the server (issue 30): through every entry point — ``call("memory_dream")``,
``POST /v1/dream``, ``POST /v1/tools/memory_dream`` and MCP — a dry run and an auto run analyse
outside any transaction and apply in steps, so another user's writer in another process is never
locked out and another user's reads answer throughout the dream; a request whose time budget runs
out answers 503 with ``Retry-After`` and changes nothing. Re-run over PostgreSQL by
``tests/contract/test_dream_stall_pg.py``."""

from __future__ import annotations

import json
import multiprocessing as mp
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest

from tests.helpers import Served
from tests.reliability.test_dream_steps import _writer, seeded
from trulymem import TrulyMem
from trulymem.memories import iter_memories

pytestmark = pytest.mark.reliability

PAIRS, OLD = 600, 300  # per scope: 1,500 memories, 600 merges and 300 prunes for an auto run
OTHER = "other"


@contextmanager
def other_writer(db: str, tmp: Path) -> Iterator[Callable[[], tuple[int, list[str]]]]:
    stop = tmp / "stop-writer"
    ctx = mp.get_context("spawn")
    out = ctx.Queue()
    proc = ctx.Process(target=_writer, args=(db, str(stop), out))
    proc.start()
    result: list[tuple[int, list[str]]] = []

    def finish() -> tuple[int, list[str]]:
        if not result:
            stop.touch()
            result.append(out.get(timeout=60))
            proc.join(timeout=30)
        return result[0]
    try:
        yield finish
    finally:
        finish()


class Reader:
    """Another user's reads, one after another in a thread, each timed."""

    def __init__(self, read: Callable[[], object]) -> None:
        self.read, self.times, self.failures = read, [], []  # type: ignore[var-annotated]
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            t0 = time.monotonic()
            try:
                self.read()
            except Exception as exc:  # noqa: BLE001 - counted and shown by the assertion
                self.failures.append(repr(exc))
            self.times.append((t0, time.monotonic()))
            time.sleep(0.02)

    def __enter__(self) -> Reader:
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        self._thread.join(timeout=60)


def timed(dream: Callable[[], Any]) -> tuple[Any, float, float]:
    t0 = time.monotonic()
    out = dream()
    return out, t0, time.monotonic()


def check_reads(reader: Reader, what: str, start: float, end: float) -> str:
    """During the dream another user's reads kept answering: several completed inside it and none
    waited for a large part of it (relative to the dream's own duration, never an absolute time)."""
    took = end - start
    during = [(a, b) for a, b in reader.times if b > start and a < end]
    inside = [(a, b) for a, b in during if a >= start and b <= end]
    worst = max((b - a for a, b in during), default=0.0)
    assert len(inside) >= 3, f"{what}: only {len(inside)} reads of another user completed during a {took:.1f} s dream"
    assert worst < took / 2, f"{what}: another user's read waited {worst:.2f} s of a {took:.2f} s dream"
    return f"{what}: {took:.1f} s, {len(inside)} reads inside, slowest {worst:.2f} s"


def _seed(db: str, apps: list[str]) -> None:
    for app in apps:
        seeded(db, PAIRS, OLD, app=app)  # type: ignore[arg-type]  # a path or a PostgreSQL URL
    with TrulyMem(db, user_id=OTHER) as m:
        m.call("add_memory", {"text": "the other user's first note"})


def test_a_library_dream_does_not_stall_another_user(db_path: Path, tmp_path: Path) -> None:
    db = str(db_path)
    _seed(db, ["lib"])
    lines = []
    with TrulyMem(db, user_id="u", app_id="lib") as mem, other_writer(db, tmp_path) as finish:
        other = mem.with_scope(user_id=OTHER, app_id=None)
        with Reader(lambda: other.stats()) as reader:
            for mode in ("dry_run", "auto"):
                res, t0, t1 = timed(lambda mode=mode: mem.call("memory_dream", {"mode": mode}))  # type: ignore[misc]
                assert res.ok, res.error
                lines.append(check_reads(reader, f"call memory_dream {mode}", t0, t1))
        assert res.result["applied"]["merged"] == PAIRS and res.result["applied"]["pruned"] == OLD
        ok, locked = finish()
    assert reader.failures == [] and ok > 0 and locked == [], (reader.failures, locked[:3])
    print("\n" + "\n".join(lines) + f"\nanother process's writer: {ok} commits, 0 locked")


def test_server_dreams_do_not_stall_another_user(db_path: Path, tmp_path: Path) -> None:
    from tests.test_mcp import http_session

    db = str(db_path)
    _seed(db, ["route", "tool", "mcp"])
    s = Served(db)
    lines = []
    try:
        with httpx.Client(base_url=s.url, timeout=300) as c, other_writer(db, tmp_path) as finish:
            def http(path: str, app: str, mode: str) -> dict[str, Any]:
                r = c.post(path, json={"mode": mode, "user_id": "u", "app_id": app})
                assert r.status_code == 200, r.text
                return r.json()  # type: ignore[no-any-return]

            async def over_mcp(mode: str) -> Any:
                async with http_session(s.url) as session:
                    res = await session.call_tool("memory_dream", {"mode": mode, "user_id": "u", "app_id": "mcp"})
                    assert not res.isError, res.content
                    return json.loads(res.content[0].text)

            with httpx.Client(base_url=s.url, timeout=60) as rc, \
                    Reader(lambda: rc.get("/v1/stats", params={"user_id": OTHER}).raise_for_status()) as reader:
                for mode in ("dry_run", "auto"):
                    for what, dream in (("POST /v1/dream", lambda m=mode: http("/v1/dream", "route", m)),
                                        ("POST /v1/tools/memory_dream",
                                         lambda m=mode: http("/v1/tools/memory_dream", "tool", m)),
                                        ("MCP memory_dream", lambda m=mode: anyio.run(over_mcp, m))):
                        out, t0, t1 = timed(dream)
                        lines.append(check_reads(reader, f"{what} {mode}", t0, t1))
                        if mode == "auto":
                            assert out["applied"]["merged"] == PAIRS, out["applied"]
            ok, locked = finish()
        assert reader.failures == [] and ok > 0 and locked == [], (reader.failures, locked[:3])
    finally:
        s.stop()
    print("\n" + "\n".join(lines) + f"\nanother process's writer: {ok} commits, 0 locked")


def test_a_dream_out_of_its_request_budget_answers_503_and_changes_nothing(db_path: Path) -> None:
    db = str(db_path)
    _seed(db, ["late"])
    before = _memories(db)
    s = Served(db, "--request-budget", "0.3")
    try:
        with httpx.Client(base_url=s.url, timeout=300) as c:
            for path, mode in (("/v1/dream", "dry_run"), ("/v1/dream", "auto"), ("/v1/tools/memory_dream", "auto")):
                r = c.post(path, json={"mode": mode, "user_id": "u", "app_id": "late"})
                assert r.status_code == 503, (path, mode, r.status_code, r.text[:300])
                assert r.json()["error"]["type"] == "budget_exceeded" and int(r.headers["Retry-After"]) >= 1
    finally:
        s.stop()
    assert _memories(db) == before


def _memories(db: str) -> list[tuple[str, str]]:
    with TrulyMem(db, user_id="u", app_id="late") as m:
        return sorted((x.id, x.memory) for x in iter_memories(m.store, m.scope))
