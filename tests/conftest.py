from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from trulymem import TrulyMem
from trulymem.config import ServerSettings


class Clock:
    """A clock that moves forward 1 ms per reading, and can be jumped."""

    def __init__(self, start: datetime = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)) -> None:
        self.t = start

    def __call__(self) -> datetime:
        self.t += timedelta(milliseconds=1)
        return self.t

    def advance(self, **kw: float) -> datetime:
        self.t += timedelta(**kw)
        return self.t


@pytest.fixture(autouse=True)
def isolated_env(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """No test reads or writes the real home, config or data directories."""
    home = tmp_path_factory.mktemp("home")
    for var in ("HOME", "XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME"):
        monkeypatch.setenv(var, str(home / var.lower()))
    for var in ("TRULYMEM_DB", "TRULYMEM_USER", "TRULYMEM_AGENT", "TRULYMEM_APP", "TRULYMEM_SESSION",
                "TRULYMEM_CONFIG", "TRULYMEM_LLM_MODEL", "TRULYMEM_LLM_BASE_URL", "TRULYMEM_LLM_API_KEY",
                "TRULYMEM_LLM_TIMEOUT", "TRULYMEM_LLM_RETRIES", "OPENAI_API_KEY", "OPENAI_BASE_URL",
                *(f"TRULYMEM_{name.upper()}" for name in ServerSettings.RANGES)):
        monkeypatch.delenv(var, raising=False)
    # The same embedder whatever extras this machine has: results do not depend on the install.
    monkeypatch.setenv("TRULYMEM_EMBEDDER", "hashing")


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "memory.db"


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def mem(db_path: Path, clock: Clock) -> Iterator[TrulyMem]:
    m = TrulyMem(db_path, user_id="alice", clock=clock)
    yield m
    m.close()
