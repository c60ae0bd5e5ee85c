// The graph: cytoscape.js on a canvas, nodes coloured by type, facts as labelled edges.
// Large graphs are laid out in O(n) (a spiral per node type) and drawn with cheap edges;
// labels appear only when zoomed in far enough to read them.

import cytoscape from "./vendor/cytoscape.esm.min.js";

export const COLOURS = {
  PersonaNode: "#b5179e", TaskNode: "#f77f00", StateNode: "#fcbf49",
  InfoNode: "#2a9d8f", EntityNode: "#457b9d", EpisodeNode: "#8d99ae",
};
const NAMES = {
  PersonaNode: "persona", TaskNode: "task", StateNode: "state",
  InfoNode: "info", EntityNode: "entity", EpisodeNode: "episode",
};
const BIG = 800; // nodes: above this, straight edges drawn without arrows and no animation

export function legend(list) {
  list.replaceChildren(...Object.entries(COLOURS).map(([type, colour]) => {
    const li = document.createElement("li");
    const dot = document.createElement("span");
    dot.className = "dot";
    dot.style.background = colour;
    dot.setAttribute("aria-hidden", "true");
    li.append(dot, NAMES[type]);
    return li;
  }));
}

// Plain selectors only (a function per element costs seconds at 10k nodes); on big graphs labels
// are drawn for the best-connected nodes and for what is selected or matched, not for all.
function style(big) {
  const rules = [
    { selector: "node", style: {
      "background-color": "#666", width: big ? 8 : "data(size)", height: big ? 8 : "data(size)",
      "font-size": 10, color: "#1d2433", "text-valign": "bottom", "text-margin-y": 3,
      "min-zoomed-font-size": big ? 9 : 6,
    } },
    ...Object.entries(COLOURS).map(([type, colour]) => ({ selector: `node[type = "${type}"]`, style: { "background-color": colour } })),
    { selector: big ? "node[?hub], node:selected, node.match, node.fresh" : "node", style: { label: "data(label)" } },
    { selector: big ? "node[?hub]" : "node", style: { width: "data(size)", height: "data(size)" } },
    { selector: "edge", style: {
      width: 1, "line-color": "#b8c0cc", "curve-style": big ? "haystack" : "bezier",
      "target-arrow-shape": big ? "none" : "triangle", "target-arrow-color": "#b8c0cc", "arrow-scale": 0.7,
      "font-size": 8, color: "#566", "min-zoomed-font-size": 7,
      "text-rotation": "autorotate", "text-background-color": "#fff", "text-background-opacity": 0.7,
    } },
    { selector: big ? "edge:selected, edge.match, edge.fresh" : "edge", style: { label: "data(label)" } },
    { selector: "edge[?pinned]", style: { width: 2, "line-color": "#e63946", "target-arrow-color": "#e63946" } },
    { selector: "edge[?speculation]", style: { "line-style": "dashed" } },
    { selector: ".match", style: { "border-width": 4, "border-color": "#ffd60a", "z-index": 10 } },
    { selector: "edge.match", style: { width: 3, "line-color": "#ffb703", "target-arrow-color": "#ffb703" } },
    { selector: ".fresh", style: { "border-width": 4, "border-color": "#06d6a0" } },
    { selector: "edge.fresh", style: { width: 3, "line-color": "#06d6a0" } },
    { selector: "node:selected", style: { "border-width": 4, "border-color": "#1d2433" } },
  ];
  return rules;
}

// Hubs on a spiral, every other node around its best-connected placed neighbour: one pass in
// degree order, so a 10k-node graph is laid out in milliseconds and what is linked sits together.
function positions(nodes, edges) {
  const adj = new Map(nodes.map((n) => [n.id, []]));
  for (const e of edges) {
    adj.get(e.source)?.push(e.target);
    adj.get(e.target)?.push(e.source);
  }
  const deg = (id) => adj.get(id)?.length || 0;
  const golden = Math.PI * (3 - Math.sqrt(5));
  const out = new Map();
  const kids = new Map();
  let hubs = 0;
  for (const n of [...nodes].sort((a, b) => deg(b.id) - deg(a.id))) {
    let parent = null;
    for (const m of adj.get(n.id)) if (out.has(m) && (parent === null || deg(m) > deg(parent))) parent = m;
    if (parent !== null) {
      const k = kids.get(parent) || 0;
      kids.set(parent, k + 1);
      const p = out.get(parent);
      const r = 30 + 7 * Math.sqrt(k);
      out.set(n.id, { x: p.x + r * Math.cos(k * golden), y: p.y + r * Math.sin(k * golden) });
    } else {
      const r = 160 * Math.sqrt(hubs);
      out.set(n.id, { x: r * Math.cos(hubs * golden), y: r * Math.sin(hubs * golden) });
      hubs += 1;
    }
  }
  return out;
}

