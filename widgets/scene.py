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

from .layout import layout
from .steps import Node, StepModel, _name, fmt
from .summary import describe

FONT = "Helvetica,Arial,sans-serif"
STYLE = {
    "variable": 'shape=ellipse style="filled,bold" fillcolor="#cfe3ff" color="#1f5fbf"',
    "watched": 'shape=ellipse style="filled" fillcolor="#d6f5d6" color="#2e8b57"',
    "constant": 'shape=ellipse style="filled,dashed" fillcolor="#eeeeee" color="#9a9a9a" fontcolor="#6b6b6b"',
    "op": 'shape=box style="rounded,filled" fillcolor="#ffffff" color="#444444"',
    "gradop": 'shape=box style="rounded,filled,dashed" fillcolor="#f1e6ff" color="#7b3fbf"',
    "group": 'shape=box3d style="filled" fillcolor="#dfe6f5" color="#556677" fontsize=13',
}


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
        return fmt(a)
    text = fmt(a)
    m = re.search(r"in (\[.*?\])", text)
    return (m.group(1) if m else text.split(" ")[0]) + (" NaN!" if "NaN" in text else "")


def shape_text(node: Node) -> str:
    shape = "scalar" if node.shape == () else "×".join(str(d) for d in node.shape)
    return f"{shape} {node.dtype}".strip()


def title_text(node: Node) -> str:
    if node.kind in ("watched", "constant"):
        return f"{node.kind} {node.id}"
    if node.kind == "gradop":
        origin = "gradient sum" if node.backward_of == "sum" else f"from ∂{node.backward_of}"
        return f"{node.label} ({origin})"
    return node.label


def node_updates(model: StepModel) -> list:
    """Per event: [node id, "value" | "grad", text] to apply when the animation reaches it."""
    out = []
    for event in model.events:
        sets = []
        if event.kind == "start":
            sets = [[n.id, "value", "value " + short(n.value)] for n in model.nodes if n.record is None]
        elif event.kind == "forward":
            sets = [[event.node, "value", "value " + short(event.value) if event.value is not None else "value ?"]]
        elif event.kind == "seed":
            sets = [[n, "grad", "grad " + short(np.ones(model.node(n).shape))] for n in model.target]
        elif event.kind == "backward":
            for c in event.contributions:
                if c.grad is not None:
                    sets.append([c.to, "grad", "grad " + short(c.total)])
                elif not any(d.to == c.to and d.grad is not None for d in model.contributions_to(c.to)):
                    sets.append([c.to, "grad", "grad None"])
        elif event.kind == "result":
            sets = [[n, "grad", "grad None"] for n, g in model.gradients.items() if g is None and n in _ids(model)]
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


def _ids(model: StepModel) -> set:
    return {n.id for n in model.nodes}


def _longest(texts: list, default: str) -> str:
    return max(texts, key=len) if texts else default


def scope_tree(model: StepModel) -> dict:
    """Nested dict of name-scope parts; the key None holds the nodes directly in that scope."""
    tree: dict = {}
    for n in model.nodes:
        branch = tree
        for part in [p for p in n.scope.split("/") if p]:
            branch = branch.setdefault(part, {})
        branch.setdefault(None, []).append(n)
    return tree


def _members(branch: dict) -> list:
    return [n.id for n in branch.get(None, [])] + [
        m for k, sub in branch.items() if k is not None for m in _members(sub)
    ]


def _walk(tree: dict, folded: set, path: str = ""):
    """(path, name, branch, is_folded) per scope in drawing order; a folded scope's inner scopes are skipped."""
    for name, sub in tree.items():
        if name is None:
            continue
        full = f"{path}/{name}" if path else name
        yield full, name, sub, full in folded
        if full not in folded:
            yield from _walk(sub, folded, full)


def fold_map(model: StepModel, collapse: Any) -> tuple[dict, dict]:
    """Which scopes are drawn as one box: ({node id: group id}, {group id: (path, member ids)}).

    `collapse` is None (none), True (every top-level scope) or scope paths such as ["dense", "loss"].
    """
    if not collapse:
        return {}, {}
    tree = scope_tree(model)
    wanted = {name for name in tree if name is not None} if collapse is True else set(collapse)
    known = {path for path, *_ in _walk(tree, set())}
    unknown = sorted(wanted - known)
    if unknown:
        raise ValueError(f"TapeView: collapse names unknown scope(s) {unknown}; the tape's scopes are {sorted(known)}")
    owner, groups = {}, {}
    for path, _, branch, folded in _walk(tree, wanted):
        if folded:
            gid = f"group{len(groups)}"
            groups[gid] = (path, _members(branch))
            owner.update({m: gid for m in groups[gid][1]})
    return owner, groups


