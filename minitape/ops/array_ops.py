"""Ops that move values around without arithmetic: reshape, transpose, slicing, gather, concat, stack, pad.

Each gradient routes dy back to where each value came from; scattering ops and
their gathering twins are each other's gradients, so every order of derivative works.
"""

from __future__ import annotations

import operator

import numpy as np

from minitape.engine.opdef import defop
from minitape.engine.tensor import Tensor
from minitape.ops.options import integer
from minitape.values.errors import InvalidArgumentError
from minitape.values.tensor_like import TensorLike


# ---- reshape and transpose -----------------------------------------------------------------------
def _reshape(a, shape):
    try:
        return a.reshape(shape)
    except ValueError:
        # TensorFlow's words: with a -1 the other sizes must divide the count, without one they must make it
        known = int(np.prod([n for n in shape if n != -1]))
        wants = f"requires a multiple of {known}" if -1 in shape and known else f"has {known}"
        raise ValueError(
            f"Input to reshape is a tensor with {a.size} values (shape {a.shape}), but the requested shape "
            f"{tuple(shape)} {wants}"
        ) from None


reshape_op = defop("Reshape", _reshape, lambda op, g: reshape_op(g, shape=op.input_shapes[0]), keep="nothing")
transpose_op = defop(
    "Transpose",
    lambda a, perm: np.transpose(a, perm),
    lambda op, g: transpose_op(g, perm=tuple(np.argsort(op.attrs["perm"]))),  # undo the permutation
    keep="nothing",
)


def reshape(tensor, shape, name=None):
    """The same values in a new shape (one entry may be -1: inferred)."""
    sizes = as_shape(shape, "reshape")
    if any(n < 0 for n in sizes):  # numpy reads any negative size as -1, and several of them as an error
        _check_unknown_sizes(sizes)
        if 0 in sizes:  # numpy cannot infer a -1 beside a 0 size; TensorFlow can, for an empty tensor
            sizes = _unknown_beside_zero(sizes, tensor)
    return reshape_op(tensor, shape=sizes)


