"""Depthwise and separable 2-D convolution on NHWC tensors (MobileNet's building blocks), vectorised with numpy.

A depthwise convolution filters each input channel on its own: a (kh, kw, C, M) filter gives every channel M
outputs, channel c's m-th landing at c * M + m. Repeating each input channel M times (np.repeat along the
channels, which puts copy m of channel c at c * M + m) turns it into M = 1 on C * M channels, where output
channel k is the sum over kernel offsets of input channel k times its own tap: one np.einsum over the window
view of the padded input (conv_ops' strided view, with the dilation in its strides), no im2col copy, no loop
over channels. The filter's gradient is the same einsum with dy in the filter's place. The input's gradient at
stride 1 is again such a correlation, of dy padded by the filter's span with the filter turned round; with
strides, where that would mostly multiply zeros, each tap's dy * w[i, j] is added to the pixels it met (kh * kw
products the size of dy, as conv_ops' col2im). The M copies of a channel then add up (the adjoint of repeat).

The gradient ops are primitives, and their gradients are again these ops, as for Conv2D:
    DepthwiseConv2dNative(x, w)                -> dx = BackpropInput(dy, w),  dw = BackpropFilter(x, dy)
    DepthwiseConv2dNativeBackpropInput(dy, w)  -> d dy = DepthwiseConv2dNative(g, w), dw = BackpropFilter(g, dy)
    DepthwiseConv2dNativeBackpropFilter(x, dy) -> dx = BackpropInput(dy, g),  d dy = DepthwiseConv2dNative(x, g)
so derivatives of every order work.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from minitape.engine.tensor import Tensor
from minitape.ops.conv_ops import _out_and_pads, _pad, _padding, conv2d_op, define_convolution
from minitape.ops.options import integer
from minitape.values.errors import InvalidArgumentError
from minitape.values.tensor_like import TensorLike

OP = "DepthwiseConv2dNative"


# ---- geometry ------------------------------------------------------------------------------------
@functools.lru_cache(maxsize=256)
def _geometry(in_hw: tuple, k_hw: tuple, strides: tuple, dilations: tuple, padding: Any) -> tuple:
    """(Ho, Wo) and the NHWC padding for SAME, VALID or explicit ((top, bottom), (left, right)) padding; the
    filter spans (k - 1) * d + 1 pixels. Remembered: a training loop asks the same few questions every step."""
    spans = [(k - 1) * d + 1 for k, d in zip(k_hw, dilations)]
    if isinstance(padding, str):
        (oh, pt, pb), (ow, pl, pr) = (_out_and_pads(n, k, s, padding) for n, k, s in zip(in_hw, spans, strides))
    else:
        (pt, pb), (pl, pr) = padding
        oh, ow = ((n + a + b - k) // s + 1 for n, a, b, k, s in zip(in_hw, (pt, pl), (pb, pr), spans, strides))
    return (oh, ow), ((0, 0), (pt, pb), (pl, pr), (0, 0))


def _windows(xp: np.ndarray, k_hw, strides, dilations, out_hw, origin=(0, 0)) -> np.ndarray:
    """(N, Ho, Wo, kh, kw, C), a read-only view of the padded input: [n, i, j] is output pixel (i, j)'s window,
    its taps `dilations` apart, the first window's corner at pixel `origin`."""
    xp = np.ascontiguousarray(xp)
    (sh, sw), (dh, dw), (s0, s1, s2, s3) = strides, dilations, xp.strides
    shape = (xp.shape[0], *out_hw, *k_hw, xp.shape[3])
    start = origin[0] * s1 + origin[1] * s2
    view = np.ndarray(shape, xp.dtype, xp, start, (s0, s1 * sh, s2 * sw, s1 * dh, s2 * dw, s3))
    view.flags.writeable = False  # windows overlap: a write through one would change its neighbours
    return view


