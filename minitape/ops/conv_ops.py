"""2-D convolution and max pooling on NHWC tensors, vectorised with numpy.

A convolution is one matrix product over im2col rows (every window of the input, laid
out as a row). The rows are one copy of a strided view of the input (each window a view,
made from strides), so the filter and the forward pass each cost a copy and a matrix
product. The input gradient of a stride-1 SAME convolution is such a convolution too (of dy
with the filter turned round), one copy and one product; with strides or VALID padding it is
one matrix product per kernel offset (kh * kw, e.g. 9), each added where that offset's
pixels came from. Max pooling takes np.maximum over the same offsets (over the rows, then
the columns, of windows that tile the image); its gradient stacks each offset's pixels (one
transposing copy for tiles) and sends each window's gradient to its first maximum.

The gradient ops are primitives too, and their gradients are again these ops:
    Conv2D(x, w)                  -> dx = Conv2DBackpropInput(dy, w), dw = Conv2DBackpropFilter(x, dy)
    Conv2DBackpropInput(dy, w)    -> d dy = Conv2D(g, w),             dw = Conv2DBackpropFilter(g, dy)
    Conv2DBackpropFilter(x, dy)   -> dx = Conv2DBackpropInput(dy, g), d dy = Conv2D(x, g)
    MaxPool(x) -> MaxPoolGrad(x, dy) -> MaxPoolGradGrad(x, g) -> MaxPoolGrad(x, gg)
so derivatives of every order work.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from minitape.engine.opdef import defop
from minitape.engine.tensor import Tensor
from minitape.ops.array_ops import expand_dims, reshape, slice_grad, squeeze, transpose
from minitape.ops.options import integer
from minitape.values.errors import InvalidArgumentError
from minitape.values.tensor_like import TensorLike


# ---- geometry ------------------------------------------------------------------------------------
def _out_and_pads(size: int, k: int, s: int, padding: str) -> tuple[int, int, int]:
    """Output length and (before, after) padding along one axis, with TensorFlow's SAME/VALID rules."""
    if padding == "VALID":
        return max((size - k) // s + 1, 0), 0, 0
    out = -(-size // s)
    total = max((out - 1) * s + k - size, 0)
    return out, total // 2, total - total // 2  # the odd pixel goes after, as in TensorFlow


def _geometry(in_hw, k_hw, strides, padding):
    """(Ho, Wo) and the NHWC padding; remembered, as a training loop asks the same few questions every step."""
    return _remembered_geometry(tuple(in_hw), tuple(k_hw), tuple(strides), padding)


@functools.lru_cache(maxsize=256)
def _remembered_geometry(in_hw, k_hw, strides, padding):
    (oh, pt, pb), (ow, pl, pr) = (_out_and_pads(n, k, s, padding) for n, k, s in zip(in_hw, k_hw, strides))
    return (oh, ow), ((0, 0), (pt, pb), (pl, pr), (0, 0))


def _pad(x: np.ndarray, pads, value=0) -> np.ndarray:
    """Pad height and width; np.pad costs more than the convolution itself on small images."""
    (pt, pb), (pl, pr) = pads[1], pads[2]
    if not (pt or pb or pl or pr):
        return x
    n, h, w, c = x.shape
    shape = (n, h + pt + pb, w + pl + pr, c)
    out = np.zeros(shape, x.dtype) if value == 0 else np.full(shape, value, x.dtype)  # zeros: half np.full's cost
    out[:, pt : pt + h, pl : pl + w] = x
    return out


def _offsets(k_hw, strides, out_hw):
    """For each kernel offset (i, j), the index of the input pixels it meets at every output position."""
    (sh, sw), (oh, ow) = strides, out_hw
    for i in range(k_hw[0]):  # kernel offsets only (kh * kw steps, e.g. 9): each step is one strided view
        for j in range(k_hw[1]):
            yield (slice(None), slice(i, i + sh * oh, sh), slice(j, j + sw * ow, sw))


def _window_view(xp: np.ndarray, k_hw, strides, out_hw) -> np.ndarray:
    """(N, Ho, Wo, kh, kw, C), a view of `xp`: [n, i, j] is the window of output pixel (i, j). Made from strides
    directly, which costs a microsecond; sliding_window_view costs more than the copy it feeds on small images."""
    xp = np.ascontiguousarray(xp)  # already so, but for an unpadded view of something larger
    (sh, sw), (s0, s1, s2, s3) = strides, xp.strides
    shape = (xp.shape[0], *out_hw, *k_hw, xp.shape[3])
    view = np.ndarray(shape, xp.dtype, xp, 0, (s0, s1 * sh, s2 * sw, s1, s2, s3))
    view.flags.writeable = False  # windows overlap: a write through one would change its neighbours
    return view


def _im2col(x: np.ndarray, k_hw, strides, out_hw, pads) -> np.ndarray:
    """(N*Ho*Wo, kh*kw*C): row r holds the window of output pixel r, in the filter's (kh, kw, C) order.

    One copy of a strided view, which moves runs of numbers that lie side by side in the input: a window's row
    (kw * C numbers) in general. With one channel and stride 1 along the width, a row of Wo output pixels is the
    longer run, so the matrix is copied as its transpose (C order) and returned as a transposed view: the same
    numbers, which BLAS reads in either order."""
    windows = _window_view(_pad(x, pads), k_hw, strides, out_hw)
    rows, columns = x.shape[0] * out_hw[0] * out_hw[1], k_hw[0] * k_hw[1] * x.shape[3]
    if x.shape[3] == 1 and strides[1] == 1:
        return np.ascontiguousarray(windows.transpose(3, 4, 5, 0, 1, 2)).reshape(columns, rows).T
    return np.ascontiguousarray(windows).reshape(rows, columns)


# An im2col matrix larger than this (bytes) is not made: the product is taken one kernel offset at a time instead,
# from pieces the size of the input. A 7x7 filter over 128 channels of 64 images of 28x28 (the generator of
# keras-io's GAN) would need 1.26 GB, filled afresh at every call (bench_conv.py measures both ways)
IM2COL_LIMIT = 1 << 26


def _im2col_too_big(x: np.ndarray, k_hw, out_hw) -> bool:
    return x.shape[0] * out_hw[0] * out_hw[1] * k_hw[0] * k_hw[1] * x.shape[3] * x.itemsize > IM2COL_LIMIT


def _offset_pieces(x: np.ndarray, k_hw, strides, out_hw, pads):
    """(offset index, (N*Ho*Wo, C) matrix): for each kernel offset, the pixels it meets, as im2col's columns of
    that offset (one copy each)."""
    xp = _pad(x, pads)
    rows = x.shape[0] * out_hw[0] * out_hw[1]
    for k, where in enumerate(_offsets(k_hw, strides, out_hw)):
        yield k, np.ascontiguousarray(xp[where]).reshape(rows, x.shape[3])


def _offset_product(x: np.ndarray, w: np.ndarray, strides, out_hw, pads) -> np.ndarray:
    """Conv2D without the im2col matrix: the sum over kernel offsets (i, j) of the pixels (i, j) meets @ w[i, j]."""
    out = None
    kw = w.shape[1]
    for k, piece in _offset_pieces(x, w.shape[:2], strides, out_hw, pads):
        term = piece @ w[k // kw, k % kw]
        out = term if out is None else np.add(out, term, out=out)
    return out.reshape(x.shape[0], *out_hw, w.shape[3])


def _offset_filter_product(x: np.ndarray, dy: np.ndarray, filter_shape, strides, out_hw, pads) -> np.ndarray:
    """Conv2DBackpropFilter without the im2col matrix: w[i, j]'s gradient is (the pixels (i, j) meets)^T @ dy."""
    rows = dy.reshape(-1, filter_shape[3])
    kw = filter_shape[1]
    dw = np.empty(filter_shape, np.result_type(x, dy))
    for k, piece in _offset_pieces(x, filter_shape[:2], strides, out_hw, pads):
        dw[k // kw, k % kw] = piece.T @ rows
    return dw


def _col2im_product(dy: np.ndarray, w: np.ndarray, in_shape, strides, out_hw, pads) -> np.ndarray:
    """The adjoint of `_im2col` applied to dy @ w^T, one kernel offset at a time: dy @ w[i, j]^T is added where
    the pixels of offset (i, j) came from, so the (N*Ho*Wo, kh*kw*C) matrix is never made."""
    n, h, w_, c = in_shape
    (pt, pb), (pl, pr) = pads[1], pads[2]
    out = np.zeros((n, h + pt + pb, w_ + pl + pr, c), dy.dtype)
    rows = dy.reshape(-1, w.shape[3])
    kw = w.shape[1]
    for k, where in enumerate(_offsets(w.shape[:2], strides, out_hw)):
        out[where] += (rows @ w[k // kw, k % kw].T).reshape(n, *out_hw, c)
    return out[:, pt : pt + h, pl : pl + w_, :]


def _turned_filter_product(dy: np.ndarray, w: np.ndarray, in_shape, pads) -> np.ndarray:
    """The input gradient of a stride-1 convolution that keeps the image's size (SAME): itself such a
    convolution, of dy with the filter turned by 180 degrees and its channel axes swapped, padded by k - 1 - pad
    on each side. One im2col and one product, in place of a product and an addition per kernel offset."""
    (kh, kw), (pt, pb), (pl, pr) = w.shape[:2], pads[1], pads[2]
    turned = w[::-1, ::-1].transpose(0, 1, 3, 2)  # (kh, kw, out, in), a view
    dy_pads = ((0, 0), (kh - 1 - pt, kh - 1 - pb), (kw - 1 - pl, kw - 1 - pr), (0, 0))
    if _im2col_too_big(dy, (kh, kw), in_shape[1:3]):
        return _offset_product(dy, turned, (1, 1), in_shape[1:3], dy_pads)
    turned = turned.reshape(-1, w.shape[2])  # (kh*kw*out, in), a small copy
    return (_im2col(dy, (kh, kw), (1, 1), in_shape[1:3], dy_pads) @ turned).reshape(in_shape)


def _check_nhwc(shape: tuple, what: str) -> None:
    if len(shape) != 4:
        raise InvalidArgumentError(
            f"{what} needs a 4-D input (batch, height, width, channels), got shape {tuple(shape)}; "
            "add a channels axis to images with x[..., None]"
        )


# ---- convolution ---------------------------------------------------------------------------------
def _conv2d(x, w, strides, padding):
    _check_nhwc(x.shape, "Conv2D")
    if w.ndim != 4:
        raise InvalidArgumentError(f"Conv2D needs a 4-D filter (kh, kw, in_channels, out_channels), got {w.shape}")
    if x.shape[3] != w.shape[2]:
        raise InvalidArgumentError(
            f"Conv2D: input has {x.shape[3]} channels (shape {x.shape}) but the filter expects {w.shape[2]} "
            f"(filter shape {w.shape})"
        )
    out_hw, pads = _geometry(x.shape[1:3], w.shape[:2], strides, padding)
    if out_hw[0] <= 0 or out_hw[1] <= 0:
        raise InvalidArgumentError(
            f"Conv2D: a {w.shape[0]}x{w.shape[1]} filter does not fit a {x.shape[1]}x{x.shape[2]} input with "
            "padding VALID; use padding SAME or a smaller kernel"
        )
    if _im2col_too_big(x, w.shape[:2], out_hw):
        return _offset_product(x, w, strides, out_hw, pads)
    cols = _im2col(x, w.shape[:2], strides, out_hw, pads)
    return (cols @ w.reshape(-1, w.shape[3])).reshape(x.shape[0], *out_hw, w.shape[3])


def _conv2d_backprop_input(dy, w, input_shape, strides, padding):
    out_hw, pads = _geometry(input_shape[1:3], w.shape[:2], strides, padding)
    if dy.shape[3] != w.shape[3] or tuple(dy.shape[1:3]) != tuple(out_hw) or input_shape[3] != w.shape[2]:
        raise InvalidArgumentError(  # conv2d_transpose with sizes that do not fit: say which, not numpy's reshape
            f"Conv2DBackpropInput (conv2d_transpose): an input of shape {list(dy.shape)} and filters of shape "
            f"{list(w.shape)} (kh, kw, out, in) do not give output_shape {list(input_shape)}: the input needs "
            f"{w.shape[3]} channels and {list(out_hw)} pixels (what conv2d with strides {list(strides)} and "
            f"padding {padding} makes of the output), and the output {w.shape[2]} channels"
        )
    if tuple(strides) == (1, 1) and tuple(out_hw) == tuple(input_shape[1:3]):
        return _turned_filter_product(dy, w, tuple(input_shape), pads)
    # otherwise the turned filter would meet zeros: those between strided pixels, or VALID's wide border
    return _col2im_product(dy, w, input_shape, strides, out_hw, pads)


def _conv2d_backprop_filter(x, dy, filter_shape, strides, padding):
    out_hw, pads = _geometry(x.shape[1:3], filter_shape[:2], strides, padding)
    if _im2col_too_big(x, filter_shape[:2], out_hw):
        return _offset_filter_product(x, dy, filter_shape, strides, out_hw, pads)
    cols = _im2col(x, filter_shape[:2], strides, out_hw, pads)
    return (cols.T @ dy.reshape(-1, filter_shape[3])).reshape(filter_shape)


def define_convolution(name: str, kernels: tuple, attr_names: tuple, **options: Any) -> tuple:
    """A convolution's three ops, `name`, `nameBackpropInput` and `nameBackpropFilter`, from their numpy kernels.

    A convolution is linear in its input and in its filter, so the gradient of each of the three ops is made of
    the other two and itself: every order of derivative works. `attr_names` are the attributes the three share.
    """
    forward, backprop_input, backprop_filter = kernels

    def attrs(op):
        return {k: op.attrs[k] for k in attr_names}

    def forward_rule(op, g):
        x, w = op.inputs
        return (
            input_op(g, w, input_shape=op.input_shapes[0], **attrs(op)) if op.needs[0] else None,
            filter_op(x, g, filter_shape=op.input_shapes[1], **attrs(op)) if op.needs[1] else None,
        )

    def input_rule(op, g):
        dy, w = op.inputs
        return (
            forward_op(g, w, **attrs(op)) if op.needs[0] else None,
            filter_op(g, dy, filter_shape=op.input_shapes[1], **attrs(op)) if op.needs[1] else None,
        )

    def filter_rule(op, g):
        x, dy = op.inputs
        return (
            input_op(dy, g, input_shape=op.input_shapes[0], **attrs(op)) if op.needs[0] else None,
            forward_op(x, g, **attrs(op)) if op.needs[1] else None,
        )

    forward_op = defop(name, forward, forward_rule, **options)
    input_op = defop(f"{name}BackpropInput", backprop_input, input_rule, **options)
    filter_op = defop(f"{name}BackpropFilter", backprop_filter, filter_rule, **options)
    return forward_op, input_op, filter_op


SAME = dict(keep="inputs", same_dtype=(0, 1))
conv2d_op, conv2d_backprop_input_op, conv2d_backprop_filter_op = define_convolution(
    "Conv2D", (_conv2d, _conv2d_backprop_input, _conv2d_backprop_filter), ("strides", "padding"), **SAME
)


# ---- max pooling ---------------------------------------------------------------------------------
def _pool_geometry(shape, ksize, strides, padding, what="MaxPool"):
    _check_nhwc(shape, what)
    (oh, ow), pads = _geometry(shape[1:3], ksize, strides, padding)
    if oh <= 0 or ow <= 0:
        raise InvalidArgumentError(
            f"{what}: a {ksize[0]}x{ksize[1]} pool does not fit a {shape[1]}x{shape[2]} input with padding VALID; "
            "use padding SAME or a smaller pool_size"
        )
    return (oh, ow), pads


def _max_pool(x, ksize, strides, padding):
    out_hw, pads = _pool_geometry(x.shape, ksize, strides, padding)
    if _tiled(ksize, strides, pads):
        return _tile_maxima(x, ksize, out_hw)
    xp = _pad(x, pads, -np.inf)
    return _maximum_of([xp[where] for where in _offsets(ksize, strides, out_hw)])


def _maximum_of(arrays: list) -> np.ndarray:
    """Their elementwise maximum, a new array (NaN wherever one of them has NaN)."""
    out = np.maximum(arrays[0], arrays[1]) if len(arrays) > 1 else arrays[0].copy()
    for array in arrays[2:]:
        np.maximum(out, array, out=out)
    return out


def _tile_maxima(x: np.ndarray, ksize, out_hw) -> np.ndarray:
    """The maximum of each tile: over its rows first, each row of tiles a run of Wo * kw * C numbers side by side
    in memory, then over its columns; faster than a view per kernel offset, whose runs are C numbers long."""
    (oh, ow), (kh, kw) = out_hw, ksize
    rows = x[:, : oh * kh, : ow * kw].reshape(x.shape[0], oh, kh, ow * kw * x.shape[3])
    highest = _maximum_of([rows[:, :, i] for i in range(kh)]).reshape(x.shape[0], oh, ow, kw, x.shape[3])
    return _maximum_of([highest[:, :, :, j] for j in range(kw)])


def _tiled(ksize, strides, pads) -> bool:
    """Windows that tile the image (stride == pool size, no padding): reshapes replace the offset loops."""
    return tuple(ksize) == tuple(strides) and not any(p for pair in pads for p in pair)


def _tiles(x: np.ndarray, ksize, out_hw) -> np.ndarray:
    """(N, Ho, kh, Wo, kw, C): a view of the pixels tiled windows cover (rows and columns past them left out)."""
    (oh, ow), (kh, kw) = out_hw, ksize
    return x[:, : oh * kh, : ow * kw].reshape(x.shape[0], oh, kh, ow, kw, x.shape[3])


def _stack_windows(x, ksize, strides, out_hw, pads, fill=-np.inf):
    """(kh*kw, N, Ho, Wo, C), contiguous: entry k holds every window's element at kernel offset k (`fill` where
    a window reaches into the padding)."""
    if _tiled(ksize, strides, pads):
        tiles = _tiles(x, ksize, out_hw).transpose(2, 4, 0, 1, 3, 5)
        return np.ascontiguousarray(tiles).reshape(ksize[0] * ksize[1], x.shape[0], *out_hw, x.shape[3])
    xp = _pad(x, pads, fill)
    return np.stack([xp[where] for where in _offsets(ksize, strides, out_hw)])


def _first_maxima(x, ksize, strides, padding):
    """Per kernel offset k, where offset k holds its window's first maximum (TensorFlow's choice on ties): one
    boolean (kh*kw, N, Ho, Wo, C) array, each window True at one offset at most (at none if its maximum is NaN)."""
    out_hw, pads = _pool_geometry(x.shape, ksize, strides, padding)
    stacked = _stack_windows(x, ksize, strides, out_hw, pads)
    hits = stacked == np.maximum.reduce(stacked, axis=0)  # the ufunc's own reduce: no np.max wrapper
    free = ~hits[0]  # windows whose maximum has not been met yet
    for k in range(1, len(hits)):  # an equal value at a later offset is not the first maximum
        hits[k] &= free
        free ^= hits[k]  # hits[k] lies within free: this takes it out, with no temporary
    return hits, out_hw, pads


def _at(hits: np.ndarray, values: np.ndarray) -> np.ndarray:
    """`values` (broadcast to `hits`' shape) where `hits`, else 0. A product with the mask is several times faster
    than np.where; it would turn an infinite value into NaN where the mask is 0, so values that are not all
    finite take np.where. The mask is made 1s and 0s of the values' dtype first: numpy multiplies two arrays of
    one dtype faster than it casts booleans on the way."""
    if np.isfinite(values).all():
        mask = hits.astype(values.dtype)
        return np.multiply(mask, values, out=mask)
    return np.where(hits, values, values.dtype.type(0))


def _max_pool_grad(x, dy, ksize, strides, padding):
    hits, out_hw, pads = _first_maxima(x, ksize, strides, padding)
    n, h, w, c = x.shape
    spread = _at(hits, dy)  # (kh*kw, N, Ho, Wo, C): dy at each window's maximum
    if _tiled(ksize, strides, pads):
        covered = (out_hw[0] * ksize[0], out_hw[1] * ksize[1]) == (h, w)
        out = (np.empty if covered else np.zeros)(x.shape, dy.dtype)  # rows/columns no window saw stay 0
        _tiles(out, ksize, out_hw)[...] = spread.reshape(*ksize, n, *out_hw, c).transpose(2, 3, 0, 4, 1, 5)
        return out
    (pt, pb), (pl, pr) = pads[1], pads[2]
    out = np.zeros((n, h + pt + pb, w + pl + pr, c), dy.dtype)
    for k, where in enumerate(_offsets(ksize, strides, out_hw)):
        out[where] += spread[k]
    return out[:, pt : pt + h, pl : pl + w]


def _max_pool_grad_grad(x, g, ksize, strides, padding):
    """Pick, per window, g at the position of the maximum: the adjoint of `_max_pool_grad` in its second input."""
    hits, out_hw, pads = _first_maxima(x, ksize, strides, padding)
    picked = _stack_windows(g, ksize, strides, out_hw, pads, fill=0)
    return _at(hits, picked).sum(axis=0, dtype=g.dtype)


def _pool_attrs(op):
    return {"ksize": op.attrs["ksize"], "strides": op.attrs["strides"], "padding": op.attrs["padding"]}


# fmt: off
max_pool_op           = defop("MaxPool",         _max_pool,
                              lambda op, g: max_pool_grad_op(op.x, g, **_pool_attrs(op)), keep="inputs")
max_pool_grad_op      = defop("MaxPoolGrad",     _max_pool_grad,
                              lambda op, g: (None, max_pool_grad_grad_op(op.x, g, **_pool_attrs(op))), **SAME)
max_pool_grad_grad_op = defop("MaxPoolGradGrad", _max_pool_grad_grad,
                              lambda op, g: (None, max_pool_grad_op(op.x, g, **_pool_attrs(op))), **SAME)
# fmt: on


# ---- the public functions, as tf.nn -------------------------------------------------------------
def _pair(value, name: str) -> tuple[int, int]:
    """An int or a sequence of 2 (or TensorFlow's 4, [1, sh, sw, 1]) as (h, w)."""
    return _window(value, 2, name)


def _window(value, n: int, name: str) -> tuple[int, ...]:
    """ksize or strides for `n` spatial axes: an int, a sequence of 1 or n, or TensorFlow's n + 2 (batch and
    channel entries 1) as a tuple of n positive ints."""
    if isinstance(value, TensorLike):
        value = value._array().tolist()
    value = [integer(v, name, "each entry") for v in (value if isinstance(value, (list, tuple)) else [value])]
    if len(value) == n + 2:
        if value[0] != 1 or value[-1] != 1:
            raise ValueError(f"{name}: with {n + 2} entries the batch and channel entries must be 1, got {value}")
        value = value[1:-1]
    if len(value) == 1:
        value = value * n
    if len(value) != n or min(value) < 1:
        raise ValueError(f"{name} must be a positive int or {n} positive ints, got {value}")
    return tuple(value)


def _padding(padding: str, what: str) -> str:
    """TensorFlow's tf.nn ops take "SAME" or "VALID" in capitals only (Keras layers take "same", "valid")."""
    if padding not in ("SAME", "VALID"):
        hint = (
            f"; write {padding.upper()!r}" if isinstance(padding, str) and padding.upper() in ("SAME", "VALID") else ""
        )
        raise InvalidArgumentError(
            f'{what}: padding must be "SAME" or "VALID" (in capitals, as TensorFlow\'s tf.nn ops take it), '
            f"not {padding!r}{hint}"
        )
    return padding


def conv2d(input, filters, strides=1, padding="VALID", data_format="NHWC", dilations=None, name=None):
    """2-D convolution (cross-correlation, as in TensorFlow) of NHWC `input` with (kh, kw, in, out) `filters`.

    `dilations` (d_h, d_w) spread the filter's taps d apart (atrous convolution): the filter is scattered into
    a larger one with zeros between its taps, and convolved as usual, so the filter's gradient is a strided
    slice of that larger filter's and every derivative order works.
    """
    if data_format != "NHWC":
        raise NotImplementedError(f"conv2d: data_format {data_format!r} is not supported; minitape uses NHWC")
    if dilations is not None:
        filters = _dilate(filters, _pair(dilations, "conv2d: dilations"))
    return conv2d_op(input, filters, strides=_pair(strides, "strides"), padding=_padding(padding, "conv2d"))


def conv1d(input, filters, stride, padding, data_format="NWC", dilations=None, name=None):
    """1-D convolution of NWC `input` (batch, width, channels) with (k, in, out) `filters`: conv2d on an image of
    height 1 (a size-1 axis inserted in both), so its gradients of every order are conv2d's."""
    if data_format not in ("NWC", None):
        raise NotImplementedError(f"conv1d: data_format {data_format!r} is not supported; minitape uses NWC")
    from minitape.values.convert import convert_to_tensor

    x, w = convert_to_tensor(input), convert_to_tensor(filters)
    if len(x.shape) != 3 or len(w.shape) != 3:
        raise InvalidArgumentError(
            f"conv1d needs a 3-D input (batch, width, channels) and 3-D filters (width, in_channels, out_channels), "
            f"got input {x.shape.as_list()} and filters {w.shape.as_list()}; add a channels axis with x[..., None]"
        )
    (s,), (d,) = _window(stride, 1, "conv1d: stride"), _window(1 if dilations is None else dilations, 1, "dilations")
    image = conv2d(expand_dims(x, 1), expand_dims(w, 0), (1, s), _padding(padding, "conv1d"), dilations=(1, d))
    return squeeze(image, axis=[1])


def _dilate(filters, dilations):
    """The filter with d - 1 zeros between neighbouring taps along height and width: ((kh - 1) d_h + 1, ...)."""
    if dilations == (1, 1):
        return filters
    shape = tuple(np.shape(filters._array() if isinstance(filters, TensorLike) else filters))
    if len(shape) != 4:
        raise InvalidArgumentError(f"Conv2D needs a 4-D filter (kh, kw, in_channels, out_channels), got {shape}")
    (dh, dw), (kh, kw) = dilations, shape[:2]
    spread = ((kh - 1) * dh + 1, (kw - 1) * dw + 1, *shape[2:])
    return slice_grad(filters, key=(slice(None, None, dh), slice(None, None, dw)), shape=spread)


def conv2d_transpose(
    input, filters, output_shape, strides, padding="SAME", data_format="NHWC", dilations=None, name=None
):
    """The transpose of conv2d (what its gradient with respect to the input computes): NHWC `input` becomes
    `output_shape`, with (kh, kw, out, in) `filters`. Upsamples by `strides`; differentiable in both."""
    if data_format != "NHWC" or dilations not in (None, 1, [1, 1], (1, 1), [1, 1, 1, 1], (1, 1, 1, 1)):
        raise NotImplementedError("conv2d_transpose: only NHWC without dilations is supported by minitape")
    shape = tuple(int(n) for n in (output_shape._array() if isinstance(output_shape, TensorLike) else output_shape))
    return conv2d_backprop_input_op(
        input,
        filters,
        input_shape=shape,
        strides=_pair(strides, "strides"),
        padding=_padding(padding, "conv2d_transpose"),
    )


def max_pool2d(input, ksize, strides, padding="VALID", data_format="NHWC", name=None) -> Tensor:
    """Maximum over each ksize window of NHWC `input`, moving by `strides`."""
    return _pool("max_pool2d", input, ksize, strides, padding, data_format, ranks=(4,))


def avg_pool2d(input, ksize, strides, padding="VALID", data_format="NHWC", name=None) -> Tensor:
    """Mean over each ksize window of NHWC `input`, moving by `strides`; with SAME, a border window is the mean
    of the pixels it covers (the padding is not counted), as in TensorFlow."""
    return _pool("avg_pool2d", input, ksize, strides, padding, data_format, ranks=(4,))


def max_pool1d(input, ksize, strides, padding="VALID", data_format="NWC", name=None) -> Tensor:
    """Maximum over each ksize window of NWC `input` (batch, width, channels)."""
    return _pool("max_pool1d", input, ksize, strides, padding, data_format, ranks=(3,))


def avg_pool1d(input, ksize, strides, padding="VALID", data_format="NWC", name=None) -> Tensor:
    """Mean over each ksize window of NWC `input` (batch, width, channels)."""
    return _pool("avg_pool1d", input, ksize, strides, padding, data_format, ranks=(3,))


def max_pool(input, ksize, strides, padding, data_format=None, name=None) -> Tensor:
    """`tf.nn.max_pool`: max_pool1d for a 3-D (NWC) input, max_pool2d for a 4-D (NHWC) one."""
    return _pool("max_pool", input, ksize, strides, padding, data_format, ranks=(3, 4))


def avg_pool(input, ksize, strides, padding, data_format=None, name=None) -> Tensor:
    """`tf.nn.avg_pool`: avg_pool1d for a 3-D (NWC) input, avg_pool2d for a 4-D (NHWC) one."""
    return _pool("avg_pool", input, ksize, strides, padding, data_format, ranks=(3, 4))


def _pool(what, input, ksize, strides, padding, data_format, ranks) -> Tensor:
    """Check the arguments, then pool; a 1-D (NWC) input is pooled as an image of height 1."""
    from minitape.values.convert import convert_to_tensor

    x = convert_to_tensor(input)
    rank = len(x.shape)
    if rank not in ranks:
        wanted = " or ".join(
            {3: "3-D (batch, width, channels)", 4: "4-D (batch, height, width, channels)"}[r] for r in ranks
        )
        raise InvalidArgumentError(
            f"{what} needs a {wanted} input, got shape {x.shape.as_list()}; add a channels axis with x[..., None]"
        )
    if data_format not in (None, "NWC", "NHWC", "N...C"):
        raise NotImplementedError(f"{what}: data_format {data_format!r} is not supported; minitape is channels-last")
    n = rank - 2
    ksize, strides = _window(ksize, n, f"{what}: ksize"), _window(strides, n, f"{what}: strides")
    padding = _padding(padding, what)
    if n == 1:
        shape = x.shape.as_list()
        image = reshape(x, [shape[0], 1, shape[1], shape[2]])
        pooled = _pool2d(what, image, (1, *ksize), (1, *strides), padding)
        return reshape(pooled, [shape[0], pooled.shape[2], shape[2]])
    return _pool2d(what, x, ksize, strides, padding)


def _pool2d(what, x, ksize, strides, padding) -> Tensor:
    if what.startswith("max"):
        return max_pool_op(x, ksize=ksize, strides=strides, padding=padding)
    return _avg_pool2d(what, x, ksize, strides, padding)


def _avg_pool2d(what, x, ksize, strides, padding) -> Tensor:
    """The mean of each window: each channel, as its own one-channel image, convolved with a filter of ones and
    divided by the number of real pixels per window. Built from Conv2D, so every derivative order works."""
    if not x.dtype.is_floating:
        raise TypeError(
            f"{what}: input must be floating-point, not {x.dtype.name}; cast it first, e.g. mt.cast(x, mt.float32)"
        )
    n, h, w, c = x.shape.as_list()
    (oh, ow), _ = _pool_geometry((n, h, w, c), ksize, strides, padding, what)
    dtype = x.dtype.as_numpy_dtype
    ones = np.ones((*ksize, 1, 1), dtype)
    counts = _conv2d(np.ones((1, h, w, 1), dtype), ones, strides, padding)  # real pixels under each window
    planes = reshape(transpose(x, perm=(0, 3, 1, 2)), [n * c, h, w, 1])
    means = conv2d_op(planes, Tensor(ones), strides=strides, padding=padding) * Tensor(1 / counts)
    return transpose(reshape(means, [n, c, oh, ow]), perm=(0, 2, 3, 1))
