"""Functions tutorials call from `tf.math`, `tf.nn` and `tf`: cumsum (a primitive), the rest built from ops."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from minitape import nest
from minitape.dtypes import as_dtype, int32, int64
from minitape.errors import InvalidArgumentError
from minitape.ops.api import (
    cast,
    maximum,
    not_equal,
    reduce_sum,
    rsqrt,
    sqrt,
    square,
    stack,
    unstack,
)
from minitape.ops.nn_ops import softplus
from minitape.registry import defop
from minitape.tensor import Tensor, TensorLike


def _plain(value: Any) -> np.ndarray:
    return value._array() if isinstance(value, TensorLike) else np.asarray(value)


# ---- cumsum: the running sum; its gradient is the running sum taken from the other end -----------------
def _cumsum(a, axis, exclusive, reverse):
    if not -a.ndim <= axis < max(a.ndim, 1):
        raise InvalidArgumentError(f"cumsum: axis {axis} is out of range for a tensor of rank {a.ndim}")
    if a.dtype.kind == "b":
        raise TypeError("cumsum of a bool tensor is not defined; cast it first, e.g. mt.cast(x, mt.int32)")
    a = np.flip(a, axis) if reverse else a
    out = np.cumsum(a, axis=axis, dtype=a.dtype)
    out = out - a if exclusive else out
    return np.flip(out, axis).copy() if reverse else out


cumsum_op = defop(
    "Cumsum",
    _cumsum,
    lambda op, g: cumsum_op(g, axis=op.attrs["axis"], exclusive=op.attrs["exclusive"], reverse=not op.attrs["reverse"]),
    keep="nothing",
)


def cumsum(x: Any, axis: int = 0, exclusive: bool = False, reverse: bool = False, name: str | None = None) -> Tensor:
    """Running sums along `axis`: [a, a + b, a + b + c]; exclusive starts at 0, reverse runs from the end."""
    return cumsum_op(x, axis=int(_plain(axis)), exclusive=bool(exclusive), reverse=bool(reverse))


# ---- composites ---------------------------------------------------------------------------------------------
def l2_normalize(x: Any, axis: Any = None, epsilon: float = 1e-12, name: str | None = None, dim: Any = None) -> Tensor:
    """x / sqrt(max(sum(x^2), epsilon)) along `axis` (all axes if None)."""
    axis = dim if axis is None else axis
    return x * rsqrt(maximum(reduce_sum(square(x), axis=axis, keepdims=True), epsilon))


def reduce_euclidean_norm(input_tensor: Any, axis: Any = None, keepdims: bool = False, name: str | None = None):
    """sqrt(sum(x^2)) over `axis`."""
    return sqrt(reduce_sum(square(input_tensor), axis=axis, keepdims=keepdims))


def count_nonzero(
    input: Any, axis: Any = None, keepdims: Any = None, dtype: Any = int64, name: str | None = None
) -> Tensor:
    """How many entries are not zero (not False) over `axis`, as int64 by default."""
    flags = not_equal(input, False) if _plain(input).dtype == np.bool_ else not_equal(input, 0)
    return reduce_sum(cast(flags, dtype), axis=axis, keepdims=bool(keepdims))


def log_sigmoid(x: Any, name: str | None = None) -> Tensor:
    """log(sigmoid(x)) = -softplus(-x), without overflow."""
    return -softplus(-x)


def truediv(x: Any, y: Any, name: str | None = None) -> Tensor:
    """x / y, with TensorFlow's rule for integers (see mt.divide)."""
    from minitape.ops.operands import divide

    return divide(x, y)


def confusion_matrix(
    labels: Any,
    predictions: Any,
    num_classes: int | None = None,
    weights: Any = None,
    dtype: Any = int32,
    name: str | None = None,
) -> Tensor:
    """counts[i, j] = how many examples have label i and prediction j (not differentiable)."""
    lab, pred = _plain(labels).ravel(), _plain(predictions).ravel()
    if lab.shape != pred.shape:
        raise ValueError(f"confusion_matrix: {lab.size} labels but {pred.size} predictions; give one of each")
    if lab.size and min(lab.min(), pred.min()) < 0:
        raise InvalidArgumentError("confusion_matrix: labels and predictions must be non-negative class indices")
    n = int(num_classes) if num_classes is not None else int(max(lab.max(initial=-1), pred.max(initial=-1)) + 1)
    if lab.size and max(lab.max(), pred.max()) >= n:
        raise InvalidArgumentError(f"confusion_matrix: a label or prediction is >= num_classes={n}")
    counts = np.zeros((n, n), as_dtype(dtype).as_numpy_dtype)
    np.add.at(counts, (lab.astype(np.int64), pred.astype(np.int64)), 1 if weights is None else _plain(weights).ravel())
    return Tensor(counts)


def map_fn(fn: Callable, elems: Any, dtype: Any = None, fn_output_signature: Any = None, **kwargs: Any) -> Any:
    """fn applied to each slice of `elems` along axis 0, the results stacked; differentiable (a Python loop)."""
    flat = nest.flatten(elems)
    if not flat:
        raise ValueError("map_fn needs at least one tensor in elems")
    slices = [unstack(t) for t in flat]
    if len({len(s) for s in slices}) > 1:
        raise ValueError("map_fn: every tensor in elems needs the same first dimension")
    results = [fn(nest.pack_sequence_as(elems, list(parts))) for parts in zip(*slices)]
    if not results:
        raise ValueError("map_fn over zero elements cannot infer the result's shape")
    columns = zip(*(nest.flatten(r) for r in results))
    return nest.pack_sequence_as(results[0], [stack(list(c)) for c in columns])


def vectorized_map(fn: Callable, elems: Any, fallback_to_while_loop: bool = True, warn: bool = True) -> Any:
    """As map_fn: minitape runs the loop in Python, with the same result."""
    return map_fn(fn, elems)
