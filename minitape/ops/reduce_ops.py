"""Reductions over axes. Each gradient spreads dy back over the reduced axes (`_spread`)."""

from __future__ import annotations

import math

import numpy as np

from minitape.engine.opdef import defop
from minitape.ops.array_ops import pad_op, reshape, reshape_op, strided_slice_op, transpose_op
from minitape.ops.math_ops import broadcast_to, cast, equal, exp
from minitape.values.errors import InvalidArgumentError


def _axes(axis, rank):
    """Normalise TensorFlow's `axis` (None, an int, a list) to a sorted tuple of non-negative ints."""
    if axis is None:
        return tuple(range(rank))
    if type(axis) is int and -rank <= axis < rank:  # the common forms, told without making a numpy array
        return (axis % rank,)
    if type(axis) is tuple and all(type(a) is int and -rank <= a < rank for a in axis):
        unique = tuple(sorted({a % rank for a in axis}))
        if len(unique) == len(axis):
            return unique
    axes = (axis,) if np.ndim(axis) == 0 else tuple(np.asarray(axis).ravel())
    for a in axes:
        if isinstance(a, (bool, np.bool_)) or not isinstance(a, (int, np.integer)):  # int(1.5) would read 1
            raise TypeError(f"axis must be whole numbers (ints), not {axis!r}: e.g. axis=1")
        if not -rank <= int(a) < rank:
            raise ValueError(f"axis {int(a)} is out of range for a tensor of rank {rank}")
    unique = tuple(sorted({int(a) % rank for a in axes})) if rank else ()
    if rank and len(unique) != len(axes):  # TensorFlow refuses [0, 0] and [0, -2] on rank 2: "duplicate dimension"
        raise ValueError(f"axis {list(map(int, axes))} names an axis twice (rank {rank}); list each axis once")
    return unique


def _logical_reducer(np_fn, what):
    """reduce_all and reduce_any: bool tensors only, as in TensorFlow (numpy would give a number's truth)."""

    def forward(a, axis=None, keepdims=False):
        if a.dtype.kind != "b":
            raise TypeError(f"{what} needs a bool tensor, not {a.dtype.name}: compare first, e.g. mt.{what}(x > 0)")
        return np_fn(a, axis=_axes(axis, a.ndim), keepdims=keepdims)

    return forward


def _extreme_reducer(np_fn, what, sign):
    """reduce_max (sign -1) and reduce_min (+1): no bool kernel; over nothing, TensorFlow's identity.

    That is -inf for max (+inf for min), or an integer type's lowest (highest) value.
    """

    def forward(a, axis=None, keepdims=False):
        if a.dtype.kind == "b":
            raise TypeError(
                f"{what} of a bool tensor is not defined (TensorFlow has no bool kernel); "
                f"use mt.reduce_{'any' if sign < 0 else 'all'}, or cast to mt.int32 first"
            )
        axes = _axes(axis, a.ndim)
        if a.size:
            return np_fn(a, axis=axes, keepdims=keepdims)
        info = np.iinfo(a.dtype) if a.dtype.kind in "iu" else None
        identity = sign * np.inf if info is None else info.min if sign < 0 else info.max
        return np_fn(a, axis=axes, keepdims=keepdims, initial=identity)

    return forward


def _arithmetic_reducer(np_fn, what):
    """A reduction that adds or multiplies: TensorFlow has no bool kernel (a bool mean would be `True`)."""

    def forward(a, axis=None, keepdims=False):
        if a.dtype.kind == "b":
            raise TypeError(
                f"{what} of a bool tensor is not defined (TensorFlow has no bool kernel); "
                f"cast it first, e.g. mt.{what}(mt.cast(x, mt.float32)) for the fraction of True values"
            )
        return np_fn(a, axis=_axes(axis, a.ndim), keepdims=keepdims)

    return forward


def _add(a, axis, keepdims):
    """np.sum: the ufunc reduction np.sum calls, without its Python wrapper (half the time on small arrays)."""
    return np.add.reduce(a, axis=axis, keepdims=keepdims)


