"""Segment reductions and bincount: combine the rows of `data` that share a segment id, as graph neural networks
sum the messages of each node's neighbours.

`segment_*` take sorted ids (0, 0, 1, 3, ...) and give max(id) + 1 rows; `unsorted_segment_*` take ids in any
order and `num_segments` rows, and drop the rows whose id is negative. A segment no row falls into holds
TensorFlow's value: 0 for the sorted ops and the sums, 1 for the products, and for the unsorted max and min the
dtype's lowest and highest value. A NaN makes its max or min segment NaN, as reduce_max does (TensorFlow's segment
kernels keep whichever value they compared last, so their answer depends on where the NaN stands). Every gradient
gathers the output gradient back to the rows (`GatherDropNegatives`, whose own gradient is the segment sum again),
so higher derivatives work.
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from minitape.engine.opdef import defop
from minitape.engine.tensor import Tensor
from minitape.function.trace import runs_each_call
from minitape.ops.api import cast, equal, greater, maximum, ones, ones_like, reshape, sqrt, where, zeros_like
from minitape.values.convert import convert_to_tensor
from minitape.values.dtypes import as_dtype
from minitape.values.errors import InvalidArgumentError
from minitape.values.tensor_like import TensorLike

_IDS = ("int32", "int64")
_IDS_OR_INT16 = ("int16", "int32", "int64")  # the unsorted sum (and the mean and sqrt_n built on it) take int16


def _check_dtypes(data: np.ndarray, ids: np.ndarray, id_dtypes: tuple) -> None:
    if data.dtype.kind == "b":
        raise InvalidArgumentError(
            "Value for attr 'T' of bool is not in the list of allowed values: the data must be numbers; "
            "cast it first, e.g. mt.cast(x, mt.int32)"
        )
    if ids.dtype.name not in id_dtypes:
        raise InvalidArgumentError(
            f"Value for attr 'Tindices' of {as_dtype(ids.dtype).name} is not in the list of allowed values: "
            f"{', '.join(id_dtypes)}; cast the segment ids, e.g. mt.cast(ids, mt.int32)"
        )


def _sorted_rows(data: np.ndarray, ids: np.ndarray) -> int:
    """The number of segments sorted ids make (the last id + 1), after TensorFlow's checks in its order."""
    if data.ndim == 0:
        raise InvalidArgumentError("input must be at least rank 1 (one row per segment id)")
    if ids.ndim != 1:
        raise InvalidArgumentError(f"segment_ids should be a vector, not of shape {list(ids.shape)}")
    if ids.shape[0] != data.shape[0]:
        raise InvalidArgumentError(
            f"segment_ids should be the same size as dimension 0 of input: {ids.shape[0]} ids for {data.shape[0]} rows"
        )
    if not ids.size:
        return 0
    rows = int(ids[-1]) + 1
    if rows <= 0:
        raise InvalidArgumentError(f"segment ids must be >= 0; the last is {int(ids[-1])}")
    starts = np.flatnonzero(np.r_[True, ids[1:] != ids[:-1]])  # each run of equal ids, checked in turn
    values = ids[starts]
    falls = np.r_[values[1:] < values[:-1], False]
    bad = falls | (values < 0)
    if bad.any():
        k = int(np.argmax(bad))
        if falls[k]:
            raise InvalidArgumentError(
                f"segment ids are not increasing: segment_ids[{int(starts[k + 1])}] = {int(values[k + 1])} comes "
                f"after {int(values[k])}; sort the rows by id first, or use the unsorted_segment_ op"
            )
        raise InvalidArgumentError(
            f"Segment id {int(values[k])} out of range [0, {rows}), possibly because 'segment_ids' input is not sorted"
        )
    return rows


def _check_unsorted(data: np.ndarray, ids: np.ndarray, n: int) -> None:
    if data.shape[: ids.ndim] != ids.shape:
        raise InvalidArgumentError(
            f"data.shape = {list(data.shape)} does not start with segment_ids.shape = {list(ids.shape)}: "
            "give one segment id per row (or per entry of the leading axes)"
        )
    flat = ids.reshape(-1)
    outside = np.flatnonzero(flat >= n)
    if outside.size:
        k = int(outside[0])
        raise InvalidArgumentError(
            f"segment_ids[{k}] = {int(flat[k])} is out of range [0, {n}); num_segments must exceed every id "
            "(a negative id drops its row)"
        )


