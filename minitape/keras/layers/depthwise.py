"""DepthwiseConv2D and SeparableConv2D (MobileNet's layers) and their 1-D forms, on channels-last inputs.

A depthwise layer filters each input channel on its own with `depth_multiplier` kernels (Keras 3's weight
`kernel`, (kh, kw, channels, depth_multiplier)); a separable layer follows that with a 1x1 convolution that mixes
the channels (`depthwise_kernel`, `pointwise_kernel`, (1, 1, channels * depth_multiplier, filters)). Both are
Conv2D with other weights: the same argument checks, padding rules and channel checks. The 1-D layers are the
2-D ones on an image of height 1.
"""

from __future__ import annotations

from typing import Any

from minitape.keras.layers.base import is_positive_int
from minitape.keras.layers.convolutional import Conv2D
from minitape.ops.array_ops import expand_dims, squeeze
from minitape.ops.conv_ops import conv2d_op
from minitape.ops.depthwise_ops import depthwise_op


def _positive(value: Any, what: str) -> None:
    if not is_positive_int(value):
        raise ValueError(
            f"Invalid value for argument `{what}`. Expected a strictly positive value. Received {what}={value!r}."
        )


class DepthwiseConv2D(Conv2D):
    """`activation(depthwise_conv2d(inputs, kernel) + bias)`: each input channel convolved on its own with
    `depth_multiplier` kernel_size kernels, giving channels * depth_multiplier outputs (channel c's m-th at
    c * depth_multiplier + m). Strides and dilation_rate above 1 together are taken, as in Keras 3."""

    strides_with_dilation = True

    def __init__(
        self,
        kernel_size: Any,
        strides: Any = 1,
        padding: str = "valid",
        depth_multiplier: int = 1,
        data_format: str | None = None,
        dilation_rate: Any = 1,
        activation: Any = None,
        use_bias: bool = True,
        depthwise_initializer: Any = "glorot_uniform",
        bias_initializer: Any = "zeros",
        depthwise_regularizer: Any = None,
        bias_regularizer: Any = None,
        activity_regularizer: Any = None,
        depthwise_constraint: Any = None,
        bias_constraint: Any = None,
        **kwargs: Any,
    ) -> None:
        _positive(depth_multiplier, "depth_multiplier")
        super().__init__(
            1,
            kernel_size,
            strides=strides,
            padding=padding,
            data_format=data_format,
            dilation_rate=dilation_rate,
            activation=activation,
            use_bias=use_bias,
            kernel_initializer=depthwise_initializer,
            bias_initializer=bias_initializer,
            kernel_regularizer=depthwise_regularizer,
            bias_regularizer=bias_regularizer,
            kernel_constraint=depthwise_constraint,
            bias_constraint=bias_constraint,
            activity_regularizer=activity_regularizer,
            **kwargs,
        )
        del self.filters  # Keras' depthwise layers have none: the output channels follow the input's
        self.depth_multiplier = depth_multiplier
        self.depthwise_initializer, self.depthwise_regularizer = depthwise_initializer, depthwise_regularizer
        self.depthwise_constraint = depthwise_constraint

    def kernel_shape(self, channels: int) -> tuple:
        """(kh, kw, input channels, depth_multiplier) ((k, channels, depth_multiplier) in 1-D)."""
        return (*self.kernel_size, channels, self.depth_multiplier)

    def out_channels(self, channels: int) -> int:
        return channels * self.depth_multiplier

    def convolve(self, inputs: Any) -> Any:
        return _as_image(self, inputs, lambda image: _depthwise(self, image, self.kernel))


