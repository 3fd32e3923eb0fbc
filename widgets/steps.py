"""The step model: a tape's records as nodes, edges and the ordered forward and backward events.

Pure Python and numpy, so tests check every number without a browser. The forward
values come from the tensors the tape kept (or that are still alive), and the gaps
are filled by replaying each record's numpy forward. The backward events call each
op's own gradient rule, in reverse tape order, exactly as `tape.gradient` does,
so the sums shown at fan-out nodes are the gradients the engine returns.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

import minitape as mt
from minitape.engine import backprop, context
from minitape.engine.opdef import OPS
from minitape.engine.tensor import Tensor
from minitape.engine.variables import Variable
from minitape.engine.where import format_where
from minitape.values import nest
from minitape.values.tensor_like import TensorLike

# How each common op differentiates, in words: shown next to the numbers of a backward step.
LOCAL_RULES: dict[str, tuple[str, ...]] = {
    "AddV2": ("∂(a+b)/∂a = 1", "∂(a+b)/∂b = 1"),
    "Sub": ("∂(a−b)/∂a = 1", "∂(a−b)/∂b = −1"),
    "Mul": ("∂(a·b)/∂a = b", "∂(a·b)/∂b = a"),
    "RealDiv": ("∂(a/b)/∂a = 1/b", "∂(a/b)/∂b = −a/b²"),
    "Pow": ("∂(aᵇ)/∂a = b·aᵇ⁻¹", "∂(aᵇ)/∂b = aᵇ·ln a"),
    "Neg": ("∂(−x)/∂x = −1",),
    "Exp": ("∂eˣ/∂x = eˣ",),
    "Log": ("∂ln x/∂x = 1/x",),
    "Sin": ("∂sin x/∂x = cos x",),
    "Cos": ("∂cos x/∂x = −sin x",),
    "Tanh": ("∂tanh x/∂x = 1 − tanh²x",),
    "Sigmoid": ("∂σ(x)/∂x = σ(x)(1 − σ(x))",),
    "Relu": ("∂relu(x)/∂x = 1 where x > 0, else 0",),
    "Square": ("∂x²/∂x = 2x",),
    "Sqrt": ("∂√x/∂x = 1/(2√x)",),
    "Sum": ("∂sum(x)/∂x = 1 for every element",),
    "Mean": ("∂mean(x)/∂x = 1/n for every element",),
    "MatMul": ("∂(A@B)/∂A = upstream @ Bᵀ", "∂(A@B)/∂B = Aᵀ @ upstream"),
    "Identity": ("∂x/∂x = 1",),
}


@dataclass
class Node:
    """One box in the graph: a leaf (variable, watched or unwatched constant) or one recorded op."""

    id: str  # stable: "var0", "in1", "op7" (record index in tape order)
    kind: str  # "variable" | "watched" | "constant" | "op" | "gradop" (recorded by a backward pass)
    label: str  # a variable's name, or the op type
    shape: tuple = ()
    dtype: str = ""
    scope: str = ""
    record: int | None = None  # index in the tape's records
    backward_of: str | None = None
    where: str = ""
    value: np.ndarray | None = None  # forward value (first output for ops); None when not kept and not replayable
    values: list = field(default_factory=list)  # every output, for multi-output ops
    value_note: str = ""
    is_target: bool = False
    is_source: bool = False


@dataclass
class Edge:
    """A tensor flowing from the node that produced it into input `slot` of an op."""

    id: str  # "e0", "e1", ... in tape order
    src: str
    dst: str
    slot: int
    tensor: int  # the engine's tensor id: stable within one tape
    cut: str = ""  # why no gradient can flow back along this edge (drawn dashed with this reason), if it cannot


@dataclass
class Contribution:
    """What one backward step sends along one edge."""

    edge: str
    to: str  # the node receiving it
    grad: np.ndarray | None  # None: no gradient flows here (see `reason`)
    reason: str = ""
    local: str = ""  # the local derivative in words (and as a number for scalars)
    total: np.ndarray | None = None  # the running sum at `to` after adding this contribution
    summed: list = field(default_factory=list, repr=False)  # every contribution at `to` (shared, in order)
    count: int = 0  # how many of `summed` make up `total`
    final: bool = False  # the last contribution to `to`: `total` is its gradient, no longer a partial sum

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
    upstream: list = field(default_factory=list)  # backward: the gradient arriving at each output
    contributions: list = field(default_factory=list)
    value: np.ndarray | None = None  # forward: the value produced
    tangent: np.ndarray | None = None  # forward mode: the tangent (JVP) the op's output got
    nonfinite: bool = False  # the first NaN/inf of its pass appears here
    text: list = field(default_factory=list)  # the side panel, line by line


@dataclass
class StepModel:
    nodes: list
    edges: list
    events: list
    target: list  # node ids
    sources: list  # node ids, in the order given
    gradients: dict  # source node id -> np.ndarray or None
    reasons: dict  # source node id -> why its gradient is None
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


def fmt(value: np.ndarray | None, limit: int = 4) -> str:
    """A short, stable text for a value: the numbers for small tensors, a summary for large ones."""
    if value is None:
        return "None"
    a = np.asarray(value)
    if a.size <= limit:
        if a.ndim == 0:
            return _num(a[()])
        return np.array2string(a, precision=4, separator=", ", formatter={"all": _num})
    if a.dtype.kind in "fc" and a.size:
        finite = a[np.isfinite(a)]
        span = f" in [{_num(finite.min())}, {_num(finite.max())}]" if finite.size else ""
        bad = " has NaN/inf" if finite.size < a.size else ""
        return f"{a.dtype.name}{list(a.shape)}{span}{bad}"
    return f"{a.dtype.name}{list(a.shape)}"


def _num(x: Any) -> str:
    if isinstance(x, (bool, np.bool_)):
        return str(bool(x))
    if isinstance(x, (int, np.integer)):
        return str(int(x))
    x = float(x) + 0.0  # + 0.0 turns -0.0 into 0.0: "-0" only puzzles a reader
    if np.isnan(x):
        return "nan"
    if np.isinf(x):
        return "inf" if x > 0 else "-inf"
    return f"{x:.4g}"


def _finite(a: np.ndarray | None) -> bool:
    return a is None or np.asarray(a).dtype.kind not in "fc" or bool(np.all(np.isfinite(a)))


class _Builder:
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
        self.consumers: dict[str, int] = {}
        self.edges: list[Edge] = []
        self.known: dict[int, np.ndarray] = {}
        self.notes: dict[int, str] = {}
        self.variables: dict[int, Variable] = {v.id: v for v in tape.watched_variables()}
        self.objects: dict[int, Any] = dict(self.variables)  # tensor id -> the tensor or variable, where alive
        self.source_dtypes: dict[int, Any] = {}
        self.watched = tape.watched_ids
        self.in_edges: dict[str, list[Edge]] = {}  # node id -> the edges into it, by input slot
        self.out_edges: dict[str, list[Edge]] = {}  # node id -> the edges out of it
        self.leaf_count = {"var": 0, "in": 0}  # leaves are numbered in tape order: var0, var1, in0, ...
        self._collect_values()
        self.requested = {s.id for s in nest.flatten(sources) if isinstance(s, TensorLike)} if sources else set()
        self._build_graph()
        self.sources = self._sources(sources)

    # ---- values ----------------------------------------------------------------------------------
    def _collect_values(self) -> None:
        """Every value the tape kept or that is still alive; then replay the records to fill the gaps."""
        for op in self.records:
            for ids, alive in ((op.input_ids, op.alive_inputs()), (op.output_ids, op.alive_outputs())):
                for i, t in zip(ids, alive):
                    if t is None:
                        continue
                    self.objects.setdefault(i, t)
                    if isinstance(t, Variable):
                        self.variables.setdefault(i, t)
                    elif i not in self.known:
                        self.known[i] = t.numpy()
        for op in self.records:
            if all(i in self.known for i in op.output_ids):
                continue
            if op.type == "ReadVariableOp" and op.input_ids[0] in self.variables:
                self.known[op.output_ids[0]] = self.variables[op.input_ids[0]].numpy()
                self.notes[op.output_ids[0]] = "the variable's current value (the read itself was not kept)"
                continue
            opdef = OPS.get(op.type)
            if opdef is None or op.grad_fn is not None or not all(i in self.known for i in op.input_ids):
                for i in op.output_ids:
                    self.notes.setdefault(i, "not kept by the tape, and no longer alive")
                continue
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
            node = Node(f"var{self.leaf_count['var']}", "variable", var.name)
            self.leaf_count["var"] += 1
        else:
            kind = "watched" if tensor_id in self.watched else "constant"
            node = Node(f"in{self.leaf_count['in']}", kind, kind)
            self.leaf_count["in"] += 1
        node.shape = tuple(op.input_shapes[slot])
        node.dtype = op.input_dtypes[slot].name
        node.value, node.values = value, [value]
        node.value_note = self.notes.get(tensor_id, "" if value is not None else "not kept by the tape")
        node.scope = op.scope
        self._add(node)
        # a constant no one asked about is drawn once per use, beside its op, as code reads (`x * 2.0`): one
        # shared node for a number used all over a tape would pull every op towards it
        if node.kind != "constant" or tensor_id in self.requested:
            self.producer[tensor_id] = (node.id, 0)
        return node.id

    def _build_graph(self) -> None:
        for index, op in enumerate(self.records):
            if op.type == "ReadVariableOp":  # fold the read into its variable: the sums then show at the variable
                var_node = self._leaf(op.input_ids[0], op, 0)
                node = self.by_id[var_node]
                read_value = self.known.get(op.output_ids[0])
                if node.value is None or node.value_note:
                    node.value, node.values = read_value, [read_value]
                    node.value_note = self.notes.get(op.output_ids[0], "")
                if op.scope != node.scope:  # read from several scopes: keep the variable outside them
                    node.scope = _common_scope(node.scope, op.scope)
                self.producer[op.output_ids[0]] = (var_node, 0)
                continue
            srcs = [self._leaf(i, op, k) for k, i in enumerate(op.input_ids)]
            for src in srcs:  # a leaf used from several scopes (a shared constant) stays outside all of them
                leaf = self.by_id[src]
                if leaf.record is None and leaf.scope != op.scope:
                    leaf.scope = _common_scope(leaf.scope, op.scope)
            values = [self.known.get(i) for i in op.output_ids]
            backward_of = getattr(op, "backward_of", None)
            if backward_of is None and op.type == "AddN" and all(self.by_id[s].kind == "gradop" for s in srcs):
                backward_of = "sum"  # the backward pass adds the gradients meeting at one tensor
            node = Node(
                f"op{index}",
                "gradop" if backward_of else "op",
                op.type,
                shape=tuple(op.output_shapes[0]) if op.output_shapes else (),
                dtype=op.output_dtypes[0].name if op.output_dtypes else "",
                scope=op.scope,
                record=index,
                backward_of=backward_of,
                where=format_where(op.where) if op.where else "",
                value=values[0] if values else None,
                values=values,
                value_note=self.notes.get(op.output_ids[0], "") if op.output_ids else "no outputs",
            )
            self._add(node)
            for k, (src, tensor_id) in enumerate(zip(srcs, op.input_ids)):
                edge = Edge(f"e{len(self.edges)}", src, node.id, k, tensor_id)
                self.edges.append(edge)
                self.in_edges.setdefault(node.id, []).append(edge)
                self.out_edges.setdefault(src, []).append(edge)
                self.consumers[src] = self.consumers.get(src, 0) + 1
            for k, i in enumerate(op.output_ids):
                self.producer[i] = (node.id, k)
        for t in self.targets:
            if t.id not in self.producer:
                self._unrecorded_target(t)
            self.by_id[self.producer[t.id][0]].is_target = True

    def _unrecorded_target(self, target: Any) -> None:
        """A target the tape did not record: draw it apart, joined by dashed edges where its path left the tape.

        Two ways out are visible on the tape: a watched value converted to numpy, and an op whose output has
        an integer dtype that nothing recorded uses (the tape does not follow integers).
        """
        value = target.numpy()
        node = self._add(Node(f"in{self.leaf_count['in']}", "constant", "target (not recorded)", value=value))
        self.leaf_count["in"] += 1
        node.shape, node.dtype, node.values = tuple(target.shape), target.dtype.name, [value]
        node.value_note = "computed where the tape could not follow: no gradient reaches it"
        self.producer[target.id] = (node.id, 0)
        used = {e.src for e in self.edges}
        exits = [
            (self.producer[i][0], f"numpy escape: the value left the tape at {format_where(where)}")
            for i, where, _ in self.tape.numpy_escapes
            if i in self.producer
        ]
        for index, op in enumerate(self.records):
            node_id = f"op{index}"
            dtypes = op.output_dtypes
            if node_id in self.by_id and node_id not in used and dtypes and not dtypes[0].is_floating:
                exits.append((node_id, f"int dtype: {op.type} gives {dtypes[0].name}, which carries no gradient"))
        for src, why in dict(exits).items():
            edge = Edge(f"e{len(self.edges)}", src, node.id, len(self.in_edges.get(node.id, [])), target.id, why)
            self.edges.append(edge)
            self.in_edges.setdefault(node.id, []).append(edge)
            self.out_edges.setdefault(src, []).append(edge)

    def _sources(self, sources: Any) -> list:
        if sources is None:
            ids = [i for i, (n, _) in self.producer.items() if self.by_id[n].kind in ("variable", "watched")]
            return [(i, self.producer[i][0]) for i in dict.fromkeys(ids) if not self._is_read(i)]
        out = []
        for s in nest.flatten(sources):
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
        events = [self._start_event()]
        nan_seen = False
        for index, op in enumerate(self.records):
            if op.type == "ReadVariableOp":
                continue
            node = self.by_id[f"op{index}"]
            produced = [v for v in node.values if v is not None]
            first_nan = not nan_seen and not all(_finite(v) for v in produced)
            nan_seen = nan_seen or first_nan
            events.append(
                Event(
                    "forward",
                    node.id,
                    edges=[e.id for e in self.in_edges.get(node.id, [])],
                    value=node.value,
                    nonfinite=first_nan,
                    text=self._forward_text(op, node, first_nan),
                )
            )
        backward, grads, reasons = self._backward()
        return events + backward, grads, reasons

    def _start_event(self) -> Event:
        leaves = [n for n in self.nodes if n.kind in ("variable", "watched", "constant")]
        count = sum(n.record is not None for n in self.nodes)
        text = [f"The tape recorded {count} op{'' if count == 1 else 's'}. The inputs:"]
        for n in leaves:
            what = {"variable": "variable", "watched": "watched tensor", "constant": "constant (not watched)"}[n.kind]
            text.append(f"{n.label if n.kind == 'variable' else n.id}: {what} = {fmt(n.value)}")
        return Event("start", text=text)

    def _forward_text(self, op: Any, node: Node, first_nan: bool) -> list:
        ins = [self.by_id[e.src] for e in self.in_edges.get(node.id, [])]
        text = [f"Forward, record {node.record}: {op.type}" + (f" in {op.scope}" if op.scope else "")]
        if node.backward_of:
            what = "summing gradients that meet at one tensor" if node.backward_of == "sum" else node.backward_of
            text.append(f"Recorded by a backward pass ({what}): part of the gradient's own graph.")
        for k, src in enumerate(ins):
            text.append(f"input {k}: {_name(src)} = {fmt(src.value)}")
        shape = "scalar" if node.shape == () else f"shape {list(node.shape)}"
        text.append(f"output ({shape}, {node.dtype}) = {fmt(node.value)}")
        if node.value is None:
            text.append(f"(value unknown: {node.value_note})")
        if first_nan:
            text.append("⚠ NaN or inf appears here first in the forward pass.")
        if node.where:
            text.append(f"from {node.where}")
        return text

    def _backward(self) -> tuple[list, dict, dict]:
        """Run the engine's own backward sweep (`tape.backward`) and turn what it does into steps."""
        sources = [self.objects[i] for i, _ in self.sources if i in self.objects and self.objects[i].dtype.is_floating]
        listener = _BackwardSteps(self)
        target_nodes = []
        for t in self.targets:
            node_id = self.producer[t.id][0]
            target_nodes.append(node_id)
            listener.add(node_id, np.ones(t.shape, t.dtype.as_numpy_dtype))
        seed_text = ["Backward pass: start from the target with a seed of 1 (d target / d target = 1)."]
        seed_text += [f"seed at {_name(self.by_id[n])}: {fmt(listener.totals[n])}" for n in target_nodes]
        seeds = [mt.ones(t.shape, dtype=t.dtype) for t in self.targets]
        with context.paused():  # NaN is something to show here, and nothing of this is to be recorded
            found = self.tape.backward(self.targets, sources, seeds, listener)
        listener.finish()
        grads = {s.id: g for s, g in zip(sources, found)}
        gradients, reasons, labels = {}, {}, {}
        for tensor_id, node_id in self.sources:
            key = node_id or f"#{tensor_id}"
            # a source no recorded op touched has no node: its own name ("unused:0"), not the "#95" key
            labels[key] = _name(self.by_id[node_id]) if node_id else getattr(self.objects.get(tensor_id), "name", key)
            g = grads.get(tensor_id) if node_id else None
            gradients[key] = None if g is None else g.numpy()
            if g is None:
                reasons[key] = self._explained(tensor_id) or self._why_none(tensor_id, node_id, listener.cuts)
                if node_id and self.by_id[node_id].kind == "constant":  # an unwatched source: its paths are cut
                    for edge in self.out_edges.get(node_id, []):
                        edge.cut = edge.cut or "not watched: the tape does not follow this tensor (tape.watch it)"
        lines = ["Done: each source's gradient."]
        missing = sorted({why for why in listener.cuts.values() if "LookupError" in why})
        if missing:
            lines.append("Note: tape.gradient raises LookupError on this tape: " + "; ".join(missing))
        for key, g in gradients.items():
            lines.append(f"d target / d {labels[key]} = {fmt(g)}" + (f"  ({reasons[key]})" if g is None else ""))
        seed = Event("seed", target_nodes[0], text=seed_text)
        return [seed, *listener.events, Event("result", None, text=lines)], gradients, reasons

    def _explained(self, tensor_id: int) -> str:
        """The engine's own answer (`tape.explain`), naming the op and line at fault, when it can give one."""
        source = self.objects.get(tensor_id)
        if source is None or not hasattr(self.tape, "explain"):
            return ""
        try:
            reason = self.tape.explain(self.targets if len(self.targets) > 1 else self.targets[0], [source]).reasons[0]
        except Exception:  # explain is a teaching aid here: our own reason below still says why
            return ""
        if reason.connected:
            return ""
        return reason.message + (f" Fix: {reason.fix}" if reason.fix else "")

    def _why_edge_none(self, src: Node, tensor_id: int, op: Any, slot: int, reached: bool) -> str:
        if reached:
            return f"the gradient rule of {op.type} returns None for input {slot}"
        if src.kind == "constant":
            return "an unwatched constant: the tape does not follow it (tape.watch(c) would)"
        if not op.input_dtypes[slot].is_floating:
            return f"{op.input_dtypes[slot].name} values carry no gradient"
        return "it does not depend on any source"

    def _why_none(self, tensor_id: int, node_id: str | None, cuts: dict) -> str:
        if not self._floating(tensor_id):
            dtype = self.source_dtypes[tensor_id].name if tensor_id in self.source_dtypes else "integer"
            return f"its dtype {dtype} is not floating: integer values carry no gradient"
        if node_id is None:
            return "not used by any op recorded on this tape"
        downstream = self._downstream(node_id)
        blocked = [cuts[n] for n in downstream if n in cuts]
        if blocked:
            return blocked[0]
        ints = [self.by_id[n] for n in downstream if self.by_id[n].dtype and self.by_id[n].dtype[0] in "iub"]
        if ints:
            return f"its path goes through {ints[0].label} ({ints[0].dtype}), and integer values carry no gradient"
        return "the target does not depend on it"

    def _downstream(self, node_id: str) -> list:
        seen, frontier = set(), [node_id]
        while frontier:
            for e in self.out_edges.get(frontier.pop(), []):
                if e.dst not in seen:
                    seen.add(e.dst)
                    frontier.append(e.dst)
        return sorted(seen, key=lambda n: self.by_id[n].record or 0)

    def _floating(self, tensor_id: int) -> bool:
        if tensor_id in self.source_dtypes:
            return self.source_dtypes[tensor_id].is_floating
        if tensor_id in self.variables:
            return self.variables[tensor_id].dtype.is_floating
        node_id = self.producer.get(tensor_id, (None, 0))[0]
        if node_id is None:
            return True
        dtype = self.by_id[node_id].dtype
        return not dtype or dtype.startswith(("float", "complex"))