def _empty_value(kind: str, dtype: np.dtype) -> Any:
    """What an unsorted segment no row falls into holds, as TensorFlow fills it."""
    if kind in ("max", "min"):
        info = np.finfo(dtype) if dtype.kind == "f" else np.iinfo(dtype)
        return info.min if kind == "max" else info.max
    return 1 if kind == "prod" else 0


_COMBINE = {"sum": np.add, "mean": np.add, "prod": np.multiply, "max": np.maximum, "min": np.minimum}


def _reduce(kind: str, data: np.ndarray, ids: np.ndarray, n: int) -> np.ndarray:
    """The unsorted reductions: each entry combined into its segment's row in turn."""
    kept = ids >= 0
    rows, picked = ids[kept], data[kept]  # a negative id drops its entry
    out = np.full((n,) + data.shape[ids.ndim :], _empty_value(kind, data.dtype), data.dtype)
    _COMBINE[kind].at(out, rows, picked)
    return out


def _reduce_sorted(kind: str, data: np.ndarray, ids: np.ndarray, n: int) -> np.ndarray:
    """The sorted reductions: each run of equal ids is one slice of `data`, reduced at once (`reduceat`)."""
    out = np.full((n,) + data.shape[1:], 1 if kind == "prod" else 0, data.dtype)  # an empty segment: 1 or 0
    if not ids.size:
        return out
    starts = np.flatnonzero(np.r_[True, ids[1:] != ids[:-1]])
    combined = _COMBINE[kind].reduceat(data, starts, axis=0, dtype=data.dtype)  # int32 sums stay int32
    if kind == "mean":  # integers divide as C does, towards zero (TensorFlow's -3 / 2 is -1)
        counts = np.diff(np.r_[starts, ids.size]).reshape((-1,) + (1,) * (data.ndim - 1)).astype(data.dtype)
        floating = data.dtype.kind == "f"
        combined = combined / counts if floating else np.abs(combined) // counts * np.sign(combined)
    out[ids[starts]] = combined
    return out


def _sorted_forward(kind: str) -> Any:
    def forward(data: np.ndarray, ids: np.ndarray) -> np.ndarray:
        _check_dtypes(data, ids, _IDS)
        return _reduce_sorted(kind, data, ids, _sorted_rows(data, ids))

    forward.__name__ = f"segment_{kind}"
    return forward


def _unsorted_forward(kind: str) -> Any:
    def forward(data: np.ndarray, ids: np.ndarray, num_segments: int) -> np.ndarray:
        _check_dtypes(data, ids, _IDS_OR_INT16 if kind == "sum" else _IDS)
        _check_unsorted(data, ids, num_segments)
        return _reduce(kind, data, ids, num_segments)

    forward.__name__ = f"unsorted_segment_{kind}"
    return forward


def _gather_drop_negatives(g: np.ndarray, ids: np.ndarray) -> np.ndarray:
    """Row ids[i] of g for each id; zeros where the id is negative (its row was dropped)."""
    if not g.shape[0]:
        return np.zeros(ids.shape + g.shape[1:], g.dtype)
    dropped = (ids < 0).reshape(ids.shape + (1,) * (g.ndim - 1))
    return np.where(dropped, np.zeros((), g.dtype), np.take(g, np.maximum(ids, 0), axis=0))


gather_rows = defop(
    "GatherDropNegatives",
    _gather_drop_negatives,
    lambda op, g: (unsorted_ops["sum"](g, op.y, num_segments=op.input_shapes[0][0]), None),
    keep="inputs",
)


