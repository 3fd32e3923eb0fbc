"""Running a recorded graph again: the numpy calls one after another on a list of slots, nothing else.

`Program` turns a graph's steps into flat tuples once; `run` is then one loop: no conversions, no records, no
Tensor wrapping between steps, variables written as the steps say. `run_as_ops` instead sends every op through
the engine's op path, so that accumulators and listeners hear each op and an outer `tf.function` being traced
records them (a tape alone records one op for the call: call_op.py; its gradient replays with `step_as_op`).

A guard whose value goes the other way (or a Python call whose tensors come back in other shapes) stops the run:
the variables the run wrote are put back, `mt.print` (which waits for the end of a guarded run) has printed
nothing, and `GuardFailedError` tells the caller to take another graph. Python calls made before the guard are
not taken back: they run again in the next graph or trace. That is harmless for the ones that only compute (an
order, a mask, random numbers), so a guard after a call that changes state (`changes_state`: an optimizer's
update, a metric's count) raises a RuntimeError instead.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minitape.engine import context
from minitape.engine.tensor import Tensor
from minitape.function.graph import AssignStep, CallStep, Graph, GuardStep, OpStep, ReadStep, Slot
from minitape.function.trace import runs_each_call
from minitape.values import nest

ONE_IN, TWO_IN, ANY_IN, READ, ASSIGN, CALL, GUARD = range(7)
_COMBINE = {"AssignVariableOp": None, "AssignAddVariableOp": np.add, "AssignSubVariableOp": np.subtract}
ndarray = np.ndarray


class GuardFailedError(Exception):
    """A Python branch of the traced code would go another way for these values."""


class Program:
    """A graph's steps as flat tuples for `run`, each (kind, function, a, b, out, dtype)."""

    def __init__(self, graph: Graph) -> None:
        self.graph = graph
        self.code = [_compiled(step) for step in graph.steps]
        self.template: list = [None] * graph.n_slots
        for slot, value in graph.constants.items():
            self.template[slot] = value
        # a Python call that returns tensors is a guard too: on their shapes (see `_call`)
        self.guarded = graph.guarded or any(step[0] == CALL and step[4] for step in self.code)
        self.assigned = [s.variable for s in graph.steps if type(s) is AssignStep]
        self.outputs = filler(graph.outputs)  # the function's result, a fresh tensor for each slot
        self.no_retreat = no_retreat(graph.steps)
        self.vjps: dict = {}  # its call op's gradient, traced (traced_vjp.py), by the upstream gradients' shapes


def _compiled(step: Any) -> tuple:
    """One step as a tuple of six: an op's numpy function (without the dtype checks tracing passed, if it
    has them apart: `replay`), its input slots, its output slot(s) and the dtype numpy's result is given."""
    kind = type(step)
    if kind is OpStep:
        forward, ins = getattr(step.op.forward, "replay", step.op.forward), step.inputs
        if step.op.n_outputs == 1 and not step.attrs and len(ins) in (1, 2):
            return (ONE_IN if len(ins) == 1 else TWO_IN), forward, ins[0], ins[-1], step.outputs[0], step.dtype
        return ANY_IN, step.op.forward, ins, step.attrs, step.outputs, step.dtype
    if kind is ReadStep:
        return READ, step.variable, None, None, step.output, None
    if kind is AssignStep:
        return ASSIGN, step.variable, _COMBINE[step.op_type], step.source, None, None
    if kind is CallStep:
        returned = [(k, x.index, x.shape) for k, x in enumerate(nest.flatten(step.outputs)) if type(x) is Slot]
        arrays = getattr(step.function, "_takes_arrays", False)  # runs_each_call(arrays=True)
        return CALL, step, filler(step.args, arrays), filler(step.kwargs, arrays), returned, None
    return GUARD, step, None, None, None, None


