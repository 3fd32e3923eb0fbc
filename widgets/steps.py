"""The step model: a tape's records as nodes, edges and the ordered forward and backward events.

Pure Python and numpy, so tests check every number without a browser. The forward
values come from the tensors the tape kept (or that are still alive), and the gaps
are filled by replaying each record's numpy forward. The backward events call each
op's own gradient rule, in reverse tape order, exactly as `tape.gradient` does,
so the sums shown at fan-out nodes are the gradients the engine returns.

Nothing here is text yet: explanations are `Msg`s with their values, written out by `formatting`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

import minitape as mt
from minitape.engine import backprop, context
from minitape.engine.opdef import OPS
from minitape.engine.variables import Variable
from minitape.engine.where import format_where
from minitape.values import nest
from minitape.values.tensor_like import TensorLike

from .formatting import Local, Msg, Terms, clean, fmt, msg

__all__ = ["Node", "Edge", "Contribution", "Event", "StepModel", "TapeGraph", "build", "fmt", "node_name"]


@dataclass
class Node:
    """One box in the graph: a leaf (variable, watched or unwatched constant) or one recorded op."""

    id: str  # stable: "var0", "in1", "op7" (record index in tape order)
    kind: str  # "variable" | "watched" | "constant" | "op" | "gradop" (recorded by a backward pass)
    label: str  # a variable's name, or the op type (made safe to show by `formatting.clean`)
    shape: tuple = ()
    dtype: str = ""
    scope: str = ""
    record: int | None = None  # index in the tape's records
    backward_of: str | None = None
    where: str = ""
    value: np.ndarray | None = None  # forward value (first output for ops); None when not kept and not replayable
    values: list = field(default_factory=list)  # every output, for multi-output ops
    value_note: Msg | None = None  # why `value` is None, or where it came from
    is_target: bool = False
    unrecorded: bool = False  # a target the tape did not record, drawn apart


@dataclass
class Edge:
    """A tensor flowing from the node that produced it into input `slot` of an op."""

    id: str  # "e0", "e1", ... in tape order
    src: str
    dst: str
    slot: int
    tensor: int  # the engine's tensor id: stable within one tape
    cut: Msg | None = None  # why no gradient can flow back along this edge (drawn dashed with this reason)


@dataclass
class Contribution:
    """What one backward step sends along one edge."""

    edge: str
    to: str  # the node receiving it
    grad: np.ndarray | None  # None: no gradient flows here (see `reason`)
    reason: Msg | None = None
    local: Local | None = None
    total: np.ndarray | None = None  # the running sum at `to` after adding this contribution
    summed: list = field(default_factory=list, repr=False)  # every contribution at `to` (shared, in order)
    count: int = 0  # how many of `summed` make up `total`

    @property
    def terms(self) -> list:
        """The contributions summed at `to` up to this one."""
        return self.summed[: self.count]


@dataclass
class Event:
    """One step of the animation: a forward op, the seed, a backward op, or the final result."""

    kind: str  # "start" | "forward" | "seed" | "backward" | "result"
    node: str | None = None
    edges: list = field(default_factory=list)
    contributions: list = field(default_factory=list)
    value: np.ndarray | None = None  # forward: the value produced
    tangent: np.ndarray | None = None  # forward mode: the tangent (JVP) the op's output got
    nonfinite: bool = False  # the first NaN/inf of its pass appears here
    lines: list = field(default_factory=list)  # the side panel, one `Msg` a line

    @property
    def text(self) -> list[str]:
        """The side panel in English (the view writes it in its own language)."""
        from .formatting import lines

        return lines(self.lines, "en")


@dataclass
class StepModel:
    nodes: list
    edges: list
    events: list
    target: list  # node ids
    sources: list  # node ids, in the order given
    gradients: dict  # source node id -> np.ndarray or None
    reasons: dict  # source node id -> `tape.explain`'s Reason for a None gradient
    mode: str = "reverse"  # "forward" for a ForwardAccumulator's view: tangents flow forward, no backward pass
    tangents: dict = field(default_factory=dict)  # forward mode: leaf node id -> the tangent it starts with
    _by_node: dict | None = field(default=None, repr=False, compare=False)

    def node(self, node_id: str) -> Node:
        return next(n for n in self.nodes if n.id == node_id)

    def contributions_to(self, node_id: str) -> list:
        """Every backward contribution that reached `node_id`, in the order they were summed."""
        if self._by_node is None:
            self._by_node = {}
            for c in (c for e in self.events if e.kind == "backward" for c in e.contributions):
                self._by_node.setdefault(c.to, []).append(c)
        return self._by_node.get(node_id, [])


def _finite(a: np.ndarray | None) -> bool:
    return a is None or np.asarray(a).dtype.kind not in "fc" or bool(np.all(np.isfinite(a)))


def _as_list(sources: Any) -> list:
    """Sources as `tape.gradient` takes them: one tensor or variable, or any nest of them; None is none."""
    return [] if sources is None else nest.flatten(sources)


class TapeGraph:
    """A tape's records as nodes and edges, with every value it can recover (also read by forward mode)."""

    def __init__(self, tape: Any, target: Any, sources: Any) -> None:
        self.tape = tape
        self.records = list(tape.records)
        self.index = {op: k for k, op in enumerate(self.records)}  # record -> its place on the tape
        self.targets = nest.flatten(target)
        for t in self.targets:
            if not isinstance(t, TensorLike):
                raise TypeError(f"TapeView: target must be a tensor or variable, not {type(t).__name__}")
        self.nodes: list[Node] = []
        self.by_id: dict[str, Node] = {}
        self.producer: dict[int, tuple[str, int]] = {}  # tensor id -> (node id, output index)
        self.edges: list[Edge] = []
        self.known: dict[int, np.ndarray] = {}
        self.notes: dict[int, Msg] = {}
        self.variables: dict[int, Variable] = {v.id: v for v in tape.watched_variables()}
        self.objects: dict[int, Any] = dict(self.variables)  # tensor id -> the tensor or variable, where alive
        self.source_dtypes: dict[int, Any] = {}
        self.watched = tape.watched_ids
        self.in_edges: dict[str, list[Edge]] = {}  # node id -> the edges into it, by input slot
        self.out_edges: dict[str, list[Edge]] = {}  # node id -> the edges out of it
        self.leaf_count = {"var": 0, "in": 0}  # leaves are numbered in tape order: var0, var1, in0, ...
        self._collect_values()
        self.requested = {s.id for s in _as_list(sources) if isinstance(s, TensorLike)}
        self._build_graph()
        self.sources = self._sources(sources)

    # ---- values ----------------------------------------------------------------------------------
    def _collect_values(self) -> None:
        """Every value the tape kept or that is still alive; then replay the records to fill the gaps."""
        for t in self.targets:  # the target is alive: the caller holds it
            if not isinstance(t, Variable):
                self.objects.setdefault(t.id, t)
                self.known.setdefault(t.id, t.numpy())
        for op in self.records:
            self._keep_alive(op.input_ids, op.alive_inputs())
            self._keep_alive(op.output_ids, op.alive_outputs())
        for op in self.records:
            if not all(i in self.known for i in op.output_ids):
                self._replay(op)

    def _keep_alive(self, ids: Any, alive: Any) -> None:
        for i, t in zip(ids, alive):
            if t is None:
                continue
            self.objects.setdefault(i, t)
            if isinstance(t, Variable):
                self.variables.setdefault(i, t)
            elif i not in self.known:
                self.known[i] = t.numpy()

    def _replay(self, op: Any) -> None:
        """Fill in the outputs of `op` by running its numpy forward on known inputs, where it can be."""
        if op.type == "ReadVariableOp" and op.input_ids[0] in self.variables:
            self.known[op.output_ids[0]] = self.variables[op.input_ids[0]].numpy()
            self.notes[op.output_ids[0]] = msg("note_read")
            return
        opdef = OPS.get(op.type)
        if opdef is None or op.grad_fn is not None or not all(i in self.known for i in op.input_ids):
            for i in op.output_ids:
                self.notes.setdefault(i, msg("note_gone"))
            return
        with np.errstate(all="ignore"):
            result = opdef.forward(*[self.known[i] for i in op.input_ids], **op.attrs)
        arrays = result if opdef.n_outputs > 1 else (result,)
        for i, a, dt in zip(op.output_ids, arrays, op.output_dtypes):
            self.known.setdefault(i, np.asarray(a, dtype=dt.as_numpy_dtype))

    # ---- graph -----------------------------------------------------------------------------------
    def _add(self, node: Node) -> Node:
        self.nodes.append(node)
        self.by_id[node.id] = node
        return node

    def _leaf(self, tensor_id: int, op: Any, slot: int) -> str:
        if tensor_id in self.producer:
            return self.producer[tensor_id][0]
        value = self.known.get(tensor_id)
        if tensor_id in self.variables:
            var = self.variables[tensor_id]
            node = Node(f"var{self.leaf_count['var']}", "variable", clean(var.name))
            self.leaf_count["var"] += 1
        else:
            kind = "watched" if tensor_id in self.watched else "constant"
            node = Node(f"in{self.leaf_count['in']}", kind, kind)
            self.leaf_count["in"] += 1
        node.shape = tuple(op.input_shapes[slot])
        node.dtype = op.input_dtypes[slot].name
        node.value, node.values = value, [value]
        node.value_note = self.notes.get(tensor_id, None if value is not None else msg("note_not_kept"))
        node.scope = clean(op.scope)
        self._add(node)
        # a constant no one asked about is drawn once per use, beside its op, as code reads (`x * 2.0`): one
        # shared node for a number used all over a tape would pull every op towards it
        if node.kind != "constant" or tensor_id in self.requested:
            self.producer[tensor_id] = (node.id, 0)
        return node.id

    def _build_graph(self) -> None:
        for index, op in enumerate(self.records):
            if op.type == "ReadVariableOp":  # fold the read into its variable: the sums then show at the variable
                self._read(op)
            else:
                self._op_node(index, op)
        for t in self.targets:
            if t.id not in self.producer:
                self._unrecorded_target(t)
            self.by_id[self.producer[t.id][0]].is_target = True

    def _read(self, op: Any) -> None:
        var_node = self._leaf(op.input_ids[0], op, 0)
        node = self.by_id[var_node]
        read_value = self.known.get(op.output_ids[0])
        if node.value is None or node.value_note:
            node.value, node.values = read_value, [read_value]
            node.value_note = self.notes.get(op.output_ids[0])
        scope = clean(op.scope)
        if scope != node.scope:  # read from several scopes: keep the variable outside them
            node.scope = _common_scope(node.scope, scope)
        self.producer[op.output_ids[0]] = (var_node, 0)

    def _op_node(self, index: int, op: Any) -> None:
        scope = clean(op.scope)
        srcs = [self._leaf(i, op, k) for k, i in enumerate(op.input_ids)]
        for src in srcs:  # a leaf used from several scopes (a shared constant) stays outside all of them
            leaf = self.by_id[src]
            if leaf.record is None and leaf.scope != scope:
                leaf.scope = _common_scope(leaf.scope, scope)
        values = [self.known.get(i) for i in op.output_ids]
        backward_of = getattr(op, "backward_of", None)
        if backward_of is None and op.type == "AddN" and all(self.by_id[s].kind == "gradop" for s in srcs):
            backward_of = "sum"  # the backward pass adds the gradients meeting at one tensor
        node = Node(
            f"op{index}",
            "gradop" if backward_of else "op",
            clean(op.type),  # a custom_gradient's function name can be anything
            shape=tuple(op.output_shapes[0]) if op.output_shapes else (),
            dtype=op.output_dtypes[0].name if op.output_dtypes else "",
            scope=scope,
            record=index,
            backward_of=clean(backward_of) if backward_of else None,
            where=clean(format_where(op.where)) if op.where else "",
            value=values[0] if values else None,
            values=values,
            value_note=self.notes.get(op.output_ids[0]) if op.output_ids else msg("note_no_outputs"),
        )
        self._add(node)
        for k, (src, tensor_id) in enumerate(zip(srcs, op.input_ids)):
            self._edge(src, node.id, k, tensor_id)
        for k, i in enumerate(op.output_ids):
            self.producer[i] = (node.id, k)

    def _edge(self, src: str, dst: str, slot: int, tensor_id: int, cut: Msg | None = None) -> None:
        edge = Edge(f"e{len(self.edges)}", src, dst, slot, tensor_id, cut)
        self.edges.append(edge)
        self.in_edges.setdefault(dst, []).append(edge)
        self.out_edges.setdefault(src, []).append(edge)

    def _unrecorded_target(self, target: Any) -> None:
        """A target the tape did not record: draw it apart, joined by dashed edges where its path left the tape.

        Two ways out are visible on the tape: a watched value converted to numpy, and an op whose output has
        an integer dtype that nothing recorded uses (the tape does not follow integers).
        """
        value = target.numpy()
        node = self._add(
            Node(f"in{self.leaf_count['in']}", "constant", "target (not recorded)", value=value, unrecorded=True)
        )
        self.leaf_count["in"] += 1
        node.shape, node.dtype, node.values = tuple(target.shape), target.dtype.name, [value]
        node.value_note = msg("note_unrecorded")
        self.producer[target.id] = (node.id, 0)
        used = {e.src for e in self.edges}
        exits = [
            (self.producer[i][0], msg("cut_numpy", where=clean(format_where(where))))
            for i, where, _ in self.tape.numpy_escapes
            if i in self.producer
        ]
        for index, op in enumerate(self.records):
            node_id = f"op{index}"
            dtypes = op.output_dtypes
            if node_id in self.by_id and node_id not in used and dtypes and not dtypes[0].is_floating:
                exits.append((node_id, msg("cut_int", op=clean(op.type), dtype=dtypes[0].name)))
        for src, why in dict(exits).items():
            self._edge(src, node.id, len(self.in_edges.get(node.id, [])), target.id, why)

    def _sources(self, sources: Any) -> list:
        if sources is None:
            ids = [i for i, (n, _) in self.producer.items() if self.by_id[n].kind in ("variable", "watched")]
            return [(i, self.producer[i][0]) for i in dict.fromkeys(ids) if not self._is_read(i)]
        out = []
        for s in _as_list(sources):
            if not isinstance(s, TensorLike):
                raise TypeError(f"TapeView: sources must be tensors or variables, not {type(s).__name__}")
            self.source_dtypes[s.id] = s.dtype
            self.objects[s.id] = s
            out.append((s.id, self.producer[s.id][0] if s.id in self.producer else None))
        return out

    def _is_read(self, tensor_id: int) -> bool:
        node_id = self.producer[tensor_id][0]
        return self.by_id[node_id].kind == "variable" and tensor_id not in self.variables

    # ---- events ----------------------------------------------------------------------------------
    def events(self) -> tuple[list, dict, dict]:
        events = [self.start_event()]
        nan_seen = False
        for index, op in enumerate(self.records):
            if op.type == "ReadVariableOp":
                continue
            node = self.by_id[f"op{index}"]
            produced = [v for v in node.values if v is not None]
            first_nan = not nan_seen and not all(_finite(v) for v in produced)
            nan_seen = nan_seen or first_nan
            edges = [e.id for e in self.in_edges.get(node.id, [])]
            lines = self.forward_lines(node, first_nan)
            events.append(Event("forward", node.id, edges, value=node.value, nonfinite=first_nan, lines=lines))
        backward, grads, reasons = self._backward()
        return events + backward, grads, reasons

    def start_event(self) -> Event:
        leaves = [n for n in self.nodes if n.kind in ("variable", "watched", "constant")]
        count = sum(n.record is not None for n in self.nodes)
        lines = [msg("start_one" if count == 1 else "start", n=count)]
        for n in leaves:
            name = n.label if n.kind == "variable" else n.id
            lines.append(msg("start_leaf", name=name, what=msg("kind_" + n.kind), value=n.value))
        return Event("start", lines=lines)

    def forward_lines(self, node: Node, first_nan: bool) -> list:
        """What the panel says at the forward step of `node`: its inputs, its output and where it ran."""
        ins = [self.by_id[e.src] for e in self.in_edges.get(node.id, [])]
        title = "fwd_title_scope" if node.scope else "fwd_title"
        lines = [msg(title, record=node.record, op=node.label, scope=node.scope)]
        if node.backward_of:
            what = msg("sum_meeting") if node.backward_of == "sum" else node.backward_of
            lines.append(msg("fwd_gradop", what=what))
        lines += [msg("fwd_input", k=k, name=node_name(src), value=src.value) for k, src in enumerate(ins)]
        shape = msg("scalar") if node.shape == () else msg("shape_of", shape=str(list(node.shape)))
        lines.append(msg("fwd_output", shape=shape, dtype=node.dtype, value=node.value))
        if node.value is None:
            lines.append(msg("value_unknown_why", note=node.value_note or msg("note_not_kept")))
        if first_nan:
            lines.append(msg("nan_forward"))
        if node.where:
            lines.append(msg("from_where", where=node.where))
        return lines

    def _backward(self) -> tuple[list, dict, dict]:
        """Run the engine's own backward sweep (`tape.backward`) and turn what it does into steps."""
        sources = [self.objects[i] for i, _ in self.sources if i in self.objects and self.objects[i].dtype.is_floating]
        listener = _BackwardSteps(self)
        target_nodes = []
        for t in self.targets:
            node_id = self.producer[t.id][0]
            target_nodes.append(node_id)
            listener.add(node_id, np.ones(t.shape, t.dtype.as_numpy_dtype))
        seed_lines = [msg("seed")]
        seed_lines += [msg("seed_at", name=node_name(self.by_id[n]), value=listener.totals[n]) for n in target_nodes]
        seeds = [mt.ones(t.shape, dtype=t.dtype) for t in self.targets]
        with context.paused():  # NaN is something to show here, and nothing of this is to be recorded
            found = self.tape.backward(self.targets, sources, seeds, listener)
        listener.finish()
        grads = {s.id: g for s, g in zip(sources, found)}
        gradients, labels = {}, {}
        for tensor_id, node_id in self.sources:
            key = node_id or f"#{tensor_id}"
            # a source no recorded op touched has no node: its own name ("unused:0"), not the "#95" key
            obj_name = clean(getattr(self.objects.get(tensor_id), "name", key))
            labels[key] = node_name(self.by_id[node_id]) if node_id else obj_name
            g = grads.get(tensor_id) if node_id else None
            gradients[key] = None if g is None else g.numpy()
        reasons = self._reasons(gradients)
        lines = [msg("done")]
        missing = [why for why in listener.cuts.values() if why.key == "cut_no_rule"]
        if missing:
            lines.append(msg("lookup_note", what=list({repr(m): m for m in missing}.values())))
        for key, g in gradients.items():
            if g is None:
                lines.append(msg("result_none", name=labels[key], why=reasons[key]))
            else:
                lines.append(msg("result_line", name=labels[key], value=g))
        seed = Event("seed", target_nodes[0], lines=seed_lines)
        return [seed, *listener.events, Event("result", None, lines=lines)], gradients, reasons

    def _reasons(self, gradients: dict) -> dict:
        """Why each None gradient is None: `tape.explain`'s answer, the one explanation of a None."""
        keys = {(node_id or f"#{tensor_id}"): tensor_id for tensor_id, node_id in self.sources}
        missing = [key for key, g in gradients.items() if g is None]
        if not missing:
            return {}
        target = self.targets if len(self.targets) > 1 else self.targets[0]
        found = self.tape.explain(target, [self.objects[keys[k]] for k in missing]).reasons
        for key in missing:  # an unwatched source: every path out of it is cut
            node = self.by_id.get(key)
            if node is not None and node.kind == "constant":
                for edge in self.out_edges.get(key, []):
                    edge.cut = edge.cut or msg("cut_not_watched")
        return dict(zip(missing, found))

    def edge_none_reason(self, src: Node, op: Any, slot: int, reached: bool) -> Msg:
        if reached:
            return msg("why_rule_none", op=clean(op.type), slot=slot)
        if src.kind == "constant":
            return msg("why_unwatched")
        if not op.input_dtypes[slot].is_floating:
            return msg("why_int_edge", dtype=op.input_dtypes[slot].name)
        return msg("why_no_source")


