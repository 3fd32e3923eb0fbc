"""From the step model to what is drawn: DOT source, each frame's node changes, and the data the browser animates.

`frames.node_changes` computes what every node shows at every step once; here `formatting` writes
it out, and the browser and `export.to_svg` only apply it: the browser one event at a time
(forwards with `set`, backwards with `undo`), `to_svg` by folding the changes up to its step.
"""

from __future__ import annotations

import math
import re
from typing import Any

from .formatting import (
    LABEL_LIMIT,
    clean,
    cut_label,
    edge_label,
    end_text,
    js_words,
    lines,
    msg,
    node_lines,
    render,
    resolve,
    shape_text,
    short,
    shorten,
    small_text,
    value_text,
    why_text,
    word,
)
from .frames import final_states, node_changes
from .layout import aspect, edge_anchors, layout
from .layout import without_slot_text as _without_slot_text
from .plan import Plan, drawn_nodes, make_plan, members, scope_tree, walk
from .steps import Node, StepModel, node_name

WARNINGS = ("nan_forward", "nan_backward")  # the panel lines that warn (of a first NaN or inf)

__all__ = ["dot_source", "dot_escape", "edge_anchors", "node_info", "node_updates", "scene", "short", "small_text"]

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
    """Quote user text for a DOT label: one line, unsafe characters shown escaped, then DOT's own escapes."""
    text = clean(re.sub(r"[\r\n\t]", " ", text))
    return text.replace("\\", "\\\\").replace('"', '\\"').replace("&", "&amp;")


def title_text(node: Node, lang: str = "en") -> str:
    """A node's first line: a name or op type, short enough to draw (the card has all of it)."""
    if node.unrecorded:
        title = word("target_unrecorded", lang)
    elif node.kind in ("watched", "constant"):
        title = f"{word('leaf_' + node.kind, lang)} {node.id}"
    elif node.kind == "gradop":
        origin = word("gradient_sum", lang) if node.backward_of == "sum" else msg("from_grad", op=node.backward_of)
        title = f"{node.label} ({render(origin, lang)})"
    else:
        title = node.label
    return shorten(title, LABEL_LIMIT)


def node_updates(model: StepModel, lang: str = "en") -> list:
    """Per event: [node id, value line, gradient line, css classes, the card's "now"] of each node it changes."""
    flows = "tangent" if model.mode == "forward" else "gradient"
    return [
        [[node, *node_lines(state, lang, flows)] for node, state in changes.items()] for changes in node_changes(model)
    ]


def _undo(updates: list) -> list:
    """Per event: what the nodes it changes showed before it, so the browser can step back one event at a time."""
    shown: dict[str, list] = {}
    out = []
    for sets in updates:
        out.append([shown.get(row[0], [row[0], "", "", "", ""]) for row in sets])
        shown.update({row[0]: row for row in sets})
    return out


def edge_labels(model: StepModel, lang: str = "en") -> list:
    """Per event: [edge id, text, css class] drawn on the edges its contributions flow along."""
    return [[[c.edge, *edge_label(c, lang)] for c in event.contributions] for event in model.events]


def cut_reasons(model: StepModel) -> dict:
    """Edge id -> why no gradient flows back along it (built once: the dashes, labels and cards all read it)."""
    return {e.id: e.cut for e in model.edges if e.cut is not None}


def _label_slots(model: StepModel, drawing: Plan, labels: list, cuts: dict) -> dict:
    """Drawn edge id -> the longest label it will carry: Graphviz keeps that much room free beside it."""
    slots: dict[str, str] = {}
    texts = [(edge, text) for step in labels for edge, text, _ in step] + list(cuts.items())
    for edge, text in texts:
        drawn = drawing.edge_of.get(edge)
        if drawn and text and len(text) > len(slots.get(drawn, "")):
            slots[drawn] = text
    return slots