class SeparableConv2D(DepthwiseConv2D):
    """`activation(pointwise(depthwise(inputs)) + bias)`: DepthwiseConv2D without its bias, then a 1x1
    convolution from channels * depth_multiplier to `filters` channels. Weights in Keras 3's order:
    depthwise_kernel, pointwise_kernel, bias."""

    def __init__(
        self,
        filters: int,
        kernel_size: Any,
        strides: Any = 1,
        padding: str = "valid",
        data_format: str | None = None,
        dilation_rate: Any = 1,
        depth_multiplier: int = 1,
        activation: Any = None,
        use_bias: bool = True,
        depthwise_initializer: Any = "glorot_uniform",
        pointwise_initializer: Any = "glorot_uniform",
        bias_initializer: Any = "zeros",
        depthwise_regularizer: Any = None,
        pointwise_regularizer: Any = None,
        bias_regularizer: Any = None,
        activity_regularizer: Any = None,
        depthwise_constraint: Any = None,
        pointwise_constraint: Any = None,
        bias_constraint: Any = None,
        **kwargs: Any,
    ) -> None:
        _positive(filters, "filters")
        super().__init__(
            kernel_size,
            strides=strides,
            padding=padding,
            depth_multiplier=depth_multiplier,
            data_format=data_format,
            dilation_rate=dilation_rate,
            activation=activation,
            use_bias=use_bias,
            depthwise_initializer=depthwise_initializer,
            bias_initializer=bias_initializer,
            depthwise_regularizer=depthwise_regularizer,
            bias_regularizer=bias_regularizer,
            activity_regularizer=activity_regularizer,
            depthwise_constraint=depthwise_constraint,
            bias_constraint=bias_constraint,
            **kwargs,
        )
        self.filters = filters
        self.pointwise_initializer, self.pointwise_regularizer = pointwise_initializer, pointwise_regularizer
        self.pointwise_constraint = pointwise_constraint

    def build_kernels(self, channels: int) -> None:
        self.depthwise_kernel = self.add_weight(
            "depthwise_kernel",
            self.kernel_shape(channels),
            initializer=self.depthwise_initializer,
            regularizer=self.depthwise_regularizer,
            constraint=self.depthwise_constraint,
        )
        self.pointwise_kernel = self.add_weight(
            "pointwise_kernel",
            (1,) * self.rank + (channels * self.depth_multiplier, self.filters),
            initializer=self.pointwise_initializer,
            regularizer=self.pointwise_regularizer,
            constraint=self.pointwise_constraint,
        )

    def out_channels(self, channels: int) -> int:
        return self.filters

    def convolve(self, inputs: Any) -> Any:
        def separable(image: Any) -> Any:
            pointwise = self.pointwise_kernel if self.rank == 2 else expand_dims(self.pointwise_kernel, 0)
            depthwise = _depthwise(self, image, self.depthwise_kernel)
            return conv2d_op(depthwise, pointwise, strides=(1, 1), padding="VALID")

        return _as_image(self, inputs, separable)


def _depthwise(layer: DepthwiseConv2D, image: Any, kernel: Any) -> Any:
    """The layer's depthwise convolution of an NHWC image (a 1-D layer's kernel gets a height of 1)."""
    if layer.rank == 1:
        kernel = expand_dims(kernel, 0)
    strides, dilations = ((1, 1) + layer.strides)[-2:], ((1, 1) + layer.dilation_rate)[-2:]
    return depthwise_op(image, kernel, strides=strides, padding=layer.padding.upper(), dilations=dilations)


def _as_image(layer: DepthwiseConv2D, inputs: Any, convolve: Any) -> Any:
    """`convolve` on NHWC `inputs`, or on (batch, steps, channels) ones as images of height 1."""
    if layer.rank == 2:
        return convolve(inputs)
    return squeeze(convolve(expand_dims(inputs, 1)), axis=[1])


class DepthwiseConv1D(DepthwiseConv2D):
    """DepthwiseConv2D on (batch, steps, channels) sequences: a (kernel_size, channels, depth_multiplier) kernel."""

    rank = 1


class SeparableConv1D(SeparableConv2D):
    """SeparableConv2D on (batch, steps, channels) sequences: depthwise (kernel_size, channels, depth_multiplier)
    and pointwise (1, channels * depth_multiplier, filters) kernels."""

    rank = 1


SeparableConvolution2D, SeparableConvolution1D = SeparableConv2D, SeparableConv1D