function elements(data) {
  const pos = data.nodes.length > 150 ? positions(data.nodes, data.edges) : null;
  // the 150 best-connected nodes keep their labels and size on a big graph
  const hubs = new Set([...data.nodes].sort((a, b) => b.degree - a.degree).slice(0, 150).map((n) => n.id));
  const els = [];
  for (const n of data.nodes) {
    els.push({ group: "nodes", data: { id: n.id, label: n.label || n.name, type: n.type, hub: hubs.has(n.id),
                                       size: 10 + Math.min(20, 3 * Math.sqrt(n.degree || 1)) },
               position: pos ? pos.get(n.id) : undefined });
  }
  for (const e of data.edges) {
    els.push({ group: "edges", data: { id: e.id, source: e.source, target: e.target, label: e.relation,
                                       kind: e.kind, pinned: e.pinned, speculation: e.speculation } });
  }
  return { els, preset: pos !== null };
}

export class GraphView {
  constructor(container, onOpen) {
    this.container = container;
    this.onOpen = onOpen;
    this.cy = null;
    container.addEventListener("keydown", (ev) => this.key(ev));
  }

  // Draw a graph answer; resolves once the first frame with it is on screen. A graph already
  // drawn is updated in place: what stays keeps its position, the viewport, its highlights and
  // the selection (a correction or a chat turn changes a few facts; the picture must not jump).
  show(data) {
    const t0 = performance.now();
    const big = data.nodes.length > BIG;
    if (this.cy && this.big === big) return this.update(data, t0);
    this.big = big;
    const { els, preset } = elements(data);
    if (this.cy) this.cy.destroy();
    const cy = cytoscape({
      container: this.container, elements: els, style: style(big), maxZoom: 4, minZoom: 0.02,
      layout: preset ? { name: "preset", fit: true, padding: 30 }
                     : { name: els.length ? "cose" : "grid", animate: false, fit: true, padding: 30, randomize: false,
                         numIter: 600 },
      hideEdgesOnViewport: big, textureOnViewport: big, pixelRatio: big ? 1 : "auto", motionBlur: false,
    });
    window.trulymem.buildMs = performance.now() - t0;
    cy.on("tap", "node", (ev) => this.onOpen(ev.target.id()));
    if (cy.zoom() > 1.5) { cy.zoom(1.5); cy.center(); } // a few nodes: readable, not filling the screen
    this.cy = cy;
    this.unfitted = this.container.clientWidth === 0; // drawn in a hidden pane: fit when it is shown
    return this.painted();
  }

  painted() {
    return new Promise((resolve) => {
      let done = false;
      const finish = () => { if (!done) { done = true; requestAnimationFrame(() => resolve()); } };
      this.cy.one("render", finish);
      setTimeout(finish, this.cy.elements().length ? 3000 : 50); // an unchanged or empty graph may render no frame
    });
  }

  update(data, t0) {
    const cy = this.cy;
    const { els } = elements(data);
    const want = new Set(els.map((e) => e.data.id));
    const fresh = [];
    cy.batch(() => {
      cy.elements().filter((el) => !want.has(el.id())).remove();
      for (const e of els) {
        const have = cy.getElementById(e.data.id);
        if (!have.length) { fresh.push(e); continue; }
        const { id, source, target, ...rest } = e.data; // endpoints and ids never change
        have.data(rest);
      }
      // a new node goes beside a neighbour already drawn, else beside the middle of the view
      const nbr = new Map();
      for (const x of data.edges) {
        if (!nbr.has(x.source)) nbr.set(x.source, []);
        if (!nbr.has(x.target)) nbr.set(x.target, []);
        nbr.get(x.source).push(x.target);
        nbr.get(x.target).push(x.source);
      }
      const ext = cy.extent();
      let i = 0;
      for (const e of fresh) {
        if (e.group !== "nodes") continue;
        const near = (nbr.get(e.data.id) || []).map((id) => cy.getElementById(id)).find((n) => n.length);
        const anchor = near ? near.position() : { x: (ext.x1 + ext.x2) / 2, y: (ext.y1 + ext.y2) / 2 };
        i += 1;
        e.position = { x: anchor.x + 70 * Math.cos(i * 2.4), y: anchor.y + 70 * Math.sin(i * 2.4) };
        cy.add(e);
      }
      cy.add(fresh.filter((e) => e.group === "edges"));
    });
    window.trulymem.buildMs = performance.now() - t0;
    return this.painted();
  }

