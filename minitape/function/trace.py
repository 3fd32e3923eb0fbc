"""Recording: a `Tracer` listens to the engine while a `tf.function`'s Python code runs once, and writes a `Graph`.

The Python code runs eagerly, on real values, so tracing is an ordinary call (its results are right, its
prints print); every op the engine's op path runs is reported to the tracer (`execute.apply` calls
`op_ran`), and so are variable reads, assigns and creations (variables.py), and the places where a traced value
would leave the graph as a Python value (operators.py):

- `.numpy()` and `np.asarray(t)` of a traced tensor raise TensorFlow's graph-mode errors, so a value computed in
  numpy from a traced value can never be baked into the graph as a constant;
- `bool(t)` (an `if` or a `while` on a tensor) and `float(t)`, `int(t)` record a guard: the graph replays only
  while the value goes the way it went at tracing; otherwise the function is traced again for that way (where
  TensorFlow's AutoGraph would build a `tf.cond` or `tf.while_loop`, minitape keeps one graph per path);
- a tensor that no recorded op made (`mt.constant(2.0)`, a Python number an op converted) is a constant.

Python code that must run again at every call, as TensorFlow's stateful ops do (`mt.print`, an optimizer's
update, random numbers, `py_function`), is wrapped in `runs_each_call`: the graph calls it again with the new
tensors. While tracing, the tracer also counts as a listener of the backward pass, so a `tape.gradient` inside
the function runs its rules' ops as tensors through the op path, where they are recorded too (backprop.py).
"""

from __future__ import annotations

import functools
import weakref
from collections.abc import Callable
from typing import Any

import numpy as np

from minitape.engine.context import state
from minitape.engine.tensor import Tensor
from minitape.function.graph import AssignStep, CallStep, Graph, GuardStep, OpStep, ReadStep, Slot
from minitape.values import nest
from minitape.values.tensor_like import OUT_OF_SCOPE, OUT_OF_SCOPE_NAMES, TensorLike

VARIABLE_ON_LATER_TRACE = (
    "tf.function only supports singleton tf.Variables created on the first call. Make sure the tf.Variable is only "
    "created once or created outside tf.function. See https://www.tensorflow.org/guide/function#creating_tfvariables "
    "for more information."
)  # TensorFlow 2.21's message


