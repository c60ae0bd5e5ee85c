"""The agent runtime end to end: the real ``openai`` client over real HTTP to a
local scripted OpenAI-compatible server, a real SQLite file behind the memory."""

from __future__ import annotations

import json
import socket
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from trulymem import TrulyMem
from trulymem.agent import Agent, ContextBudget, Limits
from trulymem.config import LLMSettings
from trulymem.errors import ConfigError, InvalidInput, LLMError
from trulymem.llm import ScriptedLLM, get_llm
from trulymem.llm.openai_chat import OpenAIChat
from trulymem.llm.scripted_server import ScriptedServer
from trulymem.text.tokenize import count_tokens

MODEL, KEY = "scripted-model", "sk-test"
Factory = Callable[..., tuple[Agent, ScriptedServer]]


def call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"name": name, "arguments": arguments}


def tools(*calls: dict[str, Any], content: str | None = None) -> dict[str, Any]:
    return {"content": content, "tool_calls": list(calls)}


@pytest.fixture
def make(db_path: Path) -> Iterator[Factory]:
    servers: list[ScriptedServer] = []
    mems: list[TrulyMem] = []

    def factory(steps: list[Any], **agent_kwargs: Any) -> tuple[Agent, ScriptedServer]:
        srv = ScriptedServer(steps, model=MODEL, api_key=KEY).start()
        servers.append(srv)
        mem = TrulyMem(db_path, user_id="alice", embedder="hashing")
        mems.append(mem)
        llm = OpenAIChat(MODEL, base_url=srv.base_url, api_key=KEY, timeout=10, max_retries=2)
        agent_kwargs.setdefault("extract", "rules")  # the script answers chat turns only (no post-turn calls)
        return Agent(mem, llm, **agent_kwargs), srv

    yield factory
    for s in servers:
        s.stop()
    for m in mems:
        m.close()


def system_of(request: dict[str, Any]) -> str:
    return str(request["messages"][0]["content"])


def assert_valid_sequence(messages: list[dict[str, Any]]) -> None:
    """What strict APIs check: every tool call answered, right after it, nothing dangling."""
    pending: set[str] = set()
    for m in messages:
        if m["role"] == "tool":
            assert m["tool_call_id"] in pending, m
            pending.discard(m["tool_call_id"])
        else:
            assert not pending, f"unanswered tool calls {pending} before {m['role']}"
            pending = {c["id"] for c in m.get("tool_calls") or []}
    assert not pending


