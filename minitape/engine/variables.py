"""`Variable`: mutable state (a model's weights). Tapes differentiate with respect to the variable itself.

Each read of a variable inside a tape is recorded as a `ReadVariableOp` from the
variable to a fresh tensor holding the value at that moment. Assigning later does
not change what was read, and the assignment itself is not differentiable: this is
why `tape.gradient` cannot see through `assign`.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable
from typing import Any

import numpy as np

from minitape.engine.context import state
from minitape.engine.execute import record
from minitape.engine.opdef import RegisterGradient, no_gradient
from minitape.engine.tensor import Tensor, _next_id
from minitape.values.convert import constant, convert_to_tensor
from minitape.values.dtypes import DType, as_dtype
from minitape.values.shape import TensorShape
from minitape.values.tensor_like import TensorLike, format_value, on_own_line


class Variable(TensorLike):
    """A named, mutable tensor. Trainable variables read inside a tape are watched automatically."""

    __slots__ = ("_value", "_id", "_name", "_trainable", "_shape", "_constraint", "__weakref__")

    def __init__(
        self,
        initial_value: Any = None,
        trainable: bool = True,
        name: str | None = None,
        dtype: Any = None,
        shape: Any = None,
        constraint: Any = None,
    ) -> None:
        if initial_value is None:
            raise ValueError("Variable needs an initial_value, e.g. mt.Variable(0.0)")
        if callable(initial_value):
            initial_value = initial_value()
        self._value = constant(initial_value, dtype=dtype)._value.copy()
        self._shape = _declared_shape(shape, self._value.shape)
        self._id = _next_id()
        # TensorFlow's eager naming: prefixed by the open name scopes ("scope/w:0"), not made unique
        self._name = "/".join(filter(None, (state.scope, name or "Variable"))) + ":0"
        self._trainable = bool(trainable)
        if constraint is not None and not callable(constraint):
            raise ValueError(
                f"The `constraint` argument must be a callable (w -> projected w), not {constraint!r}; "
                "e.g. constraint=lambda w: mt.clip_by_value(w, 0.0, 1.0)"
            )
        self._constraint = constraint
        for tracer in state.tracers:  # mt.function hook: a function may create variables on its first trace only
            tracer.variable_created(self)

    @property
    def constraint(self) -> Any:
        """The function (w -> projected w) given as `constraint=`, or None. As in TensorFlow, the variable
        does not apply it itself: Keras optimizers do, after each update."""
        return self._constraint

    def _array(self) -> np.ndarray:
        return self._value

    @property
    def id(self) -> int:
        """Stable identity in creation order: what records and tapes refer to."""
        return self._id

    @property
    def name(self) -> str:
        return self._name

    @property
    def trainable(self) -> bool:
        return self._trainable

    @property
    def dtype(self) -> DType:
        return as_dtype(self._value.dtype)

    @property
    def shape(self) -> TensorShape:
        """The shape declared with `shape=` (None for a size that may change), else the value's."""
        return TensorShape(self._value.shape) if self._shape is None else self._shape

    def _read(self) -> Tensor:
        """The value now, as a tensor; recorded on tapes that watch this variable."""
        value = Tensor(self._value)
        for watcher in state.variable_watchers:
            if all(v is not self for v in watcher):
                watcher.append(self)
        if state.tapes or state.accumulators:
            if self._trainable:  # of any dtype, as in TensorFlow: an int variable is listed, its gradient is None
                for tape in state.tapes:
                    if tape._watch_accessed_variables and self._id not in tape._watched:
                        tape.watch_variable(self)
            record("ReadVariableOp", [self], [value], {}, keep="nothing")
        for tracer in state.tracers:  # mt.function hook: the graph reads the variable when it runs
            tracer.variable_read(self, value)
        return value

    def read_value(self) -> Tensor:
        return self._read()

    def value(self) -> Tensor:
        return self._read()

    def _assign(self, new: Any, op_type: str, combine: Any = None) -> Variable:
        with _ASSIGN_LOCK:  # read, combine and store as one step, as TensorFlow's assign ops are atomic
            return self._assign_unlocked(new, op_type, combine)

    def _assign_unlocked(self, new: Any, op_type: str, combine: Any) -> Variable:
        source = new if type(new) is Tensor or not isinstance(new, TensorLike) else convert_to_tensor(new)
        if type(source) is Tensor and combine is not None and source._value.dtype is self._value.dtype:
            if source._value.shape == self._value.shape:  # an optimizer's update: nothing to convert
                return self._store(np.asarray(combine(self._value, source._value)), op_type, source)
        value = constant(source, dtype=self.dtype)._value  # first: None or text is refused as what it is
        self._check_shape(value.shape, op_type, combine)  # before combining: numpy would broadcast (1,) over (3,)
        if combine is not None:
            value = combine(self._value, value).astype(self._value.dtype)
        self._check_shape(value.shape, op_type, combine)
        return self._store(value, op_type, source)

    def _check_shape(self, shape: tuple, op_type: str, combine: Any) -> None:
        """Refuse a value of another shape; `assign` takes any shape the declared `shape=` allows, as in TF."""
        declared = self._shape if combine is None else None  # assign_add and assign_sub keep the shape
        if shape == self._value.shape or (declared is not None and declared.is_compatible_with(shape)):
            return
        if declared is not None:
            raise ValueError(
                f"{op_type} on variable {self._name!r}: a value of shape {shape} does not fit the variable's "
                f"declared shape {self._shape} (None marks a size that may change)"
            )
        if combine is None:  # TensorFlow's words for assign, then the fix
            raise ValueError(
                f"Cannot assign value to variable {self._name!r}: Shape mismatch. The variable shape "
                f"{self._value.shape}, and the assigned value shape {shape} are incompatible "
                f"({op_type}: reshape the value, or mt.broadcast_to it)"
            )
        raise ValueError(
            f"{op_type} on variable {self._name!r}: cannot update a variable of shape {self._value.shape} "
            f"with a value of shape {shape}; shapes must be equal (reshape the value, or mt.broadcast_to it)"
        )

    def _store(self, value: np.ndarray, op_type: str, source: Any) -> Variable:
        if type(source) is Tensor and (state.tapes or state.accumulators):
            record(op_type, [self, source], [], {}, keep="nothing")  # seen by explain(), never differentiated
        for tracer in state.tracers:  # mt.function hook: the graph writes the variable when it runs
            tracer.variable_assigned(self, op_type, source)
        self._value = value  # a fresh array: tensors read earlier keep the old value
        return self

    def assign(self, value: Any, use_locking: Any = None, name: str | None = None, read_value: bool = True):
        """Replace the value. Not differentiable: the tape sees only reads made after it."""
        return _handle(self._assign(value, "AssignVariableOp"), read_value)

    def assign_add(self, delta: Any, use_locking: Any = None, name: str | None = None, read_value: bool = True):
        return _handle(self._assign(delta, "AssignAddVariableOp", np.add), read_value)

    def assign_sub(self, delta: Any, use_locking: Any = None, name: str | None = None, read_value: bool = True):
        return _handle(self._assign(delta, "AssignSubVariableOp", np.subtract), read_value)

    def scatter_nd_update(self, indices: Any, updates: Any, name: str | None = None) -> Variable:
        """Write `updates` at `indices` (index tuples, as `mt.tensor_scatter_nd_update` takes them)."""
        return self._scatter("ResourceScatterNdUpdate", "tensor_scatter_nd_update", indices, updates)

    def scatter_nd_add(self, indices: Any, updates: Any, name: str | None = None) -> Variable:
        """Add `updates` at `indices` (index tuples; repeated indices add up)."""
        return self._scatter("ResourceScatterNdAdd", "tensor_scatter_nd_add", indices, updates)

    def scatter_nd_sub(self, indices: Any, updates: Any, name: str | None = None) -> Variable:
        """Subtract `updates` at `indices` (index tuples; repeated indices subtract in turn)."""
        return self._scatter("ResourceScatterNdSub", "tensor_scatter_nd_sub", indices, updates)

    def _scatter(self, op_type: str, function: str, indices: Any, updates: Any) -> Variable:
        from minitape.engine.context import paused
        from minitape.ops import scatter_ops

        with _ASSIGN_LOCK, paused():  # an assignment: not differentiable, so not recorded
            result = getattr(scatter_ops, function)(Tensor(self._value), indices, updates)
            return self._store(result._value, op_type, None)

    def update_in_place(self, rule: Callable[[np.ndarray, np.ndarray], Any]) -> None:
        """`rule(value, out)` writes the new value into `out`, which becomes the value: an optimizer's step.

        `out` is the variable's own array when nothing else holds it (no tensor read from it, no tape record,
        not a view of other data), so the step allocates nothing; else a fresh array, so that what was read
        earlier keeps its value, as `assign` does. Not recorded: no tape differentiates through an update."""
        with _ASSIGN_LOCK:  # one update at a time, as every assign
            own = _references(self) <= _ALONE  # first, while no name here holds the array
            value = np.asarray(self._value)  # a 0-d variable may hold a numpy scalar after assign_add
            if not (own and value is self._value and value.base is None and value.flags.writeable):
                out = np.empty_like(value)
            else:
                out = value
            rule(value, out)
            self._value = out

    def numpy(self) -> np.ndarray | np.generic:
        for tracer in state.tracers:  # mt.function hook: a variable's value is read when the graph runs
            tracer.value_used(self, "numpy")
        value = self._value.copy()
        return value[()] if value.ndim == 0 else value

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        """`np.asarray(v)`: a writable copy, as TensorFlow gives, so writing to it cannot change the variable."""
        for tracer in state.tracers:  # mt.function hook: a variable's value is read when the graph runs
            tracer.value_used(self, "array")
        return np.array(self._value, dtype=dtype, copy=True)

    def __format__(self, spec: str) -> str:
        """`f"{v}"` is the repr, as TensorFlow's; with a spec (`f"{v:.2f}"`) the value formats as a tensor's."""
        return repr(self) if not spec else super().__format__(spec)

    def __repr__(self) -> str:
        return (
            f"<mt.Variable '{self._name}' shape={self.shape} dtype={self.dtype.name}, "
            f"numpy={on_own_line(format_value(self._value))}>"
        )

    __str__ = __repr__


