"""`tape.jacobian` and `tape.batch_jacobian`: one backward sweep per element of the target."""

from __future__ import annotations

from typing import Any

import numpy as np

from minitape import nest
from minitape.convert import convert_to_tensor
from minitape.gradient_args import UnconnectedGradients, as_unconnected
from minitape.ops.array_ops import reshape, stack, strided_slice
from minitape.tensor import Tensor, TensorLike


def jacobian(tape: Any, target: Any, sources: Any, unconnected_gradients: Any = "none") -> Any:
    """d(target[i])/d(source[j]) for every element pair: shape target.shape + source.shape."""
    unconnected = as_unconnected(unconnected_gradients)
    tape.begin_answer()
    target = convert_to_tensor(target) if not isinstance(target, TensorLike) else target
    flat_sources = nest.flatten(sources)
    n = int(np.prod(target.shape))
    rows = []
    for k in range(n):
        seed = np.zeros(n, target.dtype.as_numpy_dtype)
        seed[k] = 1
        rows.append(tape.backward([target], flat_sources, [Tensor(seed.reshape(target.shape))]))
    tape.end_answer()
    result = []
    for j, s in enumerate(flat_sources):
        column = [row[j] for row in rows]
        if n == 0 or all(g is None for g in column):
            zero = unconnected is UnconnectedGradients.ZERO and s.dtype.is_floating
            result.append(_zeros(tuple(target.shape) + tuple(s.shape), s) if zero else None)
            continue
        zero = _zeros(s.shape, s)
        column = [zero if g is None else g for g in column]  # rows that do not depend on this source
        result.append(reshape(stack(column), tuple(target.shape) + tuple(s.shape)))
    return nest.pack_sequence_as(sources, result)


def batch_jacobian(tape: Any, target: Any, source: Any, unconnected_gradients: Any = "none") -> Any:
    """Per-example Jacobians: result[i] = d target[i] / d source[i], for a batch along axis 0."""
    if not target.shape or not source.shape or target.shape[0] != source.shape[0]:
        raise ValueError(
            f"batch_jacobian needs target and source with the same first (batch) dimension, "
            f"got shapes {tuple(target.shape)} and {tuple(source.shape)}"
        )
    full = jacobian(tape, target, source, unconnected_gradients)
    if full is None:
        return None
    rank_t = len(target.shape)
    return stack([strided_slice(full, (i,) + (slice(None),) * (rank_t - 1) + (i,)) for i in range(target.shape[0])])


def _zeros(shape: Any, like: Any) -> Tensor:
    return Tensor(np.zeros(tuple(shape), like.dtype.as_numpy_dtype))
