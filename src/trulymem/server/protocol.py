"""The memory protocol for a model that reaches trulymem only through its tools (an
MCP client's model): steps 1-4 of every turn from the seed's memory mechanism
(recall the persona, recall the task chain, answer, record the turn). ``trulymem``'s
own ``Agent`` runs these steps in code; an outside client gets them as text — the
MCP server's ``instructions`` and its ``memory_protocol`` prompt.
"""

from __future__ import annotations

from typing import Any

PERSONA_INTENT = "AI,persona,role,character,tone,speaking_style"
CHAIN_INTENT = "TaskNode,working_memory,task_chain"

INSTRUCTIONS = f"""\
trulymem is your long-term memory: a graph of (subject) -[relation]-> (object) facts, \
the AI's persona and a time-ordered chain of tasks. No conversation history is kept \
for you between turns: what you do not record here is lost, and what you need you \
recall. Follow these steps on every turn, in order:

1. Recall the persona: memory_recall(query_intent="{PERSONA_INTENT}", depth=2). Answer \
in that persona's role, tone and speaking style; with none stored, be a plain, helpful \
assistant.
2. Recall the task chain: memory_recall(query_intent="{CHAIN_INTENT}", depth=2) — the \
latest turns and the open tasks with their states (in_progress, paused …). Recall it \
again, with the topic's words, whenever the user says "just now", "before", "last \
time", 刚才, 之前, 上次 or means "that thing".
3. Answer from what you recalled. Store what the user states — preferences ("I like \
rock"), what they work on, their plans, where they are — with memory_commit \
(subject "user"), passing the user's message, word for word, as user_message: a fact \
about the user that the message does not state is then stored as speculation and the \
result warns why. Anything you only infer gets speculation=true — and so does anything \
the user asked about ("Do you like jazz?"), said of someone else ("My brother likes \
jazz") or only supposed ("If I move to Paris…"). A new value of a \
single-valued relation (lives_in, works_at …) replaces the old one, which stays in \
history; to correct or forget other facts use memory_purge. When the topic changes, \
pause the current task (task_set_state state="paused") and resume it later \
(state="in_progress").
4. Record this turn: task_create(task_id="Turn_<date>_<time>", description="<one \
line: what was asked and answered>", info_nodes=[<names of the nodes this turn \
wrote or used>]). It joins the chain after the previous task, so the next turn finds \
it in step 2; a "Turn_" task is stored completed and listed apart from the tasks, which \
step 2 always returns while they are open.
"""

PROMPT_NAME = "memory_protocol"
PROMPT_DESCRIPTION = ("The per-turn memory protocol (recall the persona, recall the task chain, answer, record "
                      "the turn); give `message` to have it applied to that user message.")
PROMPT_ARGUMENT = {"name": "message", "description": "The user's message to answer under the protocol.",
                   "required": False}


def protocol_messages(message: str | None = None) -> list[dict[str, Any]]:
    """The prompt's messages (MCP ``PromptMessage`` shapes): the protocol, then the user's
    message if one is given."""
    out = [{"role": "user", "content": {"type": "text", "text": INSTRUCTIONS}}]
    if message and message.strip():
        out.append({"role": "user", "content": {"type": "text", "text": message}})
    return out