def _common_scope(a: str, b: str) -> str:
    out = []
    for x, y in zip(a.split("/"), b.split("/")):
        if x != y:
            break
        out.append(x)
    return "/".join(out)


def node_name(node: Node) -> str | Msg:
    """How a node is named in sentences: a variable by its name, an op by its type and id, a leaf by its kind."""
    if node.kind == "variable":
        return node.label
    if node.record is not None:
        return f"{node.label} ({node.id})"
    return msg("leaf_name", kind=msg("leaf_unrecorded" if node.unrecorded else "leaf_" + node.kind), id=node.id)


def _local(op: Any, slot: int, upstream: Any, grad: Any) -> Local:
    local = Local(clean(op.type), slot)
    if grad is not None and upstream is not None and np.size(upstream) == 1 and grad.shape.num_elements() == 1:
        up = float(np.asarray(upstream).reshape(()))
        if up != 0 and np.isfinite(up):
            local.up, local.factor = up, float(grad) / up
    return local


def build(tape: Any, target: Any, sources: Any = None) -> StepModel:
    """The step model of `tape` for d target / d sources (default: every variable and watched input).

    `sources` is what `tape.gradient` takes: one tensor or variable, or a list (or any nest) of them.
    Given a `ForwardAccumulator` instead of a tape, the model shows forward mode: one JVP per op.
    """
    if isinstance(tape, mt.autodiff.ForwardAccumulator):
        from .forward_steps import build_forward

        return build_forward(tape, target)
    if tape.released:
        raise RuntimeError(
            "TapeView: this tape already answered gradient() and released its records. Create the view before "
            "calling tape.gradient, or record with GradientTape(persistent=True)."
        )
    graph = TapeGraph(tape, target, sources)
    events, gradients, reasons = graph.events()
    return StepModel(
        nodes=graph.nodes,
        edges=graph.edges,
        events=events,
        target=[graph.producer[t.id][0] for t in graph.targets],
        sources=[n or f"#{i}" for i, n in graph.sources],
        gradients=gradients,
        reasons=reasons,
    )