def _repeated(x: np.ndarray, multiplier: int) -> np.ndarray:
    """Each channel `multiplier` times over, copy m of channel c at c * M + m: the output channels' order."""
    return x if multiplier == 1 else np.repeat(x, multiplier, axis=3)


def _taps(w: np.ndarray) -> np.ndarray:
    """(kh, kw, C, M) -> (kh, kw, C * M): the filter of the repeated channels, one tap per channel and offset."""
    return w.reshape(*w.shape[:2], -1)


# ---- the three ops -------------------------------------------------------------------------------
def _check(x_shape: tuple, w_shape: tuple) -> None:
    if len(x_shape) != 4:
        raise InvalidArgumentError(
            f"{OP}: input must be 4-dimensional (batch, height, width, channels), got shape {list(x_shape)}; "
            "add a channels axis to images with x[..., None], a batch axis with x[None]"
        )
    if len(w_shape) != 4:
        raise InvalidArgumentError(
            f"{OP}: filter must be 4-dimensional (height, width, in_channels, channel_multiplier): {list(w_shape)}"
        )
    if 0 in w_shape:
        raise InvalidArgumentError(
            f"{OP}: filter must not have zero elements (i.e. all dimensions must be non-zero), got {list(w_shape)}"
        )
    if x_shape[3] != w_shape[2]:
        raise InvalidArgumentError(
            f"{OP}: input and filter must have the same depth: {x_shape[3]} vs {w_shape[2]} (the input "
            f"{list(x_shape)} has {x_shape[3]} channels, the filter {list(w_shape)} is made for {w_shape[2]})"
        )


def _fitted_geometry(x_shape, w_shape, strides, dilations, padding) -> tuple:
    _check(x_shape, w_shape)
    out_hw, pads = _geometry(tuple(x_shape[1:3]), tuple(w_shape[:2]), strides, dilations, padding)
    if out_hw[0] <= 0 or out_hw[1] <= 0:
        raise InvalidArgumentError(
            f"{OP}: a {w_shape[0]}x{w_shape[1]} filter with dilations {list(dilations)} does not fit a "
            f"{x_shape[1]}x{x_shape[2]} input with padding {padding}; use padding SAME or a smaller kernel"
        )
    return out_hw, pads


def _depthwise(x, w, strides, padding, dilations):
    out_hw, pads = _fitted_geometry(x.shape, w.shape, strides, dilations, padding)
    xp = _pad(_repeated(x, w.shape[3]), pads)
    return np.einsum("nhwijc,ijc->nhwc", _windows(xp, w.shape[:2], strides, dilations, out_hw), _taps(w))


def _depthwise_backprop_filter(x, dy, filter_shape, strides, padding, dilations):
    out_hw, pads = _fitted_geometry(x.shape, filter_shape, strides, dilations, padding)
    _check_dy(dy, (x.shape[0], *out_hw, filter_shape[2] * filter_shape[3]), "BackpropFilter")
    xp = _pad(_repeated(x, filter_shape[3]), pads)
    windows = _windows(xp, filter_shape[:2], strides, dilations, out_hw)
    return np.einsum("nhwijc,nhwc->ijc", windows, dy).reshape(filter_shape)


def _depthwise_backprop_input(dy, w, input_shape, strides, padding, dilations):
    """The adjoint of `_depthwise` in x: output pixel o took padded pixel o * s + i * d with tap i, so each tap
    sends dy * w[i] back to the pixels it met; the M copies of a channel then add up (the adjoint of repeat)."""
    out_hw, pads = _fitted_geometry(input_shape, w.shape, strides, dilations, padding)
    _check_dy(dy, (input_shape[0], *out_hw, w.shape[2] * w.shape[3]), "BackpropInput")
    spread = _strided_adjoint if max(strides) > 1 else _turned_correlation
    dx = spread(dy, _taps(w), input_shape, strides, dilations, out_hw, pads)
    n, h, width, c = input_shape
    return dx.reshape(n, h, width, c, w.shape[3]).sum(axis=4) if w.shape[3] > 1 else dx


