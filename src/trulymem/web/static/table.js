// The Memories table: the user's plain facts, filtered by type, relation, pinning and when they
// became true (and by the time slider); add one, edit or pin one, forget several at once (one
// undo), export what the filters select as JSON lines.

import { get, post } from "./api.js";
import { h, toast, when } from "./dom.js";
import { undoCorrection } from "./panel.js";

const LIMIT = 500;
const text = (m) => `${m.subject} ${m.relation} ${m.object}`;

function field(id, label, control) {
  control.id = id;
  return h("div", {}, h("label", { for: id }, label), control);
}

// a date input's day as an ISO time: its start for "from", its end for "to"
function day(value, end) {
  if (!value) return undefined;
  const d = new Date(`${value}T00:00:00`);
  if (end) d.setDate(d.getDate() + 1), d.setMilliseconds(-1);
  return d.toISOString();
}

export class MemoryTable {
  constructor(root, { asOf, onChanged, onOpen }) {
    this.root = root;
    this.asOf = asOf;
    this.onChanged = onChanged;
    this.onOpen = onOpen;
    this.rows = [];
    this.built = false;
  }

  build() {
    this.built = true;
    this.type = h("select", {}, h("option", { value: "" }, "any"));
    this.relation = h("select", {}, h("option", { value: "" }, "any"));
    this.pinned = h("select", {}, h("option", { value: "" }, "any"), h("option", { value: "true" }, "pinned"),
      h("option", { value: "false" }, "not pinned"));
    this.since = h("input", { type: "date" });
    this.until = h("input", { type: "date" });
    const filters = h("form", { class: "table-tools", role: "search", "aria-label": "Filter memories" },
      field("mf-type", "Type", this.type), field("mf-relation", "Relation", this.relation),
      field("mf-pinned", "Pinned", this.pinned), field("mf-since", "True from", this.since),
      field("mf-until", "to", this.until));
    filters.addEventListener("change", () => this.load());
    filters.addEventListener("submit", (ev) => { ev.preventDefault(); this.load(); });

    const add = h("form", { class: "add-memory", "aria-label": "Add a memory" },
      h("input", { type: "text", id: "ma-subject", value: "user", "aria-label": "Subject", required: true }),
      h("input", { type: "text", id: "ma-relation", placeholder: "relation, e.g. likes", "aria-label": "Relation", required: true }),
      h("input", { type: "text", id: "ma-object", placeholder: "object, e.g. jazz", "aria-label": "Object", required: true }),
      h("input", { type: "text", id: "ma-type", placeholder: "type (optional)", "aria-label": "Type" }),
      h("button", { type: "submit" }, "Add"));
    add.addEventListener("submit", (ev) => { ev.preventDefault(); this.add(add); });

    this.count = h("p", { id: "mf-count", role: "status" });
    this.forget = h("button", { type: "button", id: "mf-forget", disabled: true, onclick: () => this.forgetSelected() },
      "Forget selected");
    const exp = h("button", { type: "button", id: "mf-export", onclick: () => this.exportRows() }, "Export JSON lines");
    this.all = h("input", { type: "checkbox", "aria-label": "Select every memory shown",
                            onchange: () => this.selectAll(this.all.checked) });
    this.body = h("tbody");
    this.root.replaceChildren(
      h("h2", { id: "table-title" }, "Memories"), filters, add,
      h("div", { class: "table-tools" }, this.count, this.forget, exp),
      h("table", { class: "memories", "aria-labelledby": "table-title" },
        h("thead", {}, h("tr", {}, h("th", {}, this.all), h("th", {}, "Subject"), h("th", {}, "Relation"),
          h("th", {}, "Object"), h("th", {}, "Type"), h("th", {}, "True since"), h("th", {}, "Actions"))),
        this.body));
  }

  params(limit) {
    return { type: this.type.value, relation: this.relation.value, pinned: this.pinned.value,
             since: day(this.since.value, false), until: day(this.until.value, true), as_of: this.asOf(), limit };
  }

  async load() {
    if (!this.built) this.build();
    const seq = (this.seq = (this.seq || 0) + 1);
    const res = await get("/v1/graph/memories", this.params(LIMIT));
    if (seq !== this.seq) return; // a newer filter was asked for meanwhile: its answer wins
    this.options(this.type, res.types);
    this.options(this.relation, res.relations);
    this.rows = res.memories;
    const past = Boolean(this.asOf());
    this.body.replaceChildren(...(this.rows.length ? this.rows.map((m) => this.row(m, past))
      : [h("tr", {}, h("td", { colspan: 7 }, "No memories match."))]));
    this.all.checked = false;
    this.all.disabled = past;
    this.count.textContent = `${res.total} ${res.total === 1 ? "memory" : "memories"}`
      + (res.total > this.rows.length ? `, the newest ${this.rows.length} shown` : "")
      + (past ? ` as of ${when(this.asOf())} (move the time slider to now to change them)` : "");
    this.selected();
  }

