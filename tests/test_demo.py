"""The seed's idiom-chain example, end to end through the agent runtime."""

from __future__ import annotations

from trulymem import TrulyMem
from trulymem.demo import run_demo


def test_idiom_chain_demo(mem: TrulyMem) -> None:
    lines: list[str] = []
    turns = run_demo(mem, emit=lines.append)
    assert len(turns) == 3
    for t in turns:  # the runtime recalled persona and chain before every model call
        assert t.trace is not None and t.trace.recalled["persona"]["role"] == "catgirl"
        assert t.trace.task is not None  # ... and recorded the turn afterwards
        assert all(s.ok for s in t.steps)
    assert "为虎作伥" in turns[0].reply
    tasks = mem.task_list(kind="all").tasks
    assert [t.task_id for t in mem.task_list().tasks] == ["Task_nagato_yuki", "Task_idiom_chain"]  # turns apart
    records = [t.trace.record_task for t in turns if t.trace]
    assert [t.task_id for t in reversed(tasks)] == ["Task_idiom_chain", records[0], "Task_nagato_yuki", *records[1:]]
    states = [f.object for f in mem.history("Task_idiom_chain", "HAS_STATE")]
    assert states == ["in_progress", "paused", "in_progress"]
    topics = {t.task_id: t.state for t in tasks if t.kind == "task"}
    assert topics == {"Task_idiom_chain": "in_progress", "Task_nagato_yuki": "paused"}
    assert mem.stats().nodes_by_type["InfoNode"] >= 1  # idiom_chain_current, committed before task_create
    # turn 3: the paused game and its current idiom came from what the runtime recalled
    t3 = turns[2].trace
    assert t3 is not None and "Task_idiom_chain [paused]" in t3.recalled["tasks"]
    assert t3.recalled["history_reference"] == "just now"
    assert "'为虎作伥'" in turns[2].reply
    assert [f.object for f in mem.history("idiom_chain_current", "content")] == ["为所欲为", "为虎作伥"]
    assert any("为虎作伥" in line for line in lines) and any("in code, before the model" in ln for ln in lines)
