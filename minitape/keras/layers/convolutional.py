"""Conv2D and MaxPooling2D on channels-last (NHWC) images, built on the ops of `minitape.ops.conv_ops`."""

from __future__ import annotations

from typing import Any

from minitape.keras import activations
from minitape.keras.layers.base import Layer, incompatible
from minitape.ops.conv_ops import conv2d_op, max_pool_op


def _pair(value: Any, what: str, layer: str) -> tuple[int, int]:
    pair = (value, value) if isinstance(value, int) else tuple(value)
    if len(pair) != 2 or not all(isinstance(n, int) and n >= 1 for n in pair):
        raise ValueError(f"{layer}: {what} must be a positive int or a pair of them, got {value!r}")
    return pair


def _padding(value: str, layer: str) -> str:
    if not isinstance(value, str) or value.lower() not in ("valid", "same"):
        raise ValueError(f"{layer}: padding must be 'valid' or 'same', got {value!r}")
    return value.lower()


def _check_image(layer: Layer, shape: tuple) -> None:
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
        activation: Any = None,
        use_bias: bool = True,
        kernel_initializer: Any = "glorot_uniform",
        bias_initializer: Any = "zeros",
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        if data_format not in (None, "channels_last"):
            raise ValueError(f"Conv2D: only data_format='channels_last' (NHWC) is supported, got {data_format!r}")
        self.filters = int(filters)
        self.kernel_size = _pair(kernel_size, "kernel_size", "Conv2D")
        self.strides = _pair(strides, "strides", "Conv2D")
        self.padding = _padding(padding, "Conv2D")
        self.activation = activations.get(activation)
        self.use_bias = use_bias
        self.kernel_initializer = kernel_initializer
        self.bias_initializer = bias_initializer

    def check_input(self, shape: tuple) -> None:
        _check_image(self, shape)
        if self.built and shape[-1] != self.kernel.shape[2]:
            raise incompatible(
                self,
                shape,
                f"axis -1 (channels) of the input to have size {self.kernel.shape[2]} (the layer was built for "
                "that many channels)",
                "A layer keeps the input size it was first called with; create a new layer for other sizes.",
            )
        if self.padding == "valid" and (shape[1] < self.kernel_size[0] or shape[2] < self.kernel_size[1]):
            raise incompatible(
                self,
                shape,
                f"images of at least {self.kernel_size[0]}x{self.kernel_size[1]} pixels for padding='valid'",
                "Use padding='same' or a smaller kernel_size.",
            )

    def build(self, input_shape: tuple) -> None:
        shape = (*self.kernel_size, input_shape[-1], self.filters)
        self.kernel = self.add_weight("kernel", shape, initializer=self.kernel_initializer)
        self.bias = None
        if self.use_bias:
            self.bias = self.add_weight("bias", (self.filters,), initializer=self.bias_initializer)

    def call(self, inputs: Any) -> Any:
        outputs = conv2d_op(inputs, self.kernel, strides=self.strides, padding=self.padding.upper())
        if self.use_bias:
            outputs = outputs + self.bias
        return self.activation(outputs)


class MaxPooling2D(Layer):
    """The maximum of each pool_size window, moving by `strides` (default: pool_size)."""

    def __init__(
        self,
        pool_size: Any = (2, 2),
        strides: Any = None,
        padding: str = "valid",
        data_format: str | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        if data_format not in (None, "channels_last"):
            raise ValueError(f"MaxPooling2D: only data_format='channels_last' is supported, got {data_format!r}")
        self.pool_size = _pair(pool_size, "pool_size", "MaxPooling2D")
        self.strides = _pair(strides, "strides", "MaxPooling2D") if strides is not None else self.pool_size
        self.padding = _padding(padding, "MaxPooling2D")

    def check_input(self, shape: tuple) -> None:
        _check_image(self, shape)
        if self.padding == "valid" and (shape[1] < self.pool_size[0] or shape[2] < self.pool_size[1]):
            raise incompatible(
                self,
                shape,
                f"images of at least {self.pool_size[0]}x{self.pool_size[1]} pixels for padding='valid'",
                "Use padding='same' or a smaller pool_size.",
            )

    def call(self, inputs: Any) -> Any:
        return max_pool_op(inputs, ksize=self.pool_size, strides=self.strides, padding=self.padding.upper())


MaxPool2D = MaxPooling2D
