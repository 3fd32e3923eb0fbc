"""Conv1D and the 1-D pooling layers on (batch, steps, channels) sequences: the 2-D layers with `rank = 1`,
computed by `mt.nn.conv1d`, `max_pool1d` and `avg_pool1d` (each a 2-D op on an image of height 1)."""

from __future__ import annotations

from typing import Any

from minitape.keras.layers.convolutional import Conv2D, Pooling
from minitape.namespaces.nn import avg_pool1d, conv1d, max_pool1d
from minitape.ops.api import pad


class Conv1D(Conv2D):
    """`activation(conv1d(inputs, kernel) + bias)` with a (kernel_size, in_channels, filters) kernel, as Keras 3.

    padding='causal' pads only on the left, by dilation_rate * (kernel_size - 1) steps, so output t sees
    inputs up to t and none after it (WaveNet's convolution).
    """

    rank = 1
    paddings = ("valid", "same", "causal")

    def check_input(self, shape: tuple) -> None:
        if self.padding == "causal":
            self.check_channels(shape)  # the left padding makes room for a window at every step
        else:
            super().check_input(shape)

    def convolve(self, inputs: Any) -> Any:
        padding = self.padding
        if padding == "causal":
            inputs = pad(inputs, [[0, 0], [self.dilation_rate[0] * (self.kernel_size[0] - 1), 0], [0, 0]])
            padding = "valid"
        return conv1d(inputs, self.kernel, self.strides, padding.upper(), dilations=self.dilation_rate)


class MaxPooling1D(Pooling):
    """The maximum of each pool_size window of steps, moving by `strides` (default: pool_size)."""

    rank = 1
    pool = staticmethod(max_pool1d)


class AveragePooling1D(Pooling):
    """The mean of each pool_size window of steps, moving by `strides` (default: pool_size); with
    padding='same' a window at the end is the mean of the steps it covers (the padding is not counted)."""

    rank = 1
    pool = staticmethod(avg_pool1d)


Convolution1D = Conv1D
MaxPool1D, AvgPool1D = MaxPooling1D, AveragePooling1D
