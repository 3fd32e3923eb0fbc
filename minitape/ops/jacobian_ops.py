"""`tape.jacobian` and `tape.batch_jacobian`: one backward sweep per element of the target."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from minitape.engine.gradient_args import UnconnectedGradients, as_unconnected
from minitape.engine.tensor import Tensor
from minitape.ops.array_ops import reshape, stack, strided_slice
from minitape.values import nest
from minitape.values.convert import convert_to_tensor
from minitape.values.tensor_like import TensorLike

JACOBIAN_WARN_BYTES = 1 << 30  # a jacobian larger than this warns before it starts


def jacobian(tape: Any, target: Any, sources: Any, unconnected_gradients: Any = "none") -> Any:
    """d(target[i])/d(source[j]) for every element pair: shape target.shape + source.shape."""
    return _jacobian(tape, target, sources, unconnected_gradients, caller_depth=4)


def _jacobian(tape: Any, target: Any, sources: Any, unconnected_gradients: Any, caller_depth: int) -> Any:
    unconnected = as_unconnected(unconnected_gradients)
    tape.begin_answer()
    target = convert_to_tensor(target) if not isinstance(target, TensorLike) else target
    flat_sources = nest.flatten(sources)
    n = int(np.prod(_shape(target)))
    _warn_if_huge(n, flat_sources, caller_depth)
    if n == 0:  # an empty target: no rows, but a connected source still gets a (0, ...) result, as in TensorFlow
        empty = tape.backward([target], flat_sources, [_zeros(_shape(target), target)])
        tape.end_answer()
        result = []
        for g, s in zip(empty, flat_sources):
            connected = g is not None or unconnected is UnconnectedGradients.ZERO
            result.append(_zeros(_shape(target) + _shape(s), s) if connected else None)
        return nest.pack_sequence_as(sources, result)
    rows = []
    for k in range(n):
        seed = np.zeros(n, target.dtype.as_numpy_dtype)
        seed[k] = 1
        rows.append(tape.backward([target], flat_sources, [Tensor(seed.reshape(_shape(target)))]))
    tape.end_answer()
    result = []
    for j, s in enumerate(flat_sources):
        column = [row[j] for row in rows]
        if all(g is None for g in column):
            zero = unconnected is UnconnectedGradients.ZERO  # zeros of the source's dtype, even an int's, as in TF
            result.append(_zeros(_shape(target) + _shape(s), s) if zero else None)
            continue
        zero = _zeros(_shape(s), s)
        column = [zero if g is None else g for g in column]  # rows that do not depend on this source
        result.append(reshape(stack(column), _shape(target) + _shape(s)))
    return nest.pack_sequence_as(sources, result)


def batch_jacobian(tape: Any, target: Any, source: Any, unconnected_gradients: Any = "none") -> Any:
    """Per-example Jacobians: result[i] = d target[i] / d source[i], for a batch along axis 0."""
    if len(_shape(target)) < 2 or len(_shape(source)) < 2 or _shape(target)[0] != _shape(source)[0]:
        raise ValueError(
            f"batch_jacobian needs a target and a source of rank 2 or more with the same first (batch) dimension, "
            f"got shapes {_shape(target)} and {_shape(source)}; reshape a vector to (batch, 1)"
        )
    full = _jacobian(tape, target, source, unconnected_gradients, caller_depth=5)
    if full is None:  # unconnected: zeros of the target's dtype, as TensorFlow's batch_jacobian gives
        return _zeros(_shape(target) + _shape(source)[1:], target)
    rank_t = len(_shape(target))
    return stack([strided_slice(full, (i,) + (slice(None),) * (rank_t - 1) + (i,)) for i in range(_shape(target)[0])])


def _warn_if_huge(n_rows: int, sources: list, caller_depth: int) -> None:
    """Warn, at the user's call of jacobian (`caller_depth` frames up), before a result of more than 1 GiB."""
    size = sum(n_rows * int(np.prod(_shape(s))) * s.dtype.as_numpy_dtype().itemsize for s in sources)
    if size > JACOBIAN_WARN_BYTES:
        warnings.warn(
            f"jacobian: the result will take {size / 2**30:.1f} GiB ({n_rows} target elements times the sources' "
            "elements) and needs one backward pass per target element; reduce the target first, or use "
            "batch_jacobian or a ForwardAccumulator for a Jacobian-vector product",
            ResourceWarning,
            stacklevel=caller_depth,
        )


def _shape(t: Any) -> tuple:
    """The shape of `t`'s value (a variable's `.shape` may be declared with sizes left open)."""
    return t._array().shape


def _zeros(shape: Any, like: Any) -> Tensor:
    return Tensor(np.zeros(tuple(shape), like.dtype.as_numpy_dtype))
