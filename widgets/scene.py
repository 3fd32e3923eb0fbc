"""From the step model to what is drawn: DOT source, per-step text updates, and the data the browser animates.

The browser replays `updates` up to the current step to know what each node shows,
so a frame change needs no kernel round trip; `export.to_svg` replays the same
updates in Python, so a static picture of step k matches the animation's frame k.
"""

from __future__ import annotations

import math
import re
from typing import Any

import numpy as np

from .layout import aspect, edge_anchors, layout
from .layout import without_slot_text as _without_slot_text
from .plan import Plan, drawn_nodes, make_plan, members, scope_tree, walk
from .steps import Node, StepModel, _name, fmt
from .summary import describe

# Courier: Graphviz's built-in metrics (all a build without system fonts has, like the WebAssembly one) know
# it, and every monospace font a system Graphviz or a browser picks for it is 0.6 em a character wide, so
# Graphviz 2.43 with Pango and 16.x without size node text alike (Helvetica becomes DejaVu Sans, 13 % wider)
FONT = "Courier"
STYLE = {
    "variable": 'shape=ellipse style="filled,bold" fillcolor="#cfe3ff" color="#1f5fbf"',
    "watched": 'shape=ellipse style="filled" fillcolor="#d6f5d6" color="#2e8b57"',
    "constant": 'shape=ellipse style="filled,dashed" fillcolor="#eeeeee" color="#9a9a9a" fontcolor="#6b6b6b"',
    "op": 'shape=box style="rounded,filled" fillcolor="#ffffff" color="#444444"',
    "gradop": 'shape=box style="rounded,filled,dashed" fillcolor="#f1e6ff" color="#7b3fbf"',
    "group": 'shape=box3d style="filled" fillcolor="#dfe6f5" color="#556677" fontsize=13',
}
SLOT_FONT_SIZE = 13  # the reserved label slot is sized in this font, a little larger than the drawn 12px label
PROGRESS_NODES = 400  # from this many drawn nodes on, say that Graphviz is working (it may take seconds)


def dot_escape(text: str) -> str:
    """Quote user text for a DOT label: backslash, quote and entity escapes, one line."""
    text = text.replace("\\", "\\\\").replace('"', '\\"').replace("&", "&amp;")
    return re.sub(r"[\r\n\t]", " ", text)


def short(value: np.ndarray | None) -> str:
    """The text inside a node: the numbers for small tensors, the range for large ones."""
    if value is None:
        return "None"
    a = np.asarray(value)
    if a.size <= 4:
        return small_text(a)
    text = fmt(a)
    m = re.search(r"in (\[.*?\])", text)
    return (m.group(1) if m else text.split(" ")[0]) + (" NaN!" if "NaN" in text else "")


def small_text(a: np.ndarray) -> str:
    """`steps.fmt` of a tensor of at most 4 numbers, without numpy's array printer (thousands of nodes add up)."""
    if a.ndim > 1 or a.dtype.kind not in "biuf":
        return fmt(a)
    numbers = [_number(x) for x in a.reshape(-1).tolist()]
    return numbers[0] if a.ndim == 0 else "[" + ", ".join(numbers) + "]"


def _number(x: float | int | bool) -> str:
    if isinstance(x, (bool, int)):
        return str(x)
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return f"{x + 0.0:.4g}"  # as steps.fmt: no "-0"


def shape_text(node: Node) -> str:
    shape = "scalar" if node.shape == () else "×".join(str(d) for d in node.shape)
    return f"{shape} {node.dtype}".strip()


def title_text(node: Node) -> str:
    if node.kind in ("watched", "constant"):
        return node.label if node.label != node.kind else f"{node.kind} {node.id}"  # e.g. "target (not recorded)"
    if node.kind == "gradop":
        origin = "gradient sum" if node.backward_of == "sum" else f"from ∂{node.backward_of}"
        return f"{node.label} ({origin})"
    return node.label


