"""One settings object shared by the library, the CLI and (later) the servers.

Precedence, highest first: explicit arguments, environment (``TRULYMEM_DB``,
``TRULYMEM_USER``, ``TRULYMEM_AGENT``, ``TRULYMEM_APP``), the config file
(``TRULYMEM_CONFIG`` or ``<user config dir>/trulymem/config.toml``), defaults.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import platformdirs

from trulymem.errors import ConfigError, InvalidInput
from trulymem.model import check_identifier

DEFAULT_USER = "default"
_KEYS = ("db", "user", "agent", "app", "embedder")


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
    unknown = sorted(set(data) - set(_KEYS))
    if unknown:
        raise ConfigError(f"unknown setting {unknown[0]!r} in {path}; known: {', '.join(_KEYS)}")
    for k, v in data.items():
        if not isinstance(v, str):
            raise ConfigError(f"setting {k!r} in {path} must be a string")
    return dict(data)


@dataclass(frozen=True)
class Settings:
    db: str
    user: str
    agent: str | None = None
    app: str | None = None
    embedder: str = "auto"  # "none" for no vectors

    @classmethod
    def load(
        cls,
        *,
        db: str | None = None,
        user: str | None = None,
        agent: str | None = None,
        app: str | None = None,
        embedder: str | None = None,
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
        if db_value != ":memory:":
            db_value = str(Path(db_value).expanduser())
        return cls(
            db=db_value,
            user=check_identifier(pick(user, "user") or DEFAULT_USER, "user_id", required=True),  # type: ignore[arg-type]
            agent=check_identifier(pick(agent, "agent"), "agent_id"),
            app=check_identifier(pick(app, "app"), "app_id"),
            embedder=pick(embedder, "embedder") or "auto",
        )