def _segment_sum_of(op: Any) -> Any:
    """x summed over the segments of `op` (a segment op): the sorted or the unsorted sum, as the op was."""
    ids = op.inputs[1]
    if "num_segments" in op.attrs:
        return lambda x: unsorted_ops["sum"](x, ids, num_segments=op.attrs["num_segments"])
    return lambda x: sorted_ops["sum"](x, ids)


def _sum_rule(op: Any, g: Any) -> tuple:
    return gather_rows(g, op.y), None


def _mean_rule(op: Any, g: Any) -> tuple:
    ids = op.y
    counts = maximum(_segment_sum_of(op)(cast(ones_like(ids), g.dtype)), 1)
    return gather_rows(g / reshape(counts, [-1] + [1] * (len(g.shape) - 1)), ids), None


def _min_max_rule(op: Any, g: Any) -> tuple:
    """As TensorFlow: the gradient goes to the rows that hold the segment's extreme; ties share it equally."""
    data, ids = op.inputs[:2]
    chosen = equal(data, gather_rows(op.z, ids))
    how_many = _segment_sum_of(op)(cast(chosen, g.dtype))
    return where(chosen, gather_rows(g / how_many, ids), zeros_like(data)), None


def _prod_rule(op: Any, g: Any) -> tuple:
    """As TensorFlow: d prod / d x is the product of the others, found without dividing by a zero x; a segment
    with two zeros or more has gradient 0 everywhere."""
    data, ids = op.inputs[:2]
    is_zero = equal(data, zeros_like(data))
    zeros_in = _segment_sum_of(op)(cast(is_zero, g.dtype))
    g = where(greater(zeros_in, 1), zeros_like(g), g)
    nonzero = where(is_zero, ones_like(data), data)
    same = sorted_ops["prod"] if "num_segments" not in op.attrs else unsorted_ops["prod"]
    nonzero_prod = same(nonzero, ids, **op.attrs)
    others = where(is_zero, gather_rows(nonzero_prod, ids), gather_rows(op.z, ids) / nonzero)
    return gather_rows(g, ids) * others, None


_RULES = {"sum": (_sum_rule, "inputs"), "mean": (_mean_rule, "inputs"), "prod": (_prod_rule, "both")}
_RULES |= dict.fromkeys(("max", "min"), (_min_max_rule, "both"))

sorted_ops = {
    kind: defop(f"Segment{kind.title()}", _sorted_forward(kind), _RULES[kind][0], keep=_RULES[kind][1])
    for kind in ("sum", "mean", "max", "min", "prod")
}
unsorted_ops = {
    kind: defop(f"UnsortedSegment{kind.title()}", _unsorted_forward(kind), _RULES[kind][0], keep=_RULES[kind][1])
    for kind in ("sum", "max", "min", "prod")
}


@runs_each_call  # how many segments depends on the ids' values: a traced function finds it again at every call
def _sorted_segments(op: Any, data: Any, segment_ids: Any) -> Tensor:
    return op(data, segment_ids)


def _sorted(kind: str) -> Any:
    def segment(data: Any, segment_ids: Any, name: str | None = None) -> Tensor:
        return _sorted_segments(sorted_ops[kind], data, segment_ids)

    segment.__name__ = segment.__qualname__ = f"segment_{kind}"
    segment.__doc__ = (
        f"The {_WHAT[kind]} of the rows of `data` in each segment: `segment_ids` (sorted, one per row) name "
        f"them; the result has max(id) + 1 rows, and a segment no row falls into holds {_EMPTY[kind]}."
    )
    return segment


_WHAT = {"sum": "sum", "mean": "mean", "max": "maximum", "min": "minimum", "prod": "product"}
_EMPTY = {"sum": "0", "mean": "0", "max": "0", "min": "0", "prod": "1"}

segment_sum = _sorted("sum")
segment_mean = _sorted("mean")
segment_max = _sorted("max")
segment_min = _sorted("min")
segment_prod = _sorted("prod")


