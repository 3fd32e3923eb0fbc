"""How a tensor behaves as a Python value, as in TensorFlow: `x * y`, `x[0]`, `float(x)`, `len(x)`, `np.asarray(x)`.

`TensorLike` is the base of `Tensor` and `Variable`, so both behave like numbers in an expression. Each
operator is a call to a minitape op; the op tables bind themselves here (`use_ops`) when they load, so
this module, like the engine, needs none of them to be imported.
"""

from __future__ import annotations

import weakref
from typing import Any, NoReturn

import numpy as np

from minitape.engine.context import state
from minitape.values.dtypes import DType, as_dtype
from minitape.values.shape import TensorShape

# tensors a finished `mt.function` trace made and did not return (id -> tensor): graph tensors in TensorFlow, with
# no value outside their graph; function/trace.py fills it, and `numpy()` here and a later trace refuse them
OUT_OF_SCOPE: weakref.WeakValueDictionary = weakref.WeakValueDictionary()
OUT_OF_SCOPE_NAMES: dict[int, str] = {}  # the graph-mode name of each tensor in OUT_OF_SCOPE

# TensorFlow 2.21's errors for a graph tensor kept past its tf.function (a Python side effect that appended it to
# a list, or `model.losses` read after a traced call) turned into a Python value
_LEAKED_ERRORS = {  # how the value was asked for -> the error and its words ({name}: the tensor's graph name)
    "float": (TypeError, "float() argument must be a string or a real number, not 'SymbolicTensor'"),
    "int": (TypeError, "int() argument must be a string, a bytes-like object or a real number, not 'SymbolicTensor'"),
    "index": (TypeError, "'SymbolicTensor' object cannot be interpreted as an integer"),
    "format": (TypeError, "unsupported format string passed to SymbolicTensor.__format__"),
    "bool": (
        TypeError,
        "Using a symbolic `tf.Tensor` as a Python `bool` is not allowed. You can attempt the following resolutions "
        "to the problem: If you are running in Graph mode, use Eager execution mode or decorate this function with "
        "@tf.function. (minitape: the tensor was made inside an mt.function's trace and kept past it; return it "
        "from the function instead)",
    ),
    "numpy": (AttributeError, "'SymbolicTensor' object has no attribute 'numpy'"),
    "array": (
        NotImplementedError,
        "Cannot convert a symbolic tf.Tensor ({name}:0) to a numpy array. This error may indicate that you're "
        "trying to pass a Tensor to a NumPy call, which is not supported.",
    ),
}


def _refuse_if_leaked(tensor: Any, how: str) -> None:
    """A tensor an mt.function's trace made and did not return holds the value of that one trace: refuse to
    turn it into a Python value, with TensorFlow's error (its graph tensor has no value at all)."""
    if OUT_OF_SCOPE and tensor._id in OUT_OF_SCOPE:
        error, words = _LEAKED_ERRORS[how]
        raise error(words.format(name=OUT_OF_SCOPE_NAMES.get(tensor._id, "tensor")))


# id of a tensor -> (a weak reference to it, its Keras mask): `_keras_mask`, which layers set on their outputs
KERAS_MASKS: dict[int, tuple[weakref.ref, Any]] = {}

_ops: Any = None  # minitape.ops.api, which binds itself once the op tables are loaded (they need Tensor first)


def use_ops(module: Any) -> None:
    """Bind the op namespace the operators call (and `note_numpy_conversion`, which tells tapes a value left)."""
    global _ops
    _ops = module


