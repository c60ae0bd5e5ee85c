// The dream review: the same engine as `trulymem dream` (POST /v1/dream), shown before anything changes.

import { post } from "./api.js";
import { h, toast } from "./dom.js";

export class Dream {
  constructor(button, root, { onChanged }) {
    this.root = root;
    this.onChanged = onChanged;
    button.addEventListener("click", () => this.review());
  }

  async review() {
    this.root.replaceChildren(h("p", { role: "status" }, "Dreaming (nothing is changed yet)…"));
    try {
      const res = await post("/v1/dream", { mode: "dry_run" });
      this.render(res.analysis);
    } catch (err) {
      this.root.replaceChildren(h("p", { role: "alert" }, err.message));
    }
  }

  render(a) {
    if (!a || (!a.merges.length && !a.prunes.length && !a.conflicts.length)) {
      this.root.replaceChildren(h("p", { role: "status" }, `Nothing to consolidate${a ? ` among ${a.memories} memories` : ""}.`));
      return;
    }
    const conflicts = a.conflicts.map((c, i) => {
      const name = `conflict-${i}`;
      const choice = (value, label) => {
        const id = `${name}-${value}`;
        return h("span", { class: "choice" },
          h("input", { type: "radio", id, name, value, checked: (c.suggested || "skip") === value || (!c.suggested && value === "skip") }),
          h("label", { for: id }, label));
      };
      return h("li", { dataset: { key: `${c.a}:${c.b}` } },
        h("fieldset", {}, h("legend", {}, `Conflict ${i + 1}: ${c.topic || ""}`),
          h("p", { class: "muted" }, c.suggested ? `Suggested: ${c.suggested}${c.why ? ` (${c.why})` : ""}` : (c.why || "No suggestion.")),
          choice("A", `A: keep “${c.a_text}”`), choice("B", `B: keep “${c.b_text}”`), choice("skip", "Skip (keep both)")));
    });
    const apply = h("button", { type: "button", onclick: () => this.apply() }, "Apply");
    this.root.replaceChildren(
      h("p", { role: "status" }, `${a.memories} memories: ${a.merges.length} merges, ${a.prunes.length} prunes, ${a.conflicts.length} conflicts.`),
      h("h3", {}, "Merges"), h("ul", {}, a.merges.length ? a.merges.map((m) => h("li", {}, `${m.ids.length} memories → “${m.merged}”`)) : h("li", {}, "none")),
      h("h3", {}, "Prunes"), h("ul", {}, a.prunes.length ? a.prunes.map((p) => h("li", {}, `“${p.text}” — ${p.reason}`)) : h("li", {}, "none")),
      h("h3", {}, "Conflicts"), h("ol", { class: "conflicts" }, conflicts.length ? conflicts : h("li", {}, "none")),
      apply);
  }

  async apply() {
    const choices = {};
    for (const li of this.root.querySelectorAll(".conflicts li[data-key]")) {
      const picked = li.querySelector("input:checked");
      choices[li.dataset.key] = picked ? picked.value : "skip";
    }
    try {
      const res = await post("/v1/dream", { mode: "apply", choices });
      const a = res.applied || {};
      const undo = h("button", { type: "button", onclick: () => this.undo() }, "Undo dream");
      this.root.replaceChildren(h("p", { role: "status" },
        `Applied: ${a.merged || 0} merged, ${a.pruned || 0} pruned, ${a.resolved || 0} conflicts resolved, ${a.skipped || 0} skipped.`), undo);
      await this.onChanged();
    } catch (err) {
      toast(`Not applied: ${err.message}`);
    }
  }

  async undo() {
    try {
      await post("/v1/graph/dream/undo", {});
      this.root.replaceChildren(h("p", { role: "status" }, "The dream was undone."));
      await this.onChanged();
    } catch (err) {
      toast(`Cannot undo: ${err.message}`);
    }
  }
}
