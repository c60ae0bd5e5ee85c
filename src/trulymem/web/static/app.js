// The page: sign-in when the server uses keys, the graph with its time slider, search, the
// task chain, and the node / chat / dream / changes panels.

import { AuthNeeded, get, post, signIn, signOut, signedIn } from "./api.js";
import { Chat } from "./chat.js";
import { h, toast, when } from "./dom.js";
import { Dream } from "./dream.js";
import { GraphView, legend } from "./graphview.js";
import { Panel } from "./panel.js";

const $ = (id) => document.getElementById(id);
// timings the benchmark and the tests read (ms since page start, or epoch ms for tokens)
window.trulymem = { graphMs: null, searchMs: null, firstToken: null };

const state = { first: null, asOf: null };

function setState(s) { document.body.dataset.state = s; }

// --- sign-in -----------------------------------------------------------------
function askKey(message) {
  const dlg = $("login");
  $("login-error").textContent = message && signedIn() ? message : "";
  if (!dlg.open) dlg.showModal();
  $("login-key").focus();
}

$("login-form").addEventListener("submit", (ev) => {
  ev.preventDefault();
  signIn($("login-key").value.trim(), $("login-user").value.trim());
  $("login").close();
  start();
});

$("logout").addEventListener("click", () => { signOut(); location.reload(); });

async function guarded(fn) {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof AuthNeeded) { askKey(err.message); return undefined; }
    toast(err.message);
    throw err;
  }
}

// --- the graph -----------------------------------------------------------------
const view = new GraphView($("graph"), (id) => openNode(id));
view.onFocusNode = (name, type, degree) => { // what keyboard users reach with n / N, read out
  $("graph-focus").textContent = `${name} (${type.replace("Node", "").toLowerCase()}, ${degree} facts): Enter opens it`;
};
// what is drawn, for tests and the benchmark
window.trulymem.drawn = () => (view.cy ? {
  nodes: view.cy.nodes().map((n) => n.data("label")), edges: view.cy.edges().map((e) => e.data("label")),
  matched: view.cy.$(".match").length, fresh: view.cy.$(".fresh").length } : null);
const panel = new Panel($("panel-node"), { onChanged: () => reload(), onOpen: (id) => openNode(id), asOf: () => state.asOf });

const graphOf = () => get("/v1/graph", { as_of: state.asOf, max_nodes: $("detail").value });

async function reload(pending) {
  const t0 = performance.now();
  setState("loading");
  const data = await (pending || graphOf());
  window.trulymem.fetchMs = performance.now() - t0;
  if (!state.first && data.first) state.first = Date.parse(data.first);
  await view.show(data);
  window.trulymem.graphMs = performance.now() - t0;
  if (window.trulymem.paintedAt === undefined) window.trulymem.paintedAt = performance.now(); // since navigation
  const kinds = data.clusters.map((c) => `${c.count} ${c.type.replace("Node", "").toLowerCase()}`).join(", ");
  $("graph-status").textContent = `${data.shown.nodes} of ${data.total.nodes} nodes, ${data.shown.facts} of ${data.total.facts} facts`
    + (state.asOf ? ` as of ${when(state.asOf)}` : "")
    + (data.hidden ? ` — ${data.hidden} more not drawn${kinds ? ` (${kinds})` : ""}: search or open a node to reach them` : "");
  setState("ready");
  await tasks();
}

async function openNode(id) {
  selectTab("tab-node");
  view.select(id);
  await guarded(() => panel.open(id));
  if (view.cy && !view.cy.getElementById(id).length) {
    const more = await get(`/v1/graph/nodes/${encodeURIComponent(id)}/neighbours`, { as_of: state.asOf });
    view.add(more);
    view.select(id);
  }
}

// --- time slider -------------------------------------------------------------------
let sliderTimer = null;
$("as-of").addEventListener("input", () => {
  const v = Number($("as-of").value);
  const first = state.first || Date.now();
  state.asOf = v >= 1000 ? null : new Date(first + (Date.now() - first) * (v / 1000)).toISOString();
  $("as-of-label").textContent = state.asOf ? when(state.asOf) : "now";
  $("as-of").setAttribute("aria-valuetext", state.asOf ? when(state.asOf) : "now");
  clearTimeout(sliderTimer);
  sliderTimer = setTimeout(() => guarded(reload), 250);
});
$("detail").addEventListener("change", () => guarded(reload));