def run(program: Program, arrays: list) -> list:
    """Run the graph on the input arrays; return the slots' values."""
    values = program.template.copy()
    for slot, array in zip(program.graph.inputs, arrays):
        values[slot] = array
    saved = [(v, v._value) for v in program.assigned] if program.guarded else None
    deferred: list | None = [] if program.guarded else None
    quiet = context.quiet_numpy()  # NaN and inf are values, as in the eager path
    try:
        _steps(program.code, values, deferred)
    except GuardFailedError as failed:
        for variable, value in saved:
            variable._value = value
        _refuse_to_retreat(failed, program.no_retreat)
        raise
    finally:
        context.restore_numpy(quiet)
    for call in deferred or ():
        _call(*call, values)
    return values


def _steps(code: list, values: list, deferred: list | None) -> None:
    """The loop every replay spends its time in: the commonest steps (one numpy call on one or two slots) first."""
    for kind, function, a, b, out, dtype in code:
        if kind == TWO_IN:
            result = function(values[a], values[b])
        elif kind == ONE_IN:
            result = function(values[a])
        else:
            _other_step(kind, function, a, b, out, dtype, values, deferred)
            continue
        values[out] = result if result.__class__ is ndarray and result.dtype is dtype else np.asarray(result, dtype)


def _other_step(kind: int, function: Any, a: Any, b: Any, out: Any, dtype: Any, values: list, deferred: Any) -> None:
    if kind == ANY_IN:
        _any_in(function, a, b, out, dtype, values)
    elif kind == READ:
        values[out] = function._value
    elif kind == ASSIGN:
        _assign(function, a, values[b])
    elif kind == CALL:
        if deferred is not None and getattr(function.function, "_prints_only", False):
            deferred.append((function, a, b, out))
        else:
            _call(function, a, b, out, values)
    elif not _holds(function, values[function.slot]):
        raise GuardFailedError(function)


def _any_in(forward: Any, ins: tuple, attrs: dict, outs: tuple, dtype: Any, values: list) -> None:
    """An op with attributes, or other than one or two inputs, or several outputs."""
    result = forward(*[values[i] for i in ins], **attrs)
    if len(outs) == 1:
        exact = type(result) is ndarray and result.dtype is dtype
        values[outs[0]] = result if exact else np.asarray(result, dtype)
    else:
        for slot, r in zip(outs, result):
            values[slot] = np.asarray(r, dtype)


def no_retreat(steps: list) -> dict[int, Any]:
    """The guards (by id) that come after a call which changes state (`changes_state`), with that call: if one
    fails, the call cannot be taken back, so the run cannot be given up for another trace."""
    found: dict[int, Any] = {}
    changer = None
    for step in steps:
        if type(step) is CallStep and getattr(step.function, "_changes_state", False):
            changer = changer or step
        elif changer is not None and (type(step) is GuardStep or type(step) is CallStep):
            found[id(step)] = changer
    return found


def _refuse_to_retreat(failed: GuardFailedError, no_retreat: dict[int, Any]) -> None:
    changer = no_retreat.get(id(failed.args[0]))
    if changer is None:
        return
    guard = failed.args[0]
    where = f" at {guard.where[0]}:{guard.where[1]}" if type(guard) is GuardStep and guard.where else ""
    name = getattr(changer.function, "__qualname__", "a Python call")
    if type(guard) is GuardStep and guard.kind == "value":
        what, changed, fix = "a Python number taken from a tensor (float(t), int(t))", "has another value", _NUMBER_FIX
    else:
        what, changed = "a Python branch on a tensor", "went another way"
        fix = "Decide the branch before it, or inside the graph with mt.where."
    raise RuntimeError(
        f"mt.function: {what}{where} {changed} than when the function was traced, "
        f"after {name} had run in this call; minitape cannot take that call back to trace the other way. {fix}"
    ) from None


_NUMBER_FIX = (
    "Keep the tensor instead (a train_step may return tensors in its logs: fit makes numbers of them), or take "
    "the number before that call."
)


def _assign(variable: Any, combine: Any, source: np.ndarray) -> None:
    """What `Variable._assign` computes, on arrays: the new value is a fresh array (earlier reads keep theirs)."""
    dtype = variable._value.dtype
    value = source if combine is None else np.asarray(combine(variable._value, source))
    variable._value = value if value.dtype is dtype else value.astype(dtype)


