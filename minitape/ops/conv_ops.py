"""2-D convolution and max pooling on NHWC tensors, vectorised with numpy.

Windows come from `sliding_window_view` (a view, no copy); one `tensordot` over them
is the im2col matrix product. Scattering back (the input gradient) loops over the
kernel offsets only (kh * kw steps, e.g. 9), never over pixels or batch items.

The gradient ops are primitives too, and their gradients are again these ops:
    Conv2D(x, w)                  -> dx = Conv2DBackpropInput(dy, w), dw = Conv2DBackpropFilter(x, dy)
    Conv2DBackpropInput(dy, w)    -> d dy = Conv2D(g, w),             dw = Conv2DBackpropFilter(g, dy)
    Conv2DBackpropFilter(x, dy)   -> dx = Conv2DBackpropInput(dy, g), d dy = Conv2D(x, g)
    MaxPool(x) -> MaxPoolGrad(x, dy) -> MaxPoolGradGrad(x, g) -> MaxPoolGrad(x, gg)
so derivatives of every order work.
"""

from __future__ import annotations

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from minitape.errors import InvalidArgumentError
from minitape.registry import defop
from minitape.tensor import TensorLike


# ---- geometry ------------------------------------------------------------------------------------
def _out_and_pads(size: int, k: int, s: int, padding: str) -> tuple[int, int, int]:
    """Output length and (before, after) padding along one axis, with TensorFlow's SAME/VALID rules."""
    if padding == "VALID":
        return max((size - k) // s + 1, 0), 0, 0
    out = -(-size // s)
    total = max((out - 1) * s + k - size, 0)
    return out, total // 2, total - total // 2  # the odd pixel goes after, as in TensorFlow


def _geometry(in_hw, k_hw, strides, padding):
    (oh, pt, pb), (ow, pl, pr) = (_out_and_pads(n, k, s, padding) for n, k, s in zip(in_hw, k_hw, strides))
    return (oh, ow), ((0, 0), (pt, pb), (pl, pr), (0, 0))


def _pad(x: np.ndarray, pads, value=0) -> np.ndarray:
    return np.pad(x, pads, constant_values=value) if any(p for pair in pads for p in pair) else x


def _windows(x: np.ndarray, k_hw, strides, pads, value=0) -> np.ndarray:
    """(N, Ho, Wo, C, kh, kw) view of every window of the padded input."""
    win = sliding_window_view(_pad(x, pads, value), k_hw, axis=(1, 2))
    return win[:, :: strides[0], :: strides[1]]


def _scatter_windows(cols: np.ndarray, in_shape, k_hw, strides, pads) -> np.ndarray:
    """The adjoint of `_windows`: add each window's values (N, Ho, Wo, kh, kw, C) back at its place."""
    n, h, w, c = in_shape
    (pt, pb), (pl, pr) = pads[1], pads[2]
    out = np.zeros((n, h + pt + pb, w + pl + pr, c), cols.dtype)
    _, oh, ow = cols.shape[:3]
    sh, sw = strides
    for i in range(k_hw[0]):  # kernel offsets only: a handful of strided adds
        for j in range(k_hw[1]):
            out[:, i : i + sh * oh : sh, j : j + sw * ow : sw, :] += cols[:, :, :, i, j, :]
    return out[:, pt : pt + h, pl : pl + w, :]


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
    (oh, ow), pads = _geometry(x.shape[1:3], w.shape[:2], strides, padding)
    if oh <= 0 or ow <= 0:
        raise InvalidArgumentError(
            f"Conv2D: a {w.shape[0]}x{w.shape[1]} filter does not fit a {x.shape[1]}x{x.shape[2]} input with "
            "padding VALID; use padding SAME or a smaller kernel"
        )
    win = _windows(x, w.shape[:2], strides, pads)
    return np.tensordot(win, w, axes=([4, 5, 3], [0, 1, 2]))


def _conv2d_backprop_input(dy, w, input_shape, strides, padding):
    _, pads = _geometry(input_shape[1:3], w.shape[:2], strides, padding)
    cols = np.tensordot(dy, w, axes=([3], [3]))  # (N, Ho, Wo, kh, kw, C)
    return _scatter_windows(cols, input_shape, w.shape[:2], strides, pads)


def _conv2d_backprop_filter(x, dy, filter_shape, strides, padding):
    _, pads = _geometry(x.shape[1:3], filter_shape[:2], strides, padding)
    win = _windows(x, filter_shape[:2], strides, pads)  # (N, Ho, Wo, C, kh, kw)
    return np.tensordot(win, dy, axes=([0, 1, 2], [0, 1, 2])).transpose(1, 2, 0, 3)  # (kh, kw, C, F)


def _attrs(op):
    return {"strides": op.attrs["strides"], "padding": op.attrs["padding"]}


def _conv2d_rule(op, g):
    x, w = op.inputs
    return (
        conv2d_backprop_input_op(g, w, input_shape=op.input_shapes[0], **_attrs(op)) if op.needs[0] else None,
        conv2d_backprop_filter_op(x, g, filter_shape=op.input_shapes[1], **_attrs(op)) if op.needs[1] else None,
    )


def _backprop_input_rule(op, g):
    dy, w = op.inputs
    return (
        conv2d_op(g, w, **_attrs(op)) if op.needs[0] else None,
        conv2d_backprop_filter_op(g, dy, filter_shape=op.input_shapes[1], **_attrs(op)) if op.needs[1] else None,
    )


def _backprop_filter_rule(op, g):
    x, dy = op.inputs
    return (
        conv2d_backprop_input_op(dy, g, input_shape=op.input_shapes[0], **_attrs(op)) if op.needs[0] else None,
        conv2d_op(x, g, **_attrs(op)) if op.needs[1] else None,
    )


# fmt: off
conv2d_op                 = defop("Conv2D",               _conv2d,                 _conv2d_rule,          keep="inputs", same_dtype=(0, 1))
conv2d_backprop_input_op  = defop("Conv2DBackpropInput",  _conv2d_backprop_input,  _backprop_input_rule,  keep="inputs", same_dtype=(0, 1))
conv2d_backprop_filter_op = defop("Conv2DBackpropFilter", _conv2d_backprop_filter, _backprop_filter_rule, keep="inputs", same_dtype=(0, 1))
# fmt: on


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


def _tiles(x, ksize, out_hw):
    """Non-overlapping windows (stride == pool size, no padding) as a cheap reshape: (N, Ho, kh, Wo, kw, C)."""
    n, _, _, c = x.shape
    (oh, ow), (kh, kw) = out_hw, ksize
    return x[:, : oh * kh, : ow * kw].reshape(n, oh, kh, ow, kw, c)


def _tiled(ksize, strides, pads) -> bool:
    return tuple(ksize) == tuple(strides) and not any(p for pair in pads for p in pair)


def _max_pool(x, ksize, strides, padding):
    out_hw, pads = _pool_geometry(x.shape, ksize, strides, padding)
    if _tiled(ksize, strides, pads):
        return _tiles(x, ksize, out_hw).max(axis=(2, 4))
    return _windows(x, ksize, strides, pads, -np.inf).max(axis=(4, 5))


def _argmax_onehot(x, ksize, strides, padding):
    """Per window, a one-hot (N, Ho, Wo, C, kh*kw) of the first maximal element (TensorFlow's choice on ties)."""
    out_hw, pads = _pool_geometry(x.shape, ksize, strides, padding)
    kk = ksize[0] * ksize[1]
    if _tiled(ksize, strides, pads):
        flat = _tiles(x, ksize, out_hw).transpose(0, 1, 3, 5, 2, 4).reshape(*x.shape[:1], *out_hw, x.shape[3], kk)
    else:
        flat = _windows(x, ksize, strides, pads, -np.inf).reshape(*x.shape[:1], *out_hw, x.shape[3], kk)
    return np.argmax(flat, axis=-1)[..., None] == np.arange(kk), out_hw, pads


def _max_pool_grad(x, dy, ksize, strides, padding):
    hit, out_hw, pads = _argmax_onehot(x, ksize, strides, padding)
    cols = np.where(hit, dy[..., None], 0).astype(dy.dtype)  # (N, Ho, Wo, C, kh*kw)
    n, c = x.shape[0], x.shape[3]
    if _tiled(ksize, strides, pads):
        (oh, ow), (kh, kw) = out_hw, ksize
        tiles = cols.reshape(n, oh, ow, c, kh, kw).transpose(0, 1, 4, 2, 5, 3).reshape(n, oh * kh, ow * kw, c)
        return _pad(tiles, ((0, 0), (0, x.shape[1] - oh * kh), (0, x.shape[2] - ow * kw), (0, 0)))
    cols = cols.reshape(n, *out_hw, c, *ksize).transpose(0, 1, 2, 4, 5, 3)
    return _scatter_windows(cols, x.shape, ksize, strides, pads)


def _max_pool_grad_grad(x, g, ksize, strides, padding):
    """Pick, per window, g at the position of the maximum: the adjoint of `_max_pool_grad` in its second input."""
    hit, out_hw, pads = _argmax_onehot(x, ksize, strides, padding)
    if _tiled(ksize, strides, pads):
        (oh, ow), kk = out_hw, ksize[0] * ksize[1]
        win = _tiles(g, ksize, out_hw).transpose(0, 1, 3, 5, 2, 4).reshape(x.shape[0], oh, ow, x.shape[3], kk)
    else:
        win = _windows(g, ksize, strides, pads).reshape(hit.shape)
    return np.sum(np.where(hit, win, 0), axis=-1).astype(g.dtype)


def _pool_attrs(op):
    return {"ksize": op.attrs["ksize"], "strides": op.attrs["strides"], "padding": op.attrs["padding"]}


# fmt: off
max_pool_op            = defop("MaxPool",         _max_pool,           lambda op, g: max_pool_grad_op(op.inputs[0], g, **_pool_attrs(op)),                   keep="inputs")
max_pool_grad_op       = defop("MaxPoolGrad",     _max_pool_grad,      lambda op, g: (None, max_pool_grad_grad_op(op.inputs[0], g, **_pool_attrs(op))),     keep="inputs", same_dtype=(0, 1))
max_pool_grad_grad_op  = defop("MaxPoolGradGrad", _max_pool_grad_grad, lambda op, g: (None, max_pool_grad_op(op.inputs[0], g, **_pool_attrs(op))),          keep="inputs", same_dtype=(0, 1))
# fmt: on


# ---- the public functions, as tf.nn -------------------------------------------------------------
def _pair(value, name: str) -> tuple[int, int]:
    """An int or a sequence of 2 (or TensorFlow's 4, [1, sh, sw, 1]) as (h, w)."""
    if isinstance(value, TensorLike):
        value = value._array().tolist()
    if isinstance(value, (int, np.integer)):
        return int(value), int(value)
    value = [int(v) for v in value]
    if len(value) == 4:
        if value[0] != 1 or value[3] != 1:
            raise ValueError(f"{name}: with 4 entries (NHWC) the batch and channel entries must be 1, got {value}")
        value = value[1:3]
    if len(value) == 1:
        value = value * 2
    if len(value) != 2 or min(value) < 1:
        raise ValueError(f"{name} must be a positive int or a pair of positive ints, got {value}")
    return value[0], value[1]


def _padding(padding: str, what: str) -> str:
    if not isinstance(padding, str) or padding.upper() not in ("SAME", "VALID"):
        raise ValueError(f"{what}: padding must be 'SAME' or 'VALID' (any case), not {padding!r}")
    return padding.upper()


def conv2d(input, filters, strides=1, padding="VALID", data_format="NHWC", dilations=None, name=None):
    """2-D convolution (cross-correlation, as in TensorFlow) of NHWC `input` with (kh, kw, in, out) `filters`."""
    if data_format != "NHWC":
        raise NotImplementedError(f"conv2d: data_format {data_format!r} is not supported; minitape uses NHWC")
    if dilations not in (None, 1, [1, 1], (1, 1), [1, 1, 1, 1], (1, 1, 1, 1)):
        raise NotImplementedError("conv2d: dilations are not supported by minitape")
    return conv2d_op(input, filters, strides=_pair(strides, "strides"), padding=_padding(padding, "conv2d"))


def max_pool2d(input, ksize, strides, padding="VALID", data_format="NHWC", name=None):
    """Maximum over each ksize window of NHWC `input`, moving by `strides`."""
    if data_format != "NHWC":
        raise NotImplementedError(f"max_pool2d: data_format {data_format!r} is not supported; minitape uses NHWC")
    return max_pool_op(
        input, ksize=_pair(ksize, "ksize"), strides=_pair(strides, "strides"), padding=_padding(padding, "max_pool2d")
    )