def node_updates(model: StepModel) -> list:
    """Per event: [node id, "value" | "grad", text] to apply when the animation reaches it."""
    out = []
    shapes = {n.id: n.shape for n in model.nodes}
    gets_grad = {c.to for e in model.events for c in e.contributions if c.grad is not None}
    for event in model.events:
        sets = []
        if event.kind == "start":
            sets = [[n.id, "value", "value " + short(n.value)] for n in model.nodes if n.record is None]
            sets += [[n, "grad", "tangent " + short(t)] for n, t in model.tangents.items()]  # forward mode
        elif event.kind == "forward":
            sets = [[event.node, "value", "value " + short(event.value) if event.value is not None else "value ?"]]
            if event.tangent is not None:
                sets.append([event.node, "grad", "tangent " + short(event.tangent)])
        elif event.kind == "seed":
            sets = [[n, "grad", "grad " + short(np.ones(shapes[n]))] for n in model.target]
        elif event.kind == "backward":
            for c in event.contributions:
                if c.grad is not None:
                    sets.append([c.to, "grad", "grad " + short(c.total)])
                elif c.to not in gets_grad:
                    sets.append([c.to, "grad", "grad None"])
        elif event.kind == "result":
            sets = [[n, "grad", "grad None"] for n, g in model.gradients.items() if g is None and n in shapes]
        out.append(sets)
    return out


def edge_labels(model: StepModel) -> list:
    """Per event: [edge id, text, css class] drawn on the active edges."""
    out = []
    for event in model.events:
        labels = []
        if event.kind == "forward":
            labels = [[e, "", "fwd"] for e in event.edges]
        for c in event.contributions:
            if c.grad is None:
                labels.append([c.edge, "None", "none"])
            else:
                m = re.match(r"(\S+) × \(.* = (\S+)\)$", c.local)
                text = f"{m.group(1)} × {m.group(2)} = {short(c.grad)}" if m else f"→ {short(c.grad)}"
                labels.append([c.edge, text, "bwd"])
        out.append(labels)
    return out


def _longest(texts: list, default: str) -> str:
    return max(texts, key=len) if texts else default


def _label_slots(model: StepModel, drawing: Plan) -> dict:
    """Drawn edge id -> the longest step label it will carry: Graphviz keeps that much room free beside it."""
    slots: dict[str, str] = {}
    for labels in edge_labels(model):
        for edge, text, _ in labels:
            drawn = drawing.edge_of.get(edge)
            if drawn and text and len(text) > len(slots.get(drawn, "")):
                slots[drawn] = text
    return slots


def dot_source(
    model: StepModel, updates: list, rankdir: str = "LR", collapse: Any = None, drawing: Plan | None = None
) -> str:
    """The DOT graph: one cluster per name scope, labels sized for the longest text they will show.

    Each edge that a step labels gets an invisible Graphviz label of that size, so `dot` places it in free
    space beside the edge, never on a node; `scene` reads the spot back (`edge_anchors`) and removes it.
    """
    drawing = drawing or make_plan(model, collapse)
    by_id = {n.id: n for n in model.nodes}
    folded_paths = {name: gid for gid, (name, _, kind) in drawing.groups.items() if kind == "scope"}
    per_node: dict[str, dict[str, list]] = {n.id: {"value": [], "grad": []} for n in model.nodes}
    for sets in updates:
        for node_id, slot, text in sets:
            per_node[node_id][slot].append(text)
    lines = [
        "digraph tape {",
        f'  graph [rankdir={rankdir} nodesep=0.25 ranksep=0.45 fontname="{FONT}" fontsize=12 '
        'style="rounded" color="#8899aa" bgcolor="transparent"];',
        f'  node [fontname="{FONT}" fontsize=11 margin="0.12,0.05"];',
        f'  edge [color="#7a7a7a" arrowsize=0.7 fontname="{FONT}" fontsize={SLOT_FONT_SIZE}];',
    ]

    def emit_node(n: Any, indent: str) -> None:
        texts = per_node[n.id]
        label = "\\n".join(
            dot_escape(t)
            for t in (
                title_text(n) + ("  ◎ target" if n.is_target else ""),
                shape_text(n),
                _longest(texts["value"], "value ?"),
                _longest(texts["grad"], "grad None"),
            )
        )
        extra = " peripheries=2" if n.is_target else ""
        lines.append(f'{indent}{n.id} [id="n-{n.id}" class="{n.kind}" label="{label}" {STYLE[n.kind]}{extra}];')
        emit_copies(n.id, indent)

    copies_into: dict[str, list] = {}
    for copy in drawing.copies:
        copies_into.setdefault(copy[3], []).append(copy)

    def emit_copies(dst: str, indent: str) -> None:
        """A much-used leaf's copies sit with the op they feed (inside its scope's cluster)."""
        for copy_id, leaf, k, _ in copies_into.get(dst, []):
            n = by_id[leaf]
            name = dot_escape(_name(n) if n.kind == "variable" else title_text(n))
            label = f"{name}\\nuse {k} of {drawing.copied[leaf]}"
            lines.append(
                f'{indent}"{copy_id}" [id="n-{copy_id}" class="{n.kind} use-copy" label="{label}" {STYLE[n.kind]}];'
            )

    def emit_group(gid: str, indent: str) -> None:
        name, ids, kind = drawing.groups[gid]
        if kind == "scope":
            label = f"▸ {dot_escape(name.split('/')[-1])}\\n{len(ids)} nodes folded"
        else:
            ops = sorted({by_id[m].label for m in ids if by_id[m].record is not None})
            # two lines: both front ends write a node's value and gradient into its third and fourth lines
            label = f"▸ {len(ids)} nodes folded: {dot_escape(_few(ops))}\\n{dot_escape(name)}"
        lines.append(f'{indent}{gid} [id="n-{gid}" class="group" label="{label}" {STYLE["group"]}];')
        emit_copies(gid, indent)

    def emit(branch: dict, indent: str, path: str, counter: list) -> None:
        for n in branch.get(None, []):
            emit_node(n, indent)
        for name, sub in branch.items():
            if name is None:
                continue
            full = f"{path}/{name}" if path else name
            if full in folded_paths:
                emit_group(folded_paths[full], indent)
                continue
            k = counter[0]
            counter[0] += 1
            lines.append(f"{indent}subgraph cluster_{k} {{")
            lines.append(f'{indent}  id="c-{k}"; label="{dot_escape(name)}";')
            emit(sub, indent + "  ", full, counter)
            lines.append(f"{indent}}}")

    if drawing.scopes:
        emit(scope_tree(model), "  ", "", [0])
    else:
        for n in model.nodes:
            if n.id not in drawing.owner:
                emit_node(n, "  ")
        for gid in drawing.groups:
            emit_group(gid, "  ")
    slots = _label_slots(model, drawing)
    cuts = {e.id: e.cut for e in model.edges if getattr(e, "cut", "")}  # why a gradient cannot flow back here
    copy_ids = {copy[0] for copy in drawing.copies}
    for edge_id, src, dst in drawing.edges:
        slot = f' label="{"0" * (len(slots[edge_id]) + 2)}" fontcolor=transparent' if edge_id in slots else ""
        straight = " weight=3" if copy_ids and src not in copy_ids else ""  # the data path straight, copies beside
        cut = ' style=dashed color="#8a5a00"' if cuts.get(edge_id) else ""  # the viewer adds the reason
        lines.append(f'  {_q(src)} -> {_q(dst)} [id="e-{edge_id}"{slot}{straight}{cut}];')
    lines.append("}")
    return "\n".join(lines)


