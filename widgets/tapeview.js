// TapeView front end: animates a recorded tape from precomputed steps, with no kernel round trip per frame.
// Every user string goes in through textContent; the only markup parsed is Graphviz's SVG, whose labels
// the kernel escaped. The same code runs in a notebook (anywidget) and in a saved HTML file.

const SVGNS = "http://www.w3.org/2000/svg";
const SPEEDS = [0.25, 0.5, 1, 2, 4];

function h(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

function button(label, title, onClick) {
  const b = h("button", "tv-btn", label);
  b.title = title;
  b.type = "button";
  b.addEventListener("click", onClick);
  return b;
}

// The state shown at step k: what each node's value and gradient lines say, folded from the updates.
function stateAt(events, k) {
  const value = {};
  const grad = {};
  const nan = new Set();
  const done = new Set();
  for (let i = 0; i <= k; i++) {
    const ev = events[i];
    for (const [node, slot, text] of ev.set) (slot === "value" ? value : grad)[node] = text;
    if (ev.nonfinite && ev.node) nan.add(ev.node);
    if (ev.node && (ev.kind === "forward" || ev.kind === "backward")) done.add(ev.node + ":" + ev.kind);
  }
  return { value, grad, nan, done };
}

function renderTapeView(el, data, onStep) {
  const events = data.events;
  const last = events.length - 1;
  const root = h("div", "tv");
  el.appendChild(root);

  // ---- controls ------------------------------------------------------------------------------------
  const bar = h("div", "tv-bar");
  const slider = h("input", "tv-slider");
  slider.type = "range";
  slider.min = "0";
  slider.max = String(last);
  slider.value = "0";
  const speed = h("select", "tv-speed");
  for (const s of SPEEDS) {
    const o = h("option", "", `${s}×`);
    o.value = String(s);
    if (s === 1) o.selected = true;
    speed.appendChild(o);
  }
  speed.title = "speed";
  const counter = h("span", "tv-counter");
  let playing = null;
  const playBtn = button("▶ play", "play / pause", () => (playing ? pause() : play()));
  bar.append(
    button("↺ reset", "back to the start", () => { pause(); show(0); }),
    button("◀ step", "one step back", () => { pause(); show(current - 1); }),
    playBtn,
    button("step ▶", "one step forward", () => { pause(); show(current + 1); }),
    slider,
    speed,
    button("−", "zoom out", () => zoom(1 / 1.25)),
    button("fit", "fit the width", () => zoom(0)),
    button("+", "zoom in", () => zoom(1.25)),
    counter,
  );
  slider.addEventListener("input", () => { pause(); show(Number(slider.value)); });
  // a clicker or keyboard in class: arrows step, space plays and pauses, Home resets
  root.tabIndex = 0;
  root.addEventListener("keydown", (e) => {
    const keys = {
      ArrowRight: () => show(current + 1),
      ArrowLeft: () => show(current - 1),
      Home: () => show(0),
      End: () => show(last),
      " ": () => (playing ? pause() : play()),
    };
    if (!(e.key in keys) || e.target.tagName === "SELECT" || e.target.tagName === "INPUT") return;
    e.preventDefault();
    if (e.key !== " ") pause();
    keys[e.key]();
  });

  // ---- graph and panel -----------------------------------------------------------------------------
  const main = h("div", "tv-main");
  const graph = h("div", "tv-graph");
  const panel = h("div", "tv-panel");
  const panelTitle = h("div", "tv-panel-title");
  const panelText = h("div", "tv-panel-text");
  const details = h("div", "tv-details");
  details.appendChild(h("div", "tv-hint", "Click a node to see its value, gradient, shape, dtype and op."));
  panel.append(panelTitle, panelText, details);
  main.append(graph, panel);
  root.append(bar, main);

  const doc = new DOMParser().parseFromString(data.svg, "image/svg+xml");
  const svg = document.importNode(doc.documentElement, true);
  graph.appendChild(svg);
  const natural = svg.viewBox.baseVal && svg.viewBox.baseVal.width ? svg.viewBox.baseVal.width : 800;
  function zoom(f) {
    if (f === 0) {
      // "fit": the whole width, but no larger than 1.6× natural size, so small graphs stay readable, not huge
      svg.style.width = "100%";
      svg.style.maxWidth = `${natural * 1.6}px`;
    } else {
      const now = svg.getBoundingClientRect().width || natural;
      svg.style.maxWidth = "none";
      svg.style.width = `${now * f}px`;
    }
    svg.style.height = "auto";
  }
  svg.removeAttribute("width");
  svg.removeAttribute("height");
  zoom(0);

  const nodes = {};
  for (const id of data.nodes) {
    const g = svg.getElementById ? svg.getElementById(`n-${id}`) : svg.querySelector(`[id="n-${id}"]`);
    if (!g) continue;
    const texts = g.querySelectorAll("text");
    nodes[id] = { g, value: texts[2], grad: texts[3], shown: { value: null, grad: null } };
    g.addEventListener("click", () => showDetails(id));
  }
  const edges = {};
  for (const g of svg.querySelectorAll("g.edge")) edges[g.id.slice(2)] = g;
  const layer = document.createElementNS(SVGNS, "g");
  layer.setAttribute("class", "tv-labels");
  svg.querySelector("g.graph").appendChild(layer);

  // Collapsible name scopes: a folded cluster hides its members and stands for them.
  const owner = {};
  const clusterEls = {};
  for (const [cid, path, members] of data.clusters) {
    const g = svg.querySelector(`[id="${cid}"]`);
    if (!g) continue;
    clusterEls[cid] = { g, members, path, label: g.querySelector("text") };
    for (const m of members) if (!(m in owner)) owner[m] = cid;
    g.addEventListener("click", () => fold(cid));
    if (clusterEls[cid].label) clusterEls[cid].label.textContent = `▾ ${path.split("/").pop()}`;
  }
  const folded = new Set();
  function hiddenBy(node) {
    for (const cid of folded) if (clusterEls[cid].members.includes(node)) return cid;
    return null;
  }
  function fold(cid) {
    const c = clusterEls[cid];
    if (folded.has(cid)) folded.delete(cid);
    else folded.add(cid);
    const isFolded = folded.has(cid);
    c.g.classList.toggle("folded", isFolded);
    const ops = c.members.length;
    if (c.label) c.label.textContent = isFolded ? `▸ ${c.path.split("/").pop()} (${ops} nodes)` : `▾ ${c.path.split("/").pop()}`;
    const hidden = new Set();
    for (const f of folded) for (const m of clusterEls[f].members) hidden.add(m);
    for (const [id, n] of Object.entries(nodes)) n.g.style.display = hidden.has(id) ? "none" : "";
    for (const g of Object.values(edges)) {
      const [src, dst] = g.querySelector("title").textContent.split("->");
      g.style.display = hidden.has(src) && hidden.has(dst) ? "none" : "";
    }
    show(current);
  }

  // ---- one frame -----------------------------------------------------------------------------------
  let current = 0;
  let marked = [];
  function mark(e, cls) {
    e.classList.add(cls);
    marked.push([e, cls]);
  }
  function label(edgeId, text, cls) {
    const at = data.anchors[edgeId];
    if (!at || !text) return;
    const t = document.createElementNS(SVGNS, "text");
    t.setAttribute("x", at[0]);
    t.setAttribute("y", at[1] - 4);
    t.setAttribute("class", `tv-edge-label ${cls}`);
    t.setAttribute("text-anchor", "middle");
    t.textContent = text;
    layer.appendChild(t);
    const box = t.getBBox();
    const r = document.createElementNS(SVGNS, "rect");
    r.setAttribute("x", box.x - 3);
    r.setAttribute("y", box.y - 1);
    r.setAttribute("width", box.width + 6);
    r.setAttribute("height", box.height + 2);
    r.setAttribute("rx", 3);
    r.setAttribute("class", `tv-edge-label-bg ${cls}`);
    layer.insertBefore(r, t);
  }

  function show(k) {
    k = Math.max(0, Math.min(last, k));
    current = k;
    slider.value = String(k);
    const ev = events[k];
    const st = stateAt(events, k);
    for (const [id, n] of Object.entries(nodes)) {
      for (const slot of ["value", "grad"]) {
        const want = (slot === "value" ? st.value : st.grad)[id] || "";
        if (n.shown[slot] !== want && n[slot]) {
          n[slot].textContent = want;
          n.shown[slot] = want;
        }
      }
      // touch the DOM only where the state changed: style recalculation is what a frame costs
      const flags = [
        id in st.value,
        id in st.grad && st.grad[id] !== "grad None",
        st.grad[id] === "grad None",
        st.nan.has(id),
        st.done.has(id + ":backward"),
      ];
      const key = flags.join();
      if (n.flags !== key) {
        ["fwd-done", "has-grad", "grad-none", "nan", "bwd-done"].forEach((c, i) => n.g.classList.toggle(c, flags[i]));
        n.flags = key;
      }
    }
    for (const [e, cls] of marked) e.classList.remove(cls);
    marked = [];
    layer.replaceChildren();
    if (ev.node && nodes[ev.node]) {
      mark(nodes[ev.node].g, "active");
      const cid = hiddenBy(ev.node);
      if (cid) mark(clusterEls[cid].g, "active");
    }
    for (const e of ev.edges) if (edges[e]) mark(edges[e], ev.kind === "backward" ? "active-bwd" : "active-fwd");
    for (const [e, text, cls] of ev.labels) {
      if (cls === "none" && edges[e]) mark(edges[e], "none");
      label(e, text, cls);
    }
    root.classList.toggle("tv-backward", ev.kind === "seed" || ev.kind === "backward" || ev.kind === "result");
    const where = ev.kind === "forward" || ev.kind === "backward" ? `${ev.kind}: ${data.info[ev.node].name}` : ev.kind;
    counter.textContent = `step ${k} / ${last} · ${where}`;
    panelTitle.textContent = `Step ${k} of ${last}`;
    panelText.replaceChildren(...ev.text.map((line) => h("div", line.startsWith("⚠") ? "tv-warn" : "tv-line", line)));
    if (onStep && !playing) onStep(k);
  }

  function showDetails(id) {
    const i = data.info[id];
    const st = stateAt(events, current);
    const rows = [
      ["node", i.name],
      ["kind", i.kind],
      ["op", i.op || "(input)"],
      ["shape", i.shape],
      ["dtype", i.dtype],
      ["scope", i.scope || "(none)"],
      ["value", i.value],
      ["gradient now", (st.grad[id] || "not reached yet").replace(/^grad /, "")],
      ["gradient (end)", i.grad],
    ];
    if (i.backward_of) rows.push(["recorded by", `the backward pass of ${i.backward_of}`]);
    if (i.where) rows.push(["code", i.where]);
    const table = h("table", "tv-table");
    for (const [k, v] of rows) {
      const tr = h("tr");
      tr.append(h("th", "", k), h("td", "", v));
      table.appendChild(tr);
    }
    details.replaceChildren(h("div", "tv-panel-title", "Selected node"), table);
  }

  function play() {
    if (current >= last) show(0);
    playBtn.textContent = "⏸ pause";
    const tick = () => {
      if (current >= last) return pause();
      show(current + 1);
      playing = setTimeout(tick, 900 / Number(speed.value));
    };
    playing = setTimeout(tick, 900 / Number(speed.value));
  }
  function pause() {
    if (playing) clearTimeout(playing);
    const was = playing;
    playing = null;
    playBtn.textContent = "▶ play";
    if (was && onStep) onStep(current);
  }

  show(0);
  return { show, play, pause, root, get current() { return current; }, destroy: pause };
}

function render({ model, el }) {
  let view = renderTapeView(el, model.get("scene"), (k) => {
    model.set("step", k);
    model.save_changes();
  });
  const rerender = () => {
    view.destroy();
    el.replaceChildren();
    view = renderTapeView(el, model.get("scene"), (k) => {
      model.set("step", k);
      model.save_changes();
    });
  };
  model.on("change:scene", rerender);
  return () => {
    view.destroy();
    model.off("change:scene", rerender);
  };
}

export default { render };
