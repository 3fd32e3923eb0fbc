"""A traced function called under a GradientTape: one op on the tape, as TensorFlow records its call op.

The graph runs as fast as without a tape (`replay.run`); the tape gets one record, `StatefulPartitionedCall`
(`PartitionedCall` when the graph touches no variable), from the call's tensors and the variables the graph
reads to its tensor outputs. Its gradient rule replays the graph op by op under a tape of its own, on the values
the forward run read, and asks that tape for the vector-Jacobian product: the rule's ops go through the engine,
so a tape still recording while the gradient is taken sees them (second and higher derivatives). When nothing
records the backward pass, the rule runs that same computation traced once into a graph instead (traced_vjp.py).

The replay for the gradient repeats no side effect: assigns and Python calls ran once, in the forward run; each
variable read gets the value the forward run read (then the variable gets its own value back).
"""

from __future__ import annotations

from typing import Any

from minitape.engine.context import state
from minitape.engine.execute import record
from minitape.engine.tape import GradientTape
from minitape.engine.tensor import Tensor
from minitape.function import replay, traced_vjp
from minitape.function.graph import AssignStep, CallStep, Graph, OpStep, ReadStep, Slot
from minitape.values import nest


def recordable(graph: Graph) -> bool:
    """Whether a call of the graph can be one op: no Python call in it returns tensors (the gradient would
    have to call it again: another random draw, another order)."""
    return not any(type(s) is CallStep and _returns_tensors(s) for s in graph.steps)


def _returns_tensors(step: CallStep) -> bool:
    return any(type(x) is Slot for x in nest.flatten(step.outputs))


def call(program: replay.Program, tensors: list) -> Any:
    """Run the graph on the call's tensors, fast; record it as one op on the tapes; return its result."""
    graph = program.graph
    values = replay.run(program, [t._value for t in tensors])
    result = program.outputs(values)
    outputs = [x for x in nest.flatten(result) if type(x) is Tensor]
    variables = _variables_read(graph)
    _tell_variable_watchers(variables)
    touches = variables or any(type(s) is AssignStep for s in graph.steps)
    rule = _rule(program, tensors, variables, values)
    name = "StatefulPartitionedCall" if touches else "PartitionedCall"
    record(name, tensors + variables, outputs, {}, keep="nothing", grad_fn=rule)
    return result


def _variables_read(graph: Graph) -> list:
    found: dict[int, Any] = {}
    for step in graph.steps:
        if type(step) is ReadStep:
            found.setdefault(id(step.variable), step.variable)
    return list(found.values())


def _tell_variable_watchers(variables: list) -> None:
    """What reading each variable tells the tapes (and custom_gradient): the replay read them as arrays."""
    for variable in variables:
        for watcher in state.variable_watchers:
            if all(v is not variable for v in watcher):
                watcher.append(variable)
        for tape in state.tapes:
            if variable.trainable and tape._watch_accessed_variables:
                tape.watch_variable(variable)


def _rule(program: replay.Program, tensors: list, variables: list, forward: list) -> Any:
    graph = program.graph
    out_slots = [x.index for x in nest.flatten(graph.outputs) if type(x) is Slot]
    wanted = [k for k, t in enumerate(tensors + variables) if _differentiable(t)]  # an integer has no gradient

    def gradient(inputs: list, upstream: tuple) -> list:
        """The VJP by the graph's ops through the engine under a tape of its own, on `inputs`."""
        sources = inputs + variables
        with GradientTape(watch_accessed_variables=False) as inner:
            inner.watch([sources[k] for k in wanted])
            slots = replay_for_gradient(graph, inputs, forward)
        pairs = [(slots[i], g) for i, g in zip(out_slots, upstream) if g is not None and _differentiable(slots[i])]
        grads: list = [None] * len(sources)
        if pairs and wanted:
            targets, weights = zip(*pairs)
            found = inner.gradient(list(targets), [sources[k] for k in wanted], output_gradients=list(weights))
            for k, g in zip(wanted, found):
                grads[k] = g
        return grads

    def rule(op: Any, *upstream: Tensor) -> list:
        if not traced_vjp.backward_watched():  # nobody needs the backward ops as tensors: its traced graph
            fast = traced_vjp.gradients(program, gradient, tensors, forward, upstream)
            if fast is not None:
                return fast
        return gradient(tensors, upstream)

    return rule


def _differentiable(tensor: Any) -> bool:
    return tensor._value.dtype.kind in "fc"


def replay_for_gradient(graph: Graph, tensors: list, forward: list) -> list:
    """The graph's ops through the engine, each variable read giving the value the forward run read; no assign
    and no Python call runs again (guards held in the forward run, on these same values)."""
    values: list = [None] * graph.n_slots
    for slot, value in graph.constants.items():
        values[slot] = Tensor(value)
    for slot, tensor in zip(graph.inputs, tensors):
        values[slot] = tensor
    now = [(v, v._value) for v in _variables_read(graph)]
    try:
        for step in graph.steps:
            if type(step) is OpStep:
                replay.step_as_op(step, values)
            elif type(step) is ReadStep:
                step.variable._value = forward[step.output]
                values[step.output] = step.variable.read_value()
    finally:
        for variable, value in now:
            variable._value = value
    return values