def _q(node_id: str) -> str:
    return f'"{node_id}"' if "-" in node_id else node_id


def _few(names: list, limit: int = 3) -> str:
    return ", ".join(names[:limit]) + (f" +{len(names) - limit}" if len(names) > limit else "")


def clusters(model: StepModel, collapse: Any = None, drawing: Plan | None = None) -> list:
    """[cluster id, scope path, member node ids] of the clusters drawn, numbered as `dot_source` numbers them."""
    drawing = drawing or make_plan(model, collapse)
    if not drawing.scopes:
        return []
    folded = {name for name, _, kind in drawing.groups.values() if kind == "scope"}
    out = []
    for path, _, branch, is_folded in walk(scope_tree(model), folded):
        if not is_folded:
            out.append([f"c-{len(out)}", path, members(branch)])
    return out


def node_info(model: StepModel) -> dict:
    """What clicking a node shows: shape, dtype, op, scope, where, full value and final gradient (or tangent)."""
    info = {}
    grads = {k: v for k, v in model.gradients.items()}
    totals: dict[str, Any] = dict(model.tangents)  # forward mode: each node's tangent is its final number
    for event in model.events:
        if event.tangent is not None:
            totals[event.node] = event.tangent
    for c in (c for e in model.events for c in e.contributions):
        if c.grad is not None:
            totals[c.to] = c.total
    for n in model.nodes:
        value = "None" if n.value is None else _full(n.value)
        info[n.id] = {
            "name": _name(n),
            "kind": n.kind,
            "op": n.label if n.record is not None else "",
            "shape": "scalar" if n.shape == () else str(list(n.shape)),
            "dtype": n.dtype,
            "scope": n.scope,
            "where": n.where,
            "value": value + (f"  ({n.value_note})" if n.value_note else ""),
            "grad": _full(grads[n.id]) if grads.get(n.id) is not None else _full(totals.get(n.id)),
            "backward_of": n.backward_of or "",
            "uses": "",  # a leaf drawn once per use says so here
        }
    return info


