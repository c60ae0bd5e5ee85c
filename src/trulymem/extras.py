"""How to install one of trulymem's extras, as this copy of trulymem was installed.

``pip install "trulymem[server]"`` only works when trulymem came from a package index.
A copy installed from a checkout (``pip install -e .``, ``pip install /path``) or from a
URL needs the extra from the same place, so the hint reads how pip recorded this install
(PEP 610's ``direct_url.json``): an editable checkout gets ``pip install -e "<path>[x]"``,
a local directory ``pip install "<path>[x]"``, a URL ``pip install "trulymem[x] @ <url>"``,
and a source tree that was never installed the editable form for its own directory.
"""

from __future__ import annotations

import json
from importlib.metadata import PackageNotFoundError, distribution
from pathlib import Path
from urllib.parse import unquote, urlparse

DIST = "trulymem"


def install_command(extra: str) -> str:
    """The ``pip install`` command that adds ``extra`` to this installation."""
    try:
        dist = distribution(DIST)
    except PackageNotFoundError:  # imported from a source tree on sys.path
        root = _source_root()
        return f'pip install -e "{root}[{extra}]"' if root else f'pip install "{DIST}[{extra}]"'
    raw = dist.read_text("direct_url.json")
    if not raw:  # from an index
        return f'pip install "{DIST}[{extra}]"'
    try:
        info = json.loads(raw)
        url = str(info["url"])
    except (ValueError, KeyError, TypeError):
        return f'pip install "{DIST}[{extra}]"'
    parsed = urlparse(url)
    if parsed.scheme == "file" and "dir_info" in info:
        path = unquote(parsed.path)
        editable = bool((info.get("dir_info") or {}).get("editable"))
        return f'pip install {"-e " if editable else ""}"{path}[{extra}]"'
    return f'pip install "{DIST}[{extra}] @ {url}"'


def _source_root() -> Path | None:
    """The checkout this package is imported from (the directory holding pyproject.toml)."""
    here = Path(__file__).resolve().parent
    for parent in here.parents[:3]:
        if (parent / "pyproject.toml").is_file():
            return parent
    return None


def needs(what: str, extra: str, missing: str | None = None) -> str:
    """``"<what> needs its extra: <command>"`` (and which module is missing)."""
    tail = f" ({missing} missing)" if missing else ""
    return f"{what} needs its extra: {install_command(extra)}{tail}"
