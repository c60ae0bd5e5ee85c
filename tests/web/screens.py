"""Screenshots: in each test's directory, and in $TRULYMEM_SCREENS too when it is set (for review)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any


def shot(page: Any, name: str, tmp_path: Path) -> None:
    page.screenshot(path=str(tmp_path / name))
    if os.environ.get("TRULYMEM_SCREENS"):
        out = Path(os.environ["TRULYMEM_SCREENS"])
        out.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(out / name))