class _Dot:
    """Writes the DOT source of one drawing: clusters for scopes, boxes for folds, copies of much-used leaves."""

    def __init__(self, model: StepModel, updates: list, drawing: Plan, lang: str) -> None:
        self.model, self.drawing, self.lang = model, drawing, lang
        self.by_id = {n.id: n for n in model.nodes}
        self.folded_paths = {name: gid for gid, (name, _, kind) in drawing.groups.items() if kind == "scope"}
        self.longest: dict[str, list] = {n.id: ["", ""] for n in model.nodes}
        for sets in updates:  # each node's box is sized for the longest text it will show
            for node_id, value, grad, *_ in sets:
                room = self.longest[node_id]
                self.longest[node_id] = [max(room[0], value, key=len), max(room[1], grad, key=len)]
        self.copies_into: dict[str, list] = {}
        for copy in drawing.copies:
            self.copies_into.setdefault(copy[3], []).append(copy)
        self.lines: list[str] = []

    def node(self, n: Node, indent: str) -> None:
        value, grad = self.longest[n.id]
        title = title_text(n, self.lang) + (f"  {word('target_mark', self.lang)}" if n.is_target else "")
        texts = (
            title,
            shape_text(n.shape, n.dtype, self.lang),
            value or word("value_unknown", self.lang),
            grad or word("grad_line", self.lang).format(v="None"),
        )
        label = "\\n".join(dot_escape(t) for t in texts)
        extra = " peripheries=2" if n.is_target else ""
        self.lines.append(f'{indent}{n.id} [id="n-{n.id}" class="{n.kind}" label="{label}" {STYLE[n.kind]}{extra}];')
        self.copies(n.id, indent)

    def copies(self, dst: str, indent: str) -> None:
        """A much-used leaf's copies sit with the op they feed (inside its scope's cluster)."""
        for copy_id, leaf, k, _ in self.copies_into.get(dst, []):
            n = self.by_id[leaf]
            name = dot_escape(shorten(node_name(n), LABEL_LIMIT) if n.kind == "variable" else title_text(n, self.lang))
            use = dot_escape(render(msg("use_of", k=k, n=self.drawing.copied[leaf]), self.lang))
            self.lines.append(
                f'{indent}"{copy_id}" [id="n-{copy_id}" class="{n.kind} use-copy" label="{name}\\n{use}" '
                f"{STYLE[n.kind]}];"
            )

    def group(self, gid: str, indent: str) -> None:
        name, ids, kind = self.drawing.groups[gid]
        if kind == "scope":
            folded = render(msg("scope_folded", n=len(ids)), self.lang)
            label = f"▸ {dot_escape(shorten(name.split('/')[-1], LABEL_LIMIT))}\\n{dot_escape(folded)}"
        else:
            ops = sorted({self.by_id[m].label for m in ids if self.by_id[m].record is not None})
            # two lines: both front ends write a node's value and gradient into its third and fourth lines
            folded = render(msg("run_folded", n=len(ids), ops=shorten(_few(ops), LABEL_LIMIT)), self.lang)
            label = f"▸ {dot_escape(folded)}\\n{dot_escape(render(name, self.lang))}"
        self.lines.append(f'{indent}{gid} [id="n-{gid}" class="group" label="{label}" {STYLE["group"]}];')
        self.copies(gid, indent)

    def tree(self, branch: dict, indent: str, path: str, counter: list) -> None:
        for n in branch.get(None, []):
            self.node(n, indent)
        for name, sub in branch.items():
            if name is None:
                continue
            full = f"{path}/{name}" if path else name
            if full in self.folded_paths:
                self.group(self.folded_paths[full], indent)
                continue
            self.lines.append(f"{indent}subgraph cluster_{counter[0]} {{")
            self.lines.append(f'{indent}  id="c-{counter[0]}"; label="{dot_escape(shorten(name, LABEL_LIMIT))}";')
            counter[0] += 1
            self.tree(sub, indent + "  ", full, counter)
            self.lines.append(f"{indent}}}")

    def flat(self) -> None:
        for n in self.model.nodes:
            if n.id not in self.drawing.owner:
                self.node(n, "  ")
        for gid in self.drawing.groups:
            self.group(gid, "  ")

    def edges(self, slots: dict, cuts: dict) -> None:
        copy_ids = {copy[0] for copy in self.drawing.copies}
        for edge_id, src, dst in self.drawing.edges:
            slot = f' label="{"0" * (len(slots[edge_id]) + 2)}" fontcolor=transparent' if edge_id in slots else ""
            straight = " weight=3" if copy_ids and src not in copy_ids else ""  # the data path straight, copies beside
            cut = ' style=dashed color="#8a5a00"' if edge_id in cuts else ""  # the viewer adds the reason
            self.lines.append(f'  {_q(src)} -> {_q(dst)} [id="e-{edge_id}"{slot}{straight}{cut}];')


