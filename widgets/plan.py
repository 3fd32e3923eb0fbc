"""What is drawn of a step model: which nodes fold into one box, which leaves are drawn once per use.

Graphviz's `dot` slows down sharply with long edges and many nodes. Two things keep big tapes drawable:
a leaf (a variable, say) that feeds many ops is drawn as one small copy next to each op it feeds, so
no edge crosses the whole picture; and past `AUTO_FOLD_NODES` drawn nodes the view folds by itself,
first each top-level name scope into one box, else runs of consecutive ops, and says so in a notice.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from .formatting import Msg, msg
from .steps import StepModel

COPY_ABOVE = 6  # a leaf feeding more ops than this is drawn once per use (a copy beside each op)
AUTO_FOLD_NODES = 1000  # drawn nodes; past this `dot` takes 1 to 3 s and more on a 2-core machine: fold
FOLD_BOXES = 150  # how many boxes a run fold aims for


@dataclass
class Plan:
    """The drawing of a step model: boxes that stand for folded nodes, per-use copies, and drawn edges."""

    owner: dict = field(default_factory=dict)  # node id -> group id of the box that stands for it
    groups: dict = field(default_factory=dict)  # group id -> (scope path or a run's Msg, member ids, "scope" | "run")
    copied: dict = field(default_factory=dict)  # leaf id -> number of copies drawn
    edges: list = field(default_factory=list)  # (drawn edge id, drawn src, drawn dst) in drawing order
    edge_of: dict = field(default_factory=dict)  # model edge id -> the drawn edge that stands for it (absent: hidden)
    copies: list = field(default_factory=list)  # (copy id, leaf id, use number, the drawn node it feeds)
    notice: Msg | None = None  # why the view folded by itself (written out in the view's language)
    scopes: bool = True  # draw name scopes as clusters (a run fold draws none: its boxes cross scopes)


def scope_tree(model: StepModel) -> dict:
    """Nested dict of name-scope parts; the key None holds the nodes directly in that scope."""
    tree: dict = {}
    for n in model.nodes:
        branch = tree
        for part in [p for p in n.scope.split("/") if p]:
            branch = branch.setdefault(part, {})
        branch.setdefault(None, []).append(n)
    return tree


def members(branch: dict) -> list:
    return [n.id for n in branch.get(None, [])] + [
        m for k, sub in branch.items() if k is not None for m in members(sub)
    ]


def walk(tree: dict, folded: set, path: str = ""):
    """(path, name, branch, is_folded) per scope in drawing order; a folded scope's inner scopes are skipped."""
    for name, sub in tree.items():
        if name is None:
            continue
        full = f"{path}/{name}" if path else name
        yield full, name, sub, full in folded
        if full not in folded:
            yield from walk(sub, folded, full)


def scope_groups(model: StepModel, collapse: Any) -> dict:
    """{group id: (scope path, member ids, "scope")} for `collapse` True (top-level scopes) or a list of paths."""
    tree = scope_tree(model)
    wanted = {name for name in tree if name is not None} if collapse is True else set(collapse)
    known = {path for path, *_ in walk(tree, set())}
    unknown = sorted(wanted - known)
    if unknown:
        raise ValueError(f"TapeView: collapse names unknown scope(s) {unknown}; the tape's scopes are {sorted(known)}")
    groups = {}
    for path, _, branch, folded in walk(tree, wanted):
        if folded:
            groups[f"group{len(groups)}"] = (path, members(branch), "scope")
    return groups


def run_groups(model: StepModel, boxes: int | None = None, leaves: tuple = ("constant",)) -> dict:
    """{group id: (name, member ids, "run")}: consecutive ops in tape order, about `boxes` boxes.

    Leaves of the kinds in `leaves` go into the box of the op that first reads them. By default only
    unwatched constants: variables and watched tensors (the sources the view is about) stay drawn.
    """
    ops = [n for n in model.nodes if n.record is not None]
    size = max(1, math.ceil(len(ops) / (boxes or fold_boxes())))
    groups, box_of = {}, {}
    for start in range(0, len(ops), size):
        run = ops[start : start + size]
        gid = f"group{len(groups)}"
        name = msg("records_run", a=run[0].record, b=run[-1].record)
        groups[gid] = (name, [n.id for n in run], "run")
        box_of.update({n.id: gid for n in run})
    kind = {n.id: n.kind for n in model.nodes}
    for e in model.edges:  # tape order: the first reader of a constant comes first
        if kind[e.src] in leaves and e.src not in box_of:
            box_of[e.src] = box_of[e.dst]
            groups[box_of[e.dst]][1].append(e.src)
    return groups