class _BackwardSteps(backprop.Observer):
    """Listens to the engine's backward sweep and writes one step per rule it applies.

    The numbers are the engine's own: the upstream gradients and each input's contribution
    as `tape.gradient` computes them. Running sums are kept per node (a variable read several
    times is one node), so the panel can show how the gradients meeting at a node add up.
    """

    def __init__(self, graph: TapeGraph) -> None:
        self.b = graph
        self.events: list[Event] = []
        self.totals: dict[str, np.ndarray] = {}  # node -> running sum shown on the node
        self.summed: dict[str, list] = {}  # node -> every contribution so far, in order
        self.cuts: dict[str, Msg] = {}  # node -> why the gradient stops there
        self.pending: tuple | None = None  # (event, op, upstream, contributed slots) of the rule now running
        self.nan_seen = False

    def add(self, node_id: str, value: np.ndarray) -> None:
        self.summed.setdefault(node_id, []).append(value)
        self.totals[node_id] = value if node_id not in self.totals else self.totals[node_id] + value

    def _event(self, op: Any, upstream: list | None) -> Event:
        self._close()
        node = self.b.by_id[f"op{self.b.index[op]}"]
        edges = self.b.in_edges.get(node.id, [])
        event = Event("backward", node.id, edges=[e.id for e in edges])
        title = "bwd_title_scope" if node.scope else "bwd_title"
        event.lines = [msg(title, record=node.record, op=node.label, scope=node.scope)]
        if upstream is not None:  # None: a cut, where no rule runs
            event.lines.append(msg("upstream", values=[g.numpy() for g in upstream]))
        self.events.append(event)
        return event

    def rule(self, op: Any, upstream: list) -> None:
        if op.type == "ReadVariableOp":  # folded into its variable: the identity, no step of its own
            self._close()
            return
        self.pending = (self._event(op, upstream), op, upstream, {})

    def contribution(self, op: Any, slot: int, grad: Any, total: Any) -> None:
        if self.pending is None or self.pending[1] is not op:
            return  # a variable read passing its gradient on: the sum already shows at the variable
        event, _, upstream, done = self.pending
        edge = self.b.in_edges[event.node][slot]
        value = grad.numpy()
        self.add(edge.src, value)
        local = _local(op, slot, upstream[0].numpy() if len(upstream) == 1 else None, grad)
        c = Contribution(edge.id, edge.src, value, local=local, total=self.totals[edge.src])
        c.summed, c.count = self.summed[edge.src], len(self.summed[edge.src])
        done[slot] = c
        name = node_name(self.b.by_id[edge.src])
        total = ""
        if c.count > 1:  # the last few terms only: a node fed by hundreds of ops stays one short line
            terms = Terms(tuple(c.summed[max(0, c.count - 3) : c.count]), c.count > 3)
            total = msg("sum_so_far", name=name, n=c.count, terms=terms, total=c.total)
        event.lines.append(msg("to_node", name=name, local=local, value=value, sum=total))

    def no_gradient(self, op: Any) -> None:
        self._cut(op, msg("cut_no_gradient", op=clean(op.type)))

    def missing_rule(self, op: Any, error: LookupError) -> bool:
        self._cut(op, msg("cut_no_rule", op=clean(op.type)))
        return True

    def _cut(self, op: Any, why: Msg) -> None:
        event = self._event(op, None)
        self.cuts[event.node] = why
        for edge in self.b.in_edges.get(event.node, []):
            edge.cut = why
        event.lines.append(msg("cut_line", why=why))
        event.contributions = [Contribution(e.id, e.src, None, reason=why) for e in self.b.in_edges.get(event.node, [])]

    def _close(self) -> None:
        """Finish the step of the rule that ran last: inputs it gave no gradient get a None edge and a reason."""
        if self.pending is None:
            return
        event, op, _, done = self.pending
        self.pending = None
        nan_here = False
        for slot, edge in enumerate(self.b.in_edges.get(event.node, [])):
            c = done.get(slot)
            if c is None:
                src = self.b.by_id[edge.src]
                why = self.b.edge_none_reason(src, op, slot, op.needs[slot])
                c = Contribution(edge.id, edge.src, None, reason=why, local=_local(op, slot, None, None))
                event.lines.append(msg("to_none", name=node_name(src), why=why))
            else:
                nan_here = nan_here or not _finite(c.grad)
            event.contributions.append(c)
        event.nonfinite = nan_here and not self.nan_seen
        self.nan_seen = self.nan_seen or nan_here
        if event.nonfinite:
            event.lines.append(msg("nan_backward"))

    def finish(self) -> None:
        self._close()
