"""Tensors made from nothing: zeros, ones, fills, ranges, identity matrices. Constants, never recorded."""

from __future__ import annotations

import numpy as np

from minitape.engine.tensor import Tensor
from minitape.values.convert import constant, convert_to_tensor
from minitape.values.dtypes import as_dtype, float32, float64
from minitape.values.tensor_like import TensorLike


def _shape(shape):
    shape = shape._array() if isinstance(shape, TensorLike) else shape
    return tuple(int(n) for n in np.atleast_1d(np.asarray(shape))) if np.ndim(shape) or shape != () else ()


def zeros(shape, dtype=float32, name=None) -> Tensor:
    return Tensor(np.zeros(_shape(shape), as_dtype(dtype).as_numpy_dtype))


def ones(shape, dtype=float32, name=None) -> Tensor:
    return Tensor(np.ones(_shape(shape), as_dtype(dtype).as_numpy_dtype))


def fill(dims, value, name=None) -> Tensor:
    return constant(value, shape=_shape(dims))


def _like(input, dtype, fill_value):
    template = input._array() if isinstance(input, TensorLike) else constant(input)._value
    dtype = as_dtype(dtype or template.dtype)
    return Tensor(np.full(template.shape, fill_value, dtype.as_numpy_dtype))


def zeros_like(input, dtype=None, name=None) -> Tensor:
    return _like(input, dtype, 0)


def ones_like(input, dtype=None, name=None) -> Tensor:
    return _like(input, dtype, 1)


def range(start, limit=None, delta=1, dtype=None, name="range") -> Tensor:
    """Like Python's range, as a tensor. Its dtype, as in TensorFlow: `dtype`, or else the widest of the
    arguments' (int32 < int64 < float16 < float32 < float64; a Python int is int32, a float float32)."""
    if limit is None:
        start, limit = 0, start
    args = [v if isinstance(v, TensorLike) else convert_to_tensor(v, dtype=dtype) for v in (start, limit, delta)]
    if dtype is None:
        kinds = [a.dtype.name for a in args]
        if not set(kinds) <= set(_RANGE_ORDER):
            raise TypeError(f"range takes int or float arguments, not {', '.join(kinds)}; cast them first")
        dtype = max(kinds, key=_RANGE_ORDER.index)
    return constant(np.arange(*[a._array().item() for a in args]), dtype=dtype)


_RANGE_ORDER = ("int32", "int64", "float16", "float32", "float64")


def eye(num_rows, num_columns=None, batch_shape=None, dtype=float32, name=None) -> Tensor:
    matrix = np.eye(num_rows, num_columns, dtype=as_dtype(dtype).as_numpy_dtype)
    if batch_shape is not None:
        matrix = np.broadcast_to(matrix, tuple(batch_shape) + matrix.shape).copy()
    return Tensor(matrix)


def linspace(start, stop, num, name=None, axis=0) -> Tensor:
    """`num` evenly spaced values from start to stop (numbers or arrays of them, spaced along `axis`).

    As in TensorFlow, the dtype is start's if it is floating (a Python float's is float32), else float64.
    """
    first, last = convert_to_tensor(start), convert_to_tensor(stop)
    dtype = first.dtype if first.dtype.is_floating else float64
    ends = [np.asarray(t._array(), np.float64) for t in (first, last)]
    return constant(np.linspace(*ends, int(num), axis=axis), dtype=dtype)