  // the pane holding the graph was shown: size the canvas to it
  visible() {
    if (!this.cy || this.container.clientWidth === 0) return;
    this.cy.resize();
    if (this.unfitted) { this.unfitted = false; this.cy.fit(undefined, 30); if (this.cy.zoom() > 1.5) { this.cy.zoom(1.5); this.cy.center(); } }
  }

  // where each node is drawn (tests check that an edit moves nothing)
  positions() {
    if (!this.cy) return {};
    return Object.fromEntries(this.cy.nodes().map((n) => [n.data("label"), n.position()]));
  }

  // Add a node's neighbourhood next to it (expanding beyond the level of detail).
  add(data) {
    if (!this.cy) return;
    const have = new Set(this.cy.nodes().map((n) => n.id()));
    const { els } = elements(data);
    const fresh = els.filter((e) => e.group === "edges" ? !this.cy.getElementById(e.data.id).length : !have.has(e.data.id));
    const anchor = this.cy.getElementById(data.center);
    const at = anchor.length ? anchor.position() : { x: 0, y: 0 };
    let i = 0;
    for (const e of fresh) {
      if (e.group === "nodes") {
        e.position = { x: at.x + 80 * Math.cos(i), y: at.y + 80 * Math.sin(i) };
        i += 0.7;
      }
    }
    this.cy.add(fresh.filter((e) => e.group === "nodes"));
    const there = (id) => this.cy.getElementById(id).length > 0;
    this.cy.add(fresh.filter((e) => e.group === "edges" && there(e.data.source) && there(e.data.target)));
  }

  mark(cls, nodeIds, edgeIds) {
    if (!this.cy) return 0;
    this.cy.elements().removeClass(cls);
    let n = 0;
    this.cy.batch(() => {
      for (const id of [...nodeIds, ...edgeIds]) {
        const el = this.cy.getElementById(id);
        if (el.length) { el.addClass(cls); n += 1; }
      }
    });
    return n;
  }

  select(id) {
    if (!this.cy) return;
    this.cy.elements().unselect();
    const el = this.cy.getElementById(id);
    if (el.length) {
      el.select();
      if (this.cy.nodes().length <= BIG) this.cy.animate({ center: { eles: el }, duration: 200 });
      else this.cy.center(el);
    }
  }

  key(ev) {
    if (!this.cy) return;
    const step = 60;
    const moves = { ArrowLeft: [step, 0], ArrowRight: [-step, 0], ArrowUp: [0, step], ArrowDown: [0, -step] };
    if (moves[ev.key]) {
      this.cy.panBy({ x: moves[ev.key][0], y: moves[ev.key][1] });
    } else if (ev.key === "+" || ev.key === "=") {
      this.cy.zoom({ level: this.cy.zoom() * 1.25, renderedPosition: this.middle() });
    } else if (ev.key === "-") {
      this.cy.zoom({ level: this.cy.zoom() / 1.25, renderedPosition: this.middle() });
    } else if (ev.key === "0") {
      this.cy.fit(undefined, 30);
    } else if (ev.key === "n" || ev.key === "N") { // walk the nodes, best connected first
      const order = this.cy.nodes().sort((a, b) => b.degree() - a.degree());
      if (!order.length) return;
      this.cursor = ((this.cursor ?? -1) + (ev.key === "n" ? 1 : order.length - 1)) % order.length;
      const node = order[this.cursor];
      this.select(node.id());
      this.onFocusNode?.(node.data("label"), node.data("type"), node.degree());
    } else if (ev.key === "Enter") {
      const picked = this.cy.$("node:selected");
      if (picked.length) this.onOpen(picked[0].id());
    } else {
      return;
    }
    ev.preventDefault();
  }

  middle() {
    return { x: this.container.clientWidth / 2, y: this.container.clientHeight / 2 };
  }
}