def dot_source(model: StepModel, updates: list, rankdir: str = "LR", collapse: Any = None) -> str:
    """The DOT graph: one cluster per name scope, labels sized for the longest text they will show."""
    owner, groups = fold_map(model, collapse)
    folded_paths = {path for path, _ in groups.values()}
    group_of_path = {path: gid for gid, (path, _) in groups.items()}
    per_node: dict[str, dict[str, list]] = {n.id: {"value": [], "grad": []} for n in model.nodes}
    for sets in updates:
        for node_id, slot, text in sets:
            per_node[node_id][slot].append(text)
    lines = [
        "digraph tape {",
        f'  graph [rankdir={rankdir} nodesep=0.25 ranksep=0.45 fontname="{FONT}" fontsize=12 '
        'style="rounded" color="#8899aa" bgcolor="transparent"];',
        f'  node [fontname="{FONT}" fontsize=11 margin="0.12,0.05"];',
        '  edge [color="#7a7a7a" arrowsize=0.7];',
    ]

    def emit_nodes(branch: dict, indent: str) -> None:
        for n in branch.get(None, []):
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

    def emit(branch: dict, indent: str, path: str, counter: list) -> None:
        emit_nodes(branch, indent)
        for name, sub in branch.items():
            if name is None:
                continue
            full = f"{path}/{name}" if path else name
            if full in folded_paths:
                gid = group_of_path[full]
                label = f"▸ {dot_escape(name)}\\n{len(groups[gid][1])} nodes folded"
                lines.append(f'{indent}{gid} [id="n-{gid}" class="group" label="{label}" {STYLE["group"]}];')
                continue
            k = counter[0]
            counter[0] += 1
            lines.append(f"{indent}subgraph cluster_{k} {{")
            lines.append(f'{indent}  id="c-{k}"; label="{dot_escape(name)}";')
            emit(sub, indent + "  ", full, counter)
            lines.append(f"{indent}}}")

    emit(scope_tree(model), "  ", "", [0])
    drawn = set()
    for e in model.edges:
        src, dst = owner.get(e.src, e.src), owner.get(e.dst, e.dst)
        if src != dst and (src, dst) not in drawn:
            drawn.add((src, dst))
            cut = getattr(e, "cut", "")  # why the gradient cannot flow back along this edge, if it cannot
            style = ' style=dashed color="#8a5a00"' if cut else ""  # the reason is added as a tooltip by the viewer
            lines.append(f'  {src} -> {dst} [id="e-{e.id}"{style}];')
    lines.append("}")
    return "\n".join(lines)


def clusters(model: StepModel, collapse: Any = None) -> list:
    """[cluster id, scope path, member node ids] of the clusters drawn, numbered as `dot_source` numbers them."""
    _, groups = fold_map(model, collapse)
    folded = {path for path, _ in groups.values()}
    out = []
    for path, _, branch, is_folded in _walk(scope_tree(model), folded):
        if not is_folded:
            out.append([f"c-{len(out)}", path, _members(branch)])
    return out


def edge_anchors(svg: str) -> dict:
    """Each edge's midpoint in SVG coordinates (from its path), where its step label is drawn."""
    anchors = {}
    for m in re.finditer(r'<g id="e&#45;(e\d+)" class="edge">.*?<path[^>]* d="([^"]+)"', svg, flags=re.S):
        nums = [float(v) for v in re.findall(r"-?\d+(?:\.\d+)?", m.group(2))]
        points = list(zip(nums[0::2], nums[1::2]))
        anchors[m.group(1)] = list(points[len(points) // 2]) if points else [0.0, 0.0]
    return anchors


def node_info(model: StepModel) -> dict:
    """What clicking a node shows: shape, dtype, op, scope, where, full value and final gradient."""
    info = {}
    grads = {k: v for k, v in model.gradients.items()}
    totals: dict[str, Any] = {}
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
        }
    return info


def _full(value: Any) -> str:
    return describe(value)  # large tensors summarised: a node's details must fit beside the graph


def aspect(svg: str) -> float:
    """Width over height of a laid-out SVG (from its viewBox)."""
    m = re.search(r'viewBox="[-\d.]+ [-\d.]+ ([\d.]+) ([\d.]+)"', svg)
    return float(m.group(1)) / max(float(m.group(2)), 1.0) if m else 1.0


def scene(model: StepModel, rankdir: str = "auto", collapse: Any = None) -> dict:
    """Everything the browser needs, as plain JSON: the laid-out SVG and the steps.

    rankdir "auto" lays the graph out left to right, unless that makes it so wide that the text
    would be tiny on a screen: then top to bottom, whichever shape is closer to a 16:10 screen.
    `collapse` draws whole name scopes as one box each (see `fold_map`); their steps light the box.
    """
    updates = node_updates(model)
    chosen = "LR" if rankdir == "auto" else rankdir
    svg = layout(dot_source(model, updates, chosen, collapse))
    if rankdir == "auto" and aspect(svg) > 2.5:
        tall = layout(dot_source(model, updates, "TB", collapse))
        if abs(math.log(aspect(tall) / 1.6)) < abs(math.log(aspect(svg) / 1.6)):
            svg, chosen = tall, "TB"
    owner, groups = fold_map(model, collapse)
    info = node_info(model)
    for gid, (path, members) in groups.items():
        info[gid] = {key: "" for key in info[members[0]]} | {
            "name": path,
            "kind": "folded scope",
            "op": ", ".join(sorted({model.node(m).label for m in members})),
            "scope": path,
        }
    events = []
    for e, sets, labels in zip(model.events, updates, edge_labels(model)):
        events.append(
            {
                "kind": e.kind,
                "node": owner.get(e.node, e.node),
                "edges": list(e.edges),
                "text": list(e.text),
                "nonfinite": e.nonfinite,
                "set": [s for s in sets if s[0] not in owner],
                "labels": labels,
            }
        )
    return {
        "svg": svg,
        "nodes": [n.id for n in model.nodes if n.id not in owner] + list(groups),
        "info": info,
        "clusters": clusters(model, collapse),
        "anchors": edge_anchors(svg),
        "events": events,
        "rankdir": chosen,  # the direction drawn: a static PNG of the view is laid out the same way
        # why a gradient path is cut (numpy escape, int dtype, stop_gradient, ...): drawn dashed with the reason
        "cuts": {e.id: e.cut for e in model.edges if getattr(e, "cut", "")},
    }