# np.mean's accumulator by dtype (numpy/_core/_methods.py `_mean`): float64 for ints, float32 for float16
_MEAN_SUM_DTYPE = {**dict.fromkeys(np.typecodes["AllInteger"], np.float64), "e": np.float32, "f": None, "d": None}


def _average(a, axis, keepdims):
    """np.mean, bit for bit: its own steps (numpy/_core/_methods.py `_mean`) without its Python wrapper.

    numpy sums ints in float64 and float16 in float32, then divides by the count, an np.intp, so in float64.
    The quotient is rounded to the sum's dtype, then a float16 array to float16; a float16 scalar is rounded
    straight to float16 (once, not twice: the two can differ, so each way is kept).
    """
    count = math.prod([a.shape[i] for i in axis])
    if not count:  # the mean of nothing: NaN for floats, as in TensorFlow (numpy also warns); no integer is right
        if a.dtype.kind in "iu":
            raise ValueError(
                f"the mean of an empty slice of {a.dtype} is undefined (0 / 0 has no integer value); cast to a "
                "floating type first, e.g. mt.reduce_mean(mt.cast(x, mt.float32)), whose mean of nothing is NaN"
            )
        return np.add.reduce(a, axis=axis, keepdims=keepdims) / a.dtype.type(0)  # 0 / 0: NaN (no warning here)
    if a.dtype.char not in _MEAN_SUM_DTYPE:  # complex: numpy's own way
        return np.mean(a, axis=axis, keepdims=keepdims)
    half = a.dtype.char == "e"
    total = np.add.reduce(a, axis=axis, dtype=_MEAN_SUM_DTYPE[a.dtype.char], keepdims=keepdims)
    if type(total) is not np.ndarray:  # a scalar: Python's float division is numpy's float64 one, at a tenth the cost
        return (a.dtype.type if half else total.dtype.type)(float(total) / count)
    total = np.true_divide(total, np.intp(count), out=total, casting="unsafe")
    return a.dtype.type(total) if half else total


def _arg_extreme(np_fn):
    """argmax or argmin along one axis, which must exist."""

    def forward(a, axis=0):
        if np.ndim(axis) != 0:
            raise TypeError(f"axis must be one whole number (an int), not {axis!r}: the search runs along one axis")
        (axis,) = _axes(axis, a.ndim)  # refuses 1.5, True and an axis out of range
        if a.shape[axis] == 0:  # TensorFlow's words (numpy's: "attempt to get argmax of an empty sequence")
            raise InvalidArgumentError(f"Reduction axis {axis} is empty in shape {list(a.shape)}: no entry to pick")
        if a.dtype.kind == "f" and np.isnan(a).any():  # TensorFlow passes over NaN, numpy stops at the first
            a = np.where(np.isnan(a), -np.inf if np_fn is np.argmax else np.inf, a)
        return np_fn(a, axis=axis).astype(np.int64)

    return forward


def _kept_shape(op):
    """The input's shape with each reduced axis 1: the shape keepdims=True gives."""
    shape, axis = op.input_shapes[0], op.attrs.get("axis")
    if axis is None:
        return (1,) * len(shape)
    axes = _axes(axis, len(shape))
    return tuple(1 if i in axes else n for i, n in enumerate(shape))


def _spread(op, t, kept=None):
    """Broadcast a reduced tensor (dy, or the output) back over the input's shape (`kept`: `_kept_shape(op)`)."""
    if op.output_shapes[0]:  # the reduced axes come back as 1s; a scalar (all axes reduced) broadcasts as it is
        t = reshape_op(t, shape=kept or _kept_shape(op))
    return broadcast_to(t, shape=op.input_shapes[0])


