"""Selecting and dropping elements by a mask: `boolean_mask` and `nn.dropout`, built on differentiable ops."""

from __future__ import annotations

from typing import Any

import numpy as np

from minitape.engine.tensor import Tensor
from minitape.function.trace import runs_each_call
from minitape.namespaces import random
from minitape.ops.array_ops import gather, reshape
from minitape.ops.math_ops import cast, multiply
from minitape.ops.options import integer
from minitape.values.convert import as_array as _plain


def boolean_mask(tensor: Any, mask: Any, axis: Any = None, name: str | None = None) -> Tensor:
    """The entries of `tensor` where `mask` is True, as TensorFlow's boolean_mask.

    `mask` (k dimensions) covers the axes axis .. axis + k - 1 of `tensor`, which are flattened into one axis
    holding the selected entries. The gradient scatters back to the selected positions (zeros elsewhere).
    """
    shape = tuple(np.shape(_plain(tensor)))
    mask_array = _plain(mask)
    if mask_array.dtype != np.bool_:
        raise TypeError(f"boolean_mask: mask must be bool, not {mask_array.dtype}; compare first, e.g. x > 0")
    axis = 0 if axis is None else integer(axis, "boolean_mask", "axis")
    k = mask_array.ndim
    if k == 0:
        raise ValueError("boolean_mask: mask cannot be a scalar; give one bool per entry along the masked axes")
    axis = axis % len(shape) if -len(shape) <= axis < len(shape) else axis
    covered = shape[axis : axis + k]
    if covered != mask_array.shape:
        raise ValueError(
            f"boolean_mask: the mask's shape {list(mask_array.shape)} must equal the tensor's shape on the axes it "
            f"covers, {list(covered)} (tensor shape {list(shape)}, axis={axis}); shapes are incompatible"
        )
    flat = reshape(tensor, (*shape[:axis], int(np.prod(covered, dtype=np.int64)), *shape[axis + k :]))
    return gather(flat, _true_positions(mask), axis=axis)


@runs_each_call  # which entries are kept depends on the mask's values: found again at every call of a graph
def _true_positions(mask: Any) -> Tensor:
    """The flat positions where `mask` holds, as int64."""
    return Tensor(np.flatnonzero(_plain(mask)).astype(np.int64))


def dropout(x: Any, rate: float, noise_shape: Any = None, seed: Any = None, name: str | None = None) -> Tensor:
    """Zero each entry with probability `rate`, scaling the kept ones by 1 / (1 - rate), as `tf.nn.dropout`.

    `noise_shape` (broadcastable to x's shape) drops whole slices together; a fixed `seed` repeats the mask.
    """
    value = _plain(x)
    if value.dtype.kind != "f":
        raise ValueError(
            f"dropout: x must be a floating-point tensor since it is scaled, got {value.dtype}; cast it first"
        )
    rate = float(_plain(rate))
    if not 0 <= rate < 1:
        raise ValueError(f"dropout: rate must be in the range [0, 1), got {rate}")
    if rate == 0:
        return x if isinstance(x, Tensor) else cast(x, value.dtype.name)
    shape = value.shape if noise_shape is None else tuple(int(n) for n in _plain(noise_shape).ravel())
    return multiply(x, _dropout_scale(shape, rate, value.dtype, seed))


@runs_each_call  # a traced function draws a new mask at every call
def _dropout_scale(shape: tuple, rate: float, dtype: Any, seed: Any) -> Tensor:
    """The kept entries' scale, 1 / (1 - rate), and zeros: the gradient is the same mask, scaled."""
    keep = random.uniform(shape, dtype=np.dtype(dtype).name, seed=seed).numpy() >= rate
    return Tensor((keep / (1 - rate)).astype(dtype))
