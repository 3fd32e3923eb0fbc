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

// A sentence of the view's language with its blanks filled: fill("step {k} / {last}", {k: 3, last: 9}).
function fill(template, vars) {
  return template.replace(/\{(\w+)\}/g, (all, key) => (key in vars ? String(vars[key]) : all));
}

function renderTapeView(el, data, onStep, onFold, startStep = 0) {
  const events = data.events;
  const last = events.length - 1;
  const W = data.words;  // every word shown comes from the kernel's table, in the view's language
  const root = h("div", "tv");
  root.lang = data.lang || "en";
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
  speed.title = W.speed;
  speed.setAttribute("aria-label", W.speed);
  slider.setAttribute("aria-label", W.step_label);
  const counter = h("span", "tv-counter");
  counter.setAttribute("role", "status");
  let playing = null;
  const playBtn = button("▶", W.play, W.play_tip, () => (playing ? pause() : play()));
  // "follow": keep the active node and its edges on screen as the steps move on
  const followLabel = h("label", "tv-follow");
  const followBox = h("input");
  followBox.type = "checkbox";
  followBox.checked = true;
  followLabel.title = W.follow_tip;
  followLabel.append(followBox, ` ${W.follow}`);
  bar.append(
    button("↺", W.reset, W.reset_tip, () => { pause(); show(0); }),
    button("◀", W.back, W.back_tip, () => { pause(); show(current - 1); }),
    playBtn,
    button("▶", W.forward_btn, W.forward_tip, () => { pause(); show(current + 1); }, false),
    slider,
    speed,
    button("−", W.zoom_out, W.zoom_out, () => zoom(1 / 1.25)),
    button("", W.fit, W.fit_tip, () => zoom(0)),
    button("+", W.zoom_in, W.zoom_in, () => zoom(1.25)),
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
  // a clicked node's details float over the graph, in a corner where they hide neither it nor the step
  const details = h("div", "tv-details");
  details.setAttribute("role", "dialog");
  details.setAttribute("aria-label", W.selected_node);
  details.hidden = true;
  graphWrap.append(graph, details);
  const panel = h("div", "tv-panel");
  const panelTitle = h("div", "tv-panel-title");
  const panelText = h("div", "tv-panel-text");
  panelText.setAttribute("aria-live", "polite");  // each step's explanation is read out as it changes
  panel.append(panelTitle, panelText, h("div", "tv-hint", fill(W.hint, { flows: W.flows })));
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
    if (f !== 0) follow(events[current], true);  // zooming keeps the step in view
  }
  // The first look: at least natural size (Graphviz's 11 pt node text is 11 CSS px), wider to fill the box
  // when the graph is narrow; a wide graph is panned to the step instead of shrunk into the cell.
  function opening() {
    const box = graph.clientWidth || natural;
    svg.style.maxWidth = "none";
    svg.style.width = `${Math.min(Math.max(box, natural), natural * 1.6)}px`;
    svg.style.height = "auto";
  }
  svg.removeAttribute("width");
  svg.removeAttribute("height");
  opening();

  const nodes = {};
  for (const id of data.nodes) {
    const g = svg.getElementById ? svg.getElementById(`n-${id}`) : svg.querySelector(`[id="n-${id}"]`);
    if (!g) continue;
    const texts = g.querySelectorAll("text");
    // Graphviz drew the longest text each line will hold (to size the box); before any step, they are blank
    for (const t of [texts[2], texts[3]]) if (t) t.textContent = "";
    nodes[id] = { g, value: texts[2], grad: texts[3], row: [id, "", "", "", W.not_reached] };
    const i = data.info[id] || {};
    g.addEventListener("click", () => {
      // with a kernel, a folded scope's box unfolds it again: the graph is laid out anew, members back in place
      if (onFold && i.folded) onFold((data.folded || []).filter((p) => p !== i.folded));
      else showDetails(id);
    });
    // reachable by keyboard: Tab to a node, Enter shows its details
    g.setAttribute("tabindex", "0");
    g.setAttribute("role", "button");
    const what = i.folded ? fill(W.unfold_hint, { kind: i.kind }) : i.op || i.kind || "";
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

  function label(edgeId, text, cls, into = layer) {
    const at = data.anchors[edgeId];
    if (!at || !text) return null;
    const t = document.createElementNS(SVGNS, "text");
    t.setAttribute("x", at[0]);
    t.setAttribute("y", at[1] - 4);
    t.setAttribute("class", `tv-edge-label ${cls}`);
    t.setAttribute("text-anchor", "middle");
    t.textContent = text;
    const g = document.createElementNS(SVGNS, "g");
    g.appendChild(t);
    into.appendChild(g);
    const box = t.getBBox();
    const r = document.createElementNS(SVGNS, "rect");
    r.setAttribute("x", box.x - 3);
    r.setAttribute("y", box.y - 1);
    r.setAttribute("width", box.width + 6);
    r.setAttribute("height", box.height + 2);
    r.setAttribute("rx", 3);
    r.setAttribute("class", `tv-edge-label-bg ${cls}`);
    g.insertBefore(r, t);
    return g;
  }

  // Cut paths: the gradient cannot flow back along this edge; the short reason sits in the edge's label
  // slot, the whole reason is the tooltip and a row of the card of the node it leads into.
  const cutLabels = {};
  for (const [eid, [reason, short]] of Object.entries(data.cuts || {})) {
    const g = edges[eid];
    if (!g) continue;
    g.classList.add("cut");
    const [src, dst] = ends[eid];
    const tip = g.querySelector("title") || g.insertBefore(document.createElementNS(SVGNS, "title"), g.firstChild);
    tip.textContent = fill(W.cut_tip, { src, dst, reason });
    g.setAttribute("aria-label", tip.textContent);
    cutLabels[eid] = label(eid, short, "cut", cutLayer);
  }

  // Collapsible name scopes: a folded cluster hides its members and stands for them.
  const clusterEls = {};
  for (const [cid, path, members] of data.clusters) {
    const g = svg.querySelector(`[id="${cid}"]`);
    if (!g) continue;
    const text = g.querySelector("text");
    clusterEls[cid] = { g, members, path, label: text, name: text ? text.textContent : "" };
    g.addEventListener("click", () => fold(cid));
    if (text) text.textContent = `▾ ${clusterEls[cid].name}`;
    // the ▾/▸ glyph is decoration: the name and the action are in words for keyboards and screen readers
    g.setAttribute("tabindex", "0");
    g.setAttribute("role", "button");
    g.setAttribute("aria-label", fill(W.scope_aria, { path }));
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
    if (c.label) c.label.textContent = isFolded ? `▸ ${c.name} ${fill(W.folded_nodes, { n: c.members.length })}` : `▾ ${c.name}`;
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
  // The kernel computed each event's node changes (`set`) and what they replace (`undo`): a step
  // forwards applies one event's `set`, a step back its `undo`. Only the nodes that change are touched.
  function apply(rows) {
    for (const row of rows) {
      const n = nodes[row[0]];
      if (!n) continue;
      const [, value, grad, classes] = row;
      if (n.value && n.row[1] !== value) n.value.textContent = value;
      if (n.grad && n.row[2] !== grad) n.grad.textContent = grad;
      if (n.row[3] !== classes) {
        for (const c of n.row[3].split(" ")) if (c) n.g.classList.remove(c);
        for (const c of classes.split(" ")) if (c) n.g.classList.add(c);
      }
      n.row = row;
    }
  }
  let current = -1;
  let selected = null;
  let marked = [];
  let hiddenCuts = [];
  function mark(e, cls) {
    e.classList.add(cls);
    marked.push([e, cls]);
  }

  function show(k) {
    k = Math.max(0, Math.min(last, k));
    while (current < k) apply(events[++current].set);
    while (current > k) apply(events[current--].undo);
    slider.value = String(k);
    const ev = events[k];
    for (const [e, cls] of marked) e.classList.remove(cls);
    marked = [];
    for (const g of hiddenCuts) g.style.display = "";
    hiddenCuts = [];
    layer.replaceChildren();
    if (ev.node && nodes[ev.node]) {
      mark(nodes[ev.node].g, "active");
      const cid = hiddenBy(ev.node);
      if (cid) mark(clusterEls[cid].g, "active");
    }
    for (const e of ev.edges) if (edges[e]) mark(edges[e], ev.kind === "backward" ? "active-bwd" : "active-fwd");
    for (const [e, text, cls] of ev.labels) {
      if (cls === "none" && edges[e]) mark(edges[e], "none");
      if (cutLabels[e]) {  // the step's label takes the cut label's slot while it shows
        cutLabels[e].style.display = "none";
        hiddenCuts.push(cutLabels[e]);
      }
      label(e, text, cls);
    }
    root.classList.toggle("tv-backward", ev.kind === "seed" || ev.kind === "backward" || ev.kind === "result");
    counter.textContent = fill(W.counter, { k, last, where: ev.where });
    panelTitle.textContent = fill(W.panel_title, { k, last });
    panelText.replaceChildren(...ev.text.map((line, i) => h("div", ev.warn.includes(i) ? "tv-warn" : "tv-line", line)));
    if (following) follow(ev);
    if (selected) showDetails(selected, false);
    if (onStep && !playing) onStep(k);
  }

  // The step's node: its own, or for a step without one (the start, the result) the nearest that has one.
  function focusOf(k) {
    for (let d = 0; d <= last; d++) {
      for (const i of [k + d, k - d]) if (i >= 0 && i <= last && events[i].node && nodes[events[i].node]) return events[i];
    }
    return null;
  }
  // Pan the graph box (never the page) so `g` sits in the middle of what it shows, where it is not in view.
  function pan(g, always = false) {
    const box = g.getBoundingClientRect();
    const area = graph.getBoundingClientRect();
    const inside = box.left >= area.left && box.right <= area.right && box.top >= area.top && box.bottom <= area.bottom;
    if (inside && !always) return;
    graph.scrollLeft += box.left + box.width / 2 - (area.left + area.width / 2);
    graph.scrollTop += box.top + box.height / 2 - (area.top + area.height / 2);
  }
  // Scroll (the graph box, and the page around it) so the active edges and then the active node are in view.
  let following = false;
  function follow(ev, boxOnly = false) {
    if (!followBox.checked) return;
    const at = ev && ev.node ? ev : focusOf(current);
    if (!at) return;
    const cid = hiddenBy(at.node);
    const g = cid ? clusterEls[cid].g : nodes[at.node]?.g;
    if (!g) return;
    if (boxOnly) return pan(g);
    const targets = at.edges.map((e) => edges[e]).filter((e) => e && e.style.display !== "none");
    for (const t of [...targets, g]) t.scrollIntoView({ block: "nearest", inline: "nearest" });
  }

  function showDetails(id, reveal = true) {
    const i = data.info[id];
    if (!i) return;
    if (selected && nodes[selected]) nodes[selected].g.classList.remove("selected");
    selected = id;
    if (nodes[id]) nodes[id].g.classList.add("selected");
    const rows = [
      [W.row_node, i.name],
      [W.row_kind, i.kind],
      [W.row_op, i.op || W.input],
      [W.row_shape, i.shape],
      [W.row_dtype, i.dtype],
      [W.row_scope, i.scope || W.none_scope],
      [W.row_value, i.value],
      [fill(W.row_now, { flows: W.flows }), nodes[id] ? nodes[id].row[4] : W.not_reached],
      [fill(W.row_end, { flows: W.flows }), i.grad],
    ];
    if (i.cuts) rows.push([W.row_cut, i.cuts]);
    if (i.backward_of) rows.push([W.row_recorded_by, i.backward_of]);
    if (i.uses) rows.push([W.row_uses, i.uses]);
    if (i.where) rows.push([W.row_code, i.where]);
    if (id === data.first_nan) rows.unshift([W.row_nan, W.nan_card]);
    const table = h("table", "tv-table");
    for (const [k, v] of rows) {
      const tr = h("tr");
      tr.append(h("th", "", k), h("td", "", v));
      table.appendChild(tr);
    }
    const close = button("×", W.close, W.close_tip, () => {
      details.hidden = true;
      if (selected && nodes[selected]) nodes[selected].g.classList.remove("selected");
      selected = null;
    });
    details.replaceChildren(h("div", "tv-panel-title", fill(W.selected, { name: i.name })), close, table);
    details.hidden = false;
    place(id, reveal);
  }

  // Put the details card in a corner of the graph box where it covers neither the selected node nor the
  // step's node (nor, where it can, the step's edges); if no corner is free, slide the graph away from the
  // card and try again; if still none, dock the card beside the graph, above the step's explanation.
  function overlaps(a, b, margin = 0) {  // a margin for the strokes and shadow drawn around a node's box
    return Math.min(a.right, b.right + margin) > Math.max(a.left, b.left - margin)
      && Math.min(a.bottom, b.bottom + margin) > Math.max(a.top, b.top - margin);
  }
  const CORNERS = [[false, false], [true, false], [false, true], [true, true]];  // [left, low]
  function guarded(withEdges) {
    const ev = events[current];
    const out = [nodes[selected]?.g];
    if (ev.node) out.push(nodes[ev.node]?.g || clusterEls[hiddenBy(ev.node)]?.g);
    if (withEdges) for (const e of ev.edges) out.push(edges[e]);
    return out.filter((g) => g && g.style.display !== "none");
  }
  function corner(keep) {
    // a node's box without its stroke and shadow, which grow with the zoom (a selected node's reach 10 units)
    const margin = 10 * ((svg.getBoundingClientRect().width || natural) / natural) + 4;
    for (const [left, low] of CORNERS) {
      details.classList.toggle("tv-left", left);
      details.classList.toggle("tv-low", low);
      const card = details.getBoundingClientRect();
      if (!keep.some((g) => overlaps(card, g.getBoundingClientRect(), margin))) return true;
    }
    return false;
  }
  function dock(on) {
    details.classList.toggle("tv-docked", on);
    if (on && details.parentNode !== panel) panel.prepend(details);
    if (!on && details.parentNode !== graphWrap) graphWrap.append(details);
  }
  function slide(keep) {
    details.classList.remove("tv-left", "tv-low");
    const card = details.getBoundingClientRect();
    const rightmost = Math.max(...keep.map((k) => k.getBoundingClientRect().right));
    graph.scrollLeft += rightmost - (card.left - 16);
  }
  function place(id, reveal) {
    const g = nodes[id]?.g;
    if (g && reveal) pan(g);
    dock(false);
    const keep = guarded(false);
    if (!(corner(guarded(true)) || corner(keep))) {
      if (reveal && keep.length) slide(keep);
      if (!corner(keep)) dock(true);
    }
    if (reveal) details.scrollIntoView({ block: "nearest", inline: "nearest" });
  }

  function play() {
    if (current >= last) show(0);
    setLabel(playBtn, "❚❚", W.pause);
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
    setLabel(playBtn, "▶", W.play);
    if (was && onStep) onStep(current);
  }

  show(Math.min(startStep, last));
  follow(events[current], true);  // the first frame pans the graph box to the step, never the page
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