class Tracer:
    """Writes the ops, reads, assigns and guards of one trace into `graph`; see the module's docstring."""

    def __init__(self, graph: Graph, allow_variables: bool) -> None:
        self.graph = graph
        self.allow_variables = allow_variables
        self.slots: dict[int, int] = {}  # tensor id -> slot
        self.names: dict[int, str] = {}  # slot -> graph-mode name ("x:0", "Mul_1:0")
        self._name_counts: dict[str, int] = {}
        self.made: list[Tensor] = []  # the tensors the graph computes, kept until the trace ends (`close`)

    # ---- slots ------------------------------------------------------------------------------------------------
    def input(self, tensor: Tensor, name: str) -> None:
        slot = self._output(tensor, name)
        self.graph.inputs.append(slot)
        self.graph.input_names[slot] = name

    def alias(self, tensor: Tensor, same_as: Tensor) -> None:
        """`tensor` holds what `same_as` holds (a tensor made outside the op path from another one's value)."""
        self.slots[tensor._id] = self.slot_of(same_as)

    def aliases(self, tensors: list, same_as: list) -> None:
        """Each of `tensors` holds what the same place of `same_as` holds (custom_gradient's outputs)."""
        for tensor, source in zip(tensors, same_as):
            self.alias(tensor, source)

    def slot_of(self, tensor: Any) -> int:
        """The slot of a tensor the graph knows; a new constant slot for one it does not (unless another trace
        made it and did not return it: TensorFlow's error for a tensor out of its graph)."""
        slot = self.slots.get(tensor._id)
        if slot is None:
            if tensor._id in OUT_OF_SCOPE:
                raise TypeError(_out_of_scope_message(tensor))
            slot = self.slots[tensor._id] = self.graph.new_slot()
            self.graph.constants[slot] = tensor._value
        return slot

    def traces(self, tensor: Any) -> bool:
        """Whether `tensor` holds a value the graph computes (not a constant of it)."""
        slot = self.slots.get(tensor._id)
        return slot is not None and slot not in self.graph.constants

    def _output(self, tensor: Tensor, name: str) -> int:
        self.made.append(tensor)
        slot = self.slots[tensor._id] = self.graph.new_slot()
        count = self._name_counts.get(name, 0)
        self._name_counts[name] = count + 1
        self.names[slot] = f"{name}_{count}" if count else name
        return slot

    def close(self) -> None:
        """The trace is over: the tensors it made are out of scope, as TensorFlow's graph tensors are (a Python
        side effect that kept one would otherwise hold the value of this one call); the caller gets copies of the
        results (`Function._trace`)."""
        for tensor in self.made:
            OUT_OF_SCOPE[tensor._id] = tensor
            OUT_OF_SCOPE_NAMES[tensor._id] = self.names.get(self.slots[tensor._id], "tensor")
        for key in [k for k in OUT_OF_SCOPE_NAMES if k not in OUT_OF_SCOPE]:
            del OUT_OF_SCOPE_NAMES[key]
        self.made = []

    def symbolic_text(self, tensor: Tensor) -> str:
        """The tensor as graph mode prints it: `Tensor("x:0", shape=(), dtype=float32)`."""
        name = self.names.get(self.slots[tensor._id], "tensor")
        return f'Tensor("{name}:0", shape={tensor.shape}, dtype={tensor.dtype.name})'

    # ---- what the engine reports (the hooks) -------------------------------------------------------------------
    def op_ran(self, op: Any, inputs: Any, attrs: dict, outputs: list) -> None:
        ins = tuple(self.slot_of(t) for t in inputs)
        if all(i in self.graph.constants for i in ins) and not any(map(callable, attrs.values())):
            for t in outputs:  # folded: an op of constants gives the same constant at every run
                self.slot_of(t)
            return
        outs = tuple(self._output(t, op.name) for t in outputs)
        dtype = inputs[op.dtype_from]._value.dtype if op.dtype_from is not None else None
        running = state.backward_of
        backward_of = running.type if running is not None else None
        self.graph.steps.append(OpStep(op, ins, dict(attrs), outs, dtype, state.scope, backward_of))

    def variable_read(self, variable: Any, value: Tensor) -> None:
        slot = self._output(value, "ReadVariableOp")
        self.graph.steps.append(ReadStep(variable, slot, state.scope))

    def variable_assigned(self, variable: Any, op_type: str, source: Any) -> None:
        if type(source) is not Tensor:  # a number or array: its value as the variable's dtype, a constant
            from minitape.values.convert import constant

            source = constant(source, dtype=variable.dtype)
        step = AssignStep(variable, op_type, self.slot_of(source), state.scope, variable._value)
        self.graph.steps.append(step)

    def variable_created(self, variable: Any) -> None:
        if not self.allow_variables:
            raise ValueError(VARIABLE_ON_LATER_TRACE)
        self.graph.created_variables.append(variable)

    def branch(self, tensor: Any, truth: bool) -> None:
        slot = self._guarded_slot(tensor)
        if slot is not None:
            self.graph.steps.append(GuardStep(slot, "bool", truth, _user_line()))

    def value_used(self, tensor: Any, how: str) -> None:
        """A traced value leaves the graph: a guard for a Python number, TensorFlow's graph-mode error otherwise."""
        if type(tensor) is Tensor and not self.traces(tensor):
            return  # a constant: its value is known at tracing, and stays
        if how in ("float", "int", "index"):
            slot = self._guarded_slot(tensor)
            self.graph.steps.append(GuardStep(slot, "value", np.array(tensor._value), _user_line()))
        elif how == "numpy":
            if type(tensor) is Tensor:
                raise AttributeError("'SymbolicTensor' object has no attribute 'numpy'")
            raise NotImplementedError("numpy() is only available when eager execution is enabled.")
        elif how == "array":
            name = self.names.get(self.slots.get(tensor._id, -1), getattr(tensor, "name", "tensor"))
            raise NotImplementedError(
                f"Cannot convert a symbolic tf.Tensor ({name}:0) to a numpy array. This error may indicate that "
                "you're trying to pass a Tensor to a NumPy call, which is not supported."
            )
        elif how == "format":
            raise TypeError("unsupported format string passed to SymbolicTensor.__format__")

    def _guarded_slot(self, tensor: Any) -> int | None:
        """The slot a guard checks: the tensor's own, or a fresh read of a variable; None for a constant."""
        if type(tensor) is Tensor:
            return self.slots[tensor._id] if self.traces(tensor) else None
        value = Tensor(tensor._value)  # a variable: the guard checks its value when the graph runs
        self.variable_read(tensor, value)
        return self.slots[value._id]

    # ---- Python code the graph calls again at every run --------------------------------------------------------
    def called(self, function: Callable, args: tuple, kwargs: dict, result: Any) -> None:
        def to_slot(leaf: Any) -> Any:
            return Slot(self.slot_of(leaf)) if type(leaf) is Tensor else leaf

        outputs = nest.map_structure(
            lambda leaf: (
                Slot(self._output(leaf, _name_of(function)), leaf._value.shape) if type(leaf) is Tensor else leaf
            ),
            result,
        )
        step_args = nest.map_structure(to_slot, list(args)), nest.map_structure(to_slot, dict(kwargs))
        self.graph.steps.append(CallStep(function, *step_args, outputs, state.scope))


