"""The served process's GC policy (``trulymem serve --gc``): parsed strictly, applied only by the
server's entry points (the library never touches a process's collector), served with."""

from __future__ import annotations

import gc
import re
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from click.testing import CliRunner

from tests.helpers import Served
from trulymem.cli import main
from trulymem.errors import ConfigError
from trulymem.server.gcpolicy import DEFAULT_POLICY, GCPolicy, parse_policy


@pytest.mark.parametrize(("text", "policy"), [
    ("freeze", GCPolicy(freeze=True)),
    (" Python ", GCPolicy(freeze=False)),
    ("freeze:10000,20,20", GCPolicy(freeze=True, threshold=(10000, 20, 20))),
    ("python:5000", GCPolicy(freeze=False, threshold=(5000,))),
])
def test_parse_policy(text: str, policy: GCPolicy) -> None:
    assert parse_policy(text) == policy


def test_default_leaves_the_collector_as_python_sets_it() -> None:
    assert parse_policy(DEFAULT_POLICY) == GCPolicy(freeze=False, threshold=None) == GCPolicy()


@pytest.mark.parametrize("text", ["", "off", "freeze:", "freeze:a,b", "freeze:0", "python:1,2,3,4", "freeze:-5",
                                  "python:99999999999999999999", "freeze:2147483648"])
def test_bad_policy_is_refused(text: str) -> None:
    with pytest.raises(ConfigError) as err:
        parse_policy(text)
    assert err.value.field == "gc"


def test_apply_freezes_and_sets_thresholds_in_its_process() -> None:
    code = ("import gc; from trulymem.server.gcpolicy import apply_policy, parse_policy; "
            "apply_policy(parse_policy('freeze:5000,15,25')); print(gc.get_freeze_count() > 1000, gc.get_threshold())")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["True", "(5000,", "15,", "25)"]
    code = ("import gc; t = gc.get_threshold(); from trulymem.server.gcpolicy import apply_policy, parse_policy; "
            "apply_policy(parse_policy('python')); print(gc.get_freeze_count(), gc.get_threshold() == t)")
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True).stdout.split() == ["0", "True"]


def test_building_the_app_leaves_the_collector_alone(tmp_path: Path) -> None:
    from trulymem.server.http import create_app

    before = (gc.get_threshold(), gc.get_freeze_count(), gc.isenabled())
    create_app(str(tmp_path / "m.db"))
    assert (gc.get_threshold(), gc.get_freeze_count(), gc.isenabled()) == before


def test_serve_refuses_a_bad_policy_before_starting(tmp_path: Path) -> None:
    res = CliRunner().invoke(main, ["serve", "--db", str(tmp_path / "m.db"), "--port", "0", "--gc", "sometimes"])
    assert res.exit_code != 0 and "unknown GC policy 'sometimes'" in res.output
    assert not (tmp_path / "m.db").exists()


def _served_log(served: Served, lines: int, pattern: str) -> list[str]:
    """The server's log lines matching ``pattern`` once ``lines`` of them are there (workers start one by one)."""
    deadline = time.monotonic() + 20
    while True:
        served.log.seek(0)
        found = [line for line in served.log.read().splitlines() if re.search(pattern, line)]
        if len(found) >= lines or time.monotonic() > deadline:
            return found
        time.sleep(0.1)


@pytest.mark.parametrize(("policy", "workers"), [("freeze:10000,20,20", 1), ("freeze:10000,20,20", 2),
                                                 ("python", 1)])
def test_served_with_a_policy(tmp_path: Path, policy: str, workers: int) -> None:
    served = Served(str(tmp_path / "m.db"), "--gc", policy, *(["--workers", str(workers)] if workers > 1 else []))
    try:
        httpx.post(served.url + "/v1/triplets", params={"user_id": "u"}, timeout=10, json={
            "triplets": [{"subject": "user", "relation": "likes", "object": "jazz"}]}).raise_for_status()
        r = httpx.post(served.url + "/v1/recall", params={"user_id": "u"}, json={"query_intent": "jazz"}, timeout=10)
        assert r.status_code == 200 and [f["object"] for f in r.json()["facts"]] == ["jazz"]
        # what each serving process read back from its own collector after applying the policy
        said = _served_log(served, 0 if policy == "python" else workers, r"GC thresholds")
        if policy == "python":
            assert said == []
        else:
            assert len(said) == workers and all("GC thresholds (10000, 20, 20)" in line for line in said)
            frozen = [int(m.group(1).replace(",", "")) for line in said
                      if (m := re.search(r"([\d,]+) start-up objects frozen", line))]
            assert len(frozen) == workers and min(frozen) > 10_000
            if workers > 1:
                assert len({line.split(":")[0] for line in said}) == workers  # one line per worker process
    finally:
        served.stop()