def _turned_correlation(dy, taps, input_shape, strides, dilations, out_hw, pads) -> np.ndarray:
    """At stride 1, padded pixel p gets the sum over taps i of dy[p - i * d] w[i]: with (k - 1) * d zeros before
    dy, a correlation with the filter turned round (one einsum), taken only where the padded pixels are the
    input's."""
    (h, width), (kh, kw), (dh, dw) = input_shape[1:3], taps.shape[:2], dilations
    (pt, pb), (pl, pr) = pads[1], pads[2]
    top, left = (kh - 1) * dh, (kw - 1) * dw
    spread = _pad(dy, ((0, 0), (top, h + pt + pb - out_hw[0]), (left, width + pl + pr - out_hw[1]), (0, 0)))
    windows = _windows(spread, (kh, kw), (1, 1), dilations, (h, width), origin=(pt, pl))
    return np.einsum("nhwijc,ijc->nhwc", windows, taps[::-1, ::-1])


def _strided_adjoint(dy, taps, input_shape, strides, dilations, out_hw, pads) -> np.ndarray:
    """With strides, the correlation above would mostly multiply zeros (those between the strided pixels): each
    tap's dy * w[i] is added to the pixels it met instead, kh * kw products the size of dy."""
    (n, h, width, _), (sh, sw), (dh, dw) = input_shape, strides, dilations
    (pt, pb), (pl, pr) = pads[1], pads[2]
    dxp = np.zeros((n, h + pt + pb, width + pl + pr, dy.shape[3]), dy.dtype)
    product = np.empty_like(dy)
    for i in range(taps.shape[0]):  # kernel offsets only (kh * kw steps, e.g. 9)
        for j in range(taps.shape[1]):
            np.multiply(dy, taps[i, j], out=product)
            dxp[:, i * dh : i * dh + sh * out_hw[0] : sh, j * dw : j * dw + sw * out_hw[1] : sw] += product
    return dxp[:, pt : pt + h, pl : pl + width]


def _check_dy(dy: np.ndarray, want: tuple, which: str) -> None:
    if tuple(dy.shape) != want:
        raise InvalidArgumentError(
            f"{OP}{which}: out_backprop has shape {list(dy.shape)}, but the convolution's output has shape {list(want)}"
        )


depthwise_op, depthwise_backprop_input_op, depthwise_backprop_filter_op = define_convolution(
    OP,
    (_depthwise, _depthwise_backprop_input, _depthwise_backprop_filter),
    ("strides", "padding", "dilations"),
    keep="inputs",
    same_dtype=(0, 1),
    floating=True,
)


# ---- the public functions, as tf.nn -------------------------------------------------------------
def _strides(strides: Any, what: str) -> tuple[int, int]:
    """TensorFlow's [1, s, s, 1]: a list of 4, batch and channel entries 1, the two others equal."""
    if not isinstance(strides, (list, tuple)):  # TensorFlow takes no tensor or array here either
        raise TypeError(
            f"{what}: strides must be a list of 4 ints, [1, stride, stride, 1], not {strides!r} "
            f"(TensorFlow: Expected list for 'strides' argument to 'depthwise_conv2d_native' Op, not {strides!r}.)"
        )
    values = [integer(s, what, "each entry of strides") for s in strides]
    if len(values) != 4:
        raise InvalidArgumentError(
            f"{what}: Sliding window strides field must specify 4 dimensions, got {values}; write [1, s, s, 1]"
        )
    if values[0] != 1 or values[3] != 1:
        raise InvalidArgumentError(
            f"{what}: Current implementation does not yet support strides in the batch and depth dimensions, "
            f"got {values}; write [1, s, s, 1]"
        )
    if min(values) < 1:
        raise InvalidArgumentError(f"{what}: Stride must be > 0, got {values}")
    if values[1] != values[2]:
        raise InvalidArgumentError(
            f"{what}: Current implementation only supports equal length strides in the row and column "
            f"dimensions, got {values}; keras.layers.DepthwiseConv2D takes unequal ones"
        )
    return values[1], values[2]


