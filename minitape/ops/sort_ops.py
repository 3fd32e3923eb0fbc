"""Sorting: argsort, sort and top_k. Sorting itself is not differentiable, but picking values by the sorted
indices is: `TakeAlongAxis` and its scatter twin are each other's gradients, so every order works."""

from __future__ import annotations

from collections import namedtuple
from typing import Any

import numpy as np

from minitape.engine.opdef import defop
from minitape.engine.tensor import Tensor
from minitape.function.trace import runs_each_call
from minitape.ops.math_ops import cast
from minitape.ops.options import integer
from minitape.values.convert import as_array as _plain
from minitape.values.errors import InvalidArgumentError


def _full_index(indices: np.ndarray, axis: int) -> tuple:
    """Index arrays that address, for each entry of `indices`, its position with indices[...] along `axis`."""
    grids = list(np.indices(indices.shape, sparse=True))
    grids[axis] = indices
    return tuple(grids)


def _scatter_along(g, indices, axis, shape):
    out = np.zeros(shape, g.dtype)
    np.add.at(out, _full_index(indices, axis), g)  # repeated indices accumulate
    return out


take_along_op = defop(
    "TakeAlongAxis",
    lambda a, indices, axis: np.take_along_axis(a, indices, axis),
    lambda op, g: (scatter_along_op(g, op.y, axis=op.attrs["axis"], shape=op.input_shapes[0]), None),
    keep="inputs",
)
scatter_along_op = defop(
    "ScatterAlongAxis",
    _scatter_along,
    lambda op, g: (take_along_op(g, op.y, axis=op.attrs["axis"]), None),
    keep="inputs",
)


def _order(values: np.ndarray, axis: int, descending: bool) -> np.ndarray:
    """A stable order: ties keep their original order, in both directions (as TensorFlow's top_k)."""
    if descending:
        flipped = np.flip(values, axis)
        order = np.flip(np.argsort(flipped, axis=axis, kind="stable"), axis)
        return values.shape[axis] - 1 - order
    return np.argsort(values, axis=axis, kind="stable")


def _checked_axis(name: str, axis: int, rank: int) -> int:
    if not -rank <= axis < rank:
        raise InvalidArgumentError(f"{name}: axis {axis} is out of range for a tensor of rank {rank}")
    return axis % rank


def _direction(name: str, direction: str) -> bool:
    if direction not in ("ASCENDING", "DESCENDING"):
        raise ValueError(f"{name}: direction must be 'ASCENDING' or 'DESCENDING', not {direction!r}")
    return direction == "DESCENDING"


def argsort(values: Any, axis: int = -1, direction: str = "ASCENDING", stable: bool = False, name: Any = None):
    """The indices that sort `values` along `axis` (int32, as TensorFlow); equal values keep their order."""
    array = _plain(values)
    axis = _checked_axis("argsort", integer(axis, "argsort", "axis"), array.ndim)
    return _order_tensor(values, axis, _direction("argsort", direction), np.int32)


def _numbers(array: np.ndarray, op: str) -> np.ndarray:
    """TensorFlow sorts numbers only: a bool tensor is refused (numpy would order False before True)."""
    if array.dtype.kind == "b":
        raise InvalidArgumentError(f"{op}: a bool tensor has no order here; cast it first, e.g. mt.cast(x, mt.int32)")
    return array


def sort(values: Any, axis: int = -1, direction: str = "ASCENDING", name: Any = None) -> Tensor:
    """`values` sorted along `axis`; the gradient goes back to where each value came from."""
    array = _numbers(_plain(values), "sort")
    axis = _checked_axis("sort", integer(axis, "sort", "axis"), array.ndim)
    return take_along_op(values, _order_tensor(values, axis, _direction("sort", direction), np.int64), axis=axis)


TopKV2 = namedtuple("TopKV2", ["values", "indices"])


def top_k(input: Any, k: int = 1, sorted: bool = True, index_type: Any = None, name: Any = None) -> TopKV2:
    """The k largest entries of the last axis and their indices (int32); among equal values the lower index
    comes first. The values are differentiable."""
    array = _numbers(_plain(input), "top_k")
    k = integer(k, "top_k", "k")
    if array.ndim == 0 or not 0 <= k <= array.shape[-1]:
        raise InvalidArgumentError(f"top_k: k={k} must be in [0, {array.shape[-1] if array.ndim else 0}]")
    order = _order_tensor(input, -1, True, np.int64, k)
    values = take_along_op(input, order, axis=array.ndim - 1)
    return TopKV2(values, cast(order, "int32"))


@runs_each_call  # the order depends on the values: a traced function computes it at every call
def _order_tensor(values: Any, axis: int, descending: bool, dtype: Any, k: int | None = None) -> Tensor:
    """The indices that sort `values` along `axis` (the first k of them, if given), as a tensor of `dtype`."""
    order = _order(_plain(values), axis, descending)
    return Tensor((order if k is None else order[..., :k]).astype(dtype))