// --- search ------------------------------------------------------------------------
$("search-form").addEventListener("submit", (ev) => { ev.preventDefault(); guarded(search); });

async function search() {
  const q = $("search-input").value.trim();
  const t0 = performance.now();
  $("search-status").textContent = "Searching…";
  const res = await post("/v1/graph/search", { query_intent: q, as_of: state.asOf, limit: 20 });
  const list = $("results");
  list.replaceChildren(...res.facts.map((f) => h("li", {},
    h("button", { type: "button", class: "result", onclick: () => openNode(f.subject_id) },
      `${f.subject} `, h("strong", {}, f.relation), ` ${f.object}`),
    h("span", { class: "why" }, `why: ${f.why.join(", ")}`))));
  const nodes = res.nodes.filter((n) => n.hop === 0).map((n) => n.id);
  const direct = res.facts.filter((f) => f.why.some((w) => !w.startsWith("hop"))).map((f) => f.id);
  const shown = view.mark("match", nodes, direct);
  window.trulymem.searchMs = performance.now() - t0;
  $("search-status").textContent = res.facts.length
    ? `${res.facts.length} facts found, ${shown} highlighted in the graph.` : "Nothing found.";
}

// --- tasks -----------------------------------------------------------------------
async function tasks() {
  const res = await get("/v1/graph/tasks", { limit: 30 });
  $("tasks").replaceChildren(...(res.tasks.length ? res.tasks.map((t) => h("li", { class: `task s-${t.state || "none"}` },
    h("button", { type: "button", onclick: () => openNode(t.node_id) }, t.task_id),
    h("span", { class: "state" }, t.state || ""), h("span", { class: "muted" }, ` ${when(t.created_at)}`),
    t.description ? h("p", {}, t.description) : ""))
    : [h("li", {}, "No tasks yet.")]));
}

// --- tabs ----------------------------------------------------------------------------
const tabs = [...document.querySelectorAll('[role="tab"]')];
function selectTab(id) {
  for (const t of tabs) {
    const on = t.id === id;
    t.setAttribute("aria-selected", String(on));
    t.tabIndex = on ? 0 : -1;
    $(t.getAttribute("aria-controls")).hidden = !on;
  }
  if (id === "tab-changes") guarded(() => panel.changes($("changes")));
  if (id === "tab-dream") guarded(() => dream.runs());
}
for (const t of tabs) {
  t.addEventListener("click", () => selectTab(t.id));
  t.addEventListener("keydown", (ev) => {
    const i = tabs.indexOf(t);
    const next = ev.key === "ArrowRight" ? tabs[(i + 1) % tabs.length] : ev.key === "ArrowLeft" ? tabs[(i + tabs.length - 1) % tabs.length] : null;
    if (next) { ev.preventDefault(); selectTab(next.id); next.focus(); }
  });
}

// --- chat and dream -------------------------------------------------------------------
new Chat($("chat-form"), $("chat-log"), {
  onWrite: () => guarded(reload), // live: the graph follows each write of the turn
  onTurn: async (trace) => {
    await guarded(reload);
    view.mark("fresh", [], trace.written.facts || []);
  },
});
const dream = new Dream($("dream-review"), $("dream-report"), { runs: $("dream-runs"), onChanged: () => guarded(reload) });

// --- start ---------------------------------------------------------------------------------
async function start() {
  const graph = graphOf(); // asked at once, beside the session: the first paint waits for one round trip
  graph.catch(() => {}); // an answer of 401 is handled through the session's
  const who = await guarded(() => get("/v1/graph/session"));
  if (!who) return;
  if (!who.user_id) { // an admin key reaches every user: it must name one
    $("login-key").value = sessionStorage.getItem("trulymem.key") || "";
    $("login-why").textContent = "This is an admin key: name the user whose memory to open.";
    askKey("");
    $("login-user").focus();
    return;
  }
  $("who").textContent = `memory of ${who.user_id}`;
  $("logout").hidden = !signedIn();
  await guarded(() => reload(graph));
}

legend($("legend"));
const detail = new URLSearchParams(location.search).get("detail"); // e.g. /?detail=20000 draws every node
if (detail && [...$("detail").options].some((o) => o.value === detail)) $("detail").value = detail;
start();
