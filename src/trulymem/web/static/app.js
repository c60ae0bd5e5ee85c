// The page: sign-in when the server uses keys, the graph with its time slider, search, the
// task chain, and the node / chat / dream / changes panels.

import { ApiError, AuthNeeded, get, post, signIn, signOut, signedIn } from "./api.js";
import { Chat } from "./chat.js";
import { h, toast, when } from "./dom.js";
import { Dream } from "./dream.js";
import { GraphView, legend } from "./graphview.js";
import { Panel } from "./panel.js";
import { Persona } from "./persona.js";
import { MemoryTable } from "./table.js";

const $ = (id) => document.getElementById(id);
// timings the benchmark and the tests read (ms since page start, or epoch ms for tokens)
window.trulymem = { graphMs: null, searchMs: null, firstToken: null };

const state = { first: null, asOf: null };

function setState(s) { document.body.dataset.state = s; }

// --- sign-in -----------------------------------------------------------------
// The dialog never leaves a dead page: closed without signing in (Escape, Cancel) the page
// says so and offers Sign in again; a key the server refuses, or a user it does not reach,
// brings the dialog back with the reason.
function askKey(message) {
  const dlg = $("login");
  $("login-error").textContent = message && signedIn() ? message : "";
  dlg.returnValue = "";
  if (!dlg.open) dlg.showModal();
  $("login-key").focus();
}

function signedOut() {
  setState("signed-out");
  $("signin").hidden = false;
  $("graph-status").textContent = "Not signed in: this server needs an API key. Use Sign in above.";
}

$("login-form").addEventListener("submit", (ev) => {
  ev.preventDefault();
  signIn($("login-key").value.trim(), $("login-user").value.trim());
  $("login").close("signin");
  setState("loading");
  start();
});
$("login-cancel").addEventListener("click", () => $("login").close("cancel"));
$("login").addEventListener("close", () => { if ($("login").returnValue !== "signin") signedOut(); });
$("signin").addEventListener("click", () => askKey(""));

$("logout").addEventListener("click", () => { signOut(); location.reload(); });

// a user name the key does not reach (a user's key names its own user; an admin key an existing one)
function wrongUser(err) {
  if (!(err instanceof ApiError) || err.field !== "user_id") return false;
  const named = sessionStorage.getItem("trulymem.user");
  askKey(named ? `No memory of user '${named}' is reachable with this key. Leave User empty with a user's own key.`
               : err.message);
  return true;
}

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
window.trulymem.positions = () => view.positions();
window.trulymem.zoom = () => (view.cy ? view.cy.zoom() : null);
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
  await tasks();
  setState("ready");
}

async function openNode(id) {
  selectTab("tab-node");
  if (narrow.matches) showView($("view-right"));
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
  sliderTimer = setTimeout(() => guarded(async () => { await reload(); if (!$("table-view").hidden) await table.load(); }), 250);
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
      f.text || `${f.subject} ${f.relation} ${f.object}`),
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
  const res = await get("/v1/graph/tasks", { limit: 30, as_of: state.asOf });
  $("tasks").replaceChildren(...(res.tasks.length ? res.tasks.map((t) => h("li", { class: `task s-${t.state || "none"}` },
    h("button", { type: "button", onclick: () => openNode(t.node_id) }, t.task_id),
    h("span", { class: "state" }, t.state || ""), h("span", { class: "muted" }, ` ${when(t.created_at)}`),
    t.description ? h("p", {}, t.description) : ""))
    : [h("li", {}, state.asOf ? "No tasks then." : "No tasks yet.")]));
}

// --- tabs ----------------------------------------------------------------------------
const tabs = [...document.querySelectorAll('#right [role="tab"]')];
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

// --- views: centre shows the graph or the table; under 900 px one pane at a time -------------
const narrow = window.matchMedia("(max-width: 900px)");
const views = [...document.querySelectorAll("#views [role=tab]")];
function showView(btn) {
  const body = document.body;
  body.dataset.pane = btn.dataset.pane;
  if (btn.dataset.center) body.dataset.center = btn.dataset.center;
  for (const b of views) {
    const on = b === btn || (!narrow.matches && b.dataset.center === body.dataset.center);
    b.setAttribute("aria-selected", String(on));
    b.tabIndex = on ? 0 : -1;
  }
  const tableOn = body.dataset.center === "table";
  $("table-view").hidden = !tableOn;
  if (tableOn && btn.dataset.center === "table") guarded(() => table.load());
  if (body.dataset.pane === "center" && !tableOn) view.visible();
}
for (const b of views) {
  b.addEventListener("click", () => showView(b));
  b.addEventListener("keydown", (ev) => {
    const shown = views.filter((v) => v.offsetParent !== null);
    const i = shown.indexOf(b);
    const next = ev.key === "ArrowRight" ? shown[(i + 1) % shown.length] : ev.key === "ArrowLeft" ? shown[(i + shown.length - 1) % shown.length] : null;
    if (next) { ev.preventDefault(); showView(next); next.focus(); }
  });
}
document.body.dataset.pane = "center";
document.body.dataset.center = "graph";
narrow.addEventListener("change", () => view.visible());

const table = new MemoryTable($("table-view"), { asOf: () => state.asOf, onChanged: () => guarded(reload), onOpen: (id) => openNode(id) });
const persona = new Persona($("persona"));

// --- start ---------------------------------------------------------------------------------
async function start() {
  const graph = graphOf(); // asked at once, beside the session: the first paint waits for one round trip
  graph.catch(() => {}); // an answer of 401 is handled through the session's
  let who;
  try {
    who = await get("/v1/graph/session");
  } catch (err) {
    if (err instanceof AuthNeeded) askKey(err.message);
    else if (!wrongUser(err)) { toast(err.message); signedOut(); }
    return;
  }
  if (!who.user_id) { // an admin key reaches every user: it must name one
    $("login-key").value = sessionStorage.getItem("trulymem.key") || "";
    $("login-why").textContent = "This is an admin key: name the user whose memory to open.";
    askKey("");
    $("login-user").focus();
    return;
  }
  $("who").textContent = `memory of ${who.user_id}`;
  $("logout").hidden = !signedIn();
  $("signin").hidden = true;
  try {
    await reload(graph);
  } catch (err) {
    setState("signed-out");
    $("who").textContent = "";
    if (err instanceof AuthNeeded) askKey(err.message);
    else if (!wrongUser(err)) toast(err.message);
    return;
  }
  await guarded(() => persona.load());
}

legend($("legend"));
const detail = new URLSearchParams(location.search).get("detail"); // e.g. /?detail=20000 draws every node
if (detail && [...$("detail").options].some((o) => o.value === detail)) $("detail").value = detail;
start();