def dot_source(
    model: StepModel,
    updates: list,
    rankdir: str = "LR",
    collapse: Any = None,
    drawing: Plan | None = None,
    lang: str = "en",
    labels: list | None = None,
    cuts: dict | None = None,
) -> str:
    """The DOT graph: one cluster per name scope, labels sized for the longest text they will show.

    Each edge that a step labels gets an invisible Graphviz label of that size, so `dot` places it in free
    space beside the edge, never on a node; `scene` reads the spot back (`edge_anchors`) and removes it.
    """
    drawing = drawing or make_plan(model, collapse)
    dot = _Dot(model, updates, drawing, lang)
    dot.lines = [
        "digraph tape {",
        f'  graph [rankdir={rankdir} nodesep=0.25 ranksep=0.45 fontname="{FONT}" fontsize=12 '
        'style="rounded" color="#8899aa" bgcolor="transparent"];',
        f'  node [fontname="{FONT}" fontsize=11 margin="0.12,0.05"];',
        f'  edge [color="#7a7a7a" arrowsize=0.7 fontname="{FONT}" fontsize={SLOT_FONT_SIZE}];',
    ]
    if drawing.scopes:
        dot.tree(scope_tree(model), "  ", "", [0])
    else:
        dot.flat()
    labels = edge_labels(model, lang) if labels is None else labels
    cut_labels = {edge: cut_label(why, lang) for edge, why in (cut_reasons(model) if cuts is None else cuts).items()}
    dot.edges(_label_slots(model, drawing, labels, cut_labels), cut_labels)
    dot.lines.append("}")
    return "\n".join(dot.lines)


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


def node_info(model: StepModel, lang: str = "en", finals: dict | None = None, cuts: dict | None = None) -> dict:
    """What clicking a node shows, written out: name, kind, op, shape, dtype, scope, code, value, end gradient."""
    finals = final_states(node_changes(model)) if finals is None else finals
    cuts = cut_reasons(model) if cuts is None else cuts
    dst = {e.id: e.dst for e in model.edges}
    into: dict[str, list] = {}
    for edge, why in cuts.items():
        into.setdefault(dst[edge], []).append(why_text(why, lang))
    info = {}
    for n in model.nodes:
        info[n.id] = {
            "name": render(node_name(n), lang),
            "kind": word("kind_" + n.kind, lang),
            "op": n.label if n.record is not None else "",
            "shape": word("scalar", lang) if n.shape == () else str(list(n.shape)),
            "dtype": n.dtype,
            "scope": n.scope,
            "where": n.where,
            "value": value_text(n, lang),
            "grad": end_text(finals.get(n.id), lang),
            "backward_of": render(msg("recorded_by", what=n.backward_of), lang) if n.backward_of else "",
            "uses": "",  # a leaf drawn once per use says so here
            "cuts": "\n".join(dict.fromkeys(into.get(n.id, []))),  # the whole reason of each cut edge into it
            "folded": "",  # a folded scope's path: clicking the box unfolds it
        }
    return info


def _group_info(model: StepModel, drawing: Plan, info: dict, lang: str) -> None:
    by_id = {n.id: n for n in model.nodes}
    for gid, (name, ids, kind) in drawing.groups.items():
        info[gid] = {key: "" for key in info[ids[0]]} | {
            "name": render(name, lang),
            "kind": word("kind_scope" if kind == "scope" else "kind_run", lang),
            "op": ", ".join(sorted({by_id[m].label for m in ids})),
            "scope": name if kind == "scope" else "",
            "folded": name if kind == "scope" else "",
        }
    for leaf, count in drawing.copied.items():
        info[leaf]["uses"] = render(msg("uses", n=count, leaf=leaf), lang)


