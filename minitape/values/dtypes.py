"""Element types, named as in TensorFlow (`mt.float32`, ...), each a thin wrapper of a numpy dtype."""

from __future__ import annotations

from typing import Any

import numpy as np


class DType:
    """A tensor's element type. Only floating types carry gradients."""

    __slots__ = ("name", "as_numpy_dtype", "is_floating", "is_integer", "is_bool")

    def __init__(self, name: str) -> None:
        self.name = name
        self.as_numpy_dtype = np.dtype(name).type
        # plain attributes, not properties: every recorded op asks is_floating, so answer it once
        self.is_floating = np.issubdtype(self.as_numpy_dtype, np.floating)
        self.is_integer = np.issubdtype(self.as_numpy_dtype, np.integer)
        self.is_bool = self.as_numpy_dtype is np.bool_

    @property
    def base_dtype(self) -> DType:
        return self

    @property
    def is_unsigned(self) -> bool:
        return np.issubdtype(self.as_numpy_dtype, np.unsignedinteger)

    @property
    def size(self) -> int:
        """Bytes per element."""
        return np.dtype(self.as_numpy_dtype).itemsize

    @property
    def min(self) -> Any:
        """The smallest value of the type (False for bool)."""
        return self._limits().min if not self.is_bool else False

    @property
    def max(self) -> Any:
        """The largest value of the type (True for bool)."""
        return self._limits().max if not self.is_bool else True

    def _limits(self) -> Any:
        return np.finfo(self.as_numpy_dtype) if self.is_floating else np.iinfo(self.as_numpy_dtype)

    def __repr__(self) -> str:
        return f"mt.{self.name}"

    def __str__(self) -> str:
        return f"<dtype: '{self.name}'>"  # what print(x.dtype) shows in TensorFlow; the repr names it as code

    def __eq__(self, other: object) -> bool:
        try:
            return as_dtype(other) is self
        except TypeError:
            return False

    def __hash__(self) -> int:
        return hash(self.name)


float16 = DType("float16")
float32 = DType("float32")
float64 = DType("float64")
int32 = DType("int32")
int64 = DType("int64")
uint8 = DType("uint8")  # images: a uint8 tensor divided by 255 gives float32, as in TensorFlow
uint16 = DType("uint16")
uint32 = DType("uint32")
uint64 = DType("uint64")
int8 = DType("int8")
int16 = DType("int16")
bool = DType("bool")  # TensorFlow's name for the type

_BY_NAME = {
    d.name: d for d in (float16, float32, float64, int8, int16, int32, int64, uint8, uint16, uint32, uint64, bool)
}
# tensor.dtype calls as_dtype(array.dtype) on every op: a dict answers that without asking numpy for names.
# It is keyed by the scalar type (np.float32), which hashes much faster than a numpy dtype does.
_BY_SCALAR_TYPE = {np.dtype(name).type: dtype for name, dtype in _BY_NAME.items()}
_BY_ENUM = {  # TensorFlow's types.proto numbering, which as_dtype also accepts
    1: float32, 2: float64, 3: int32, 4: uint8, 5: int16, 6: int8, 9: int64, 10: bool, 17: uint16, 19: float16,
    22: uint32, 23: uint64,
}  # fmt: skip


def as_dtype(type_value: Any) -> DType:
    """Return the DType for a DType, a name ('float32'), a numpy dtype or a Python type."""
    if isinstance(type_value, DType):
        return type_value
    if isinstance(type_value, np.dtype) and type_value.type in _BY_SCALAR_TYPE:
        return _BY_SCALAR_TYPE[type_value.type]
    if type_value is float:
        return float32
    if type_value is int:
        return int32
    if type(type_value) is int and type_value in _BY_ENUM:  # TensorFlow's DataType numbers: tf.zeros(1, 1) is float32
        return _BY_ENUM[type_value]
    try:
        name = np.dtype(type_value).name
    except TypeError:
        raise TypeError(
            f"cannot interpret {type_value!r} as a dtype; use one of {', '.join('mt.' + n for n in _BY_NAME)}"
        ) from None
    if name not in _BY_NAME:
        kind = np.dtype(type_value).kind
        why = _UNSUPPORTED_KINDS.get(kind, "")
        raise TypeError(
            f"dtype {'string' if kind in 'US' else name} is not supported by minitape{why}; "
            f"use one of {', '.join('mt.' + n for n in _BY_NAME)}"
        )
    return _BY_NAME[name]


_UNSUPPORTED_KINDS = {  # what to say about the numpy kinds TensorFlow has and minitape leaves out
    "U": " (tensors hold numbers and booleans, not text: process strings in Python, then convert the numbers)",
    "S": " (tensors hold numbers and booleans, not text: process strings in Python, then convert the numbers)",
    "c": " (no complex numbers: keep the real and imaginary parts as two float tensors)",
    "O": " (a list whose rows differ in length, or Python objects, makes no rectangular tensor)",
}