def test_the_seed_idiom_chain_three_turns(make: Factory) -> None:
    def turn3(messages: list[dict[str, Any]]) -> str:
        last = next(ln for ln in system_of({"messages": messages}).splitlines() if "content" in ln)
        idiom = last.rsplit(" ", 1)[-1]
        return f"Okay~! The last idiom was '{idiom}', your turn: 伥鬼害人 ~!"

    agent, srv = make([
        tools(call("memory_commit", triplets=[
            {"subject": "idiom_chain_current", "relation": "content", "object": "为虎作伥", "type": "session_state"},
            {"subject": "idiom_chain_current", "relation": "game", "object": "idiom_chain", "type": "session_state"}]),
            call("task_create", task_id="Task_idiom_chain", description="Idiom chain game, current: 为虎作伥",
                 info_nodes=["idiom_chain_current"])),
        "Okay~! My turn: 为虎作伥 ~!",
        tools(call("task_set_state", task_id="Task_idiom_chain", state="paused"),
              call("task_create", task_id="Task_nagato_yuki", description="Discuss Nagato Yuki")),
        "Nagato Yuki is the quiet alien from Haruhi~",
        tools(call("task_set_state", task_id="Task_idiom_chain", state="in_progress")),
        turn3,
    ], persona={"role": "catgirl", "speaking_style": "ends sentences with ~"})
    r1 = agent.turn("Let's play idiom chain! I'll start: 为所欲为")
    r2 = agent.turn("Nagato Yuki")
    r3 = agent.turn("About the idiom chain just now, I don't know how to connect to your idiom, please help me")
    assert r1.reply == "Okay~! My turn: 为虎作伥 ~!" and r1.trace.task == "Task_idiom_chain"
    assert r2.trace.written["states"] == ["Task_idiom_chain: in_progress → paused"]
    assert r3.trace.written["states"] == ["Task_idiom_chain: paused → in_progress"]
    assert "为虎作伥" in r3.reply and r3.trace.recalled["history_reference"] == "just now"
    # Steps 1-2 ran in code: the persona and the chain were in the very first request of each turn.
    first_of_turn3 = srv.requests[4]
    assert "catgirl" in system_of(first_of_turn3) and "Task_idiom_chain [paused]" in system_of(first_of_turn3)
    assert [m["role"] for m in first_of_turn3["messages"]] == ["system", "user"]  # no history carried
    tasks = agent.memory.task_list(kind="all").tasks
    chain = {t.task_id: t for t in tasks}
    # Step 4 as the seed says: each turn is a TaskNode in the time chain, beside the topic tasks.
    records = [r1.trace.record_task, r2.trace.record_task, r3.trace.record_task]
    assert [t.task_id for t in reversed(tasks)] == ["Task_idiom_chain", records[0], "Task_nagato_yuki", *records[1:]]
    assert chain["Task_nagato_yuki"].previous_task == records[0]
    assert chain["Task_idiom_chain"].state == "in_progress" and chain["Task_nagato_yuki"].state == "in_progress"
    assert all(chain[r].state == "completed" and chain[r].kind == "turn" for r in records)
    assert chain[records[1]].description.startswith("[Task_nagato_yuki] User: Nagato Yuki | AI: Nagato Yuki is")
    info = chain[records[0]].info_nodes  # a message is listed by its words and time, never its id
    assert {"idiom_chain_current", "Task_idiom_chain"} <= set(info) and not any(r1.trace.turn_id in i for i in info)
    assert any("Let's play idiom chain!" in i for i in info), info
    assert r1.trace.llm_calls == 2 and r3.trace.tokens_in > 0


def test_persona_from_turn_one_is_used_in_turn_five(make: Factory) -> None:
    steps: list[Any] = [tools(call("persona_set", attributes={"name": "Mimi", "tone": "playful"})), "Nya~ I am Mimi"]
    steps += [f"reply {i}" for i in range(3)]
    steps.append(lambda messages: "Mimi here~" if "name: Mimi" in messages[0]["content"] else "who am I?")
    agent, srv = make(steps)
    agent.turn("From now on you are Mimi, a playful catgirl.")
    for i in range(3):
        agent.turn(f"small talk {i}")
    r5 = agent.turn("Who are you?")
    assert r5.reply == "Mimi here~" and r5.trace.recalled["persona"]["name"] == "Mimi"
    assert len(srv.requests[-1]["messages"]) == 2


def test_a_user_fact_is_recalled_ten_turns_later(make: Factory) -> None:
    steps: list[Any] = [tools(call("memory_commit", triplets=[{"subject": "user", "relation": "lives_in",
                                                               "object": "Lisbon"}])), "Noted!"]
    steps += [f"ok {i}" for i in range(10)]
    steps.append(lambda m: "You live in Lisbon." if "Lisbon" in m[0]["content"] else "I don't know.")
    agent, srv = make(steps)
    r = agent.turn("I live in Lisbon.")
    fact = agent.memory.history("user", "lives_in")[0]
    assert not fact.speculation and fact.turn_id == r.trace.turn_id  # stated by the user: plain, with provenance
    for i in range(10):
        agent.turn(f"Tell me a fun fact about number {i}")
    last = agent.turn("Where do I live?")
    assert last.reply == "You live in Lisbon." and last.trace.llm_calls == 1
    assert "Lisbon" in last.trace.recalled["memories"]


