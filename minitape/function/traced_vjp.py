"""The gradient of a call op as a traced graph of its own: the backward pass traced once, replayed fast.

call_op.py's rule can take the vector-Jacobian product of a traced function's call op by running the forward
graph op by op under a tape; that is right to any order, but every op goes through the engine. When nothing
records the backward pass (no tape open, no accumulator, no trace, no listener), nobody needs those ops as
tensors: the rule then traces that same gradient computation once, as `Function` traces Python code, into a
graph whose inputs are the call's tensors and the upstream gradients and whose outputs are the gradients; the
graph is kept on the call's `Program` (one per set of upstream shapes) and replayed as numpy calls.

The variables the forward graph reads stay variables in the traced backward graph (the tape differentiates
with respect to them); the rule sets each to the value the forward run read while the graph runs. That needs
one value per variable, so a call whose graph reads a variable before and after assigning it keeps the op by op
rule, as does a backward graph with a Python call or a guard in it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from minitape.engine.context import state
from minitape.engine.tensor import Tensor
from minitape.function import replay
from minitape.function.graph import AssignStep, CallStep, Graph, ReadStep, Slot
from minitape.function.trace import Tracer

UNUSABLE = "unusable"  # a cache entry: this backward graph cannot be replayed fast (see the module's docstring)


def backward_watched() -> bool:
    """Whether something hears the backward pass's ops (a tape for a higher derivative, a trace, a listener)."""
    return bool(state.tapes or state.accumulators or state.tracers or state.listeners)


def read_values(graph: Graph, forward: list) -> list | None:
    """Each variable the graph reads with the one value the forward run read from it; None if it read two."""
    found: dict[int, tuple] = {}
    for step in graph.steps:
        if type(step) is ReadStep:
            value = forward[step.output]
            held = found.setdefault(id(step.variable), (step.variable, value))
            if held[1] is not value:
                return None
    return list(found.values())


def gradients(program: replay.Program, gradient: Callable, tensors: list, forward: list, upstream: tuple) -> Any:
    """The gradients `gradient(tensors, upstream)` computes, from its traced graph (traced on first use);
    None when this call cannot take the fast path."""
    reads = read_values(program.graph, forward)
    if reads is None:
        return None
    key = tuple(None if g is None else (g._value.shape, g._value.dtype) for g in upstream)
    now = [(v, v._value) for v, _ in reads]
    try:
        for variable, value in reads:
            variable._value = value
        vjp = program.vjps.get(key)
        if vjp is None:
            vjp = program.vjps[key] = _trace(program.graph.name, gradient, tensors, upstream)
        if vjp is UNUSABLE:
            return None
        arrays = [t._value for t in tensors] + [g._value for g in upstream if g is not None]
        values = replay.run(vjp, arrays)
    finally:
        for variable, value in now:
            variable._value = value
    return [None if type(x) is not Slot else Tensor(values[x.index]) for x in vjp.graph.outputs]


def _trace(name: str, gradient: Callable, tensors: list, upstream: tuple) -> Any:
    """Trace `gradient` on stand-ins for the call's tensors and the upstream gradients; its Program."""
    graph = Graph(f"{name}_vjp")
    tracer = Tracer(graph, allow_variables=False)
    inputs = [Tensor(t._value) for t in tensors]
    weights = [None if g is None else Tensor(g._value) for g in upstream]
    for k, t in enumerate([*inputs, *(g for g in weights if g is not None)]):
        tracer.input(t, f"input_{k}")
    state.tracers.append(tracer)
    try:
        grads = gradient(inputs, tuple(weights))
        graph.outputs = [None if g is None else Slot(tracer.slot_of(g)) for g in grads]
    finally:
        state.tracers.remove(tracer)
    graph.prune()
    program = replay.Program(graph)
    stateful = any(type(s) in (AssignStep, CallStep) for s in graph.steps)
    return UNUSABLE if program.guarded or stateful else program
