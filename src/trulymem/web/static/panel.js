// The node panel (facts, history, provenance), the corrections (edit, forget, pin, undo) and the
// Changes list of corrections and dreams.

import { get, post } from "./api.js";
import { h, toast, when } from "./dom.js";
import { runText, undoRun } from "./dream.js";

function badges(f) {
  return h("span", { class: "badges" },
    f.pinned ? h("span", { class: "badge pin" }, "pinned") : "",
    f.speculation ? h("span", { class: "badge spec", title: "inferred, not stated" }, "speculation") : "",
    h("span", { class: "badge", title: "confidence" }, `confidence ${Math.round(f.confidence * 100)}%`),
    f.mention_count > 1 ? h("span", { class: "badge" }, `said ${f.mention_count}×`) : "");
}

function provenance(f) {
  const p = f.provenance || {};
  const rows = [
    ["written", when(f.created_at)],
    ["by", p.source || (p.turn_id ? "agent turn" : "a tool call")],
    ["session", p.session_id], ["turn", p.turn_id], ["agent", p.agent_id], ["app", p.app_id],
    ["invalid since", f.invalid_at ? when(f.invalid_at) : ""],
  ].filter(([, v]) => v);
  const msgs = (p.messages || []).map((m) => h("blockquote", {}, m.text || `message ${m.id}`));
  return h("details", { class: "prov" }, h("summary", {}, "Provenance"),
    h("dl", {}, rows.flatMap(([k, v]) => [h("dt", {}, k), h("dd", {}, v)])), msgs);
}

// Undo one correction (the node panel's, the table's); false, with the reason shown, when refused.
export async function undoCorrection(runId) {
  try {
    await post(`/v1/graph/corrections/${encodeURIComponent(runId)}/undo`);
    toast("Undone.");
    return true;
  } catch (err) {
    toast(`Cannot undo: ${err.message}`);
    return false;
  }
}

export class Panel {
  constructor(root, { onChanged, onOpen, asOf }) {
    this.root = root;
    this.onChanged = onChanged;
    this.onOpen = onOpen;
    this.asOf = asOf;
    this.nodeId = null;
  }

  async open(nodeId) {
    this.nodeId = nodeId;
    this.root.replaceChildren(h("p", { role: "status" }, "Loading…"));
    const d = await get(`/v1/graph/nodes/${encodeURIComponent(nodeId)}`, { as_of: this.asOf() });
    this.render(d);
  }

  render(d) {
    const n = d.node;
    const title = h("h2", { id: "node-title", tabindex: "-1" }, n.label || n.name);
    const every = [...d.facts, ...d.history];
    // with the time slider in the past: the facts valid then, and the rest as history
    const then = every.some((f) => f.valid_then !== undefined);
    const shown = then ? every.filter((f) => f.valid_then) : d.facts;
    const rest = then ? every.filter((f) => !f.valid_then) : d.history;
    const facts = shown.map((f) => (f.valid ? this.factItem(f, n.id) : this.pastItem(f)));
    const past = rest.map((f) => this.pastItem(f));
    this.root.replaceChildren(
      title,
      h("p", { class: "type" }, h("span", { class: `dot t-${n.type}`, "aria-hidden": "true" }), n.type.replace("Node", "").toLowerCase(),
        ` · created ${when(n.created_at)}`),
      n.summary ? h("p", { class: "summary" }, n.summary) : "",
      h("h3", {}, `${then ? "Facts then" : "Facts"} (${shown.length})`),
      h("ul", { class: "facts", "aria-label": then ? "Facts valid at the chosen time" : "Current facts" },
        facts.length ? facts : h("li", {}, "None.")),
      h("h3", {}, `History (${rest.length})`),
      h("ul", { class: "facts", "aria-label": "Earlier versions and forgotten facts" }, past.length ? past : h("li", {}, "No earlier versions.")),
    );
    title.focus();
  }

  pastItem(f) {
    return h("li", { class: "past" },
      h("span", { class: "fact-text" }, f.text || `${f.subject} ${f.relation} ${f.object}`),
      f.valid ? h("span", { class: "muted" }, " — current now")
              : h("span", { class: "muted" }, f.superseded_by ? ` — replaced ${when(f.invalid_at)}` : ` — forgotten ${when(f.invalid_at)}`),
      provenance(f));
  }