def test_unstated_user_facts_are_speculation(make: Factory) -> None:
    agent, _ = make([tools(call("memory_commit", triplets=[
        {"subject": "user", "relation": "plays", "object": "guitar"},
        {"subject": "user", "relation": "likes", "object": "music"},
        {"subject": "user", "relation": "owns", "object": "a cat", "speculation": False},
        {"subject": "guitar", "relation": "is_a", "object": "string instrument"}])), "Nice!"])
    r = agent.turn("I play guitar every night.")
    facts = {f.object: f for f in agent.memory.history("user")} | {
        f.object: f for f in agent.memory.history("guitar")}
    assert facts["guitar"].speculation is False          # the user said it
    assert facts["music"].speculation is True            # the model inferred it
    assert facts["a cat"].speculation is True            # the model's "speculation": false does not make it said
    assert facts["string instrument"].speculation is False  # not about the user
    assert any("music" in w for w in r.trace.warnings)


def test_context_rewrite_accepted_replaces_the_turn_history(make: Factory) -> None:
    summary = "I called memory_recall 2 times (2 calls): nothing about Paris was stored."
    agent, srv = make([
        tools(call("memory_recall", query_intent="Paris"), call("memory_recall", query_intent="France")),
        tools(call("context_rewrite", summary=summary, tool_calls_summarized=2)),
        "I don't know anything about Paris yet.",
    ])
    r = agent.turn("What do you know about Paris?")
    assert r.trace.rewrites == 1 and r.reply.startswith("I don't know")
    final = srv.requests[-1]["messages"]
    assert [m["role"] for m in final] == ["system", "user", "assistant", "tool"]
    assert json.loads(final[2]["tool_calls"][0]["function"]["arguments"])["summary"] == summary
    assert json.loads(final[3]["content"])["ok"] is True


def test_context_rewrite_rejected_leaves_the_history(make: Factory) -> None:
    agent, srv = make([
        tools(call("memory_recall", query_intent="Paris")),
        tools(call("context_rewrite", summary="I looked things up (3 calls).", tool_calls_summarized=3)),
        "Sorry.",
    ])
    r = agent.turn("What do you know about Paris?")
    final = srv.requests[-1]["messages"]
    assert [m["role"] for m in final] == ["system", "user", "assistant", "tool", "assistant", "tool"]
    err = json.loads(final[-1]["content"])
    assert err["ok"] is False and "1 tool calls" in err["error"]["message"] and r.trace.rewrites == 0
    assert_valid_sequence(final)


def test_tool_limits_and_the_iteration_cap(make: Factory) -> None:
    many = tools(*[call("memory_recall", query_intent=f"q{i}") for i in range(3)])
    agent, srv = make([many, many, "Done."],
                      limits=Limits(per_family={"read": 4, "write": 4, "rewrite": 1}, max_iterations=3))
    r = agent.turn("Search everything")
    assert r.reply == "Done." and r.trace.llm_calls == 3
    refused = [t for t in r.trace.tools if not t.ok]
    assert len(r.trace.tools) == 6 and len(refused) == 2
    assert all("limit reached" in (t.error or {})["message"] for t in refused)
    assert srv.requests[-1]["tools"] == []  # the last round trip offers no tools: the model must answer
    assert_valid_sequence(srv.requests[-1]["messages"])
    assert r.trace.record_task is not None  # recorded anyway


def test_tool_calls_after_the_cap_are_not_run(db_path: Path) -> None:
    many = tools(call("memory_recall", query_intent="x"))
    with TrulyMem(db_path, user_id="bob", embedder="hashing") as mem:
        agent = Agent(mem, ScriptedLLM([many, tools(call("task_list"), content="Partial answer.")]),
                      limits=Limits(max_iterations=2))
        r = agent.turn("go")
    assert r.reply == "Partial answer." and [t.name for t in r.trace.tools] == ["memory_recall"]
    assert any("after the iteration cap" in w for w in r.trace.warnings)


def test_a_server_error_is_retried(make: Factory) -> None:
    agent, srv = make([{"error": 500}, "Recovered."])
    assert agent.turn("hello").reply == "Recovered."
    assert srv.status_log == [500, 200]