def _dilations(dilations: Any, what: str, four: bool = False) -> tuple[int, int]:
    """[rate_height, rate_width]; the backprop functions also take TensorFlow's [1, rate_height, rate_width, 1]."""
    if dilations is None:
        return 1, 1
    if isinstance(dilations, (TensorLike, np.ndarray)):  # TensorFlow takes these here, as it does lists
        dilations = np.asarray(dilations._array() if isinstance(dilations, TensorLike) else dilations).tolist()
    if four and isinstance(dilations, (list, tuple)) and len(dilations) == 4 and dilations[0] == dilations[3] == 1:
        dilations = dilations[1:3]
    if not isinstance(dilations, (list, tuple)) or len(dilations) != 2:
        raise TypeError(f"{what}: dilations must be a list of 2 ints, [rate_height, rate_width], not {dilations!r}")
    values = tuple(integer(d, what, "each entry of dilations") for d in dilations)
    if min(values) < 1:
        raise ValueError(f"{what}: `dilation_rate` must be positive. Received: dilation_rate={list(values)}")
    return values


def _explicit_or(padding: Any, what: str) -> Any:
    """ "SAME", "VALID", or TensorFlow's explicit [[0, 0], [top, bottom], [left, right], [0, 0]] as
    ((top, bottom), (left, right))."""
    if isinstance(padding, str):
        if padding == "EXPLICIT":
            raise ValueError(
                f"{what}: 'EXPLICIT' is not a valid value for `padding`. To use explicit padding, `padding` must "
                "be a list, [[0, 0], [top, bottom], [left, right], [0, 0]]."
            )
        return _padding(padding, what)
    pairs = list(padding) if isinstance(padding, (list, tuple)) else []
    if len(pairs) != 4 or not all(isinstance(p, (list, tuple)) and len(p) == 2 for p in pairs):
        raise ValueError(
            f"{what}: When padding is a list, it must be of size 4, [[0, 0], [top, bottom], [left, right], "
            f"[0, 0]]. Received: padding={padding}"
        )
    values = [[integer(v, what, "each padding") for v in p] for p in pairs]
    if any(values[0]) or any(values[3]):
        raise InvalidArgumentError(
            f"{what}: Nonzero explicit padding in the batch or depth dimensions is not supported, got {values}"
        )
    if min(min(p) for p in values) < 0:
        raise InvalidArgumentError(f"{what}: explicit paddings must be >= 0, got {values}")
    return tuple(tuple(p) for p in values[1:3])


def _options(strides, padding, data_format, dilations, what, four=False) -> dict:
    if data_format not in (None, "NHWC"):
        if data_format == "NCHW":
            raise NotImplementedError(
                f"{what}: data_format 'NCHW' is not supported; minitape is channels-last (NHWC): transpose the "
                "input with mt.transpose(x, [0, 2, 3, 1]) first"
            )
        raise InvalidArgumentError(f"{what}: data_format must be 'NHWC' or 'NCHW', not {data_format!r}")
    strides, dilations = _strides(strides, what), _dilations(dilations, what, four)
    if max(strides) > 1 and max(dilations) > 1:
        raise ValueError(
            f"{what}: When dilation rate is greater than 1, then all values of strides must be 1. Received: "
            f"dilations {list(dilations)} and strides [1, {strides[0]}, {strides[1]}, 1] (TensorFlow warns and "
            "computes something else; keras.layers.DepthwiseConv2D takes both)"
        )
    return {"strides": strides, "padding": _explicit_or(padding, what), "dilations": dilations}