def _mean_rule(op, g):
    """dy divided by how many elements each output element averages, spread over the input."""
    shape, kept = op.input_shapes[0], _kept_shape(op)  # computed once, for both (math.prod: np.prod is slow here)
    # a float (exact: counts stay below 2**53): convert_inputs has a short path for `g / 64.0`, not for `g / 64`
    count = float(math.prod(shape) // max(math.prod(kept), 1))
    return _spread(op, g / count, kept)


def _extreme_rule(op, g):
    """Max and min: dy goes to the elements equal to the result, split evenly among ties."""
    x = op.inputs[0]
    hit = cast(equal(x, _spread(op, op.outputs[0])), x.dtype)
    ties = reduce_sum(hit, axis=op.attrs.get("axis"), keepdims=True)
    return _spread(op, g) * hit / ties


def _prod_rule(op, g):
    """d(prod x)/dx_i = the product of the other elements, computed without division so zeros work."""
    x = op.inputs[0]
    shape = op.input_shapes[0]
    axes = _axes(op.attrs.get("axis"), len(shape))
    if int(np.prod(shape, dtype=np.int64)) == 0:
        return _spread(op, g)  # nothing to differentiate: an empty gradient of the input's shape
    kept = tuple(i for i in range(len(shape)) if i not in axes)
    perm = kept + axes  # the reduced axes last, flattened into one: each row is one product
    rows = reshape(transpose_op(x, perm=perm), (-1, int(np.prod([shape[i] for i in axes], dtype=np.int64))))
    others = _exclusive_prod(rows) * _reverse(_exclusive_prod(_reverse(rows)))
    others = transpose_op(reshape(others, tuple(shape[i] for i in perm)), perm=tuple(np.argsort(perm)))
    return _spread(op, g) * others


def _reverse(rows):
    return strided_slice_op(rows, key=(slice(None), slice(None, None, -1)))


def _exclusive_prod(rows):
    """[1, x0, x0 x1, ...] along each row: a doubling scan of multiplications, so every derivative exists."""
    n = rows.shape[1]
    shift = 1
    while shift < n:  # after this step, each entry is the product of the `2 * shift` entries ending there
        rows = rows * pad_op(
            strided_slice_op(rows, key=(slice(None), slice(0, n - shift))), paddings=((0, 0), (shift, 0)), value=1
        )
        shift *= 2
    return pad_op(strided_slice_op(rows, key=(slice(None), slice(0, n - 1))), paddings=((0, 0), (1, 0)), value=1)


def _logsumexp(a, axis=None, keepdims=False):
    if a.dtype.kind != "f":  # numpy would compute in float64, then the integer output would truncate
        raise TypeError(f"reduce_logsumexp needs a floating-point tensor, not {a.dtype}; cast it first")
    axes = _axes(axis, a.ndim)
    shift = np.max(a, axis=axes, keepdims=True) if a.size else np.zeros([1] * a.ndim, a.dtype)
    shift = np.where(np.isfinite(shift), shift, 0)
    out = np.log(np.sum(np.exp(a - shift), axis=axes, keepdims=True)) + shift
    return out if keepdims else np.squeeze(out, axis=axes)


_sum = _arithmetic_reducer(_add, "reduce_sum")
_mean = _arithmetic_reducer(_average, "reduce_mean")
_prod = _arithmetic_reducer(np.prod, "reduce_prod")
# fmt: off
reduce_sum       = defop("Sum",       _sum,              lambda op, g: _spread(op, g),             keep="nothing")
reduce_mean      = defop("Mean",      _mean,             _mean_rule,                               keep="nothing")
reduce_max       = defop("Max",       _extreme_reducer(np.max, "reduce_max", -1), _extreme_rule,   keep="both")
reduce_min       = defop("Min",       _extreme_reducer(np.min, "reduce_min", 1),  _extreme_rule,   keep="both")
reduce_prod      = defop("Prod",      _prod,             _prod_rule,                               keep="inputs")
reduce_logsumexp = defop("LogSumExp", _logsumexp,        lambda op, g: _spread(op, g) * exp(op.x - _spread(op, op.z)),
                         keep="both")
reduce_all       = defop("All",       _logical_reducer(np.all, "reduce_all"), None)
reduce_any       = defop("Any",       _logical_reducer(np.any, "reduce_any"), None)
argmax           = defop("ArgMax",    _arg_extreme(np.argmax), None, dtype_from=None)
argmin           = defop("ArgMin",    _arg_extreme(np.argmin), None, dtype_from=None)
# fmt: on
