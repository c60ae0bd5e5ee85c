from __future__ import annotations

import io

from trulymem import TrulyMem


def snapshot(m: TrulyMem) -> list[str]:
    """Every row of every user, for "changed nothing" assertions."""
    buf = io.StringIO()
    m.export_jsonl(buf, all_users=True)
    return buf.getvalue().splitlines()


def triplet(s: str, r: str, o: str, **kw: object) -> dict[str, object]:
    return {"subject": s, "relation": r, "object": o, **kw}