class TensorLike:
    """Python operators shared by Tensor and Variable; each one calls an op of `minitape.ops`."""

    __slots__ = ()
    __array_priority__ = 100  # numpy_array + tensor calls Tensor.__radd__, so the op is recorded

    def __add__(self, other):
        return _ops.add(self, other)

    def __radd__(self, other):
        return _ops.add(other, self)

    def __sub__(self, other):
        return _ops.subtract(self, other)

    def __rsub__(self, other):
        return _ops.subtract(other, self)

    def __mul__(self, other):
        return _ops.multiply(self, other)

    def __rmul__(self, other):
        return _ops.multiply(other, self)

    def __truediv__(self, other):
        return _ops.divide(self, other)

    def __rtruediv__(self, other):
        return _ops.divide(other, self)

    def __floordiv__(self, other):
        return _ops.floordiv(self, other)

    def __rfloordiv__(self, other):
        return _ops.floordiv(other, self)

    def __mod__(self, other):
        return _ops.floormod(self, other)

    def __rmod__(self, other):
        return _ops.floormod(other, self)

    def __pow__(self, other):
        return _ops.pow(self, other)

    def __rpow__(self, other):
        return _ops.pow(other, self)

    def __matmul__(self, other):
        return _ops.matmul(self, other)

    def __rmatmul__(self, other):
        return _ops.matmul(other, self)

    def __neg__(self):
        return _ops.negative(self)

    def __abs__(self):
        return _ops.abs(self)

    def __lt__(self, other):
        return _ops.less(self, other)

    def __le__(self, other):
        return _ops.less_equal(self, other)

    def __gt__(self, other):
        return _ops.greater(self, other)

    def __ge__(self, other):
        return _ops.greater_equal(self, other)

    def __eq__(self, other):  # elementwise, as in TensorFlow 2; `t == None` is False, as there
        return False if other is None else _ops.equal(self, other)

    def __ne__(self, other):
        return True if other is None else _ops.not_equal(self, other)

    # &, |, ^ and ~ as in TensorFlow: logical on a bool tensor, bitwise on an integer one
    def __and__(self, other):
        return self._logic_or_bits("logical_and", "bitwise_and")(self, other)

    def __rand__(self, other):
        return self._logic_or_bits("logical_and", "bitwise_and")(other, self)

    def __or__(self, other):
        return self._logic_or_bits("logical_or", "bitwise_or")(self, other)

    def __ror__(self, other):
        return self._logic_or_bits("logical_or", "bitwise_or")(other, self)

    def __xor__(self, other):
        return self._logic_or_bits("logical_xor", "bitwise_xor")(self, other)

    def __rxor__(self, other):
        return self._logic_or_bits("logical_xor", "bitwise_xor")(other, self)

    def __invert__(self):
        return self._logic_or_bits("logical_not", "invert")(self)

    def _logic_or_bits(self, logical: str, bits: str):
        """The logical op for a bool tensor, the bitwise one for any other."""
        return getattr(_ops, logical) if self._array().dtype.kind == "b" else getattr(_ops.bitwise, bits)

    def __getitem__(self, key):
        return _ops.strided_slice(self, key)

    def __hash__(self):
        raise TypeError(
            f"{type(self).__name__} is unhashable because == compares elementwise; use x.ref() as the key instead"
        )

    def ref(self) -> _Ref:
        """A hashable stand-in for this tensor (its identity), for use as a dict key or set member."""
        return _Ref(self)

    @property
    def _keras_mask(self) -> Any:
        """The Keras mask a layer attached to this output (bool, (batch, steps)): Keras 3's attribute, which a
        tensor without a mask does not have (AttributeError, as in TensorFlow: `getattr(x, "_keras_mask", None)`).

        Kept beside the tensor (a tensor has no room for attributes), for as long as the tensor lives."""
        entry = KERAS_MASKS.get(id(self))
        if entry is None or entry[0]() is not self:
            raise AttributeError(f"'{type(self).__name__}' object has no attribute '_keras_mask'")
        return entry[1]

    @_keras_mask.setter
    def _keras_mask(self, mask: Any) -> None:
        key = id(self)
        if mask is None:
            KERAS_MASKS.pop(key, None)
        else:
            KERAS_MASKS[key] = (weakref.ref(self, lambda _, key=key: KERAS_MASKS.pop(key, None)), mask)

    # numpy-flavoured read-only views of the value
    def __bool__(self) -> bool:
        _refuse_if_leaked(self, "bool")
        value = self._array()
        if not value.size:  # an empty tensor is false, as in TensorFlow (numpy's reading of an empty array)
            return False
        if value.size != 1:
            raise ValueError(
                f"the truth value of a tensor of shape {tuple(value.shape)} is ambiguous; "
                "reduce it first, e.g. mt.reduce_all(x > 0) or mt.reduce_any(x > 0)"
            )
        truth = builtins_bool(value.reshape(()))
        for tracer in state.tracers:  # mt.function hook: a Python branch on a traced tensor becomes a guard
            tracer.branch(self, truth)
        return truth

    def __float__(self) -> float:
        return float(self._scalar("float"))

    def __int__(self) -> int:
        return int(self._scalar("int"))

    def __index__(self) -> int:
        if not self.dtype.is_integer:
            raise TypeError(f"only integer tensors can be used as an index, not {self.dtype!r}")
        return int(self._scalar("index"))

    def __len__(self) -> int:
        if self._array().ndim == 0:
            raise TypeError("len() of a scalar tensor is undefined")
        if self.shape[0] is None:  # a variable declared with shape=[None, ...]
            raise TypeError("len() of a variable whose first size is declared None is undefined; use mt.shape(v)[0]")
        return self.shape[0]

    def __iter__(self):
        if self._array().ndim == 0:
            raise TypeError("cannot iterate over a scalar tensor")
        return (self[i] for i in range(self.shape[0]))

    def __format__(self, spec: str) -> str:
        """`f"{loss:.4f}"` and `f"loss {loss}"` format the value as numpy would (a scalar like a number), as
        TensorFlow does: `f"{t}"` of a vector is `[1 2]`, not the tensor's str()."""
        for tracer in state.tracers:  # mt.function hook: a traced tensor has no value to format
            tracer.value_used(self, "format" if spec else "str")
        if spec:
            _refuse_if_leaked(self, "format")
        value = self._array()
        return format(value[()] if value.ndim == 0 else value, spec)

    def __array__(self, dtype=None, copy=None):
        """`np.asarray(t)`: a read-only view, as TensorFlow's, so writing to it cannot change the tensor.

        A view costs the same at any size (a copy of a million floats costs 200 times more); `np.array(t)`
        (copy=True) and another dtype give a writable copy.
        """
        _ops.note_numpy_conversion(self)
        for tracer in state.tracers:  # mt.function hook: a traced tensor has no value yet, as in graph mode
            tracer.value_used(self, "array")
        _refuse_if_leaked(self, "array")
        value = self._array()
        if copy or (dtype is not None and value.dtype != dtype):
            return value.astype(dtype or value.dtype)  # astype always copies
        view = value.view()
        view.setflags(write=False)
        return view

    def _scalar(self, what: str):
        for tracer in state.tracers:  # mt.function hook: a Python number from a traced tensor becomes a guard
            tracer.value_used(self, what)
        _refuse_if_leaked(self, what)
        value = self._array()
        if value.ndim:  # TensorFlow refuses shape [1] too: "only 0-dimensional arrays can be converted"
            raise TypeError(f"only a scalar tensor converts to {what}, not shape {value.shape}; e.g. {what}(x[0])")
        return value

    @property
    def dtype(self) -> DType:
        return as_dtype(self._array().dtype)

    @property
    def shape(self) -> TensorShape:
        return TensorShape(self._array().shape)

    @property
    def device(self) -> str:
        """Where the value lives: always the CPU, named as TensorFlow names it."""
        return "/job:localhost/replica:0/task:0/device:CPU:0"

    @property
    def ndim(self) -> int:
        return self._array().ndim

    def numpy(self) -> np.ndarray | np.generic:
        """The value as a writable numpy array of its own, a copy (a numpy scalar for shape ())."""
        _ops.note_numpy_conversion(self)
        for tracer in state.tracers:  # mt.function hook: a traced tensor has no value yet, as in graph mode
            tracer.value_used(self, "numpy")
        _refuse_if_leaked(self, "numpy")
        value = self._array().copy()
        return value[()] if value.ndim == 0 else value

    def get_shape(self) -> TensorShape:
        return self.shape

    def set_shape(self, shape: Any) -> None:
        """Check that the shape fits `shape` (None: any size), as in eager TensorFlow, where it changes nothing."""
        wanted = TensorShape(shape)
        if not self.shape.is_compatible_with(wanted):  # an unknown rank fits every shape: never here
            raise ValueError(
                f"Tensor's shape {tuple(self.shape)} is not compatible with supplied shape {tuple(wanted)}."
            )