def _full(value: Any) -> str:
    if value is None:
        return "None"
    if np.size(value) <= 4:  # numpy's printer costs ~0.1 ms a call: thousands of nodes add up
        return small_text(np.asarray(value))
    return describe(value)  # large tensors summarised: a node's details must fit beside the graph


def _guess_rankdir(model: StepModel, drawing: Plan) -> str:
    """LR or TB for a big graph without laying it out twice: its depth and width from the longest paths."""
    depth: dict[str, int] = {}
    for _, src, dst in drawing.edges:  # tape order: a source is always placed before what it feeds
        depth[dst] = max(depth.get(dst, 0), depth.get(src, 0) + 1)
    ranks = max(depth.values(), default=0) + 1
    n_drawn = drawn_nodes(model, drawing)
    width = max(1.0, n_drawn / ranks)
    wide = (ranks * 2.1) / (width * 1.1)  # LR: ranks side by side; a node about 1.6 x 0.8 in plus the gaps
    tall = (width * 1.9) / (ranks * 1.3)
    return "LR" if abs(math.log(wide / 1.6)) <= abs(math.log(tall / 1.6)) else "TB"


def scene(model: StepModel, rankdir: str = "auto", collapse: Any = None) -> dict:
    """Everything the browser needs, as plain JSON: the laid-out SVG and the steps.

    rankdir "auto" lays the graph out left to right, unless that makes it so wide that the text
    would be tiny on a screen: then top to bottom, whichever shape is closer to a 16:10 screen.
    `collapse` draws whole name scopes as one box each (see `plan.make_plan`); their steps light the box.
    Left as None, a big tape folds by itself, and `notice` says so (empty otherwise).
    """
    drawing = make_plan(model, collapse)
    owner = drawing.owner
    updates = node_updates(model)
    n_drawn = drawn_nodes(model, drawing)
    big = n_drawn >= PROGRESS_NODES
    if big:
        print(f"TapeView: laying out {n_drawn:,} nodes with Graphviz…", flush=True)  # dot can take seconds
    if rankdir == "auto" and big:
        rankdir = _guess_rankdir(model, drawing)
    chosen = "LR" if rankdir == "auto" else rankdir
    svg = layout(dot_source(model, updates, chosen, drawing=drawing))
    if rankdir == "auto" and aspect(svg) > 2.5:
        tall = layout(dot_source(model, updates, "TB", drawing=drawing))
        if abs(math.log(aspect(tall) / 1.6)) < abs(math.log(aspect(svg) / 1.6)):
            svg, chosen = tall, "TB"
    anchors = edge_anchors(svg)
    svg = _without_slot_text(svg)
    by_id = {n.id: n for n in model.nodes}
    info = node_info(model)
    for gid, (name, ids, kind) in drawing.groups.items():
        info[gid] = {key: "" for key in info[ids[0]]} | {
            "name": name,
            "kind": "folded scope" if kind == "scope" else "folded run of ops",
            "op": ", ".join(sorted({by_id[m].label for m in ids})),
            "scope": name if kind == "scope" else "",
        }
    for leaf, count in drawing.copied.items():
        info[leaf]["uses"] = f"drawn once per use: {count} copies ({leaf}-use1 to {leaf}-use{count})"
    events = []
    for e, sets, labels in zip(model.events, updates, edge_labels(model)):
        edges = list(dict.fromkeys(drawing.edge_of[x] for x in e.edges if x in drawing.edge_of))
        events.append(
            {
                "kind": e.kind,
                "node": owner.get(e.node, e.node),
                "edges": edges,
                "text": list(e.text),
                "nonfinite": e.nonfinite,
                "set": [s for s in sets if s[0] not in owner],
                "labels": [[drawing.edge_of[x], text, cls] for x, text, cls in labels if x in drawing.edge_of],
            }
        )
    return {
        "svg": svg,
        "nodes": [n.id for n in model.nodes if n.id not in owner] + list(drawing.groups),
        "info": info,
        "clusters": clusters(model, drawing=drawing),
        "anchors": anchors,
        "events": events,
        "rankdir": chosen,  # the direction drawn: a static PNG of the view is laid out the same way
        # why a gradient path is cut (numpy escape, int dtype, stop_gradient, ...): drawn dashed with the reason
        "cuts": {e.id: e.cut for e in model.edges if getattr(e, "cut", "")},
        "notice": drawing.notice,
        "folded": [name for name, _, kind in drawing.groups.values() if kind == "scope"],  # for unfolding
        "flows": "tangent" if model.mode == "forward" else "gradient",  # what the details card calls it
    }