def _unknown_beside_zero(sizes, tensor):
    """TensorFlow's -1 beside a 0 size, for an empty tensor: its non-zero sizes multiplied, over the other
    non-zero sizes (an empty (0, 3) tensor reshaped to (-1, 0) is (3, 0)). A tensor with values keeps the -1:
    no shape with a 0 holds them, and the error says so with the shape as it was asked for."""
    input_shape = tuple(tensor.shape) if isinstance(tensor, TensorLike) else np.shape(_plain_data(tensor))
    if 0 not in input_shape:
        return sizes
    known = int(np.prod([n for n in sizes if n > 0]))
    values = int(np.prod([n for n in input_shape if n > 0]))
    return tuple(values // known if n == -1 else n for n in sizes)


def _check_unknown_sizes(sizes):
    """As TensorFlow: -1 (inferred) at most once, and no other negative size."""
    unknown = [i for i, n in enumerate(sizes) if n == -1]
    for i, n in enumerate(sizes):
        if n < -1:
            raise InvalidArgumentError(f"reshape: Size {i} must be non-negative, not {n} (only -1 means 'inferred')")
    if len(unknown) > 1:
        raise InvalidArgumentError(
            f"reshape: Only one input size may be -1, not both {unknown[0]} and {unknown[1]} (shape {list(sizes)})"
        )


def as_shape(shape, op="shape"):
    """A shape (a tuple, a list, an array or a tensor of integer sizes) as a tuple of Python ints."""
    if type(shape) is tuple or type(shape) is list:
        try:
            return tuple(map(operator.index, shape))  # the common case: int sizes, no array made and flattened
        except TypeError:
            pass  # a float size (refused below), nested, or holding tensors
    try:
        sizes = np.asarray(_plain(shape))
    except ValueError:  # rows of different lengths
        raise InvalidArgumentError(f"{op}: a shape is a flat list of integer sizes, not {shape!r}") from None
    if type(shape) is np.ndarray and sizes.dtype.kind == "f" and np.all(sizes == np.round(sizes)):
        sizes = sizes.astype(np.int64)  # a numpy array of whole floats converts to int, as in TensorFlow
    if sizes.size and sizes.dtype.kind not in "iu":
        raise InvalidArgumentError(
            f"{op}: a shape holds integer sizes (int32 or int64), not {sizes.dtype} values {sizes.tolist()}; "
            "make a size computed as a float an int first, e.g. int(n)"
        )
    return tuple(int(n) for n in sizes.ravel())


def transpose(a, perm=None, conjugate=False, name="transpose"):
    """Permute the axes; by default reverse them. Tensors are real here, so `conjugate` changes nothing."""
    rank = np.ndim(_plain_data(a))
    perm = (
        tuple(reversed(range(rank))) if perm is None else tuple(integer(p, "transpose", "perm") for p in _plain(perm))
    )
    if sorted(p % rank if rank else p for p in perm) != list(range(rank)):
        raise ValueError(
            f"transpose: perm {list(perm)} is not a permutation of the {rank} axes of a tensor of shape "
            f"{list(np.shape(_plain(a)))}; give each axis 0..{rank - 1} exactly once"
        )
    return transpose_op(a, perm=perm)


def _plain_data(value):
    """A tensor argument's value as numpy, converted as TensorFlow converts it (a ragged list or a None refused)."""
    if isinstance(value, TensorLike):
        return value._array()
    from minitape.values.convert import convert_to_tensor  # convert.py stacks lists of tensors with this module

    return convert_to_tensor(value)._value


def _plain(value):
    """A shape, axis or index given as a Tensor becomes a plain numpy value."""
    return value._array() if isinstance(value, TensorLike) else value


def _check_axis(op_name, axis, rank, what):
    """Refuse an axis outside [-rank, rank): numpy would wrap it or fail with a message naming no op."""
    if not -rank <= axis < rank:
        raise InvalidArgumentError(
            f"{op_name}: axis {axis} is out of range for {what} (rank {rank}); use an axis in [{-rank}, {rank})"
            if rank
            else f"{op_name}: {what} is a scalar, it has no axis {axis}"
        )


# ---- indexing: x[key] and its scatter twin -------------------------------------------------------
def _normalise_key(key):
    key = key if isinstance(key, tuple) else (key,)
    out = []
    for k in key:
        k = _plain(k)
        if isinstance(k, (bool, np.bool_)) or (isinstance(k, np.ndarray) and k.dtype == bool and k.ndim == 0):
            raise ValueError("mask cannot be scalar: x[True] would read True as the index 1; index with an int")
        if isinstance(k, (list, np.ndarray)) and np.ndim(k) > 0:
            k = np.asarray(k)
            if k.dtype == bool and len(key) == 1:  # a mask, as tf.boolean_mask
                out.extend(np.nonzero(k))
                continue
            raise TypeError(_ARRAY_KEY.format(k.tolist() if k.size < 10 else f"an array of shape {list(k.shape)}"))
        if isinstance(k, (np.generic, np.ndarray)):
            if k.dtype.kind not in "iu":
                raise TypeError(f"cannot index a tensor with a {k.dtype} value {k!r}: indices are integers")
            k = k.item()
        elif not (k is None or k is Ellipsis or isinstance(k, (int, slice))):
            raise TypeError(f"cannot index a tensor with {type(k).__name__} {k!r}")
        out.append(k)
    return tuple(out)


_ARRAY_KEY = (  # TensorFlow's words, then what to write instead
    "Only integers, slices (`:`), ellipsis (`...`), tf.newaxis (`None`) and scalar tf.int32/tf.int64 tensors "
    "are valid indices, got {}: to pick entries along an axis, write mt.gather(x, indices, axis=...); "
    "for one index per axis, mt.gather_nd"
)


def _scatter(g, key, shape):
    """Zeros of `shape` with g added at `key`; repeated indices accumulate."""
    out = np.zeros(shape, g.dtype)
    if any(isinstance(k, np.ndarray) for k in key):
        np.add.at(out, key, g)
    else:
        out[key] += g  # basic slicing never repeats an element
    return out


strided_slice_op = defop(
    "StridedSlice",
    lambda a, key: np.array(a[key]),
    lambda op, g: slice_grad(g, key=op.attrs["key"], shape=op.input_shapes[0]),
    keep="nothing",
)
slice_grad = defop("StridedSliceGrad", _scatter, lambda op, g: strided_slice_op(g, key=op.attrs["key"]), keep="nothing")


def strided_slice(tensor, key):
    """`tensor[key]`: differentiable indexing. What TensorFlow takes (ints, slices, ..., None, scalar tensors, a
    bool array) means what it means there; an integer array is refused, as TensorFlow refuses it (numpy would pick
    entries with it: mt.gather does that).
    Python's x[key] and the shape functions call this; `mt.strided_slice` is TensorFlow's begin/end/masks form,
    built on it in shape_ops.py.
    """
    if type(key) is list:
        raise TypeError(_list_key_message(key))
    return strided_slice_op(tensor, key=_normalise_key(key))


def _list_key_message(key):
    """Why x[[...]] is refused: TensorFlow reads a list key as a tuple, numpy as the entries to pick."""
    shown = ", ".join(_index_text(k) for k in key)
    head = f"cannot index a tensor with the list [{shown}]: "
    if key and all(np.asarray(_plain(k)).dtype.kind == "b" for k in key):
        return head + f"numpy reads it as a mask and TensorFlow refuses it; write mt.boolean_mask(x, [{shown}])"
    if any(np.ndim(_plain(k)) > 0 for k in key):
        return head + (
            "numpy reads it as the entries to pick and TensorFlow refuses it; write "
            f"mt.gather(x, [{shown}]) to pick along the first axis, or mt.gather_nd for one index per axis"
        )
    as_tuple = f"x[{shown}]" if key else "x[()]"
    message = head + (
        f"TensorFlow reads x[[...]] as {as_tuple} (one index per axis), numpy as the entries to pick along the "
        f"first axis, so minitape refuses it; write {as_tuple}"
    )
    if key and all(np.asarray(_plain(k)).dtype.kind in "iu" for k in key):
        return message + f" for TensorFlow's meaning, or mt.gather(x, [{shown}]) for numpy's"
    return message


def _index_text(k):
    """One entry of an index as it would be written inside x[...]."""
    if isinstance(k, slice):
        text = f"{'' if k.start is None else k.start}:{'' if k.stop is None else k.stop}"
        return text if k.step is None else f"{text}:{k.step}"
    if k is None or k is Ellipsis:
        return "mt.newaxis" if k is None else "..."
    value = _plain(k)
    return str(value.tolist() if isinstance(value, np.ndarray) else value)


# ---- gather and its scatter twin -----------------------------------------------------------------
def _gather(params, indices, axis):
    _check_indices(indices, params.shape, axis)
    return np.take(params, indices, axis=axis)


def _check_indices(indices, shape, axis):
    """Refuse a non-integer or out-of-range index: TensorFlow refuses negative ones too, numpy would count back."""
    if indices.dtype.kind not in "iu":
        raise TypeError(f"indices must be integers, not {indices.dtype}")
    n = shape[axis]
    if indices.size and (indices.min() < 0 or indices.max() >= n):
        where = np.argwhere((indices < 0) | (indices >= n))[0]
        bad = indices[tuple(where)]
        raise InvalidArgumentError(
            f"index {bad} (at indices{[int(i) for i in where]}) is not in [0, {n}) on axis {axis} "
            f"of params of shape {list(shape)}; "
            + (
                "negative indices do not count from the end here: use n - 1 for the last"
                if bad < 0
                else f"the axis has {n} entries"
            )
        )


def _gather_grad(g, indices, axis, shape):
    out = np.zeros(shape, g.dtype)
    np.add.at(out, (slice(None),) * axis + (indices,), g)
    return out


gather_op = defop(
    "GatherV2",
    _gather,
    lambda op, g: (gather_grad(g, op.inputs[1], axis=op.attrs["axis"], shape=op.input_shapes[0]), None),
    keep="inputs",
)
gather_grad = defop(
    "GatherGrad",
    _gather_grad,
    lambda op, g: (gather_op(g, op.inputs[1], axis=op.attrs["axis"]), None),
    keep="inputs",
)


def gather(params, indices, validate_indices=None, axis=None, batch_dims=0, name=None):
    """Pick slices of `params` along `axis` at `indices`.

    With `batch_dims=b` the first b axes of `params` and `indices` are a batch: example k picks from its own
    slice `params[k]` with its own `indices[k]`.
    """
    p_shape, i_shape = np.shape(_plain_data(params)), np.shape(_plain_data(indices))
    rank, b = len(p_shape), integer(batch_dims, "gather", "batch_dims")
    if not -len(i_shape) <= b <= len(i_shape):
        raise InvalidArgumentError(
            f"gather: batch_dims {b} is out of range for indices of rank {len(i_shape)}; "
            f"use a value in [{-len(i_shape)}, {len(i_shape)}]"
        )
    b += len(i_shape) if b < 0 else 0
    axis = b if axis is None else integer(axis, "gather", "axis")
    _check_axis("gather", axis, rank, f"params of shape {list(p_shape)}")
    axis %= rank
    if b == 0:
        return gather_op(params, indices, axis=axis)
    if axis < b or p_shape[:b] != i_shape[:b]:
        raise InvalidArgumentError(
            f"gather: batch_dims={b} needs params and indices that agree on their leading {b} axes (the batch) "
            f"and an axis after them; got params {list(p_shape)}, indices {list(i_shape)}, axis {axis}"
        )
    return _batched_gather(params, np.asarray(_plain(indices)), axis, b)


def _batched_gather(params, indices, axis, b):
    """gather with batch_dims=b, as one plain gather: the batch and the gathered axis are flattened into one axis
    of n * size entries, and example k's indices are shifted by k * size. The steps are ops, so they differentiate."""
    shape = np.shape(_plain_data(params))
    size = shape[axis]
    _check_indices(indices, shape, axis)
    batch, mid, after, picked = shape[:b], shape[b:axis], shape[axis + 1 :], indices.shape[b:]
    n = int(np.prod(batch))
    front = transpose(params, [*range(b), axis, *range(b, axis), *range(axis + 1, len(shape))])  # batch, axis, mid
    flat = reshape(front, (n * size, *mid, *after))
    shifted = indices.reshape(n, *picked) + (np.arange(n) * size).reshape(n, *(1,) * len(picked))
    out = gather_op(flat, shifted.astype(indices.dtype), axis=0)  # (n, *picked, *mid, *after)
    k, m = len(picked), len(mid)
    out = transpose(out, [0, *range(1 + k, 1 + k + m), *range(1, 1 + k), *range(1 + k + m, out.ndim)])
    return reshape(out, (*batch, *mid, *picked, *after))


# ---- joining and splitting -----------------------------------------------------------------------
def _along(axis, rank, piece):
    return (slice(None),) * axis + (piece,) + (slice(None),) * (rank - axis - 1)


def _concat_rule(op, g):
    axis = op.attrs["axis"]
    ends = np.cumsum([s[axis] for s in op.input_shapes])
    return [
        strided_slice_op(g, key=_along(axis, g.ndim, slice(int(e - s[axis]), int(e))))
        for s, e in zip(op.input_shapes, ends)
    ]


concat_op = defop(
    "ConcatV2", lambda *a, axis: np.concatenate(a, axis=axis), _concat_rule, keep="nothing", same_dtype="all"
)
stack_op = defop(
    "Pack",
    lambda *a, axis: np.stack(a, axis=axis),
    lambda op, g: [strided_slice_op(g, key=_along(op.attrs["axis"], g.ndim, i)) for i in range(len(op.input_shapes))],
    keep="nothing",
    same_dtype="all",
)


def concat(values, axis, name=None):
    """Join tensors along an existing axis."""
    if not values:
        raise ValueError("concat needs at least one tensor")
    rank = np.ndim(_plain_data(values[0]))
    axis = integer(axis, "concat", "axis")
    if not -rank <= axis < rank:
        raise ValueError(f"concat: axis {axis} is out of range for tensors of rank {rank}")
    return concat_op(*values, axis=axis % rank)


def stack(values, axis=0, name=None):
    """Join tensors along a new axis."""
    if not values:  # TensorFlow 2.21: an empty float32 tensor of shape (0,)
        return Tensor(np.zeros((0,), np.float32))
    rank = np.ndim(_plain_data(values[0])) + 1
    axis = int(_plain(axis))  # TensorFlow takes a float axis here (1.0), as it does nowhere else
    if not -rank <= axis < rank:
        raise ValueError(f"stack: axis {axis} is out of range for a result of rank {rank}")
    shapes = [tuple(np.shape(_plain_data(v))) for v in values]
    if len(set(shapes)) > 1:
        raise ValueError(
            f"stack needs tensors of one shape, got shapes {', '.join(str(list(s)) for s in shapes)}; "
            "reshape or pad them to one shape, or join them along an existing axis with mt.concat"
        )
    return stack_op(*values, axis=axis % rank)


def unstack(value, num=None, axis=0, name=None):
    """Split a tensor into a list along `axis`, removing that axis."""
    shape = np.shape(_plain_data(value))
    axis = integer(axis, "unstack", "axis")
    _check_axis("unstack", axis, len(shape), f"a tensor of shape {list(shape)}")
    axis = axis % len(shape)
    if num is not None and num != shape[axis]:
        raise ValueError(f"unstack: num={num} but axis {axis} of shape {list(shape)} has {shape[axis]} entries")
    return [strided_slice(value, _along(axis, len(shape), i)) for i in range(shape[axis])]


def expand_dims(input, axis, name=None):
    """Insert an axis of size 1 at `axis`, which may be -rank-1 .. rank (as in TensorFlow)."""
    shape = list(np.shape(_plain_data(input)))
    axis = integer(axis, "expand_dims", "axis")
    if not -len(shape) - 1 <= axis <= len(shape):
        raise InvalidArgumentError(
            f"expand_dims: axis {axis} is out of range for a tensor of shape {shape} (rank {len(shape)}); "
            f"use an axis in [{-len(shape) - 1}, {len(shape)}]"
        )
    shape.insert(axis if axis >= 0 else len(shape) + axis + 1, 1)
    return reshape(input, shape)


def squeeze(input, axis=None, name=None):
    """Remove axes of size 1: all of them, or those listed in `axis` (each must have size 1)."""
    shape = np.shape(_plain_data(input))
    axes = None
    if axis is not None:
        listed = [int(a) for a in np.asarray(_plain(axis)).ravel()]
        for a in listed:
            _check_axis("squeeze", a, len(shape), f"a tensor of shape {list(shape)}")
        axes = [a % len(shape) for a in listed]
    for a in axes or []:
        if shape[a] != 1:
            raise InvalidArgumentError(
                f"squeeze: cannot squeeze axis {a} of shape {list(shape)}: it has size {shape[a]}, not 1; "
                "squeeze only removes axes of size 1 (use mt.reshape to change the shape otherwise)"
            )
    return reshape(input, [n for i, n in enumerate(shape) if (n != 1 if axes is None else i not in axes)])


# ---- padding and tiling --------------------------------------------------------------------------
pad_op = defop(
    "PadV2",
    lambda a, paddings, value: np.pad(a, paddings, constant_values=value),
    lambda op, g: strided_slice_op(
        g, key=tuple(slice(lo, lo + n) for (lo, _), n in zip(op.attrs["paddings"], op.input_shapes[0]))
    ),
    keep="nothing",
)


def pad(tensor, paddings, mode="CONSTANT", constant_values=0, name=None):
    """Surround with `constant_values` (mode CONSTANT), or with the edge mirrored: REFLECT leaves the edge value
    out ([1, 2, 3] -> [2, 1, 2, 3, 2]), SYMMETRIC repeats it ([1, 1, 2, 3, 3]). paddings[i] = (before, after)."""
    mode = mode.upper() if isinstance(mode, str) else mode
    if mode not in ("CONSTANT", "REFLECT", "SYMMETRIC"):
        raise ValueError(f"pad: mode must be 'CONSTANT', 'REFLECT' or 'SYMMETRIC' (any case), not {mode!r}")
    paddings = tuple(
        (integer(lo, "pad", "paddings"), integer(hi, "pad", "paddings"))
        for lo, hi in np.asarray(_plain(paddings)).reshape(-1, 2)
    )
    shape = np.shape(_plain_data(tensor))
    if len(paddings) != len(shape) or any(lo < 0 or hi < 0 for lo, hi in paddings):
        raise InvalidArgumentError(  # numpy would reuse one (before, after) pair for every axis
            f"pad: paddings {[list(p) for p in paddings]} must hold one non-negative [before, after] pair per axis "
            f"of the input, whose shape is {list(shape)}; give {len(shape)} pairs"
        )
    if mode == "CONSTANT":
        return pad_op(tensor, paddings=paddings, value=constant_values)
    return _mirror_pad(tensor, paddings, mode, shape)


def _mirror_pad(tensor, paddings, mode, shape):
    """REFLECT or SYMMETRIC padding as one gather per padded axis (the source index of each output position),
    so the gradient is gather's: each mirrored copy adds its gradient back to the entry it copies."""
    extra = 1 if mode == "SYMMETRIC" else 0  # SYMMETRIC can mirror the whole axis, REFLECT all but its edge
    for axis, ((lo, hi), n) in enumerate(zip(paddings, shape)):
        if max(lo, hi) > n - 1 + extra:
            raise InvalidArgumentError(
                f"pad: mode {mode} pads axis {axis} (size {n}) by {[lo, hi]}, but can mirror at most {n - 1 + extra} "
                f"entries each side (input shape {list(shape)}); pad in several steps, or use mode CONSTANT"
            )
    out = tensor
    for axis, ((lo, hi), n) in enumerate(zip(paddings, shape)):
        if lo or hi:
            source = np.pad(np.arange(n), (lo, hi), mode=mode.lower())
            out = gather_op(out, source, axis=axis)
    return out


def _tile_rule(op, g):
    shape, reps = op.input_shapes[0], op.attrs["multiples"]
    split = [n for pair in zip(reps, shape) for n in pair]  # (m0, s0, m1, s1, ...)
    from minitape.ops.reduce_ops import reduce_sum

    return reduce_sum(reshape_op(g, shape=tuple(split)), axis=tuple(range(0, len(split), 2)))


tile_op = defop("Tile", lambda a, multiples: np.tile(a, multiples), _tile_rule, keep="nothing")


def tile(input, multiples, name=None):
    """Repeat the whole tensor `multiples[i]` times along axis i."""
    multiples = as_shape(multiples, "tile")
    shape = np.shape(_plain_data(input))
    if len(multiples) != len(shape):
        raise ValueError(
            f"tile: multiples {list(multiples)} must have one entry per axis of the input, whose shape is "
            f"{list(shape)}; give {len(shape)} multiples"
        )
    if any(m < 0 for m in multiples):  # numpy: "negative dimensions are not allowed"
        raise InvalidArgumentError(f"tile: multiples {list(multiples)} must be non-negative counts")
    return tile_op(input, multiples=multiples)


# ---- identity-like ops that change what the tape does --------------------------------------------
stop_gradient_op = defop("StopGradient", lambda a: a, None, keep="nothing")


def stop_gradient(input, name=None):
    """The same value, seen by tapes as a constant: no gradient flows through it."""
    return stop_gradient_op(input)
