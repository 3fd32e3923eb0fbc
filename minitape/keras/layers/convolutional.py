"""Conv2D and the pooling layers on channels-last (NHWC) images, built on the ops of `minitape.ops.conv_ops`.

Average pooling has no op of its own: it is a convolution with a kernel that averages each
channel's window separately (and, for padding='same', divides by the number of real pixels
in each window, as TensorFlow does, rather than counting the padding).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minitape.keras import activations
from minitape.keras.layers.base import Layer, incompatible
from minitape.nn import conv2d
from minitape.ops.api import reduce_max, reduce_mean
from minitape.ops.conv_ops import conv2d_backprop_input_op, conv2d_op, max_pool_op
from minitape.tensor import Tensor


def pair(value: Any, what: str, layer: str) -> tuple[int, int]:
    pair = (value, value) if isinstance(value, int) else tuple(value)
    if len(pair) != 2 or not all(isinstance(n, int) and n >= 1 for n in pair):
        raise ValueError(f"{layer}: {what} must be a positive int or a pair of them, got {value!r}")
    return pair


def _padding(value: str, layer: str) -> str:
    if not isinstance(value, str) or value.lower() not in ("valid", "same"):
        raise ValueError(f"{layer}: padding must be 'valid' or 'same', got {value!r}")
    return value.lower()


def check_image(layer: Layer, shape: tuple) -> None:
    if len(shape) != 4:
        raise incompatible(
            layer,
            shape,
            "a 4-D input (batch, height, width, channels)",
            "For single-channel images add the channels axis: x[..., None]; for one image add the batch axis.",
        )


class Conv2D(Layer):
    """`activation(conv2d(inputs, kernel) + bias)`: `filters` output channels from kernel_size windows."""

    def __init__(
        self,
        filters: int,
        kernel_size: Any,
        strides: Any = (1, 1),
        padding: str = "valid",
        data_format: str | None = None,
        dilation_rate: Any = (1, 1),
        groups: int = 1,
        activation: Any = None,
        use_bias: bool = True,
        kernel_initializer: Any = "glorot_uniform",
        bias_initializer: Any = "zeros",
        kernel_regularizer: Any = None,
        bias_regularizer: Any = None,
        kernel_constraint: Any = None,
        bias_constraint: Any = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.kernel_regularizer, self.bias_regularizer = kernel_regularizer, bias_regularizer
        self.kernel_constraint, self.bias_constraint = kernel_constraint, bias_constraint
        if data_format not in (None, "channels_last"):
            raise ValueError(f"Conv2D: only data_format='channels_last' (NHWC) is supported, got {data_format!r}")
        if pair(dilation_rate, "dilation_rate", "Conv2D") != (1, 1) or groups != 1:
            raise NotImplementedError(
                f"Conv2D: dilation_rate={dilation_rate!r} and groups={groups!r} are not supported by minitape "
                "(mt.nn.conv2d has no dilations); only dilation_rate=1 and groups=1. For a wider view stack more "
                "Conv2D layers or add pooling"
            )
        self.dilation_rate, self.groups = (1, 1), 1
        self.filters = int(filters)
        self.kernel_size = pair(kernel_size, "kernel_size", "Conv2D")
        self.strides = pair(strides, "strides", "Conv2D")
        self.padding = _padding(padding, "Conv2D")
        self.activation = activations.get(activation)
        self.use_bias = use_bias
        self.kernel_initializer = kernel_initializer
        self.bias_initializer = bias_initializer

    def check_input(self, shape: tuple) -> None:
        self.check_channels(shape)
        if self.padding == "valid" and (shape[1] < self.kernel_size[0] or shape[2] < self.kernel_size[1]):
            raise incompatible(
                self,
                shape,
                f"images of at least {self.kernel_size[0]}x{self.kernel_size[1]} pixels for padding='valid'",
                "Use padding='same' or a smaller kernel_size.",
            )

    def check_channels(self, shape: tuple) -> None:
        check_image(self, shape)
        if self.built and self.kernel_shape(shape[-1]) != tuple(self.kernel.shape):
            raise incompatible(
                self,
                shape,
                f"axis -1 (channels) of the input to have size {self.channels} (the layer was built for "
                "that many channels)",
                "A layer keeps the input size it was first called with; create a new layer for other sizes.",
            )

    def kernel_shape(self, channels: int) -> tuple:
        """(kh, kw, input channels, filters): TensorFlow's layout of a convolution's kernel."""
        return (*self.kernel_size, channels, self.filters)

    def build(self, input_shape: tuple) -> None:
        self.channels = input_shape[-1]
        self.kernel = self.add_weight(
            "kernel",
            self.kernel_shape(input_shape[-1]),
            initializer=self.kernel_initializer,
            regularizer=self.kernel_regularizer,
            constraint=self.kernel_constraint,
        )
        self.bias = None
        if self.use_bias:
            self.bias = self.add_weight(
                "bias",
                (self.filters,),
                initializer=self.bias_initializer,
                regularizer=self.bias_regularizer,
                constraint=self.bias_constraint,
            )

    def call(self, inputs: Any) -> Any:
        outputs = self.convolve(inputs)
        if self.use_bias:
            outputs = outputs + self.bias
        return self.activation(outputs)

    def convolve(self, inputs: Any) -> Any:
        return conv2d_op(inputs, self.kernel, strides=self.strides, padding=self.padding.upper())


class Conv2DTranspose(Conv2D):
    """The transpose of Conv2D, a learned upsampling: each input pixel spreads a kernel_size patch, `strides`
    apart, so an image grows `strides` times (padding='same'), or to (size - 1) * stride + kernel ('valid')."""

    def check_input(self, shape: tuple) -> None:
        self.check_channels(shape)  # any image size will do: the transpose only grows it

    def kernel_shape(self, channels: int) -> tuple:
        """(kh, kw, filters, input channels): the transpose's kernel is a Conv2D kernel read the other way."""
        return (*self.kernel_size, self.filters, channels)

    def convolve(self, inputs: Any) -> Any:
        n, height, width, _ = tuple(inputs.shape)
        (kh, kw), (sh, sw) = self.kernel_size, self.strides
        grown = (
            (height * sh, width * sw)
            if self.padding == "same"
            else (height * sh + max(kh - sh, 0), width * sw + max(kw - sw, 0))
        )
        return conv2d_backprop_input_op(
            inputs,
            self.kernel,
            input_shape=(n, *grown, self.filters),
            strides=self.strides,
            padding=self.padding.upper(),
        )


