"""Shape functions tutorials call: slice, split, reverse, repeat, meshgrid, ensure_shape. Each is built from
differentiable ops (slicing, gather, reshape, broadcast), so gradients flow through all of them."""

from __future__ import annotations

from typing import Any

import numpy as np

from minitape.engine.tensor import Tensor
from minitape.ops.api import broadcast_to, gather, reshape
from minitape.ops.api import strided_slice as _index  # x[key]: the op both build on
from minitape.ops.array_ops import strided_slice_op
from minitape.ops.options import BAD_INDICES, integer, only_default
from minitape.values.convert import as_array as _plain
from minitape.values.errors import InvalidArgumentError


def _axis(op_name: str, axis: Any, rank: int) -> int:
    axis = integer(axis, op_name, "axis")
    if not -rank <= axis < rank:
        raise InvalidArgumentError(f"{op_name}: axis {axis} is out of range for a tensor of rank {rank}")
    return axis % rank


def slice_(input_: Any, begin: Any, size: Any, name: str | None = None) -> Tensor:
    """`tf.slice`: the block that starts at `begin` (one index per axis) and spans `size` (-1: to the end)."""
    shape = np.shape(_plain(input_))
    begin = [int(b) for b in np.ravel(_plain(begin))]
    size = [int(n) for n in np.ravel(_plain(size))]
    if len(begin) != len(shape) or len(size) != len(shape):
        raise InvalidArgumentError(
            f"slice: begin {begin} and size {size} must give one entry per axis of the input of shape {list(shape)}"
        )
    ends = [n if s == -1 else b + s for b, s, n in zip(begin, size, shape)]
    for axis, (b, s, e, n) in enumerate(zip(begin, size, ends, shape)):
        if not (0 <= b <= n and s >= -1 and e <= n):
            raise InvalidArgumentError(
                f"slice: on axis {axis} (size {n}) begin {b} and size {s} reach past the end of the input of "
                f"shape {list(shape)}; begin + size must be at most {n}, or size -1 for the rest"
            )
    return _index(input_, tuple(slice(b, e) for b, e in zip(begin, ends)))


def strided_slice(
    input_: Any,
    begin: Any,
    end: Any,
    strides: Any = None,
    begin_mask: int = 0,
    end_mask: int = 0,
    ellipsis_mask: int = 0,
    new_axis_mask: int = 0,
    shrink_axis_mask: int = 0,
    var: Any = None,
    name: str | None = None,
) -> Tensor:
    """`tf.strided_slice`: x[begin[0]:end[0]:strides[0], ...] spelled as arrays and bit masks, as in TensorFlow.

    Bit i of a mask speaks for entry i: begin_mask/end_mask leave that begin/end out (`:3`, `1:`), ellipsis_mask
    makes it `...`, new_axis_mask `mt.newaxis`, shrink_axis_mask the single index begin[i]. It builds the index
    `x[...]` would get and slices with the same op, so the gradient is the same.
    """
    spec = [_index_list(what, v) for what, v in (("begin", begin), ("end", end))]
    spec.append([1] * len(spec[0]) if strides is None else _index_list("strides", strides))
    begin, end, strides = spec
    if not len(begin) == len(end) == len(strides):
        raise InvalidArgumentError(
            f"strided_slice: begin {begin}, end {end} and strides {strides} must have one entry each per index; "
            f"got {len(begin)}, {len(end)} and {len(strides)}"
        )
    if bin(int(ellipsis_mask) & ((1 << len(begin)) - 1)).count("1") > 1:
        raise InvalidArgumentError(f"strided_slice: ellipsis_mask {ellipsis_mask} sets more than one ellipsis")
    key = []
    for i, (b, e, s) in enumerate(zip(begin, end, strides)):
        bit = 1 << i
        if ellipsis_mask & bit:
            key.append(Ellipsis)
        elif new_axis_mask & bit:
            key.append(None)
        elif s == 0:
            raise InvalidArgumentError(f"strided_slice: strides[{i}] is 0; a stride must be non-zero")
        elif shrink_axis_mask & bit:
            if s < 0:
                raise InvalidArgumentError(
                    f"strided_slice: entry {i} shrinks an axis (shrink_axis_mask) but its stride is {s}; "
                    "a shrunk axis takes the single index begin[i] and needs a positive stride"
                )
            key.append(b)
        else:
            key.append(slice(None if begin_mask & bit else b, None if end_mask & bit else e, s))
    rank = np.ndim(_plain(input_))
    indexed = sum(k is not None and k is not Ellipsis for k in key)
    if indexed > rank:
        raise InvalidArgumentError(
            f"strided_slice: {indexed} entries index axes, but the input of shape {list(np.shape(_plain(input_)))} "
            f"has only {rank}"
        )
    return _index(input_, tuple(key))


def _index_list(what: str, value: Any) -> list[int]:
    """begin, end or strides as a list of Python ints; refused unless a 1-D list of integers."""
    array = np.asarray(_plain(value))
    if array.ndim != 1 or (array.size and array.dtype.kind not in "iu"):
        raise InvalidArgumentError(
            f"strided_slice: {what} must be a 1-D list of integers, one per index, not {value!r}"
        )
    return [int(v) for v in array]


