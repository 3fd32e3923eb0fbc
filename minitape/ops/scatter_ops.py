"""Scatter: write `updates` into a copy of a tensor at index tuples, the twin of `gather_nd`.

`indices[..., :]` holds one (i, j, ...) position per update, as in `gather_nd`, so
`updates` has shape indices.shape[:-1] + tensor.shape[depth:]. Each op combines what is
there with what arrives (add, subtract, replace, min, max); repeated indices combine in turn.
The gradients gather `g` back at the same positions.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minitape.engine.opdef import defop
from minitape.ops.api import cast, equal, zeros
from minitape.ops.options import BAD_INDICES, only_default
from minitape.ops.shape_ops import first_outside, gather_nd
from minitape.values.convert import convert_to_tensor
from minitape.values.errors import InvalidArgumentError
from minitape.values.tensor_like import TensorLike


def _checked_key(name: str, tensor: np.ndarray, indices: np.ndarray, updates: np.ndarray) -> tuple:
    """The numpy index of the positions `indices` names, after checking them against both shapes."""
    if indices.dtype.kind not in "iu" or indices.ndim == 0 or not 1 <= indices.shape[-1] <= tensor.ndim:
        raise InvalidArgumentError(
            f"{name}: indices must be integers whose last axis (here {list(indices.shape)}) holds 1 to "
            f"{tensor.ndim} coordinates, one per leading axis of the tensor of shape {list(tensor.shape)}"
        )
    depth = indices.shape[-1]
    expected = indices.shape[:-1] + tensor.shape[depth:]
    if updates.shape != expected:
        raise InvalidArgumentError(
            f"{name}: updates of shape {list(updates.shape)} do not fit: indices of shape {list(indices.shape)} "
            f"into a tensor of shape {list(tensor.shape)} take updates of shape {list(expected)}"
        )
    bad = first_outside(indices, tensor.shape)
    if bad is not None:
        raise InvalidArgumentError(
            f"{name}: index {bad} does not index into shape {list(tensor.shape)} "
            "(negative indices do not count from the end here)"
        )
    return tuple(np.moveaxis(indices, -1, 0))


def _scatter(name: str, combine: Any) -> Any:
    def forward(tensor: np.ndarray, indices: np.ndarray, updates: np.ndarray) -> np.ndarray:
        out = tensor.copy()
        combine(out, _checked_key(name, tensor, indices, updates), updates)
        return out

    forward.__name__ = name
    return forward


def _replace(out: np.ndarray, key: tuple, updates: np.ndarray) -> None:
    out[key] = updates


def _min_max_rule(op: Any, g: Any) -> tuple:
    """As TensorFlow: the gradient goes to whichever of the old value and the updates the result took; ties share."""
    tensor, indices, updates = op.inputs
    took_old = cast(equal(tensor, op.z), g.dtype)
    took_update = cast(equal(updates, gather_nd(op.z, indices)), g.dtype)
    takers = took_old + scatter_nd(indices, took_update, op.input_shapes[0])
    return g * took_old / takers, None, gather_nd(g / takers, indices) * took_update


T = dict(same_dtype=(0, 2), keep="both")  # the tensor and its updates share a dtype; rules read the indices

# fmt: off
add_op = defop("TensorScatterAdd", _scatter("tensor_scatter_nd_add", np.add.at),
               lambda op, g: (g, None, gather_nd(g, op.y)), **T)
sub_op = defop("TensorScatterSub", _scatter("tensor_scatter_nd_sub", np.subtract.at),
               lambda op, g: (g, None, -gather_nd(g, op.y)), **T)
update_op = defop("TensorScatterUpdate", _scatter("tensor_scatter_nd_update", _replace),  # the replaced get none
                  lambda op, g: (update_op(g, op.y, zeros(op.input_shapes[2], g.dtype)), None, gather_nd(g, op.y)), **T)
max_op = defop("TensorScatterMax", _scatter("tensor_scatter_nd_max", np.maximum.at), _min_max_rule, **T)
min_op = defop("TensorScatterMin", _scatter("tensor_scatter_nd_min", np.minimum.at), _min_max_rule, **T)
# fmt: on


def _public(op: Any, what: str) -> Any:
    """TensorFlow's signature, keywords included: tensor_scatter_nd_add(tensor, indices=..., updates=...)."""

    def scatter(tensor: Any, indices: Any, updates: Any, bad_indices_policy: str = "", name: str | None = None) -> Any:
        only_default(op.forward.__name__, "bad_indices_policy", bad_indices_policy, *BAD_INDICES)
        return op(tensor, indices, updates)

    scatter.__name__ = scatter.__qualname__ = op.forward.__name__
    scatter.__doc__ = f"A copy of `tensor` with `updates` {what} at `indices` (index tuples, as gather_nd's)."
    return scatter


tensor_scatter_nd_add = _public(add_op, "added")
tensor_scatter_nd_sub = _public(sub_op, "subtracted")


def tensor_scatter_nd_update(tensor: Any, indices: Any, updates: Any, name: str | None = None) -> Any:
    """A copy of `tensor` with `updates` written at `indices` (index tuples, as gather_nd's)."""
    return update_op(tensor, indices, updates)


tensor_scatter_nd_max = _public(max_op, "kept where larger")
tensor_scatter_nd_min = _public(min_op, "kept where smaller")


def scatter_nd(indices: Any, updates: Any, shape: Any, bad_indices_policy: str = "", name: str | None = None) -> Any:
    """A tensor of zeros of `shape` with `updates` added at `indices` (repeated indices add up)."""
    only_default("scatter_nd", "bad_indices_policy", bad_indices_policy, *BAD_INDICES)
    updates = convert_to_tensor(updates)  # a Python list of ints is int32, as in TensorFlow
    size = [int(n) for n in np.ravel(shape._array() if isinstance(shape, TensorLike) else shape)]
    return add_op(zeros(size, updates.dtype), indices, updates)
