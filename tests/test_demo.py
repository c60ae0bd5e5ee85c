"""The seed's idiom-chain example, end to end through the tool layer."""

from __future__ import annotations

from trulymem import TrulyMem
from trulymem.demo import CHAIN_INTENT, run_demo


def test_idiom_chain_demo(mem: TrulyMem) -> None:
    lines: list[str] = []
    turns = run_demo(mem, emit=lines.append)
    assert len(turns) == 3
    # every turn follows the protocol: persona first, then the chain
    for t in turns:
        assert t.steps[0].tool == "memory_recall" and "persona" in t.steps[0].args["query_intent"]
        assert t.steps[1].tool == "memory_recall" and t.steps[1].args["query_intent"] == CHAIN_INTENT
        assert "catgirl" in t.steps[0].result["text"]
    assert "为虎作伥" in turns[0].reply
    # the chain: the game task, then the interruption
    tasks = mem.task_list().tasks
    assert [t.task_id for t in reversed(tasks)] == ["Task_idiom_chain", "Task_nagato_yuki"]
    assert tasks[0].previous_task == "Task_idiom_chain"
    states = [f.object for f in mem.history("Task_idiom_chain", "HAS_STATE")]
    assert states == ["in_progress", "paused", "in_progress"]
    assert {t.task_id: t.state for t in tasks}["Task_idiom_chain"] == "in_progress"
    # turn 3 found the paused game in the chain and recalled the current idiom
    chain_text = turns[2].steps[1].result["text"]
    assert "Task_idiom_chain [paused]" in chain_text
    assert "'为虎作伥'" in turns[2].reply
    res = mem.recall("idiom_chain_current", depth=1)
    assert {f.object for f in res.facts if f.relation == "content"} == {"为虎作伥"}
    assert [f.object for f in mem.history("idiom_chain_current", "content")] == ["为所欲为", "为虎作伥"]
    assert any("为虎作伥" in line for line in lines)