def _count(value: Any, what: str) -> int:
    """num_segments, minlength or maxlength as a Python int. A traced tensor's value is guarded (int() of it),
    so a traced function retraces when it changes instead of keeping the old count."""
    array = value._array() if isinstance(value, TensorLike) else np.asarray(value)
    if array.ndim:
        raise InvalidArgumentError(f"{what} should be a scalar, not shape {list(array.shape)}")
    if array.dtype.kind not in "iu":
        raise InvalidArgumentError(
            f"{what} of {array.dtype.name} is not in the list of allowed values: int32, int64; it is a count, "
            f"e.g. {what}=int(n)"
        )
    return operator.index(value) if isinstance(value, TensorLike) else int(array)


def _num_segments(value: Any) -> int:
    n = _count(value, "num_segments")
    if n < 0:
        raise InvalidArgumentError(f"Input num_segments == {n} must not be negative.")
    return n


def _unsorted(kind: str) -> Any:
    def segment(data: Any, segment_ids: Any, num_segments: Any, name: str | None = None) -> Tensor:
        return unsorted_ops[kind](data, segment_ids, num_segments=_num_segments(num_segments))

    segment.__name__ = segment.__qualname__ = f"unsorted_segment_{kind}"
    segment.__doc__ = (
        f"The {_WHAT[kind]} of the entries of `data` in each of `num_segments` segments, named by `segment_ids` "
        f"(any order; data.shape starts with their shape; a negative id drops its entry). A segment no entry falls "
        f"into holds {_UNSORTED_EMPTY[kind]}."
    )
    return segment


_UNSORTED_EMPTY = {"sum": "0", "prod": "1", "max": "the dtype's lowest value", "min": "the dtype's highest value"}

unsorted_segment_sum = _unsorted("sum")
unsorted_segment_max = _unsorted("max")
unsorted_segment_min = _unsorted("min")
unsorted_segment_prod = _unsorted("prod")


def _segment_sizes(data: Tensor, segment_ids: Any, n: int) -> Tensor:
    """How many entries each segment holds (at least 1), shaped to divide the segment sums, as TensorFlow's N."""
    ids = segment_ids if isinstance(segment_ids, TensorLike) else convert_to_tensor(segment_ids)
    sizes = unsorted_ops["sum"](ones(ids.shape, data.dtype), ids, num_segments=n)
    return maximum(reshape(sizes, [n] + [1] * (len(data.shape) - len(ids.shape))), 1)


def unsorted_segment_mean(data: Any, segment_ids: Any, num_segments: Any, name: str | None = None) -> Tensor:
    """The mean of the entries of `data` in each segment (see unsorted_segment_sum); an empty segment holds 0.
    Integer data gives a float mean, as TensorFlow divides it (int32 -> float64)."""
    data = data if isinstance(data, TensorLike) else convert_to_tensor(data)
    n = _num_segments(num_segments)
    return unsorted_segment_sum(data, segment_ids, n) / _segment_sizes(data, segment_ids, n)


def unsorted_segment_sqrt_n(data: Any, segment_ids: Any, num_segments: Any, name: str | None = None) -> Tensor:
    """The sum of each segment's entries divided by the square root of how many there are (an empty one holds 0)."""
    data = data if isinstance(data, TensorLike) else convert_to_tensor(data)
    if not data.dtype.is_floating:
        raise InvalidArgumentError(
            f"unsorted_segment_sqrt_n: data must be floating-point (TensorFlow's Sqrt takes no {data.dtype.name}); "
            "cast it first, e.g. mt.cast(x, mt.float32)"
        )
    n = _num_segments(num_segments)
    return unsorted_segment_sum(data, segment_ids, n) / sqrt(_segment_sizes(data, segment_ids, n))


# ---- bincount ----------------------------------------------------------------------------------------------------
_BIN_DTYPES = ("int32", "int64", "float32", "float64")


