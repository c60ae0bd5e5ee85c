// The chat pane: one turn at a time through POST /v1/chat, the reply streamed in, then its trace.

import { get, stream } from "./api.js";
import { h } from "./dom.js";

function trace(t) {
  const r = t.recalled || {};
  // memories come as the prompt's text ("Facts:\n- user likes rock"): one item per line
  const lines = (text) => (typeof text === "string" ? text.split("\n") : Array.isArray(text) ? text : [])
    .map((l) => String(l).replace(/^- /, "").trim()).filter((l) => l && !l.endsWith(":"));
  const persona = Object.entries(r.persona || {}).map(([k, v]) => `persona ${k}: ${v}`);
  const recalled = [...persona, ...(r.tasks || []).map((x) => `task ${x}`), ...lines(r.memories),
                    ...lines(r.last_turns).map((x) => `earlier: ${x}`)];
  const written = Object.entries(t.written || {}).filter(([, v]) => v.length).map(([k, v]) => `${k}: ${v.length}`);
  return h("details", { class: "trace" }, h("summary", {}, "What memory did this turn"),
    h("h4", {}, "Recalled"), h("ul", {}, recalled.length ? recalled.map((m) => h("li", {}, m)) : h("li", {}, "nothing")),
    h("h4", {}, "Tools called"), h("ul", {}, (t.tools || []).length
      ? t.tools.map((c) => h("li", {}, `${c.name} ${c.ok ? "✓" : "✗"} ${typeof c.arguments === "string" ? c.arguments : JSON.stringify(c.arguments)}`))
      : h("li", {}, "none")),
    h("h4", {}, "Written"), h("ul", {}, written.length ? written.map((w) => h("li", {}, w)) : h("li", {}, "nothing")),
    (t.extracted || []).length ? h("p", {}, `Stated facts stored: ${t.extracted.join("; ")}`) : "");
}

// tools whose success changes the graph: it is redrawn while the turn goes on
const WRITES = new Set(["memory_commit", "memory_purge", "task_create", "task_set_state", "persona_set"]);

export class Chat {
  constructor(form, log, { onTurn, onWrite }) {
    this.form = form;
    this.log = log;
    this.onTurn = onTurn;
    this.onWrite = onWrite;
    this.session = `web-${Date.now().toString(36)}`;
    form.addEventListener("submit", (ev) => { ev.preventDefault(); this.send(); });
    form.querySelector("textarea").addEventListener("keydown", (ev) => {
      if (ev.key === "Enter" && !ev.shiftKey) { ev.preventDefault(); this.send(); }
    });
    this.status();
  }

  // Before any turn: a server without a model says how to start one that chats (the form is off),
  // the demo model says what it is.
  async status() {
    let s;
    try { s = await get("/v1/chat"); } catch { return; } // an older server: a turn's error will say
    if (!s.message) return;
    // `commands` in the server's text are shown as code
    const parts = s.message.split("`").map((t, i) => (i % 2 ? h("code", {}, t) : t));
    const note = h("p", { id: "chat-status", class: s.ready ? "muted" : "notice" }, parts);
    this.form.before(note);
    if (!s.ready) for (const el of this.form.elements) el.disabled = true;
  }

  async send() {
    const box = this.form.querySelector("textarea");
    const text = box.value.trim();
    if (!text || this.busy) return;
    this.busy = true;
    box.value = "";
    this.log.append(h("div", { class: "msg user" }, h("span", { class: "sr-only" }, "You: "), text));
    const body = h("span", { class: "text" });
    const bubble = h("div", { class: "msg ai", "aria-busy": "true" }, h("span", { class: "sr-only" }, "Assistant: "), body);
    this.log.append(bubble);
    let first = true;
    try {
      await stream("/v1/chat", { message: text, session_id: this.session }, (event, data) => {
        if (event === "token") {
          body.append(data.text);
          if (first) { first = false; window.trulymem.firstToken = performance.timeOrigin + performance.now(); }
        } else if (event === "tool") {
          bubble.append(h("p", { class: "muted tool" }, `${data.name} ${data.ok ? "✓" : "✗"}`));
          if (data.ok && WRITES.has(data.name)) this.onWrite();
        } else if (event === "done") {
          bubble.querySelectorAll("p.tool").forEach((p) => p.remove());
          body.textContent = data.reply;
          bubble.append(trace(data.trace));
          this.onTurn(data.trace);
        } else if (event === "error") {
          bubble.append(h("p", { role: "alert", class: "error" }, data.error.message));
        }
      });
    } catch (err) {
      bubble.append(h("p", { role: "alert", class: "error" }, err.message));
    } finally {
      bubble.removeAttribute("aria-busy");
      this.busy = false;
      this.log.scrollTop = this.log.scrollHeight;
    }
  }
}