  factItem(f, here) {
    const other = f.source === here ? { id: f.target, name: f.object_label || f.object } : { id: f.source, name: f.subject_label || f.subject };
    const text = h("span", { class: "fact-text" }, `${f.subject_label || f.subject} `, h("strong", {}, f.relation), ` ${f.object_label || f.object}`);
    const li = h("li", { class: "fact", dataset: { factId: f.id } }, text, badges(f));
    const plain = f.kind === "FACT";
    const structural = f.kind === "NEXT_TASK" || f.kind === "HAS_STATE";
    const actions = h("div", { class: "actions" },
      h("button", { type: "button", onclick: () => this.onOpen(other.id) }, `Open ${other.name}`),
      structural ? "" : h("button", { type: "button", onclick: () => this.editForm(li, f) }, "Edit"),
      structural ? "" : h("button", { type: "button", onclick: () => this.correct(f, "forget") }, "Forget"),
      plain ? h("button", { type: "button", "aria-pressed": String(f.pinned), onclick: () => this.correct(f, f.pinned ? "unpin" : "pin") },
        f.pinned ? "Unpin" : "Pin") : "",
      h("button", { type: "button", onclick: () => this.versions(li, f) }, "Versions"));
    li.append(actions, provenance(f));
    return li;
  }

  editForm(li, f) {
    const id = `edit-${f.id}`;
    const input = h("input", { id, type: "text", value: f.object, required: true });
    const form = h("form", { class: "edit" },
      h("label", { for: id }, `New value: ${f.subject} ${f.relation} …`), input,
      h("button", { type: "submit" }, "Save"),
      h("button", { type: "button", onclick: () => form.remove() }, "Cancel"));
    form.addEventListener("submit", (ev) => { ev.preventDefault(); this.correct(f, "edit", input.value); });
    li.append(form);
    input.focus();
    input.select();
  }

  async versions(li, f) {
    const vs = await get(`/v1/graph/facts/${encodeURIComponent(f.id)}/versions`);
    li.querySelector(".versions")?.remove();
    li.append(h("ol", { class: "versions", "aria-label": "Versions, oldest first" }, vs.map((v) =>
      h("li", {}, `${v.object} — ${when(v.created_at)}${v.valid ? " (current)" : ""}`))));
  }

  async correct(f, action, text) {
    try {
      const done = await post("/v1/graph/corrections", { fact_id: f.id, action, text });
      const undo = h("button", { type: "button", onclick: () => this.undo(done.run_id) }, "Undo");
      toast(`${action === "edit" ? "Edited" : action === "forget" ? "Forgotten" : action === "pin" ? "Pinned" : "Unpinned"}: ${f.subject} ${f.relation} ${f.object}`, undo);
      await this.onChanged();
      if (this.nodeId) await this.open(this.nodeId);
    } catch (err) {
      toast(`Not changed: ${err.message}`);
    }
  }

  async undo(runId) {
    if (!(await undoCorrection(runId))) return;
    await this.onChanged();
    if (this.nodeId) await this.open(this.nodeId);
  }

  // Corrections and dream runs together, newest first, each not undone with its Undo.
  async changes(list) {
    const [fixes, dreams] = await Promise.all([get("/v1/graph/corrections"), get("/v1/graph/dream/runs")]);
    const again = async () => { await this.onChanged(); await this.changes(list); };
    const rows = [
      ...fixes.map((r) => ({ at: r.created_at, done: r.undone_at, text: `${r.action}: ${r.text}`,
        undo: async () => { await this.undo(r.run_id); await this.changes(list); } })),
      ...dreams.map((r) => ({ at: r.created_at, done: r.undone_at, text: runText(r), dream: true,
        undo: async () => { if (await undoRun(r.run_id)) await again(); } })),
    ].sort((x, y) => Date.parse(y.at) - Date.parse(x.at));
    list.replaceChildren(...(rows.length ? rows.map((r) => h("li", { class: r.dream ? "dream-run" : "correction" },
      h("span", {}, r.dream ? r.text : `${r.text} — ${when(r.at)}`),
      r.done ? h("span", { class: "muted" }, " (undone)") : h("button", { type: "button", onclick: r.undo }, "Undo")))
      : [h("li", {}, "No corrections or dreams yet.")]));
  }
}