class _Pooling2D(Layer):
    """What the pooling layers share: the window, its stride (default: the window) and the padding."""

    def __init__(
        self,
        pool_size: Any = (2, 2),
        strides: Any = None,
        padding: str = "valid",
        data_format: str | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        kind = type(self).__name__
        if data_format not in (None, "channels_last"):
            raise ValueError(f"{kind}: only data_format='channels_last' is supported, got {data_format!r}")
        self.pool_size = pair(pool_size, "pool_size", kind)
        self.strides = pair(strides, "strides", kind) if strides is not None else self.pool_size
        self.padding = _padding(padding, kind)

    def check_input(self, shape: tuple) -> None:
        check_image(self, shape)
        if self.padding == "valid" and (shape[1] < self.pool_size[0] or shape[2] < self.pool_size[1]):
            raise incompatible(
                self,
                shape,
                f"images of at least {self.pool_size[0]}x{self.pool_size[1]} pixels for padding='valid'",
                "Use padding='same' or a smaller pool_size.",
            )


class MaxPooling2D(_Pooling2D):
    """The maximum of each pool_size window, moving by `strides` (default: pool_size)."""

    def call(self, inputs: Any) -> Any:
        return max_pool_op(inputs, ksize=self.pool_size, strides=self.strides, padding=self.padding.upper())


MaxPool2D = MaxPooling2D


class AveragePooling2D(_Pooling2D):
    """The mean of each pool_size window, moving by `strides` (default: pool_size)."""

    def call(self, inputs: Any) -> Any:
        channels = int(inputs.shape[-1])
        dtype = inputs.dtype.as_numpy_dtype
        kernel = np.zeros((*self.pool_size, channels, channels), dtype=dtype)
        kernel[:, :, np.arange(channels), np.arange(channels)] = 1.0  # each channel sums its own window
        padding = self.padding.upper()
        sums = conv2d(inputs, Tensor(kernel), strides=self.strides, padding=padding)
        if self.padding == "valid":
            return sums / float(self.pool_size[0] * self.pool_size[1])
        ones = Tensor(np.ones((1, *tuple(inputs.shape)[1:3], 1), dtype=dtype))
        counts = conv2d(
            ones, Tensor(np.ones((*self.pool_size, 1, 1), dtype=dtype)), strides=self.strides, padding=padding
        )
        return sums / counts  # windows at the border hold fewer real pixels: divide by how many


class _GlobalPooling2D(Layer):
    """(batch, height, width, channels) -> (batch, channels): each channel reduced over the image by `reduce`."""

    reduce: Any = None
    axes = (1, 2)

    def __init__(self, data_format: str | None = None, keepdims: bool = False, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if data_format not in (None, "channels_last"):
            raise ValueError(
                f"{type(self).__name__}: only data_format='channels_last' is supported, got {data_format!r}"
            )
        self.keepdims = keepdims

    def check_input(self, shape: tuple) -> None:
        check_image(self, shape)

    def call(self, inputs: Any) -> Any:
        return type(self).reduce(inputs, axis=self.axes, keepdims=self.keepdims)


class GlobalAveragePooling2D(_GlobalPooling2D):
    """Each channel's mean over the image."""

    reduce = staticmethod(reduce_mean)


class GlobalMaxPooling2D(_GlobalPooling2D):
    """Each channel's maximum over the image."""

    reduce = staticmethod(reduce_max)


class _GlobalPooling1D(_GlobalPooling2D):
    """(batch, steps, features) -> (batch, features): each feature reduced over the steps."""

    axes = (1,)

    def check_input(self, shape: tuple) -> None:
        if len(shape) != 3:
            raise incompatible(
                self, shape, "a 3-D input (batch, steps, features)", "Add the features axis: x[..., None]."
            )


class GlobalAveragePooling1D(_GlobalPooling1D):
    """Each feature's mean over the steps of a sequence."""

    reduce = staticmethod(reduce_mean)


class GlobalMaxPooling1D(_GlobalPooling1D):
    """Each feature's maximum over the steps of a sequence."""

    reduce = staticmethod(reduce_max)


AvgPool2D = AveragePooling2D
GlobalAvgPool2D = GlobalAveragePooling2D
GlobalMaxPool2D = GlobalMaxPooling2D
GlobalAvgPool1D, GlobalMaxPool1D = GlobalAveragePooling1D, GlobalMaxPooling1D