def test_malformed_tool_arguments_are_a_tool_error(make: Factory) -> None:
    agent, srv = make([tools({"name": "memory_commit", "arguments": '{"triplets": [{"subject": "user",'},
                             {"name": "no_such_tool", "arguments": "{}"}),
                       "Let me try again later."])
    r = agent.turn("I like tea")
    assert r.reply == "Let me try again later."
    errors = [t.error for t in r.trace.tools]
    assert errors[0] and errors[0]["field"] == "arguments" and "not valid JSON" in errors[0]["message"]
    assert errors[1] and "unknown tool" in errors[1]["message"]
    assert_valid_sequence(srv.requests[-1]["messages"])
    # the model's commit failed; the runtime stored the stated fact itself, with provenance
    (tea,) = agent.memory.history("user", "likes")
    assert tea.object == "tea" and tea.source == "rule-extract" and tea.message_ids == [f"{r.trace.turn_id}:user"]


def test_streaming_reply_and_streamed_tool_calls(make: Factory) -> None:
    agent, _ = make([tools(call("memory_commit", triplets=[{"subject": "user", "relation": "likes",
                                                            "object": "green tea"}]), content="Noting that. "),
                     "Green tea is a fine choice, with many flavours to explore."])
    pieces: list[str] = []
    r = agent.turn("I like green tea", on_text=pieces.append)
    assert "".join(pieces) == "Noting that. " + r.reply and len(pieces) > 3
    assert [f.object for f in agent.memory.history("user", "likes")] == ["green tea"]
    assert r.trace.tokens_in > 0 and r.trace.tokens_out > 0


def test_every_turn_is_recorded_even_without_tools(make: Factory) -> None:
    agent, _ = make(["Hello!", "Fine, thanks."])
    r1 = agent.turn("hi there")
    r2 = agent.turn("how are you?")
    assert r1.trace.task is None and r1.trace.record_task != r2.trace.record_task
    second, first = agent.memory.task_list(kind="turn").tasks
    assert (second.task_id, first.task_id) == (r2.trace.record_task, r1.trace.record_task)
    assert second.previous_task == first.task_id and {first.state, second.state} == {"completed"}
    assert first.description == "User: hi there | AI: Hello!"
    assert len(first.info_nodes) == 2 and any("hi there" in i for i in first.info_nodes) \
        and any("Hello!" in i for i in first.info_nodes) and not any(r1.trace.turn_id in i for i in first.info_nodes)
    assert "user: hi there" in r2.trace.recalled["last_turns"]
    assert r2.trace.recalled["chain"] == [r1.trace.record_task]  # the chain is recalled before the model


def test_prompt_size_stays_flat(make: Factory) -> None:
    budget = ContextBudget(total=600)
    agent, _ = make([f"Reply number {i}, with some words to store." for i in range(40)], budget=budget)
    traces = [agent.turn(f"Message {i}: tell me something about topic {i}").trace for i in range(40)]
    sizes = [t.prompt_tokens[0] for t in traces]
    late_history = sum(count_tokens(t.user) + count_tokens(t.reply) for t in traces[20:])
    # what memory recalls stops growing at its budget; a messages array would add every turn
    assert max(sizes[20:]) - min(sizes[20:]) < late_history / 4
    assert all(t.recalled["tokens"] <= budget.total + 600 for t in traces)  # + the fixed rules text


def test_connection_errors_say_what_to_fix(make: Factory) -> None:
    agent, srv = make(["unused"])
    bad_key = OpenAIChat(MODEL, base_url=srv.base_url, api_key="wrong", max_retries=0)
    with pytest.raises(LLMError) as exc:
        bad_key.complete([{"role": "user", "content": "hi"}])
    assert exc.value.field == "api_key"
    with pytest.raises(LLMError) as exc:
        OpenAIChat("gpt-nope", base_url=srv.base_url, api_key=KEY, max_retries=0).complete(
            [{"role": "user", "content": "hi"}])
    assert exc.value.field == "model" and "gpt-nope" in str(exc.value)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed again: nothing listens there
    with pytest.raises(LLMError) as exc:
        OpenAIChat(MODEL, base_url=f"http://127.0.0.1:{port}/v1", api_key=KEY, max_retries=0, timeout=2).complete(
            [{"role": "user", "content": "hi"}])
    assert exc.value.field == "base_url"