def _events(model: StepModel, drawing: Plan, updates: list, labels: list, lang: str) -> list:
    """Per event, for the browser and `to_svg` to apply: the node changes (and their undo), edges and words."""
    owner = drawing.owner
    out = []
    for e, sets, undo, edge_texts in zip(model.events, updates, _undo(updates), labels):
        node = owner.get(e.node, e.node)
        where = word("kind_" + e.kind, lang)
        if node and e.kind in ("forward", "backward"):
            name = render(node_name(model.node(e.node)) if e.node not in owner else drawing.groups[node][0], lang)
            where += f": {shorten(name, LABEL_LIMIT)}"
        out.append(
            {
                "kind": e.kind,
                "node": node,
                "edges": list(dict.fromkeys(drawing.edge_of[x] for x in e.edges if x in drawing.edge_of)),
                "text": lines(e.lines, lang),
                "warn": [i for i, m in enumerate(e.lines) if getattr(m, "key", "") in WARNINGS],  # drawn in red
                "where": where,
                "nonfinite": e.nonfinite,
                "set": [s for s in sets if s[0] not in owner],
                "undo": [s for s in undo if s[0] not in owner],
                "labels": [[drawing.edge_of[x], text, cls] for x, text, cls in edge_texts if x in drawing.edge_of],
            }
        )
    return out


def _layout(model: StepModel, updates: list, rankdir: str, drawing: Plan, texts: dict) -> tuple[str, str]:
    """The laid-out SVG and the direction chosen ("auto": LR unless TB is closer to a screen's shape).

    `texts` holds what `dot_source` needs besides the nodes' lines: lang, labels and cuts.
    """
    n_drawn = drawn_nodes(model, drawing)
    big = n_drawn >= PROGRESS_NODES
    if big:
        print(f"TapeView: laying out {n_drawn:,} nodes with Graphviz…", flush=True)  # dot can take seconds
    if rankdir == "auto" and big:
        rankdir = _guess_rankdir(model, drawing)
    chosen = "LR" if rankdir == "auto" else rankdir
    svg = layout(dot_source(model, updates, chosen, drawing=drawing, **texts))
    if rankdir == "auto" and aspect(svg) > 2.5:
        tall = layout(dot_source(model, updates, "TB", drawing=drawing, **texts))
        if abs(math.log(aspect(tall) / 1.6)) < abs(math.log(aspect(svg) / 1.6)):
            svg, chosen = tall, "TB"
    return svg, chosen


def scene(model: StepModel, rankdir: str = "auto", collapse: Any = None, lang: str | None = None) -> dict:
    """Everything the browser needs, as plain JSON: the laid-out SVG, the frames and the words.

    rankdir "auto" lays the graph out left to right, unless that makes it so wide that the text
    would be tiny on a screen: then top to bottom, whichever shape is closer to a 16:10 screen.
    `collapse` draws whole name scopes as one box each (see `plan.make_plan`); their steps light the box.
    Left as None, a big tape folds by itself, and `notice` says so (empty otherwise).
    `lang` is the language of every word ("en" or "ko"; default: `set_language`'s).
    """
    lang = resolve(lang)
    drawing = make_plan(model, collapse)
    changes = node_changes(model)
    flows = "tangent" if model.mode == "forward" else "gradient"
    updates = [[[node, *node_lines(state, lang, flows)] for node, state in c.items()] for c in changes]
    labels = edge_labels(model, lang)
    cuts = cut_reasons(model)  # built once: the dashes, the label slots, the labels and the cards read it
    svg, chosen = _layout(model, updates, rankdir, drawing, {"lang": lang, "labels": labels, "cuts": cuts})
    anchors = edge_anchors(svg)
    svg = _without_slot_text(svg)
    info = node_info(model, lang, final_states(changes), cuts)
    _group_info(model, drawing, info, lang)
    first_nan = next((e.node for e in model.events if e.nonfinite and e.node), None)
    return {
        "svg": svg,
        "nodes": [n.id for n in model.nodes if n.id not in drawing.owner] + list(drawing.groups),
        "info": info,
        "clusters": clusters(model, drawing=drawing),
        "anchors": anchors,
        "events": _events(model, drawing, updates, labels, lang),
        "rankdir": chosen,  # the direction drawn: a static PNG of the view is laid out the same way
        # why a gradient path is cut (numpy escape, int dtype, stop_gradient, ...): drawn dashed with the reason
        "cuts": {edge: [why_text(why, lang), cut_label(why, lang)] for edge, why in cuts.items()},
        "notice": render(drawing.notice, lang) if drawing.notice else "",
        "folded": [name for name, _, kind in drawing.groups.values() if kind == "scope"],  # for unfolding
        "flows": flows,  # what flows along the edges: the card and the hint name it
        "first_nan": drawing.owner.get(first_nan, first_nan),  # the first op whose output is not finite
        "lang": lang,
        "words": js_words(lang) | {"flows": word("flows_" + flows, lang)},
    }
