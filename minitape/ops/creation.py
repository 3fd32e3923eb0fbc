"""Tensors made from nothing: zeros, ones, fills, ranges, identity matrices. Constants, never recorded."""

from __future__ import annotations

import numpy as np

from minitape.engine.tensor import Tensor
from minitape.ops.options import only_default
from minitape.values.convert import constant, convert_to_tensor
from minitape.values.dtypes import as_dtype, float32, float64
from minitape.values.errors import InvalidArgumentError
from minitape.values.tensor_like import TensorLike

_NO_LAYOUTS = "DTensor layouts spread a tensor over devices; minitape has one CPU"


def _shape(shape, op, error=TypeError):
    """Sizes as a tuple of ints, refused as TensorFlow refuses them: a fraction, a negative size, a bool."""
    value = shape._array() if isinstance(shape, TensorLike) else shape
    try:
        sizes = np.asarray(value)
    except ValueError:
        sizes = np.asarray(value, dtype=object)
    if type(shape) is np.ndarray and sizes.dtype.kind == "f" and np.all(sizes == np.round(sizes)):
        sizes = sizes.astype(np.int64)  # a numpy array of whole floats converts to int, as in TensorFlow
    if isinstance(shape, TensorLike) and sizes.dtype not in (np.int32, np.int64):
        sizes = sizes.astype(object)  # TensorFlow takes int32 and int64 shape tensors only (not uint8, not float)
    if sizes.ndim > 1 or (sizes.dtype.kind not in "iu" and (sizes.size or sizes.dtype == object)):
        raise (InvalidArgumentError if isinstance(shape, TensorLike) else error)(
            f"{op}: a shape is a list of integer sizes, e.g. [2, 3], not {value!r}; "
            "a size computed as a float must be made an int first, e.g. int(n)"
        )
    sizes = tuple(int(n) for n in sizes.reshape(-1))
    for n in sizes:
        if n < 0:
            raise InvalidArgumentError(f"{op}: Dimension {n} must be >= 0 (shape {list(sizes)})")
    return sizes


def zeros(shape, dtype=float32, name=None, layout=None) -> Tensor:
    only_default("zeros", "layout", layout, (None,), _NO_LAYOUTS)
    return Tensor(np.zeros(_shape(shape, "zeros"), as_dtype(dtype).as_numpy_dtype))


def ones(shape, dtype=float32, name=None, layout=None) -> Tensor:
    only_default("ones", "layout", layout, (None,), _NO_LAYOUTS)
    return Tensor(np.ones(_shape(shape, "ones"), as_dtype(dtype).as_numpy_dtype))


def fill(dims, value, name=None, layout=None) -> Tensor:
    only_default("fill", "layout", layout, (None,), _NO_LAYOUTS)
    return constant(value, shape=_shape(dims, "fill", InvalidArgumentError))


def _like(input, dtype, fill_value):
    template = input._array() if isinstance(input, TensorLike) else constant(input)._value
    dtype = as_dtype(dtype or template.dtype)
    return Tensor(np.full(template.shape, fill_value, dtype.as_numpy_dtype))


def zeros_like(input, dtype=None, name=None, layout=None) -> Tensor:
    only_default("zeros_like", "layout", layout, (None,), _NO_LAYOUTS)
    return _like(input, dtype, 0)


def ones_like(input, dtype=None, name=None, layout=None) -> Tensor:
    only_default("ones_like", "layout", layout, (None,), _NO_LAYOUTS)
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
    # `_scalar` reports each value to a tracer: a graph traced for one range replays only for that range
    first, last, step = (a._scalar("float").item() for a in args)
    if step == 0 or (step > 0 and first > last) or (step < 0 and first < last):
        raise InvalidArgumentError(  # numpy would give an empty range, or divide by zero
            f"range: Requires delta != 0, and start <= limit when delta > 0 (start >= limit when delta < 0); "
            f"got start={first}, limit={last}, delta={step}"
        )
    return constant(np.arange(first, last, step), dtype=dtype)


_RANGE_ORDER = ("int32", "int64", "float16", "float32", "float64")


def eye(num_rows, num_columns=None, batch_shape=None, dtype=float32, name=None) -> Tensor:
    (rows,) = _shape([num_rows], "eye")
    (columns,) = _shape([rows if num_columns is None else num_columns], "eye")
    matrix = np.eye(rows, columns, dtype=as_dtype(dtype).as_numpy_dtype)
    if batch_shape is not None:
        matrix = np.broadcast_to(matrix, _shape(batch_shape, "eye") + matrix.shape).copy()
    return Tensor(matrix)


def linspace(start, stop, num, name=None, axis=0) -> Tensor:
    """`num` evenly spaced values from start to stop (numbers or arrays of them, spaced along `axis`).

    As in TensorFlow, the dtype is start's if it is floating (a Python float's is float32), else float64.
    """
    first, last = convert_to_tensor(start), convert_to_tensor(stop)
    if first.dtype.is_bool or last.dtype.is_bool:
        raise InvalidArgumentError("linspace: start and stop must be numbers, not bools; cast them first")
    dtype = first.dtype if first.dtype.is_floating else float64
    ends = [np.asarray(t._array(), np.float64) for t in (first, last)]
    (num,) = _shape([num._array() if isinstance(num, TensorLike) else num], "linspace", InvalidArgumentError)
    return constant(np.linspace(*ends, int(num), axis=axis), dtype=dtype)