def split(value: Any, num_or_size_splits: Any, axis: Any = 0, num: Any = None, name: str | None = None) -> list:
    """Cut `value` along `axis` into equal parts (an int) or parts of the given sizes (a list; one may be -1)."""
    shape = np.shape(_plain(value))
    axis = _axis("split", axis, len(shape))
    n = shape[axis]
    sizes = np.asarray(_plain(num_or_size_splits)).ravel().tolist()
    if np.ndim(_plain(num_or_size_splits)) == 0:
        parts = integer(sizes[0], "split", "num_or_size_splits")
        if parts <= 0 or n % parts:
            raise InvalidArgumentError(
                f"split: {parts} equal parts do not divide axis {axis} of size {n} (shape {list(shape)}); "
                "give the sizes as a list instead"
            )
        sizes = [n // parts] * parts
    else:
        sizes = [int(s) for s in sizes]
        if sizes.count(-1) == 1:
            sizes[sizes.index(-1)] = n - (sum(sizes) + 1)
        if sum(sizes) != n or min(sizes, default=0) < 0:
            raise InvalidArgumentError(
                f"split: sizes {sizes} must be non-negative and add up to {n}, the size of axis {axis} "
                f"(shape {list(shape)})"
            )
    ends = np.cumsum(sizes)
    lead = (slice(None),) * axis
    return [_index(value, (*lead, slice(int(e - s), int(e)))) for s, e in zip(sizes, ends)]


def reverse(tensor: Any, axis: Any, name: str | None = None) -> Tensor:
    """The entries in reverse order along each axis in `axis`."""
    rank = np.ndim(_plain(tensor))
    axes = {_axis("reverse", a, rank) for a in np.asarray(_plain(axis)).ravel()}
    return _index(tensor, tuple(slice(None, None, -1) if i in axes else slice(None) for i in range(rank)))


def repeat(input: Any, repeats: Any, axis: Any = None, name: str | None = None) -> Tensor:
    """Each entry along `axis` repeated `repeats` times (a number, or one count per entry); axis None flattens."""
    if axis is None:
        input, axis = reshape(input, [-1]), 0
    shape = np.shape(_plain(input))
    axis = _axis("repeat", axis, len(shape))
    counts = np.asarray(_plain(repeats)).ravel()
    if counts.size not in (1, shape[axis]) or (counts.size and counts.min() < 0):
        raise InvalidArgumentError(
            f"repeat: repeats must be one non-negative count, or one per entry of axis {axis} ({shape[axis]})"
        )
    indices = np.repeat(np.arange(shape[axis]), counts if counts.size > 1 else int(counts[0]))
    return gather(input, indices.astype(np.int64), axis=axis)


def meshgrid(*args: Any, indexing: str = "xy", name: str | None = None) -> list:
    """Coordinate grids from 1-D tensors, as numpy's meshgrid: 'xy' (the default) swaps the first two axes."""
    if indexing not in ("xy", "ij"):
        raise ValueError(f"meshgrid: indexing must be 'xy' or 'ij', not {indexing!r}")
    sizes = [int(np.size(_plain(a))) for a in args]
    positions = list(range(len(args)))
    if indexing == "xy" and len(args) >= 2:
        positions[0], positions[1] = 1, 0
    out_shape = [0] * len(args)
    for size, pos in zip(sizes, positions):
        out_shape[pos] = size
    grids = []
    for arg, pos in zip(args, positions):
        along = [1] * len(args)
        along[pos] = -1
        grids.append(broadcast_to(reshape(arg, along), out_shape))
    return grids


def ensure_shape(x: Any, shape: Any, name: str | None = None) -> Any:
    """`x` itself, after checking its shape against `shape` (None matches any size)."""
    actual = list(np.shape(_plain(x)))
    wanted = list(shape.as_list() if hasattr(shape, "as_list") else shape)
    if len(actual) != len(wanted) or any(w is not None and int(w) != a for w, a in zip(wanted, actual)):
        raise InvalidArgumentError(f"Shape of tensor x {actual} is not compatible with expected shape {wanted}")
    return x


def gather_nd(
    params: Any, indices: Any, batch_dims: int = 0, name: str | None = None, bad_indices_policy: str = ""
) -> Tensor:
    """Pick entries or slices of `params` by index tuples: indices[..., :] is one (i, j, ...) position each;
    the result has shape indices.shape[:-1] + params.shape[indices.shape[-1]:]. Differentiable in params."""
    only_default("gather_nd", "bad_indices_policy", bad_indices_policy, *BAD_INDICES)
    if batch_dims != 0:
        raise NotImplementedError("gather_nd with batch_dims != 0 is not supported by minitape")
    index = np.asarray(_plain(indices))
    shape = np.shape(_plain(params))
    if index.dtype.kind not in "iu" or index.ndim == 0 or index.shape[-1] > len(shape):
        raise InvalidArgumentError(
            f"gather_nd: indices must be integers whose last axis (here {list(index.shape)}) holds at most "
            f"{len(shape)} coordinates, one per axis of params of shape {list(shape)}"
        )
    bad = first_outside(index, shape)
    if bad is not None:
        raise InvalidArgumentError(
            f"gather_nd: index {bad} is out of range for params of shape {list(shape)} "
            "(negative indices do not count from the end here)"
        )
    if index.shape[-1] == 0:  # no coordinates: each index tuple picks the whole of params
        return broadcast_to(params, index.shape[:-1] + tuple(shape))
    return strided_slice_op(params, key=tuple(np.moveaxis(index, -1, 0)))  # numpy's array indexing: x[key] refuses it


def first_outside(index: np.ndarray, shape: tuple) -> list | None:
    """The first index tuple (along the last axis of `index`) that falls outside `shape`, or None."""
    depth = index.shape[-1]
    if index.size == 0:
        return None
    outside = ((index < 0) | (index >= np.asarray(shape[:depth]))).reshape(-1, depth).any(axis=1)
    return index.reshape(-1, depth)[outside][0].tolist() if outside.any() else None