class UnreadVariable(Variable):
    """What `assign`, `assign_add` and `assign_sub` return, as in TensorFlow: a second handle on the same variable,
    shown as 'UnreadVariable'. It holds no value of its own: each use reads the variable's value at that time."""

    __slots__ = ("_variable",)

    def __init__(self, variable: Variable) -> None:
        self._variable = variable
        self._name = "UnreadVariable"

    # the variable's state, read and written through the handle; only the name is the handle's own
    _value = property(lambda self: self._variable._value, lambda self, value: setattr(self._variable, "_value", value))
    _id = property(lambda self: self._variable._id)
    _trainable = property(lambda self: self._variable._trainable)
    _shape = property(lambda self: self._variable._shape)
    _constraint = property(lambda self: self._variable._constraint)


def _handle(variable: Variable, read_value: bool) -> UnreadVariable | None:
    """An assign's result: a handle on the variable, or None for `read_value=False` (TensorFlow's eager answers)."""
    return UnreadVariable(variable) if read_value else None


def _declared_shape(shape: Any, actual: tuple) -> TensorShape | None:
    """The `shape=` a variable was created with, if it leaves a size (or the rank) open: None if it does not."""
    if shape is None:
        return None
    try:
        dims = shape if isinstance(shape, TensorShape) else [shape] if isinstance(shape, int) else list(shape)
        declared = dims if isinstance(dims, TensorShape) else TensorShape(None if d is None else int(d) for d in dims)
    except (TypeError, ValueError):
        raise TypeError(
            f"shape= takes a list of sizes, None for a size that may change (e.g. [None, 3]), or "
            f"mt.TensorShape(None) for any shape; not {shape!r}"
        ) from None
    if not declared.is_compatible_with(actual):
        raise ValueError(f"the initial value's shape {actual} does not fit the declared shape {declared}")
    return None if declared.is_fully_defined() else declared