def test_bad_input_and_configuration(db_path: Path) -> None:
    with TrulyMem(db_path, user_id="bob", embedder="hashing") as mem:
        agent = Agent(mem, ScriptedLLM([]))
        for bad in ("", "   "):
            with pytest.raises(InvalidInput):
                agent.turn(bad)
        assert not agent.memory.task_list().tasks  # nothing written
        with pytest.raises(LLMError):  # the script is empty: like a dead server, and nothing is recorded
            agent.turn("hello")
        assert not agent.memory.task_list().tasks
    for bad in ({"max_iterations": 0}, {"per_family": {"reads": 2}}, {"per_family": {"read": -1}}):
        with pytest.raises(InvalidInput):
            Limits(**bad)  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="TRULYMEM_LLM_MODEL"):
        get_llm(LLMSettings())
    with pytest.raises(ConfigError, match="API key"):
        get_llm(LLMSettings(model="gpt-4o-mini"))


def _chat_env(monkeypatch: pytest.MonkeyPatch, srv: ScriptedServer) -> None:
    monkeypatch.setenv("TRULYMEM_LLM_MODEL", MODEL)
    monkeypatch.setenv("TRULYMEM_LLM_BASE_URL", srv.base_url)
    monkeypatch.setenv("TRULYMEM_LLM_API_KEY", KEY)


