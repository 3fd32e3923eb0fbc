"""Tensors made from nothing: zeros, ones, fills, ranges, identity matrices. Constants, never recorded."""

from __future__ import annotations

import numpy as np

from minitape.convert import constant
from minitape.dtypes import as_dtype, float32
from minitape.tensor import Tensor, TensorLike


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
    """Like Python's range, as a tensor: int32 for integer arguments, float32 if any is a float."""
    if limit is None:
        start, limit = 0, start
    values = [float(v) if isinstance(v, TensorLike) and v.dtype.is_floating else v for v in (start, limit, delta)]
    values = [v._array().item() if isinstance(v, TensorLike) else v for v in values]
    kind = as_dtype(dtype) if dtype is not None else (float32 if any(isinstance(v, float) for v in values) else None)
    return constant(np.arange(*values), dtype=kind or as_dtype("int32"))


def eye(num_rows, num_columns=None, batch_shape=None, dtype=float32, name=None) -> Tensor:
    matrix = np.eye(num_rows, num_columns, dtype=as_dtype(dtype).as_numpy_dtype)
    if batch_shape is not None:
        matrix = np.broadcast_to(matrix, tuple(batch_shape) + matrix.shape).copy()
    return Tensor(matrix)


def linspace(start, stop, num, name=None, axis=0) -> Tensor:
    return constant(np.linspace(float(start), float(stop), int(num)), dtype=float32)
