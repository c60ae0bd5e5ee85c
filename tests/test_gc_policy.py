"""The served process's GC policy (``trulymem serve --gc``): parsed strictly, applied only by the
server's entry points (the library never touches a process's collector), served with."""

from __future__ import annotations

import gc
import subprocess
import sys
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


@pytest.mark.parametrize("policy", ["freeze:10000,20,20", "python"])
def test_served_with_a_policy(tmp_path: Path, policy: str) -> None:
    served = Served(str(tmp_path / "m.db"), "--gc", policy)
    try:
        httpx.post(served.url + "/v1/triplets", params={"user_id": "u"}, timeout=10, json={
            "triplets": [{"subject": "user", "relation": "likes", "object": "jazz"}]}).raise_for_status()
        r = httpx.post(served.url + "/v1/recall", params={"user_id": "u"}, json={"query_intent": "jazz"}, timeout=10)
        assert r.status_code == 200 and [f["object"] for f in r.json()["facts"]] == ["jazz"]
    finally:
        served.stop()