def depthwise_conv2d(input, filter, strides, padding, data_format=None, dilations=None, name=None) -> Tensor:
    """Each channel of NHWC `input` convolved with its own `channel_multiplier` filters, `filter` being
    (kh, kw, in_channels, channel_multiplier): out[b, i, j, k * M + q] = sum over (di, dj) of
    filter[di, dj, k, q] * input[b, s * i + d_h * di, s * j + d_w * dj, k]. `strides` is [1, s, s, 1];
    `padding` "SAME", "VALID" or [[0, 0], [top, bottom], [left, right], [0, 0]]; `dilations` [d_h, d_w]."""
    options = _options(strides, padding, data_format, dilations, "depthwise_conv2d")
    return depthwise_op(input, filter, **options)


def separable_conv2d(
    input, depthwise_filter, pointwise_filter, strides, padding, data_format=None, dilations=None, name=None
) -> Tensor:
    """depthwise_conv2d, then a 1x1 convolution with the (1, 1, in_channels * M, out_channels) pointwise filter
    that mixes the channels (at stride 1, whatever `strides` the depthwise step takes)."""
    options = _options(strides, padding, data_format, dilations, "separable_conv2d")
    pointwise_shape = _shape(pointwise_filter)
    if len(pointwise_shape) != 4 or tuple(pointwise_shape[:2]) != (1, 1):
        raise ValueError(
            f"separable_conv2d: pointwise_filter must have shape [1, 1, in_channels * channel_multiplier, "
            f"out_channels], got {list(pointwise_shape)}"
        )
    depthwise = depthwise_op(input, depthwise_filter, **options)
    return conv2d_op(depthwise, pointwise_filter, strides=(1, 1), padding="VALID")


def _shape(value: Any) -> tuple:
    return tuple(np.shape(value._array() if isinstance(value, TensorLike) else value))


def depthwise_conv2d_backprop_input(
    input_sizes, filter, out_backprop, strides, padding, data_format="NHWC", dilations=(1, 1, 1, 1), name=None
) -> Tensor:
    """The gradient of depthwise_conv2d with respect to its input, of shape `input_sizes` (4 ints), given the
    gradient `out_backprop` of its output: what GradientTape computes for it."""
    what = "depthwise_conv2d_backprop_input"
    options = _undilated(_options(strides, padding, data_format, dilations, what, four=True), what)
    return depthwise_backprop_input_op(out_backprop, filter, input_shape=_sizes(input_sizes, what), **options)


def depthwise_conv2d_backprop_filter(
    input, filter_sizes, out_backprop, strides, padding, data_format="NHWC", dilations=(1, 1, 1, 1), name=None
) -> Tensor:
    """The gradient of depthwise_conv2d with respect to its filter, of shape `filter_sizes` (4 ints), given the
    gradient `out_backprop` of its output: what GradientTape computes for it."""
    what = "depthwise_conv2d_backprop_filter"
    options = _undilated(_options(strides, padding, data_format, dilations, what, four=True), what)
    return depthwise_backprop_filter_op(input, out_backprop, filter_shape=_sizes(filter_sizes, what), **options)


def _undilated(options: dict, what: str) -> dict:
    if options["dilations"] != (1, 1):
        raise ValueError(
            f"{what}: dilations {list(options['dilations'])} are not taken: TensorFlow 2.21's op ignores them and "
            "gives the gradient of the undilated convolution. For the dilated one take the gradient of "
            "mt.nn.depthwise_conv2d(..., dilations=...) with a GradientTape"
        )
    return options


def _sizes(sizes: Any, what: str) -> tuple[int, ...]:
    values = np.asarray(sizes._array() if isinstance(sizes, TensorLike) else sizes)
    if values.shape != (4,) or values.dtype.kind not in "iu":
        raise InvalidArgumentError(f"{what}: the sizes must be 4 ints, got {values.tolist()}")
    return tuple(int(n) for n in values)