def make_plan(model: StepModel, collapse: Any = None) -> Plan:
    """The drawing: `collapse` None folds by itself past `AUTO_FOLD_NODES`, False never, True or paths as asked."""
    plan = Plan()
    if collapse:
        _fold(model, plan, scope_groups(model, collapse))
    else:
        _route_edges(model, plan)
        if collapse is None and drawn_nodes(model, plan) > AUTO_FOLD_NODES:
            _auto_fold(model, plan)
    return plan


def fold_boxes() -> int:
    """How many boxes a run fold makes: room is left for a copy of each shared variable beside each box."""
    return max(1, min(FOLD_BOXES, AUTO_FOLD_NODES // 4))


def drawn_nodes(model: StepModel, plan: Plan) -> int:
    """How many boxes and ellipses Graphviz gets."""
    return len(model.nodes) - len(plan.owner) + len(plan.groups) + len(plan.copies)


def _fold(model: StepModel, plan: Plan, groups: dict) -> None:
    plan.groups = groups
    plan.owner = {m: gid for gid, (_, ids, _) in groups.items() for m in ids}
    _route_edges(model, plan)


def _auto_fold(model: StepModel, plan: Plan) -> None:
    """Fold each top-level scope into a box if that is enough, else runs of consecutive ops; say which."""
    before = drawn_nodes(model, plan)
    if any(name is not None for name in scope_tree(model)):
        _fold(model, plan, scope_groups(model, True))
        if drawn_nodes(model, plan) <= AUTO_FOLD_NODES:
            plan.notice = msg("notice_scopes", before=f"{before:,}", boxes=len(plan.groups))
            return
    _fold(model, plan, run_groups(model))
    inputs = False
    if drawn_nodes(model, plan) > AUTO_FOLD_NODES:  # a great many variables: they go into the boxes too
        _fold(model, plan, run_groups(model, leaves=("constant", "variable", "watched")))
        inputs = True
    plan.scopes = False
    size = max(1, math.ceil(sum(n.record is not None for n in model.nodes) / fold_boxes()))
    key = "notice_runs_inputs" if inputs else "notice_runs"
    plan.notice = msg(key, before=f"{before:,}", size=size, boxes=len(plan.groups))


def _route_edges(model: StepModel, plan: Plan) -> None:
    """Drawn edges: folded ends move to their box, a much-used leaf gets a copy per drawn consumer."""
    uses: dict[str, set] = {}
    for e in model.edges:
        if e.src not in plan.owner:
            uses.setdefault(e.src, set()).add(plan.owner.get(e.dst, e.dst))
    leaves = {n.id for n in model.nodes if n.record is None}
    many = {leaf for leaf, dsts in uses.items() if leaf in leaves and len(dsts) > COPY_ABOVE}
    plan.copied, plan.copies, plan.edges, plan.edge_of = {}, [], [], {}
    copy_at: dict[tuple, str] = {}
    drawn: dict[tuple, str] = {}
    for e in model.edges:
        dst = plan.owner.get(e.dst, e.dst)
        src = plan.owner.get(e.src, e.src)
        if e.src in many:
            key = (e.src, dst)
            if key not in copy_at:
                k = plan.copied.get(e.src, 0) + 1
                plan.copied[e.src] = k
                copy_at[key] = f"{e.src}-use{k}"
                plan.copies.append((copy_at[key], e.src, k, dst))
            src = copy_at[key]
        if src == dst:
            continue  # inside one box
        if (src, dst) not in drawn:
            drawn[(src, dst)] = e.id
            plan.edges.append((e.id, src, dst))
        plan.edge_of[e.id] = drawn[(src, dst)]
