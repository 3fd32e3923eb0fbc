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

from widgets.layout import layout
from widgets.steps import Node, StepModel, _name, fmt

FONT = "Helvetica,Arial,sans-serif"
STYLE = {
    "variable": 'shape=ellipse style="filled,bold" fillcolor="#cfe3ff" color="#1f5fbf"',
    "watched": 'shape=ellipse style="filled" fillcolor="#d6f5d6" color="#2e8b57"',
    "constant": 'shape=ellipse style="filled,dashed" fillcolor="#eeeeee" color="#9a9a9a" fontcolor="#6b6b6b"',
    "op": 'shape=box style="rounded,filled" fillcolor="#ffffff" color="#444444"',
    "gradop": 'shape=box style="rounded,filled,dashed" fillcolor="#f1e6ff" color="#7b3fbf"',
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


def dot_source(model: StepModel, updates: list, rankdir: str = "LR") -> str:
    """The DOT graph: one cluster per name scope, labels sized for the longest text they will show."""
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
    tree: dict = {}
    for n in model.nodes:
        branch = tree
        for part in [p for p in n.scope.split("/") if p]:
            branch = branch.setdefault(part, {})
        branch.setdefault(None, []).append(n)

    counter = [0]

    def emit(branch: dict, indent: str, path: str) -> None:
        for n in branch.get(None, []):
            texts = per_node[n.id]
            label = "\\n".join(
                dot_escape(t)
                for t in (
                    title_text(n),
                    shape_text(n),
                    _longest(texts["value"], "value ?"),
                    _longest(texts["grad"], "grad None"),
                )
            )
            extra = " peripheries=2" if n.is_target else ""
            lines.append(f'{indent}{n.id} [id="n-{n.id}" class="{n.kind}" label="{label}" {STYLE[n.kind]}{extra}];')
        for name, sub in branch.items():
            if name is None:
                continue
            k = counter[0]
            counter[0] += 1
            full = f"{path}/{name}" if path else name
            lines.append(f"{indent}subgraph cluster_{k} {{")
            lines.append(f'{indent}  id="c-{k}"; label="{dot_escape(name)}"; tooltip="{dot_escape(full)}";')
            emit(sub, indent + "  ", full)
            lines.append(f"{indent}}}")

    emit(tree, "  ", "")
    for e in model.edges:
        lines.append(f'  {e.src} -> {e.dst} [id="e-{e.id}"];')
    lines.append("}")
    return "\n".join(lines)


def clusters(model: StepModel) -> list:
    """[cluster id, scope path, member node ids], numbered as `dot_source` numbers its subgraphs."""
    tree: dict = {}
    for n in model.nodes:
        branch = tree
        for part in [p for p in n.scope.split("/") if p]:
            branch = branch.setdefault(part, {})
        branch.setdefault(None, []).append(n.id)
    out: list = []

    def members(branch: dict) -> list:
        return list(branch.get(None, [])) + [m for k, sub in branch.items() if k is not None for m in members(sub)]

    def walk(branch: dict, path: str) -> None:
        for name, sub in branch.items():
            if name is None:
                continue
            full = f"{path}/{name}" if path else name
            out.append([f"c-{len(out)}", full, members(sub)])
            walk(sub, full)

    walk(tree, "")
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
    if value is None:
        return "None"
    return np.array2string(np.asarray(value), precision=4, threshold=64, separator=", ")


def aspect(svg: str) -> float:
    """Width over height of a laid-out SVG (from its viewBox)."""
    m = re.search(r'viewBox="[-\d.]+ [-\d.]+ ([\d.]+) ([\d.]+)"', svg)
    return float(m.group(1)) / max(float(m.group(2)), 1.0) if m else 1.0


def scene(model: StepModel, rankdir: str = "auto") -> dict:
    """Everything the browser needs, as plain JSON: the laid-out SVG and the steps.

    rankdir "auto" lays the graph out left to right, unless that makes it so wide that the text
    would be tiny on a screen: then top to bottom, whichever shape is closer to a 16:10 screen.
    """
    updates = node_updates(model)
    svg = layout(dot_source(model, updates, "LR" if rankdir == "auto" else rankdir))
    if rankdir == "auto" and aspect(svg) > 2.5:
        tall = layout(dot_source(model, updates, "TB"))
        if abs(math.log(aspect(tall) / 1.6)) < abs(math.log(aspect(svg) / 1.6)):
            svg = tall
    return {
        "svg": svg,
        "nodes": [n.id for n in model.nodes],
        "info": node_info(model),
        "clusters": clusters(model),
        "anchors": edge_anchors(svg),
        "events": [
            {
                "kind": e.kind,
                "node": e.node,
                "edges": list(e.edges),
                "text": list(e.text),
                "nonfinite": e.nonfinite,
                "set": sets,
                "labels": labels,
            }
            for e, sets, labels in zip(model.events, updates, edge_labels(model))
        ],
    }