_ASSIGN_LOCK = threading.Lock()


def _needs_indexed_slices(method: str) -> Any:
    """TensorFlow's `v.scatter_update(sparse_delta)` and kin take a `tf.IndexedSlices`, which minitape leaves out."""

    def refuse(self: Variable, sparse_delta: Any, use_locking: bool = False, name: str | None = None) -> Variable:
        raise TypeError(
            f"{method} on variable {self._name!r} takes a tf.IndexedSlices, which minitape does not have; "
            "use the index-tuple form, e.g. v.scatter_nd_update([[0], [2]], rows) "
            "(or scatter_nd_add / scatter_nd_sub)"
        )

    refuse.__name__ = method
    return refuse


for _method in ("scatter_update", "scatter_add", "scatter_sub", "scatter_max", "scatter_min", "scatter_mul",
                "scatter_div", "batch_scatter_update"):  # fmt: skip
    setattr(Variable, _method, _needs_indexed_slices(_method))


@RegisterGradient("ReadVariableOp")
def _read_variable_grad(op, grad):
    return grad  # a read is the identity


for _op in ("AssignVariableOp", "AssignAddVariableOp", "AssignSubVariableOp"):
    no_gradient(_op)


def _references(holder: Any) -> int:
    """The reference count of `holder._value`, counted the same way for every holder (whether the interpreter
    counts the name `value` here depends on its version): `_ALONE` is what it gives when nothing else holds it."""
    value = holder._value
    return sys.getrefcount(value)


class _Alone:
    def __init__(self) -> None:
        self._value = np.empty(0)


_ALONE = _references(_Alone())