builtins_bool = bool


class _Ref:
    """Hashable identity wrapper returned by `.ref()`."""

    __slots__ = ("_obj",)

    def __init__(self, obj: TensorLike) -> None:
        self._obj = obj

    def deref(self) -> TensorLike:
        return self._obj

    def __hash__(self) -> int:
        return self._obj._id

    def __eq__(self, other: object) -> builtins_bool:
        return isinstance(other, _Ref) and other._obj is self._obj


def format_value(value: np.ndarray) -> str:
    """The value as TensorFlow's repr shows it: a scalar as the Python number it holds (float32's 27.3 is
    `27.299999237060547`, as in TensorFlow), an array as numpy's repr."""
    if value.ndim == 0:
        return repr(value.item())
    return repr(value)


def on_own_line(text: str) -> str:
    """An array's text as TensorFlow puts it in a repr: on a line of its own when it takes several."""
    return "\n" + text if "\n" in text else text


_SLICE_ASSIGN = (
    "minitape leaves out assignment into variable slices: v[1] is a new tensor, not a view of v. "
    "Write the entries with the variable's scatter_nd_update instead, e.g. v.scatter_nd_update([[1]], [10.0]) "
    "(for v[1:3], the indices [[1], [2]] and two values); a tensor itself is immutable: make a new one"
)


class NotAssignable:
    """A Tensor's `assign` (and `assign_add`, `assign_sub`): reading it raises an AttributeError saying what to do.

    A class attribute, not `__getattr__`, so other missing names cost nothing (numpy looks several up per call).
    """

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, instance: Any, owner: Any = None) -> NoReturn:
        raise AttributeError(f"a Tensor has no {self.name}(): {_SLICE_ASSIGN}")