def test_cli_chat_one_shot_and_json(db_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from click.testing import CliRunner

    from trulymem.cli import main

    def extraction(messages: list[dict[str, Any]]) -> str:  # the post-turn call, after each reply
        assert "Turn 0\nUser: " in messages[1]["content"]
        return json.dumps({"turns": [{"turn": 0, "summary": "Talked about music", "facts": []}]})

    steps = [tools(call("memory_commit", triplets=[{"subject": "user", "relation": "likes", "object": "jazz"}])),
             "Jazz, noted~", extraction, lambda m: "You like jazz." if "jazz" in m[0]["content"] else "No idea.",
             extraction]
    with ScriptedServer(steps, model=MODEL, api_key=KEY) as srv:
        _chat_env(monkeypatch, srv)
        runner = CliRunner()
        r = runner.invoke(main, ["chat", "-m", "I like jazz", "--db", str(db_path), "--persona", '{"role": "cat"}'])
        assert r.exit_code == 0, r.output
        assert "AI> Jazz, noted~" in r.output and "memory_commit" in r.output and "1 facts" in r.output
        r = runner.invoke(main, ["chat", "-m", "What music do I like?", "--db", str(db_path), "--json"])
        data = json.loads(r.output)
        assert data["reply"] == "You like jazz." and data["trace"]["llm_calls"] == 1
        assert data["trace"]["recalled"]["persona"] == {"role": "cat"}
        assert srv.script.remaining == 0  # both turns were summarized before the command exited
    with TrulyMem(db_path, user_id="default") as mem:
        records = [t for t in mem.task_list(kind="turn").tasks]
        assert [t.description for t in records] == ["Talked about music"] * 2


def test_cli_chat_interactive_commands(db_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from click.testing import CliRunner

    from trulymem.cli import main

    steps = [tools(call("memory_commit", triplets=[{"subject": "user", "relation": "likes", "object": "jazz"}]),
                   call("task_create", task_id="Task_music", description="Talk about music")), "Noted."]
    with ScriptedServer(steps, model=MODEL, api_key=KEY) as srv:
        _chat_env(monkeypatch, srv)
        typed = "I like jazz\n/tasks\n/recall jazz\n/persona\n/forget user likes\ny\n/recall jazz\n/bogus\n/quit\n"
        r = CliRunner().invoke(main, ["chat", "--db", str(db_path), "--no-stream", "--extract", "rules"], input=typed)
    assert r.exit_code == 0, r.output
    assert "AI> Noted." in r.output and "Task_music [in_progress] Talk about music" in r.output
    assert "user likes jazz" in r.output and "(no persona stored)" in r.output
    assert "Forgot 1 facts" in r.output and "/forget SUBJECT [RELATION]" in r.output  # /bogus shows help
    with TrulyMem(db_path, user_id="default") as mem:
        assert [f.invalid_at is not None for f in mem.history("user", "likes")] == [True]  # kept in history


def test_cli_chat_json_session_keeps_stdout_json_only(db_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With --json, slash commands answer as JSON objects too: a script reading stdout meets
    no prose (previews and questions go to stderr)."""
    from click.testing import CliRunner

    from trulymem.cli import main

    steps = [tools(call("memory_commit", triplets=[{"subject": "user", "relation": "likes", "object": "jazz"}])),
             "Noted."]
    with ScriptedServer(steps, model=MODEL, api_key=KEY) as srv:
        _chat_env(monkeypatch, srv)
        typed = "I like jazz\n/recall jazz\n/persona\n/forget user likes\ny\n/forget nobody\n/bogus\n/quit\n"
        r = CliRunner().invoke(main, ["chat", "--db", str(db_path), "--json", "--extract", "rules"], input=typed)
    assert r.exit_code == 0, r.output
    docs, text, at = [], r.stdout, 0
    decoder = json.JSONDecoder()
    while at < len(text.rstrip()):
        doc, at = decoder.raw_decode(text, at)
        docs.append(doc)
        while at < len(text) and text[at].isspace():
            at += 1
    assert docs[0]["reply"] == "Noted."
    assert [d["command"] for d in docs[1:]] == ["recall", "persona", "forget", "forget", "help"], docs
    assert "jazz" in docs[1]["text"] and docs[2]["attributes"] == {}
    assert docs[3]["forgotten"] == 1 and docs[3]["facts"] == ["user likes jazz"]
    assert docs[4]["forgotten"] == 0 and docs[5]["unknown"] == "bogus"
    assert "user likes jazz" in r.stderr and "[y/N]" in r.stderr  # the preview and the question


def test_cli_chat_without_a_model_says_how_to_configure(db_path: Path) -> None:
    from click.testing import CliRunner

    from trulymem.cli import main

    r = CliRunner().invoke(main, ["chat", "-m", "hi", "--db", str(db_path)])
    assert r.exit_code == 2 and "TRULYMEM_LLM_MODEL" in r.output and "Ollama" in r.output


def test_a_resumed_task_with_a_colon_in_its_name_gets_the_turn(db_path: Path) -> None:
    with TrulyMem(db_path, user_id="bob", embedder="hashing") as mem:
        mem.ensure_user()
        mem.task_create("Bug 12: login", "Fix the login bug")
        mem.task_create("Other", "Something else")
        agent = Agent(mem, ScriptedLLM([tools(call("task_set_state", task_id="Bug 12: login", state="paused")), "ok",
                                        tools(call("task_set_state", task_id="Bug 12: login", state="in_progress")),
                                        "Back to it."]))
        agent.turn("pause the bug")
        r = agent.turn("back to the login bug")
        assert r.trace.task == "Bug 12: login" and r.trace.resumed == ["Bug 12: login"]
        one = Agent(mem, ScriptedLLM(["Just an answer."]), limits=Limits(max_iterations=1))
        assert one.turn("hi").reply == "Just an answer."
        assert one.llm.requests[-1]["tools"] == []  # type: ignore[attr-defined]


def test_every_open_task_and_its_info_reach_the_model_however_many(tmp_path: Path) -> None:
    """Step 2 of the protocol in code: a paused task with its info stays in the context beside
    a dozen other open tasks and many turns (the context used to keep the newest six)."""
    with TrulyMem(tmp_path / "m.db", user_id="u") as mem:
        mem.task_create("Task_idiom", "Idiom chain game", info_nodes=["Info_idiom"])
        mem.commit([{"subject": "Info_idiom", "relation": "last", "object": "为所欲为"}])
        mem.task_set_state("Task_idiom", "paused")
        for i in range(12):
            mem.task_create(f"Task_{i}", f"open task {i}")
        llm = ScriptedLLM(["ok"] * 9)
        agent = Agent(mem, llm, extract="rules")
        for _ in range(8):
            agent.turn("Hello")
        prompt = json.dumps(llm.requests[-1], ensure_ascii=False)
    assert "Task_idiom [paused]" in prompt and "为所欲为" in prompt
    assert all(f"Task_{i} [in_progress]" in prompt for i in range(12))
