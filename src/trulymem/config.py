"""One settings object shared by the library, the CLI and (later) the servers.

Precedence, highest first: explicit arguments, environment (``TRULYMEM_DB``,
``TRULYMEM_USER``, ``TRULYMEM_AGENT``, ``TRULYMEM_APP``, ``TRULYMEM_EMBEDDER``,
``TRULYMEM_LLM_MODEL``, ``TRULYMEM_LLM_BASE_URL``, ``TRULYMEM_LLM_API_KEY``,
``TRULYMEM_LLM_TIMEOUT``, ``TRULYMEM_LLM_RETRIES``; the chat settings also fall
back to ``OPENAI_BASE_URL`` / ``OPENAI_API_KEY``; the server limits
``TRULYMEM_MAX_BODY``, ``TRULYMEM_HEADER_TIMEOUT``, ``TRULYMEM_IDLE_TIMEOUT``,
``TRULYMEM_MAX_CONNECTIONS``, ``TRULYMEM_REQUEST_BUDGET``, ``TRULYMEM_RATE_LIMIT``,
``TRULYMEM_RATE_BURST``; ``TRULYMEM_BLAS_THREADS``, read by ``trulymem.embed.threads``), the config file
(``TRULYMEM_CONFIG`` or ``<user config dir>/trulymem/config.toml``, the same
names in lower case), defaults.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

import platformdirs

from trulymem.errors import ConfigError, InvalidInput
from trulymem.model import check_identifier

DEFAULT_USER = "default"
_SERVER_KEYS = ("max_body", "header_timeout", "idle_timeout", "max_connections", "request_budget", "rate_limit",
                "rate_burst")
# blas_threads is read where BLAS runs (trulymem.embed.threads), not through Settings
_KEYS = ("db", "user", "agent", "app", "embedder", "llm_model", "llm_base_url", "llm_api_key", "llm_timeout",
         "llm_retries", "blas_threads", *_SERVER_KEYS)
_NUMBERS = ("llm_timeout", "llm_retries", "blas_threads", *_SERVER_KEYS)


def default_db_path() -> Path:
    return Path(platformdirs.user_data_dir("trulymem", appauthor=False)) / "trulymem.db"


def config_path(env: Mapping[str, str] | None = None) -> Path:
    env = os.environ if env is None else env
    if env.get("TRULYMEM_CONFIG"):
        return Path(env["TRULYMEM_CONFIG"]).expanduser()
    return Path(platformdirs.user_config_dir("trulymem", appauthor=False)) / "config.toml"


def read_config_file(path: Path) -> dict[str, str]:
    if not path.exists():
        return {}
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"cannot read config file {path}: {exc}") from exc
    data.pop("retention", None)  # a table, read by trulymem.dream.policy
    unknown = sorted(set(data) - set(_KEYS))
    if unknown:
        raise ConfigError(f"unknown setting {unknown[0]!r} in {path}; known: {', '.join(_KEYS)}")
    for k, v in data.items():
        if k in _NUMBERS and isinstance(v, int | float) and not isinstance(v, bool):
            data[k] = str(v)
        elif not isinstance(v, str):
            raise ConfigError(f"setting {k!r} in {path} must be a string")
    return dict(data)


def _plain(x: float) -> str:
    return f"{int(x):,}" if x == int(x) else f"{x:g}"


def _number(value: str | None, name: str, default: float, *, low: float, high: float) -> float:
    if value is None:
        return default
    try:
        n = float(value)
    except ValueError:
        raise ConfigError(f"{name} must be a number, not {value!r}") from None
    if not low <= n <= high:
        raise ConfigError(f"{name} must be between {_plain(low)} and {_plain(high)}, not {value}")
    return n


@dataclass(frozen=True)
class LLMSettings:
    """Where the chat model is. ``model`` unset means no LLM is configured."""

    model: str | None = None
    base_url: str | None = None  # None: api.openai.com
    api_key: str | None = None
    timeout: float = 60.0
    retries: int = 3

    HELP = ("No chat model is configured. Point trulymem at any OpenAI-compatible server, e.g.\n"
            "  export TRULYMEM_LLM_MODEL=gpt-4o-mini TRULYMEM_LLM_API_KEY=sk-...            # OpenAI\n"
            "  export TRULYMEM_LLM_BASE_URL=http://localhost:11434/v1 TRULYMEM_LLM_MODEL=qwen2.5  # Ollama\n"
            "or pass --model/--base-url/--api-key, or put llm_model/llm_base_url/llm_api_key in the config "
            "file.")


@dataclass(frozen=True)
class ServerSettings:
    """Limits of ``trulymem serve``: safe for a server on the network, out of the way of a local one."""

    max_body: int = 1 << 20          # bytes of one request body
    header_timeout: float = 10.0     # seconds for a request's line and headers, from its first byte
    idle_timeout: float = 15.0       # seconds a connection may sit silent: between requests or inside a body
    max_connections: int = 1000      # open connections; never more than the open-file limit leaves room for
    request_budget: float = 30.0     # seconds of wall clock for one request (0: none)
    rate_limit: float = 0.0          # requests per second per API key (or client address without one); 0: off
    rate_burst: float = 0.0          # bucket size; 0: twice the rate, at least 1

    @property
    def burst(self) -> float:
        return self.rate_burst or max(1.0, 2 * self.rate_limit)

    # (low, high) for each setting, shared by the config file, the environment and `trulymem serve`
    RANGES: ClassVar[dict[str, tuple[float, float]]] = {
        "max_body": (1024, 1 << 30), "header_timeout": (0.1, 3600), "idle_timeout": (0.1, 3600),
        "max_connections": (1, 1_000_000), "request_budget": (0, 86400), "rate_limit": (0, 1e6), "rate_burst": (0, 1e6)}

    @classmethod
    def load(cls, pick: Callable[[str], str | None]) -> ServerSettings:
        def num(name: str) -> float:
            low, high = cls.RANGES[name]
            return _number(pick(name), name, getattr(cls, name), low=low, high=high)

        return cls(max_body=int(num("max_body")), header_timeout=num("header_timeout"),
                   idle_timeout=num("idle_timeout"), max_connections=int(num("max_connections")),
                   request_budget=num("request_budget"), rate_limit=num("rate_limit"), rate_burst=num("rate_burst"))


@dataclass(frozen=True)
class Settings:
    db: str
    user: str
    agent: str | None = None
    app: str | None = None
    embedder: str = "auto"  # "none" for no vectors
    llm: LLMSettings = LLMSettings()
    server: ServerSettings = ServerSettings()

    @classmethod
    def load(
        cls,
        *,
        db: str | None = None,
        user: str | None = None,
        agent: str | None = None,
        app: str | None = None,
        embedder: str | None = None,
        llm_model: str | None = None,
        llm_base_url: str | None = None,
        llm_api_key: str | None = None,
        env: Mapping[str, str] | None = None,
    ) -> Settings:
        env = os.environ if env is None else env
        file = read_config_file(config_path(env))

        def pick(arg: str | None, name: str) -> str | None:
            if arg is not None:  # given explicitly: an empty value is a mistake, not "use the default"
                if not arg.strip():
                    raise InvalidInput("must not be empty", field=name)
                return arg
            return env.get(f"TRULYMEM_{name.upper()}") or file.get(name) or None

        db_value = pick(db, "db") or str(default_db_path())
        if db_value != ":memory:" and not db_value.startswith(("postgresql://", "postgres://")):
            db_value = str(Path(db_value).expanduser())  # a server URL is not a path
        return cls(
            db=db_value,
            user=check_identifier(pick(user, "user") or DEFAULT_USER, "user_id", required=True),  # type: ignore[arg-type]
            agent=check_identifier(pick(agent, "agent"), "agent_id"),
            app=check_identifier(pick(app, "app"), "app_id"),
            embedder=pick(embedder, "embedder") or "auto",
            llm=LLMSettings(
                model=pick(llm_model, "llm_model"),
                base_url=pick(llm_base_url, "llm_base_url") or env.get("OPENAI_BASE_URL") or None,
                api_key=pick(llm_api_key, "llm_api_key") or env.get("OPENAI_API_KEY") or None,
                timeout=_number(pick(None, "llm_timeout"), "llm_timeout", 60.0, low=0.1, high=3600),
                retries=int(_number(pick(None, "llm_retries"), "llm_retries", 3, low=0, high=20)),
            ),
            server=ServerSettings.load(lambda name: pick(None, name)),
        )
