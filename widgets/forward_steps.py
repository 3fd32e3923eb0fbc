"""The step model of forward mode: a `ForwardAccumulator`'s ops in order, each with the tangent it produced.

The accumulator keeps the ops that carried a tangent (`acc.records`) and each tensor's tangent
(`acc.tangent_of`): the numbers shown are the JVPs the engine computed, one per op.
"""

from __future__ import annotations

from typing import Any

from .formatting import msg
from .steps import Event, StepModel, TapeGraph, node_name


class _AccumulatorAsTape:
    """What the graph builder reads from a tape, answered from an accumulator's records."""

    def __init__(self, acc: Any) -> None:
        self.acc = acc
        self.records = acc.records
        produced = {i for op in self.records for i in op.output_ids}
        leaves = [i for op in self.records for i in op.input_ids if i not in produced]
        self.watched_ids = frozenset(i for i in leaves if acc.tangent_of(i) is not None)
        self.numpy_escapes = ()
        alive = {i: t for op in self.records for i, t in zip(op.input_ids, op.alive_inputs()) if t is not None}
        self.variables = [t for i, t in alive.items() if i in self.watched_ids and hasattr(t, "assign")]

    def watched_variables(self) -> tuple:
        return tuple(self.variables)


def build_forward(acc: Any, target: Any) -> StepModel:
    """Forward mode drawn step by step: each op's value, then its tangent, from the primals' tangents."""
    tape = _AccumulatorAsTape(acc)
    if not tape.records:
        raise ValueError(
            "TapeView: this ForwardAccumulator carried no tangent through any op: compute the target inside its "
            "`with` block from the primals it was given"
        )
    builder = TapeGraph(tape, target, None)
    tangents = {}
    for tensor_id, node_id in builder.sources:
        t = acc.tangent_of(tensor_id)
        if t is not None and node_id:
            tangents[node_id] = t.numpy()
    start = builder.start_event()
    start.lines.append(msg("fwd_mode"))
    start.lines += [msg("tangent_of", name=node_name(builder.by_id[n]), value=t) for n, t in tangents.items()]
    events = [start]
    for index, op in enumerate(tape.records):
        if op.type == "ReadVariableOp":
            continue
        node = builder.by_id[f"op{index}"]
        t = acc.tangent_of(op.output_ids[0]) if op.output_ids else None
        tangent = None if t is None else t.numpy()
        lines = builder.forward_lines(node, False)
        ins = [acc.tangent_of(i) for i in op.input_ids]
        lines.append(msg("tangents_in", values=[None if g is None else g.numpy() for g in ins]))
        lines.append(msg("tangent_out", op=node.label, value=tangent))
        edges = [e.id for e in builder.in_edges.get(node.id, [])]
        events.append(Event("forward", node.id, edges=edges, value=node.value, tangent=tangent, lines=lines))
    target_nodes = [builder.producer[t.id][0] for t in builder.targets]
    jvps = {n: acc.tangent_of(t.id) for n, t in zip(target_nodes, builder.targets)}
    result = {n: None if j is None else j.numpy() for n, j in jvps.items()}
    lines = [msg("fwd_done")]
    lines += [msg("jvp_at", name=node_name(builder.by_id[n]), value=v) for n, v in result.items()]
    events.append(Event("result", None, lines=lines))
    return StepModel(
        nodes=builder.nodes,
        edges=builder.edges,
        events=events,
        target=target_nodes,
        sources=list(tangents),
        gradients=result,
        reasons={},
        mode="forward",
        tangents=tangents,
    )
