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

// A button whose glyph is decoration: the word beside it is the label, so a font without the glyph
// (or a screen reader) still says what it does.
function button(glyph, word, title, onClick, glyphFirst = true) {
  const b = h("button", "tv-btn");
  b.type = "button";
  b.title = title;
  b.setAttribute("aria-label", title);
  setLabel(b, glyph, word, glyphFirst);
  b.addEventListener("click", onClick);
  return b;
}

function setLabel(b, glyph, word, glyphFirst = true) {
  const g = h("span", "tv-glyph", glyph);
  g.setAttribute("aria-hidden", "true");
  const w = h("span", "tv-word", word);
  b.replaceChildren(...(glyph ? (glyphFirst ? [g, " ", w] : [w, " ", g]) : [w]));
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

// The step of each node's last gradient contribution: before it, the node's gradient is a partial sum.
function lastContribution(events) {
  const last = {};
  events.forEach((ev, i) => {
    for (const [node, slot, text] of ev.set) if (slot === "grad" && text !== "grad None") last[node] = i;
  });
  return last;
}

// The first op whose output is NaN or inf: where a student should look first.
function firstNonfinite(events) {
  const ev = events.find((e) => e.nonfinite && e.node);
  return ev ? ev.node : null;
}

function renderTapeView(el, data, onStep, onFold, startStep = 0) {
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
  speed.setAttribute("aria-label", "speed");
  slider.setAttribute("aria-label", "step");
  const counter = h("span", "tv-counter");
  counter.setAttribute("role", "status");
  let playing = null;
  const playBtn = button("▶", "play", "play / pause", () => (playing ? pause() : play()));
  // "follow": keep the active node and its edges on screen as the steps move on
  const followLabel = h("label", "tv-follow");
  const followBox = h("input");
  followBox.type = "checkbox";
  followBox.checked = true;
  followLabel.title = "scroll the graph so the active node stays in view";
  followLabel.append(followBox, " follow");
  bar.append(
    button("↺", "reset", "back to the start", () => { pause(); show(0); }),
    button("◀", "step", "one step back", () => { pause(); show(current - 1); }),
    playBtn,
    button("▶", "step", "one step forward", () => { pause(); show(current + 1); }, false),
    slider,
    speed,
    button("−", "zoom out", "zoom out", () => zoom(1 / 1.25)),
    button("", "fit", "fit the width", () => zoom(0)),
    button("+", "zoom in", "zoom in", () => zoom(1.25)),
    followLabel,
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
    const node = e.target.closest ? e.target.closest("g.node") : null;
    if (node && (e.key === "Enter" || e.key === " ")) {
      e.preventDefault();
      node.dispatchEvent(new Event("click"));  // what a click does: details, or unfold a folded scope
      return;
    }
    if (e.target.id in clusterEls && (e.key === "Enter" || e.key === " ")) {
      e.preventDefault();
      fold(e.target.id);
      return;
    }
    if (!(e.key in keys) || e.target.tagName === "SELECT" || e.target.tagName === "INPUT") return;
    e.preventDefault();
    if (e.key !== " ") pause();
    keys[e.key]();
  });

  // ---- graph and panel -----------------------------------------------------------------------------
  const main = h("div", "tv-main");
  const graphWrap = h("div", "tv-graph-wrap");
  const graph = h("div", "tv-graph");
  // a clicked node's details float over the graph, on the side away from the node: never below the fold
  const details = h("div", "tv-details");
  details.setAttribute("role", "dialog");
  details.setAttribute("aria-label", "selected node");
  details.hidden = true;
  graphWrap.append(graph, details);
  const panel = h("div", "tv-panel");
  const panelTitle = h("div", "tv-panel-title");
  const panelText = h("div", "tv-panel-text");
  panelText.setAttribute("aria-live", "polite");  // each step's explanation is read out as it changes
  panel.append(panelTitle, panelText, h("div", "tv-hint", `Click a node (or Tab to it and press Enter) to see its value, ${data.flows || "gradient"}, shape, dtype and op.`));
  main.append(graphWrap, panel);
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
    g.addEventListener("click", () => {
      // with a kernel, a folded scope's box unfolds it again: the graph is laid out anew, members back in place
      if (onFold && (data.info[id] || {}).kind === "folded scope") {
        onFold((data.folded || []).filter((p) => p !== data.info[id].name));
      } else showDetails(id);
    });
    // reachable by keyboard: Tab to a node, Enter shows its details
    g.setAttribute("tabindex", "0");
    g.setAttribute("role", "button");
    const i = data.info[id] || {};
    const what = (i.kind || "").startsWith("folded") ? `${i.kind}, press Enter to unfold` : i.op || i.kind || "";
    g.setAttribute("aria-label", `${i.name || id}: ${what}`);
  }
  const edges = {};
  const ends = {};
  for (const g of svg.querySelectorAll("g.edge")) {
    edges[g.id.slice(2)] = g;
    ends[g.id.slice(2)] = (g.querySelector("title")?.textContent || "").split("->");
  }
  // Step labels sit under the nodes and let clicks through: they never hide a node's text or swallow a click.
  const graphG = svg.querySelector("g.graph");
  const layer = document.createElementNS(SVGNS, "g");
  layer.setAttribute("class", "tv-labels");
  const cutLayer = document.createElementNS(SVGNS, "g");
  cutLayer.setAttribute("class", "tv-labels tv-cut-labels");
  graphG.append(cutLayer, layer);
  for (const n of Object.values(nodes)) graphG.appendChild(n.g);
  // Cut paths: the gradient cannot flow back along this edge; the reason is the tooltip and a label.
  const cuts = data.cuts || {};
  for (const [eid, reason] of Object.entries(cuts)) {
    const g = edges[eid];
    if (!g) continue;
    g.classList.add("cut");
    const [src, dst] = ends[eid];
    const tip = g.querySelector("title") || g.insertBefore(document.createElementNS(SVGNS, "title"), g.firstChild);
    tip.textContent = `${src} → ${dst}: gradient path cut: ${reason}`;
    g.setAttribute("aria-label", tip.textContent);
    const short = reason.length > 40 ? reason.slice(0, 39) + "…" : reason;
    label(eid, `cut: ${short}`, "cut", cutLayer, 14);
  }

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
    // the ▾/▸ glyph is decoration: the name and the action are in words for keyboards and screen readers
    g.setAttribute("tabindex", "0");
    g.setAttribute("role", "button");
    g.setAttribute("aria-label", `name scope ${path}: fold or unfold`);
  }
  const folded = new Set();
  function hiddenBy(node) {
    for (const cid of folded) if (clusterEls[cid].members.includes(node)) return cid;
    return null;
  }
  function fold(cid) {
    const c = clusterEls[cid];
    if (onFold) {  // with a kernel, the scope is laid out again as one small box (a saved page hides in place)
      onFold([...(data.folded || []), c.path]);
      return;
    }
    if (folded.has(cid)) folded.delete(cid);
    else folded.add(cid);
    const isFolded = folded.has(cid);
    c.g.classList.toggle("folded", isFolded);
    const ops = c.members.length;
    if (c.label) c.label.textContent = isFolded ? `▸ ${c.path.split("/").pop()} (${ops} nodes)` : `▾ ${c.path.split("/").pop()}`;
    const hidden = new Set();
    for (const f of folded) for (const m of clusterEls[f].members) hidden.add(m);
    for (const [id, n] of Object.entries(nodes)) n.g.style.display = hidden.has(id) ? "none" : "";
    for (const [eid, g] of Object.entries(edges)) {
      const [src, dst] = ends[eid];
      g.style.display = hidden.has(src) && hidden.has(dst) ? "none" : "";
    }
    show(current);
  }

  // ---- one frame -----------------------------------------------------------------------------------
  const lastGrad = lastContribution(events);
  const firstNan = firstNonfinite(events);
  let current = 0;
  let selected = null;
  let marked = [];
  function mark(e, cls) {
    e.classList.add(cls);
    marked.push([e, cls]);
  }
  function label(edgeId, text, cls, into = layer, dy = -4) {
    const at = data.anchors[edgeId];
    if (!at || !text) return;
    const t = document.createElementNS(SVGNS, "text");
    t.setAttribute("x", at[0]);
    t.setAttribute("y", at[1] + dy);
    t.setAttribute("class", `tv-edge-label ${cls}`);
    t.setAttribute("text-anchor", "middle");
    t.textContent = text;
    into.appendChild(t);
    const box = t.getBBox();
    const r = document.createElementNS(SVGNS, "rect");
    r.setAttribute("x", box.x - 3);
    r.setAttribute("y", box.y - 1);
    r.setAttribute("width", box.width + 6);
    r.setAttribute("height", box.height + 2);
    r.setAttribute("rx", 3);
    r.setAttribute("class", `tv-edge-label-bg ${cls}`);
    into.insertBefore(r, t);
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
      const partial = id in st.grad && st.grad[id] !== "grad None" && lastGrad[id] > k;
      if (partial && n.grad && n.shown.grad === st.grad[id]) {
        n.grad.textContent = `${st.grad[id]} …`;  // a running sum: more contributions are still to come
        n.shown.grad = n.grad.textContent;
      }
      const flags = [
        id in st.value,
        id in st.grad && st.grad[id] !== "grad None",
        st.grad[id] === "grad None",
        st.nan.has(id),
        st.nan.has(id) && id === firstNan,
        st.done.has(id + ":backward"),
        partial,
      ];
      const key = flags.join();
      if (n.flags !== key) {
        ["fwd-done", "has-grad", "grad-none", "nan", "nan-first", "bwd-done", "grad-partial"].forEach((c, i) =>
          n.g.classList.toggle(c, flags[i]),
        );
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
    if (selected) showDetails(selected, false);
    if (following) follow(ev);
    if (onStep && !playing) onStep(k);
  }

  // Scroll (the graph box, and the page around it) so the active edges and then the active node are in view.
  let following = false;
  function follow(ev) {
    if (!followBox.checked || !ev.node) return;
    const targets = ev.edges.map((e) => edges[e]).filter((g) => g && g.style.display !== "none");
    const cid = hiddenBy(ev.node);
    targets.push(cid ? clusterEls[cid].g : nodes[ev.node]?.g);
    for (const t of targets) if (t) t.scrollIntoView({ block: "nearest", inline: "nearest" });
  }

  function showDetails(id, reveal = true) {
    const i = data.info[id];
    if (!i) return;
    if (selected && nodes[selected]) nodes[selected].g.classList.remove("selected");
    selected = id;
    if (nodes[id]) nodes[id].g.classList.add("selected");
    const st = stateAt(events, current);
    const flows = data.flows || "gradient"; // forward mode carries tangents, not gradients
    let now = (st.grad[id] || "not reached yet").replace(/^(grad|tangent) /, "");
    if (lastGrad[id] > current && id in st.grad) now += "  (partial sum: more contributions to come)";
    const rows = [
      ["node", i.name],
      ["kind", i.kind],
      ["op", i.op || "(input)"],
      ["shape", i.shape],
      ["dtype", i.dtype],
      ["scope", i.scope || "(none)"],
      ["value", i.value],
      [`${flows} now`, now],
      [`${flows} (end)`, i.grad],
    ];
    if (i.backward_of) rows.push(["recorded by", `the backward pass of ${i.backward_of}`]);
    if (i.where) rows.push(["code", i.where]);
    if (id === firstNan) rows.unshift(["⚠ NaN/inf", "the first op whose output is not finite: look here first"]);
    const table = h("table", "tv-table");
    for (const [k, v] of rows) {
      const tr = h("tr");
      tr.append(h("th", "", k), h("td", "", v));
      table.appendChild(tr);
    }
    const close = button("×", "close", "close the details", () => {
      details.hidden = true;
      if (selected && nodes[selected]) nodes[selected].g.classList.remove("selected");
      selected = null;
    });
    details.replaceChildren(h("div", "tv-panel-title", `Selected: ${i.name}`), close, table);
    details.hidden = false;
    if (reveal) place(id);
  }

  // Put the details card beside the node, on the side with more room, and scroll the graph so the
  // card does not hide the node; then bring both into view.
  function overlaps(a, b) {
    return Math.min(a.right, b.right) > Math.max(a.left, b.left) && Math.min(a.bottom, b.bottom) > Math.max(a.top, b.top);
  }
  function place(id) {
    const g = nodes[id]?.g;
    if (!g) return;
    g.scrollIntoView({ block: "nearest", inline: "nearest" });
    const box = g.getBoundingClientRect();
    const area = graph.getBoundingClientRect();
    const left = box.left - area.left > area.right - box.right;
    details.classList.remove("tv-low");
    details.classList.toggle("tv-left", left);
    let card = details.getBoundingClientRect();
    if (overlaps(card, box)) graph.scrollLeft += left ? box.left - card.right - 16 : box.right - card.left + 16;
    const after = g.getBoundingClientRect();
    card = details.getBoundingClientRect();
    // still under the card (the graph cannot scroll further): move the card to the other half, vertically
    if (overlaps(card, after)) details.classList.add("tv-low");
    if (overlaps(details.getBoundingClientRect(), after)) details.classList.remove("tv-low");
    details.scrollIntoView({ block: "nearest", inline: "nearest" });
  }

  function play() {
    if (current >= last) show(0);
    setLabel(playBtn, "❚❚", "pause");
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
    setLabel(playBtn, "▶", "play");
    if (was && onStep) onStep(current);
  }

  show(Math.min(startStep, last));
  following = true;  // from now on a step change may scroll: the first frame must not move the page
  return { show, play, pause, root, get current() { return current; }, destroy: pause };
}

function render({ model, el }) {
  const onStep = (k) => {
    model.set("step", k);
    model.save_changes();
  };
  const onFold = (paths) => {  // the kernel lays the graph out again with these scopes folded
    model.set("folded", paths);
    model.save_changes();
  };
  let view = renderTapeView(el, model.get("scene"), onStep, onFold, model.get("step"));
  const rerender = () => {
    const at = view.current;
    view.destroy();
    el.replaceChildren();
    view = renderTapeView(el, model.get("scene"), onStep, onFold, at);
  };
  model.on("change:scene", rerender);
  return () => {
    view.destroy();
    model.off("change:scene", rerender);
  };
}

export default { render };