def _holds(guard: GuardStep, value: np.ndarray) -> bool:
    if guard.kind == "bool":
        return bool(value.reshape(())) is guard.expected if value.size else guard.expected is False
    return bool(np.array_equal(value, guard.expected))


def _call(step: CallStep, args: Any, kwargs: Any, returned: list, values: list) -> None:
    """Call the step's Python function on this run's tensors; put the tensors it returns in their slots."""
    result = step.function(*args(values), **kwargs(values))
    if returned:
        flat = nest.flatten(result)
        for k, slot, shape in returned:
            values[slot] = flat[k]._value
            if values[slot].shape != shape:  # ops after it were traced for the shape it had then
                raise GuardFailedError(step)


def filler(template: Any, arrays: bool = False) -> Any:
    """A function of the slots' values giving `template` with a fresh tensor at each `Slot` (with `arrays`, the
    slot's array itself): made once per step, so that a run rebuilds only the containers that hold a slot."""
    if type(template) is Slot:
        index = template.index
        return (lambda values: values[index]) if arrays else (lambda values: Tensor(values[index]))
    if not any(type(x) is Slot for x in nest.flatten(template)):
        return lambda values: template
    if isinstance(template, dict):
        parts = {k: filler(v, arrays) for k, v in template.items()}
        return lambda values: {k: f(values) for k, f in parts.items()}
    parts_list = [filler(v, arrays) for v in template]
    if isinstance(template, list):
        return lambda values: [f(values) for f in parts_list]
    rebuild = type(template)._make if hasattr(template, "_fields") else type(template)
    return lambda values: rebuild([f(values) for f in parts_list])


def run_as_ops(graph: Graph, tensors: list) -> list:
    """Run the graph's steps through the engine (each op recorded by whoever listens); return the slots' tensors."""
    values: list = [None] * graph.n_slots
    for slot, value in graph.constants.items():
        values[slot] = Tensor(value)
    for slot, tensor in zip(graph.inputs, tensors):
        values[slot] = tensor
    saved = [(s.variable, s.variable._value) for s in graph.steps if type(s) is AssignStep]
    try:
        for step in graph.steps:
            step_as_op(step, values)
    except GuardFailedError as failed:
        for variable, value in saved:
            variable._value = value
        _refuse_to_retreat(failed, no_retreat(graph.steps))
        raise
    return values


def step_as_op(step: Any, values: list) -> None:
    kind = type(step)
    if kind is OpStep:
        result = step.op(*[values[i] for i in step.inputs], **step.attrs)
        for slot, tensor in zip(step.outputs, result if step.op.n_outputs != 1 else [result]):
            values[slot] = tensor
    elif kind is ReadStep:
        values[step.output] = step.variable.read_value()
    elif kind is AssignStep:
        method = {"AssignVariableOp": "assign", "AssignAddVariableOp": "assign_add"}.get(step.op_type, "assign_sub")
        getattr(step.variable, method)(values[step.source])
    elif kind is CallStep:
        _call_as_op(step, values)
    elif not _holds_as_op(step, values[step.slot]):
        raise GuardFailedError(step)


def _call_as_op(step: CallStep, values: list) -> None:
    """A Python call, made through runs_each_call so that an outer trace records it; its tensors' shapes guarded."""
    args, kwargs = (nest.map_structure(lambda x: values[x.index] if type(x) is Slot else x, a) for a in step.io)
    result = runs_each_call(step.function)(*args, **kwargs)
    for slot, leaf in zip(nest.flatten(step.outputs), nest.flatten(result)):
        if type(slot) is Slot:
            values[slot.index] = leaf
            if leaf._value.shape != slot.shape:
                raise GuardFailedError(step)


def _holds_as_op(guard: GuardStep, tensor: Tensor) -> bool:
    """The guard, asked as the Python code asked it (an outer trace guards on it in turn)."""
    if guard.kind == "bool":
        return bool(tensor) is guard.expected
    return bool(np.array_equal(float(tensor), guard.expected))
