"""Retention policies: how long memories of each ``type`` are kept.

Sources, later ones winning per type: the built-in defaults (``session_state``
and ``compact_summary`` 90 days, everything else forever), the ``[retention]``
table of trulymem's config file, and the ``## Retention`` section of
``mem0.md`` in the project directory (the mem0 plugin's format)::

    ## Retention
    session_state: 30d      # inline comments are fine
    - decision: forever
    #whole-line comments start with '#' and no space (a '# Title' line is a heading)

Malformed lines are reported as warnings, never silently dropped.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from trulymem.errors import ConfigError

DEFAULTS: dict[str, int | None] = {"session_state": 90, "compact_summary": 90}
_HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
_RULE = re.compile(r"^(?:[-*+]\s+)?([A-Za-z0-9_.\-]+)\s*:\s*(\S+)\s*$")
_DAYS = re.compile(r"^(\d{1,6})\s*d(?:ays?)?$", re.IGNORECASE)


@dataclass
class Retention:
    days: dict[str, int | None] = field(default_factory=dict)  # type -> days; None: forever
    warnings: list[str] = field(default_factory=list)
    sources: list[str] = field(default_factory=list)

    def limit(self, type_: str | None) -> int | None:
        """Days memories of this type are kept, or ``None`` (no pruning by age)."""
        return self.days.get(type_ or "unknown")


def parse_value(value: str) -> int | None | str:
    """``90d`` -> 90, ``forever`` -> None; anything else is returned as the error text."""
    if value.casefold() in ("forever", "never", "none", "∞"):
        return None
    m = _DAYS.match(value)
    if m:
        return int(m.group(1))
    return f"{value!r} is not '<N>d' or 'forever'"


def parse_mem0_md(text: str, origin: str = "mem0.md") -> tuple[dict[str, int | None], list[str]]:
    """The ``## Retention`` section of a mem0.md: ``(policies, warnings)``."""
    policies: dict[str, int | None] = {}
    warnings: list[str] = []
    inside = False
    for n, raw in enumerate(text.splitlines(), 1):
        heading = _HEADING.match(raw)
        if heading:
            inside = heading.group(2).strip().casefold() == "retention"
            continue
        if not inside:
            continue
        line = raw.split(" #", 1)[0].strip()
        if not line or line.startswith(("#", "<!--")):
            continue
        m = _RULE.match(line)
        if not m:
            warnings.append(f"{origin}:{n}: ignored {raw.strip()!r}: expected '<type>: <N>d' or '<type>: forever'")
            continue
        parsed = parse_value(m.group(2))
        if isinstance(parsed, str):
            warnings.append(f"{origin}:{n}: ignored {raw.strip()!r}: {parsed}")
            continue
        policies[m.group(1)] = parsed
    return policies, warnings


def _from_config(path: Path) -> tuple[dict[str, int | None], list[str]]:
    if not path.exists():
        return {}, []
    try:
        table = tomllib.loads(path.read_text(encoding="utf-8")).get("retention", {})
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"cannot read config file {path}: {exc}") from exc
    if not isinstance(table, dict):
        return {}, [f"{path}: [retention] must be a table of '<type> = \"<N>d\"' entries"]
    out: dict[str, int | None] = {}
    warnings: list[str] = []
    for key, value in table.items():
        parsed = parse_value(str(value)) if isinstance(value, str | int) and not isinstance(value, bool) else "?"
        if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
            parsed = value
        if isinstance(parsed, str):
            warnings.append(f"{path}: ignored retention {key} = {value!r}: expected \"<N>d\", a number or \"forever\"")
            continue
        out[key] = parsed
    return out, warnings


def load_retention(project_dir: str | Path | None = None, config: Path | None = None) -> Retention:
    """The effective policy for a project directory (default: the working directory)."""
    from trulymem.config import config_path

    r = Retention(days=dict(DEFAULTS), sources=["defaults"])
    cfg, warnings = _from_config(config or config_path())
    r.days.update(cfg)
    r.warnings += warnings
    if cfg:
        r.sources.append(str(config or config_path()))
    md = Path(project_dir or ".") / "mem0.md"
    if md.is_file():
        try:
            text = md.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise ConfigError(f"cannot read {md}: {exc}") from exc
        found, warnings = parse_mem0_md(text, str(md))
        r.days.update(found)
        r.warnings += warnings
        r.sources.append(str(md))
    elif project_dir is not None and not Path(project_dir).is_dir():
        raise ConfigError(f"{project_dir} is not a directory")
    return r
