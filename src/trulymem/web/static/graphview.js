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

function style(big) {
  return [
    { selector: "node", style: {
      "background-color": (n) => COLOURS[n.data("type")] || "#666",
      label: "data(label)", "font-size": 10, color: "#1d2433", "text-valign": "bottom", "text-margin-y": 3,
      "min-zoomed-font-size": big ? 9 : 6, width: "data(size)", height: "data(size)",
      "text-max-width": 120, "text-wrap": "ellipsis",
    } },
    { selector: "edge", style: {
      width: 1, "line-color": "#b8c0cc", "curve-style": big ? "haystack" : "bezier",
      "target-arrow-shape": big ? "none" : "triangle", "target-arrow-color": "#b8c0cc", "arrow-scale": 0.7,
      label: "data(label)", "font-size": 8, color: "#566", "min-zoomed-font-size": big ? 12 : 7,
      "text-rotation": "autorotate", "text-background-color": "#fff", "text-background-opacity": 0.7,
    } },
    { selector: "edge[?pinned]", style: { width: 2, "line-color": "#e63946", "target-arrow-color": "#e63946" } },
    { selector: "edge[?speculation]", style: { "line-style": "dashed" } },
    { selector: ".match", style: { "border-width": 4, "border-color": "#ffd60a", "z-index": 10 } },
    { selector: "edge.match", style: { width: 3, "line-color": "#ffb703", "target-arrow-color": "#ffb703" } },
    { selector: ".fresh", style: { "border-width": 4, "border-color": "#06d6a0" } },
    { selector: "edge.fresh", style: { width: 3, "line-color": "#06d6a0" } },
    { selector: "node:selected", style: { "border-width": 4, "border-color": "#1d2433" } },
    { selector: ".faded", style: { opacity: 0.25 } },
  ];
}

// A spiral per node type, the types' spirals on a circle: every node placed in one pass.
function positions(nodes) {
  const byType = new Map();
  for (const n of nodes) {
    if (!byType.has(n.type)) byType.set(n.type, []);
    byType.get(n.type).push(n);
  }
  const types = [...byType.keys()].sort();
  const out = new Map();
  const golden = Math.PI * (3 - Math.sqrt(5));
  const radius = Math.max(300, Math.sqrt(nodes.length) * 45);
  types.forEach((type, t) => {
    const group = byType.get(type).sort((a, b) => b.degree - a.degree);
    const angle = (2 * Math.PI * t) / types.length;
    const cx = types.length > 1 ? Math.cos(angle) * radius : 0;
    const cy = types.length > 1 ? Math.sin(angle) * radius : 0;
    group.forEach((n, i) => {
      const r = 18 * Math.sqrt(i);
      out.set(n.id, { x: cx + r * Math.cos(i * golden), y: cy + r * Math.sin(i * golden) });
    });
  });
  return out;
}

function elements(data) {
  const pos = data.nodes.length > 150 ? positions(data.nodes) : null;
  const els = [];
  for (const n of data.nodes) {
    els.push({ group: "nodes", data: { id: n.id, label: n.name, type: n.type, size: 10 + Math.min(20, 3 * Math.sqrt(n.degree || 1)) },
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

  // Draw a graph answer; resolves once the first frame with it is on screen.
  show(data) {
    const big = data.nodes.length > BIG;
    const { els, preset } = elements(data);
    if (this.cy) this.cy.destroy();
    const cy = cytoscape({
      container: this.container, elements: els, style: style(big), maxZoom: 4, minZoom: 0.02,
      layout: preset ? { name: "preset", fit: true, padding: 30 }
                     : { name: els.length ? "cose" : "grid", animate: false, fit: true, padding: 30, randomize: false,
                         numIter: 600 },
      hideEdgesOnViewport: big, textureOnViewport: big, pixelRatio: big ? 1 : "auto", motionBlur: false,
    });
    cy.on("tap", "node", (ev) => this.onOpen(ev.target.id()));
    if (cy.zoom() > 1.5) { cy.zoom(1.5); cy.center(); } // a few nodes: readable, not filling the screen
    this.cy = cy;
    return new Promise((resolve) => {
      let done = false;
      const finish = () => { if (!done) { done = true; requestAnimationFrame(() => resolve()); } };
      cy.one("render", finish);
      setTimeout(finish, 3000); // an empty graph may never render a frame
    });
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
    } else {
      return;
    }
    ev.preventDefault();
  }

  middle() {
    return { x: this.container.clientWidth / 2, y: this.container.clientHeight / 2 };
  }
}
