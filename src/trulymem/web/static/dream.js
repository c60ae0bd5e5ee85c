// The dream review: the same engine as `trulymem dream` (POST /v1/dream), shown before anything changes.
// Apply sends the reviewed plan's id with the choices made on it: the server applies exactly that
// plan, or refuses (409) when the memories changed since. Runs stay listed, and undoable, after a reload.

import { ApiError, get, post } from "./api.js";
import { h, toast, when } from "./dom.js";

const plural = (n, one, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

// One line for a dream run, in the Dream panel and in the Changes panel.
export function runText(r) {
  const parts = [`${r.merged} merged`, `${r.pruned} pruned`, `${plural(r.resolved, "conflict")} resolved`];
  if (r.kept) parts.push(`${plural(r.kept, "pair")} kept apart`);
  const where = [r.app_id && `app ${r.app_id}`, r.agent_id && `agent ${r.agent_id}`].filter(Boolean).join(", ");
  return `${r.auto ? "dream (auto)" : "dream"}: ${parts.join(", ")}${where ? ` in ${where}` : ""} — ${when(r.created_at)}`
    + (r.state === "applying" ? " (interrupted)" : "");
}

// Undo one dream run by its id; true when it was undone.
export async function undoRun(runId) {
  try {
    await post("/v1/graph/dream/undo", { run_id: runId });
    toast("The dream was undone.");
    return true;
  } catch (err) {
    toast(`Cannot undo: ${err.message}`);
    return false;
  }
}

function radio(name, value, label, checked) {
  const id = `${name}-${value}`;
  return h("span", { class: "choice" },
    h("input", { type: "radio", id, name, value, checked }), h("label", { for: id }, label));
}

function skipBox(id, label) {
  return h("span", { class: "choice skip-item" }, h("input", { type: "checkbox", id, class: "skip-box" }), h("label", { for: id }, label));
}

function section(title, cls, items, empty = "none") {
  return [h("h3", {}, `${title} (${items.length})`), h("ol", { class: cls }, items.length ? items : h("li", {}, empty))];
}

export class Dream {
  constructor(button, root, { runs, onChanged }) {
    this.root = root;
    this.runsList = runs;
    this.onChanged = onChanged;
    this.plan = null;
    button.addEventListener("click", () => this.review());
  }

  async review() {
    this.plan = null;
    this.root.replaceChildren(h("p", { role: "status" }, "Dreaming (nothing is changed yet)…"));
    try {
      const res = await post("/v1/dream", { mode: "dry_run" });
      this.render(res.analysis);
    } catch (err) {
      this.root.replaceChildren(h("p", { role: "alert" }, err.message));
    }
  }

  render(a) {
    const review = a ? a.review || [] : [];
    if (!a || (!a.merges.length && !a.prunes.length && !a.conflicts.length && !review.length)) {
      this.root.replaceChildren(h("p", { role: "status" }, `Nothing to consolidate${a ? ` among ${a.memories} memories` : ""}.`));
      return;
    }
    this.plan = a;
    const merges = a.merges.map((m, i) => h("li", { dataset: { key: m.ids[0] } },
      h("ul", { class: "texts" }, m.texts.map((t) => h("li", {}, `“${t}”`))),
      h("p", {}, `→ “${m.merged}”`),
      skipBox(`merge-skip-${i}`, "Skip this merge")));
    const pairs = review.map((r, i) => {
      const name = `review-${i}`;
      return h("li", { dataset: { key: `${r.a}:${r.b}` } },
        h("fieldset", {}, h("legend", {}, `Pair ${i + 1}: alike (${Math.round(r.similarity * 100)}%), not provably the same`),
          h("p", {}, `A: “${r.a_text}”`), h("p", {}, `B: “${r.b_text}”`),
          h("p", { class: "muted" }, `Merged would read: “${r.merged}”`),
          radio(name, "merge", "Merge them", false), radio(name, "keep", "Keep both (not asked again)", false),
          radio(name, "skip", "Skip for now", true)));
    });
    const conflicts = a.conflicts.map((c, i) => {
      const name = `conflict-${i}`;
      const picked = c.suggested || "skip";
      return h("li", { dataset: { key: `${c.a}:${c.b}` } },
        h("fieldset", {}, h("legend", {}, `Conflict ${i + 1}: ${c.topic || ""}`),
          h("p", { class: "muted" }, c.suggested ? `Suggested: ${c.suggested}${c.why ? ` (${c.why})` : ""}` : (c.why || "No suggestion.")),
          radio(name, "A", `A: keep “${c.a_text}”`, picked === "A"), radio(name, "B", `B: keep “${c.b_text}”`, picked === "B"),
          radio(name, "skip", "Skip (keep both)", picked === "skip")));
    });
    const prunes = a.prunes.map((p, i) => h("li", { dataset: { key: p.id } },
      h("span", {}, `“${p.text}” — ${p.type}, ${p.age_days} days old (${p.why})`),
      skipBox(`prune-skip-${i}`, "Skip this prune")));
    this.root.replaceChildren(
      h("p", { role: "status" }, `${a.memories} memories: ${plural(a.merges.length, "merge")}, ${plural(review.length, "pair")} to review, `
        + `${plural(a.conflicts.length, "conflict")}, ${plural(a.prunes.length, "prune")}.`),
      ...section("Merges", "merges", merges),
      ...section("To review", "review", pairs),
      a.review_more ? h("p", { class: "muted" }, `… ${a.review_more} more, shown once these are decided.`) : "",
      ...section("Conflicts", "conflicts", conflicts),
      ...section("Prunes", "prunes", prunes),
      h("button", { type: "button", onclick: () => this.apply() }, "Apply"));
  }

  choices() {
    const picked = (cls) => Object.fromEntries([...this.root.querySelectorAll(`.${cls} > li[data-key]`)].map((li) =>
      [li.dataset.key, (li.querySelector("input[type=radio]:checked") || { value: "skip" }).value]));
    const skipped = (cls) => [...this.root.querySelectorAll(`.${cls} > li[data-key]`)]
      .filter((li) => li.querySelector("input.skip-box:checked")).map((li) => li.dataset.key);
    return { choices: picked("conflicts"), review: picked("review"), skip_merges: skipped("merges"), skip_prunes: skipped("prunes") };
  }

  async apply() {
    if (!this.plan) return;
    try {
      const res = await post("/v1/dream", { mode: "apply", plan_id: this.plan.plan_id, ...this.choices() });
      this.plan = null;
      const a = res.applied;
      if (!a) {
        this.root.replaceChildren(h("p", { role: "status" }, "Nothing to apply."));
        return;
      }
      const undo = h("button", { type: "button", onclick: () => this.undo(a.run_id) }, "Undo dream");
      this.root.replaceChildren(h("p", { role: "status" },
        `Applied: ${a.merged} merged (${a.reviewed} on review), ${a.pruned} pruned, ${plural(a.resolved, "conflict")} resolved, `
        + `${plural(a.kept.length, "pair")} kept apart, ${a.skipped} skipped.`), undo);
      await this.refresh();
    } catch (err) {
      if (err instanceof ApiError && err.status === 409) {
        this.plan = null;
        this.root.replaceChildren(h("p", { role: "alert" }, `Not applied: ${err.message}`),
          h("button", { type: "button", onclick: () => this.review() }, "Review again"));
      } else {
        toast(`Not applied: ${err.message}`);
      }
    }
  }

  async undo(runId) {
    if (await undoRun(runId)) {
      this.root.replaceChildren(h("p", { role: "status" }, "The dream was undone."));
      await this.refresh();
    }
  }

  // After a change: the graph and the runs, each failure told (onChanged tells its own), never thrown.
  async refresh() {
    await Promise.all([this.onChanged().catch(() => {}), this.runs().catch((err) => toast(err.message))]);
  }

  // The latest runs, each not undone with its Undo: a dream stays undoable after a reload.
  async runs() {
    const rows = await get("/v1/graph/dream/runs", { limit: 10 });
    this.runsList.replaceChildren(...(rows.length ? rows.map((r) => h("li", { dataset: { runId: r.run_id } },
      h("span", {}, runText(r)),
      r.undone_at ? h("span", { class: "muted" }, ` (undone ${when(r.undone_at)})`)
                  : h("button", { type: "button", onclick: () => this.undo(r.run_id) }, "Undo")))
      : [h("li", {}, "No dreams applied yet.")]));
  }
}
