"""`Tensor`: an immutable numpy array with an id, so a tape can refer to it.

Ids come from one counter in creation order, so they are stable from run to run
and double as a timeline (a tensor made after a tape stopped has a larger id).
"""

from __future__ import annotations

import itertools

import numpy as np

from minitape.dtypes import DType, as_dtype

_next_id = itertools.count(1).__next__


class TensorShape(tuple):
    """A shape: a tuple of ints, printed as TensorFlow prints it."""

    def as_list(self) -> list[int]:
        return list(self)

    @property
    def rank(self) -> int:
        return len(self)

    ndims = rank

    def num_elements(self) -> int:
        return int(np.prod(self, dtype=np.int64))

    def __repr__(self) -> str:
        return f"TensorShape({list(self)})"

    def __str__(self) -> str:
        return "(" + ", ".join(str(d) for d in self) + ("," if len(self) == 1 else "") + ")"


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

    def __mod__(self, other):
        return _ops.floormod(self, other)

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

    def __eq__(self, other):  # elementwise, as in TensorFlow 2
        return _ops.equal(self, other)

    def __ne__(self, other):
        return _ops.not_equal(self, other)

    def __and__(self, other):
        return _ops.logical_and(self, other)

    def __or__(self, other):
        return _ops.logical_or(self, other)

    def __invert__(self):
        return _ops.logical_not(self)

    def __getitem__(self, key):
        return _ops.strided_slice(self, key)

    def __hash__(self):
        raise TypeError(
            f"{type(self).__name__} is unhashable because == compares elementwise; use x.ref() as the key instead"
        )

    def ref(self) -> _Ref:
        """A hashable stand-in for this tensor (its identity), for use as a dict key or set member."""
        return _Ref(self)

    # numpy-flavoured read-only views of the value
    def __bool__(self) -> bool:
        value = self._array()
        if value.size != 1:
            raise ValueError(
                f"the truth value of a tensor of shape {tuple(value.shape)} is ambiguous; "
                "reduce it first, e.g. mt.reduce_all(x > 0) or mt.reduce_any(x > 0)"
            )
        return builtins_bool(value.reshape(()))

    def __float__(self) -> float:
        return float(self._scalar("float"))

    def __int__(self) -> int:
        return int(self._scalar("int"))

    def __index__(self) -> int:
        if not self.dtype.is_integer:
            raise TypeError(f"only integer tensors can be used as an index, not {self.dtype!r}")
        return int(self._scalar("index"))

    def __len__(self) -> int:
        if not self.shape:
            raise TypeError("len() of a scalar tensor is undefined")
        return self.shape[0]

    def __iter__(self):
        if not self.shape:
            raise TypeError("cannot iterate over a scalar tensor")
        return (self[i] for i in range(self.shape[0]))

    def __format__(self, spec: str) -> str:
        """`f"{loss:.4f}"` formats the value as numpy would (a scalar like a number); no spec gives str()."""
        if not spec:
            return str(self)
        value = self._array()
        return format(value[()] if value.ndim == 0 else value, spec)

    def __array__(self, dtype=None, copy=None):
        _ops.note_numpy_conversion(self)
        value = self._array()
        return value if dtype is None else value.astype(dtype)

    def _scalar(self, what: str):
        value = self._array()
        if value.size != 1:
            raise TypeError(f"only a tensor with one element converts to {what}, not shape {value.shape}")
        return value.reshape(())

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
        """The value as a numpy array (a numpy scalar for shape ())."""
        _ops.note_numpy_conversion(self)
        value = self._array().copy()
        return value[()] if value.ndim == 0 else value

    def get_shape(self) -> TensorShape:
        return self.shape


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
    """The value as TensorFlow shows it: `36.0` for a scalar, numpy's repr otherwise."""
    if value.ndim == 0:
        return str(value[()])
    return repr(value)


class Tensor(TensorLike):
    """An immutable value in the computation; what every op takes and returns."""

    __slots__ = ("_value", "_id", "__weakref__")

    def __init__(self, value: np.ndarray) -> None:
        self._value = value
        self._id = _next_id()

    def _array(self) -> np.ndarray:
        return self._value

    @property
    def name(self) -> str:
        return f"tensor_{self._id}"

    def __repr__(self) -> str:
        text = format_value(self._value)
        sep = "\n" if self._value.ndim > 1 else ""
        return f"<mt.Tensor: shape={self.shape}, dtype={self.dtype.name}, numpy={sep}{text}>"

    def __str__(self) -> str:
        text = str(self._value) if self._value.ndim else format_value(self._value)
        sep = "\n" if self._value.ndim > 1 else ""  # TensorFlow starts a matrix on its own line
        return f"mt.Tensor({sep}{text}, shape={self.shape}, dtype={self.dtype.name})"


from minitape.ops import api as _ops  # noqa: E402 - the operators above need the ops, which need Tensor