def _bincount(arr: np.ndarray, weights: np.ndarray, *, size: tuple, binary: bool, out: str) -> np.ndarray:
    """TensorFlow's DenseBincount: rows of counts (or summed weights) of the values below the output length."""
    if arr.ndim > 2:
        raise InvalidArgumentError(f"Shape must be at most rank 2 but is rank {arr.ndim}; axis=-1 counts each row")
    if arr.size and arr.min() < 0:
        raise InvalidArgumentError(f"Input arr must be non-negative! Negative input value found: {arr.min()}")
    if weights.size and weights.shape != arr.shape:
        raise InvalidArgumentError(
            "`weights` must be the same shape as `arr` or a length-0 `Tensor`, in which case it acts as all weights "
            f"equal to 1. Received {list(weights.shape)} for arr of shape {list(arr.shape)}"
        )
    minlength, maxlength = size
    length = int(arr.max()) + 1 if arr.size else 0
    length = max(length, minlength) if minlength is not None else length
    length = min(length, maxlength) if maxlength is not None else length
    if length < 0:
        raise InvalidArgumentError(f"size ({length}) must be non-negative")
    rows = arr.reshape(-1, arr.shape[-1]) if arr.ndim == 2 else arr.reshape(1, -1)
    kept = rows < length
    bins = (np.arange(rows.shape[0])[:, None] * length + rows)[kept]  # one run of `length` bins per row
    w = weights.reshape(rows.shape)[kept] if weights.size and not binary else None
    counts = np.bincount(bins, weights=w, minlength=rows.shape[0] * length).reshape(rows.shape[0], length)
    if binary:
        counts = counts > 0
    return counts.reshape(-1 if arr.ndim < 2 else (arr.shape[0], length)).astype(out)


bincount_op = defop("DenseBincount", _bincount, keep="nothing", dtype_from=None)  # no gradient, as TensorFlow's


@runs_each_call  # the length of the result depends on the values: a traced function counts again at every call
def _bincounts(arr: Any, weights: Any, size: tuple, binary: bool, out: str) -> Tensor:
    return bincount_op(arr, weights, size=size, binary=binary, out=out)


def bincount(
    arr: Any,
    weights: Any = None,
    minlength: Any = None,
    maxlength: Any = None,
    dtype: Any = "int32",
    name: str | None = None,
    axis: int | None = None,
    binary_output: bool = False,
) -> Tensor:
    """How often each value 0, 1, ..., max(arr) occurs in `arr` (non-negative integers; floats are truncated).

    `weights` (arr's shape) adds a weight per entry instead of 1, and gives the result its dtype; otherwise it has
    `dtype` (int32, int64, float32 or float64). The length is max(arr) + 1, at least `minlength`, at most
    `maxlength` (larger values are left out). axis=0 (or None) counts the whole tensor; axis=-1 counts each row of a
    2-D `arr` on its own. `binary_output` gives 1 where a value occurs, 0 elsewhere.
    """
    arr = arr if isinstance(arr, TensorLike) else convert_to_tensor(arr)
    if weights is not None and binary_output:
        raise ValueError("Arguments `binary_output` and `weights` are mutually exclusive. Please specify only one.")
    if not arr.dtype.is_integer:
        arr = cast(arr, "int32")
    elif arr.dtype.name not in _IDS:
        raise InvalidArgumentError(
            f"bincount: Value for attr 'Tidx' of {arr.dtype.name} is not in the list of allowed values: int32, "
            "int64; cast arr first, e.g. mt.cast(arr, mt.int32)"
        )
    axis = 0 if axis is None else axis
    if axis not in (0, -1):
        raise ValueError(f"Unsupported value for argument axis={axis}. Only 0 and -1 are currently supported.")
    out = as_dtype(dtype) if weights is None else convert_to_tensor(weights).dtype
    if out.name not in _BIN_DTYPES:
        raise InvalidArgumentError(
            f"bincount: Value for attr 'T' of {out.name} is not in the list of allowed values: "
            f"{', '.join(_BIN_DTYPES)}; give dtype (or weights) one of them"
        )
    if weights is None:
        weights = np.zeros(0, out.as_numpy_dtype)
    if axis == 0:
        arr, weights = reshape(arr, [-1]), reshape(weights, [-1])
    bounds = (minlength, "minlength"), (maxlength, "maxlength")
    size = tuple(None if v is None else _count(v, what) for v, what in bounds)
    return _bincounts(arr, weights, size, bool(binary_output), out.name)