  options(select, values) {
    const keep = select.value; // a filter chosen stays chosen, even when nothing matches it any more
    const all = keep && !values.includes(keep) ? [...values, keep].sort() : values;
    select.replaceChildren(h("option", { value: "" }, "any"), ...all.map((v) => h("option", { value: v }, v)));
    select.value = keep;
  }

  row(m, past) {
    const obj = h("td", { class: "obj" }, m.object);
    const pick = h("input", { type: "checkbox", class: "pick", value: m.id, "aria-label": `Select ${text(m)}`,
                              disabled: past, onchange: () => this.selected() });
    const acts = h("td", { class: "acts" }, past ? "" : [
      h("button", { type: "button", onclick: () => this.editCell(obj, m) }, "Edit"),
      h("button", { type: "button", "aria-pressed": String(m.pinned),
                    onclick: () => this.correct(m, m.pinned ? "unpin" : "pin") }, m.pinned ? "Unpin" : "Pin")]);
    return h("tr", { dataset: { factId: m.id } },
      h("td", {}, pick),
      h("td", {}, h("button", { type: "button", class: "result", onclick: () => this.onOpen(m.source) }, m.subject)),
      h("td", {}, m.relation), obj,
      h("td", {}, m.type || "", m.pinned ? h("span", { class: "badge pin" }, "pinned") : "",
        m.speculation ? h("span", { class: "badge spec" }, "speculation") : ""),
      h("td", {}, when(m.valid_at)), acts);
  }

  editCell(cell, m) {
    const id = `me-${m.id}`;
    const input = h("input", { type: "text", id, value: m.object, required: true, "aria-label": `New value: ${m.subject} ${m.relation} …` });
    const form = h("form", { class: "edit" }, input, h("div", { class: "row" }, h("button", { type: "submit" }, "Save"),
      h("button", { type: "button", onclick: () => cell.replaceChildren(m.object) }, "Cancel")));
    form.addEventListener("submit", (ev) => { ev.preventDefault(); this.correct(m, "edit", input.value); });
    cell.replaceChildren(form);
    input.focus();
    input.select();
  }

  picked() {
    return [...this.body.querySelectorAll("input.pick:checked")].map((c) => c.value);
  }

  selected() {
    const n = this.picked().length;
    this.forget.disabled = n === 0;
    this.forget.textContent = n ? `Forget selected (${n})` : "Forget selected";
  }

  selectAll(on) {
    for (const c of this.body.querySelectorAll("input.pick")) c.checked = on;
    this.selected();
  }

  async changed(message, runId) {
    const undo = h("button", { type: "button", onclick: () => this.undo(runId) }, "Undo");
    toast(message, undo);
    await this.onChanged();
    await this.load();
  }

  async correct(m, action, value) {
    try {
      const done = await post("/v1/graph/corrections", { fact_id: m.id, action, text: value });
      const verb = { edit: "Edited", pin: "Pinned", unpin: "Unpinned" }[action];
      await this.changed(`${verb}: ${text(m)}`, done.run_id);
    } catch (err) {
      toast(`Not changed: ${err.message}`);
    }
  }

  async forgetSelected() {
    const ids = this.picked();
    if (!ids.length) return;
    try {
      const done = await post("/v1/graph/corrections/forget", { fact_ids: ids });
      await this.changed(`Forgotten: ${done.forgotten} ${done.forgotten === 1 ? "memory" : "memories"}`, done.run_id);
    } catch (err) {
      toast(`Nothing forgotten: ${err.message}`);
    }
  }

  async undo(runId) {
    if (!(await undoCorrection(runId))) return;
    await this.onChanged();
    await this.load();
  }

  async add(form) {
    const val = (id) => form.querySelector(`#${id}`).value.trim();
    const triplet = { subject: val("ma-subject"), relation: val("ma-relation"), object: val("ma-object") };
    if (val("ma-type")) triplet.type = val("ma-type");
    try {
      await post("/v1/triplets", { triplets: [triplet] });
      form.querySelector("#ma-relation").value = "";
      form.querySelector("#ma-object").value = "";
      toast(`Added: ${triplet.subject} ${triplet.relation} ${triplet.object}`);
      await this.onChanged();
      await this.load();
    } catch (err) {
      toast(`Not added: ${err.message}`);
    }
  }

  // everything the filters select (up to 5,000), as JSON lines, downloaded from memory
  async exportRows() {
    const res = await get("/v1/graph/memories", this.params(5000));
    const lines = res.memories.map((m) => JSON.stringify({
      id: m.id, subject: m.subject, relation: m.relation, object: m.object, type: m.type, pinned: m.pinned,
      confidence: m.confidence, speculation: m.speculation, valid_at: m.valid_at, created_at: m.created_at }));
    const blob = new Blob([lines.join("\n") + (lines.length ? "\n" : "")], { type: "application/x-ndjson" });
    const a = h("a", { href: URL.createObjectURL(blob), download: "memories.jsonl" });
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(a.href), 10000);
    toast(`Exported ${lines.length} ${lines.length === 1 ? "memory" : "memories"}.`);
  }
}