def _common_scope(a: str, b: str) -> str:
    out = []
    for x, y in zip(a.split("/"), b.split("/")):
        if x != y:
            break
        out.append(x)
    return "/".join(out)


def _name(node: Node) -> str:
    if node.kind == "variable":
        return node.label
    return f"{node.label} ({node.id})"


def _local(op_type: str, slot: int, upstream: np.ndarray | None, grad: Tensor | None) -> str:
    rules = LOCAL_RULES.get(op_type)
    words = rules[slot] if rules and slot < len(rules) else f"vector-Jacobian product of {op_type} (input {slot})"
    if grad is not None and upstream is not None and np.size(upstream) == 1 and grad.shape.num_elements() == 1:
        up = float(np.asarray(upstream).reshape(()))
        if up != 0 and np.isfinite(up):
            local = float(grad) / up
            return f"{_num(up)} × ({words} = {_num(local)})"
    return words


def build(tape: Any, target: Any, sources: Any = None) -> StepModel:
    """The step model of `tape` for d target / d sources (default: every variable and watched input).

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
    builder = _Builder(tape, target, sources)
    events, gradients, reasons = builder.events()
    for _, node_id in builder.sources:
        if node_id:
            builder.by_id[node_id].is_source = True
    return StepModel(
        nodes=builder.nodes,
        edges=builder.edges,
        events=events,
        target=[builder.producer[t.id][0] for t in builder.targets],
        sources=[n or f"#{i}" for i, n in builder.sources],
        gradients=gradients,
        reasons=reasons,
    )


class _BackwardSteps(backprop.Observer):
    """Listens to the engine's backward sweep and writes one step per rule it applies.

    The numbers are the engine's own: the upstream gradients and each input's contribution
    as `tape.gradient` computes them. Running sums are kept per node (a variable read several
    times is one node), so the panel can show how the gradients meeting at a node add up.
    """

    def __init__(self, builder: _Builder) -> None:
        self.b = builder
        self.events: list[Event] = []
        self.totals: dict[str, np.ndarray] = {}  # node -> running sum shown on the node
        self.summed: dict[str, list] = {}  # node -> every contribution so far, in order
        self.last: dict[str, Contribution] = {}  # node -> its latest contribution (marked final at the end)
        self.cuts: dict[str, str] = {}  # node -> why the gradient stops there
        self.pending: tuple | None = None  # (event, op, upstream, contributed slots) of the rule now running
        self.nan_seen = False

    def add(self, node_id: str, value: np.ndarray) -> None:
        self.summed.setdefault(node_id, []).append(value)
        self.totals[node_id] = value if node_id not in self.totals else self.totals[node_id] + value

    def _event(self, op: Any, upstream: list) -> Event:
        self._close()
        node = self.b.by_id[f"op{self.b.index[op]}"]
        edges = self.b.in_edges.get(node.id, [])
        event = Event("backward", node.id, edges=[e.id for e in edges], upstream=[g.numpy() for g in upstream])
        where = f" in {op.scope}" if op.scope else ""
        event.text = [f"Backward, record {node.record}: {op.type}{where}"]
        event.text.append("upstream gradient (d target / d output) = " + ", ".join(fmt(g.numpy()) for g in upstream))
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
        local = _local(op.type, slot, upstream[0].numpy() if len(upstream) == 1 else None, grad)
        c = Contribution(edge.id, edge.src, value, local=local, total=self.totals[edge.src])
        c.summed, c.count = self.summed[edge.src], len(self.summed[edge.src])
        self.last[edge.src] = c
        done[slot] = c
        name = _name(self.b.by_id[edge.src])
        line = f"→ {name}: {local} = {fmt(value)}"
        if c.count > 1:  # the last few terms only: a node fed by hundreds of ops stays one short line
            shown = [fmt(t) for t in c.summed[max(0, c.count - 3) : c.count]]
            more = "… + " if c.count > 3 else ""
            line += f"; sum at {name} so far ({c.count} terms): {more}{' + '.join(shown)} = {fmt(c.total)}"
        event.text.append(line)

    def no_gradient(self, op: Any) -> None:
        self._cut(op, f"{op.type} has no gradient (e.g. stop_gradient): the path is cut here")

    def missing_rule(self, op: Any, error: LookupError) -> bool:
        why = (
            f"no gradient registered for {op.type}: tape.gradient raises LookupError here "
            f'(register one with @mt.RegisterGradient("{op.type}"))'
        )
        self._cut(op, why)
        return True

    def _cut(self, op: Any, why: str) -> None:
        upstream = [mt.zeros(s, dtype=d) for s, d in zip(op.output_shapes, op.output_dtypes)]
        event = self._event(op, upstream)
        event.upstream = [None] * len(upstream)
        del event.text[1]
        self.cuts[event.node] = why
        for edge in self.b.in_edges.get(event.node, []):
            edge.cut = why
        event.text.append(f"None: {why}.")
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
                why = self.b._why_edge_none(src, op.input_ids[slot], op, slot, op.needs[slot])
                c = Contribution(edge.id, edge.src, None, reason=why, local=_local(op.type, slot, None, None))
                event.text.append(f"→ {_name(src)}: None ({why})")
            else:
                nan_here = nan_here or not _finite(c.grad)
            event.contributions.append(c)
        event.nonfinite = nan_here and not self.nan_seen
        self.nan_seen = self.nan_seen or nan_here
        if event.nonfinite:
            event.text.append("⚠ NaN or inf appears here first in the backward pass.")

    def finish(self) -> None:
        self._close()
        for c in self.last.values():
            c.final = True
