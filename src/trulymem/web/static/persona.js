// The persona, shown in the left pane and edited in place: PATCH /v1/persona replaces it whole
// (attributes removed in the form are removed), and history keeps what it replaced.

import { call, get } from "./api.js";
import { h, toast } from "./dom.js";

const shown = (v) => (Array.isArray(v) ? v.join(", ") : String(v));

export class Persona {
  constructor(root) {
    this.root = root;
    this.attrs = {};
  }

  async load() {
    const res = await get("/v1/persona");
    this.attrs = res.attributes || {};
    this.show();
  }

  show() {
    const entries = Object.entries(this.attrs);
    this.root.replaceChildren(
      entries.length ? h("dl", {}, entries.flatMap(([k, v]) => [h("dt", {}, k), h("dd", {}, shown(v))]))
                     : h("p", { class: "muted" }, "No persona stored."),
      h("button", { type: "button", id: "persona-edit", onclick: () => this.edit() }, "Edit persona"));
  }

  edit() {
    const rows = h("div", { class: "persona-rows" });
    const error = h("p", { class: "error", role: "alert" });
    const addRow = (k = "", v = "", list = false) => {
      const n = rows.children.length + 1;
      const key = h("input", { type: "text", value: k, class: "p-key", "aria-label": `Attribute ${n}: name` });
      const val = h("input", { type: "text", value: v, class: "p-val", "aria-label": `Attribute ${n}: value`,
                               dataset: list ? { list: "1" } : undefined });
      const row = h("div", { class: "row" }, key, val,
        h("button", { type: "button", "aria-label": `Remove attribute ${n}`, onclick: () => row.remove() }, "×"));
      rows.append(row);
      return key;
    };
    for (const [k, v] of Object.entries(this.attrs)) addRow(k, shown(v), Array.isArray(v));
    if (!rows.children.length) addRow();
    const form = h("form", { class: "persona-edit", "aria-label": "Edit the persona" }, rows,
      h("button", { type: "button", onclick: () => addRow().focus() }, "Add attribute"),
      h("div", { class: "row" }, h("button", { type: "submit" }, "Save persona"),
        h("button", { type: "button", onclick: () => this.show() }, "Cancel")),
      error);
    form.addEventListener("submit", (ev) => { ev.preventDefault(); this.save(rows, error); });
    this.root.replaceChildren(form);
    form.querySelector("input").focus();
  }

  async save(rows, error) {
    const attributes = {};
    for (const row of rows.querySelectorAll(".row")) {
      const k = row.querySelector(".p-key").value.trim();
      const input = row.querySelector(".p-val");
      const v = input.value.trim();
      if (!k && !v) continue;
      if (!k || !v) { error.textContent = "Each attribute needs a name and a value."; return; }
      // a list stays a list (comma separated in the form)
      attributes[k] = input.dataset.list ? v.split(",").map((x) => x.trim()).filter(Boolean) : v;
    }
    if (!Object.keys(attributes).length) { error.textContent = "A persona needs at least one attribute."; return; }
    try {
      const res = await call("PATCH", "/v1/persona", { body: { attributes, mode: "replace" } });
      this.attrs = (res && res.attributes) || attributes;
      this.show();
      toast("Persona saved.");
    } catch (err) {
      error.textContent = `Not saved: ${err.message}`;
    }
  }
}