def refuse_variables_made_per_call(graph: Graph) -> None:
    """TensorFlow's rule for the variables a function's first trace creates: each must outlive the call (an object
    keeps it, as `self.v = mt.Variable(...)` does), or the function would need a new one at every call. TensorFlow
    finds that at the first call (it traces such a function twice) and raises; minitape asks whether anything but
    the graph still holds each variable, taking the graph's references away for the moment of the question."""
    if not graph.created_variables:
        return
    refs = [weakref.ref(variable) for variable in graph.created_variables]
    index = {id(variable): k for k, variable in enumerate(graph.created_variables)}
    taken = []  # (step, which variable): no reference to the variable itself while the question is asked
    for step in graph.steps:
        if type(step) in (ReadStep, AssignStep) and id(step.variable) in index:
            taken.append((step, index[id(step.variable)]))
            step.variable = None
    graph.created_variables = []
    lost = any(ref() is None for ref in refs)
    for step, k in taken:
        step.variable = refs[k]()
    graph.created_variables = [ref() for ref in refs if ref() is not None]
    if lost:
        raise ValueError(VARIABLE_ON_LATER_TRACE)


def _out_of_scope_message(tensor: Tensor) -> str:
    """TensorFlow 2.21's error for a tensor used outside the graph that made it."""
    name = OUT_OF_SCOPE_NAMES.get(tensor._id, "tensor")
    return (
        f"<tf.Tensor '{name}:0' shape={tensor.shape} dtype={tensor.dtype.name}> is out of scope and cannot be used "
        "here. Use return values, explicit Python locals or TensorFlow collections to access it.\nPlease see "
        "https://www.tensorflow.org/guide/function#all_outputs_of_a_tffunction_must_be_return_values for more "
        "information."
    )


def runs_each_call(
    function: Callable | None = None,
    *,
    changes_state: bool = False,
    replayed_as: Callable | None = None,
    arrays: bool = False,
) -> Callable:
    """Mark Python code that a traced graph must run again at every call (a stateful op, in TensorFlow's terms).

    Outside tracing the function just runs. While tracing, it runs with the tracers paused (its own ops are not
    recorded), and the graph gets one step that calls it again with that call's tensors in place of these.
    `changes_state=True` says that running it twice for one call would be wrong (an optimizer's update, a
    metric's count): a graph will not take back such a call to trace another branch (see replay.py).

    `replayed_as(*args, **kwargs)`, given the traced call's arguments once it has run, returns the call the graph
    makes instead, `(function, args, kwargs)`: a leaner form of the same work, for what the trace fixed (an
    optimizer's update: which variables, checked once). `arrays=True` says the function takes numpy arrays where
    the graph has tensors: a replay gives it the slots' arrays without making a Tensor of each.
    """
    if function is None:
        return functools.partial(runs_each_call, changes_state=changes_state, replayed_as=replayed_as, arrays=arrays)
    if changes_state:
        function._changes_state = True
    if arrays:
        function._takes_arrays = True

    @functools.wraps(function)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if not state.tracers:
            return function(*args, **kwargs)
        args = tuple(list(a) if _is_iterator(a) else a for a in args)  # zip(grads, vars) is read once: keep it
        tracers, state.tracers = state.tracers, []
        try:
            result = function(*args, **kwargs)
        finally:
            state.tracers = tracers
        call = (function, args, kwargs) if replayed_as is None else replayed_as(*args, **kwargs)
        for tracer in tracers:
            tracer.called(*call, result)
        return result

    return wrapper


def _is_iterator(value: Any) -> bool:
    return hasattr(value, "__next__") and not isinstance(value, (TensorLike, np.ndarray))


def _name_of(function: Callable) -> str:
    return getattr(function, "__name__", "PyCall")


def _user_line() -> str:
    """The user's line of code that made the current call, for guard messages."""
    from minitape.engine.where import user_line

    return user_line()
