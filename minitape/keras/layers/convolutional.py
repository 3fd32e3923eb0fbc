"""Conv2D and the pooling layers on channels-last (NHWC) images, built on `mt.nn`'s convolution and pooling.

The 1-D layers (`convolutional1d`) are these with `rank = 1`: the same arguments, checks and weights, on
(batch, steps, channels) sequences through `mt.nn.conv1d` and the 1-D pooling ops.
"""

from __future__ import annotations

from typing import Any

from minitape.keras import activations
from minitape.keras.backend import check_channels_last
from minitape.keras.layers.attention import bool_mask
from minitape.keras.layers.base import Layer, incompatible
from minitape.namespaces.nn import avg_pool2d, conv2d, max_pool2d
from minitape.ops.api import cast, expand_dims, reduce_max, reduce_mean, reduce_sum, where, zeros_like
from minitape.ops.conv_ops import conv2d_backprop_input_op


def window(value: Any, what: str, layer: str, rank: int = 2) -> tuple[int, ...]:
    """`rank` positive ints from an int or a sequence of `rank` of them (Keras' kernel_size, strides, ...)."""
    sizes = (value,) * rank if isinstance(value, int) else tuple(value)
    if len(sizes) != rank or not all(isinstance(n, int) and n >= 1 for n in sizes):
        several = "a pair of them" if rank == 2 else f"a sequence of {rank} of them"
        raise ValueError(f"{layer}: {what} must be a positive int or {several}, got {value!r}")
    return sizes


def pair(value: Any, what: str, layer: str) -> tuple[int, int]:
    return window(value, what, layer, 2)  # type: ignore[return-value]


def _padding(value: str, layer: str, allowed: tuple[str, ...] = ("valid", "same")) -> str:
    if not isinstance(value, str) or value.lower() not in allowed:
        raise ValueError(f"{layer}: padding must be {' or '.join(map(repr, allowed))}, got {value!r}")
    return value.lower()


def check_image(layer: Layer, shape: tuple) -> None:
    if len(shape) != 4:
        raise incompatible(
            layer,
            shape,
            "a 4-D input (batch, height, width, channels)",
            "For single-channel images add the channels axis: x[..., None]; for one image add the batch axis.",
        )


def check_sequence(layer: Layer, shape: tuple) -> None:
    if len(shape) != 3:
        raise incompatible(
            layer,
            shape,
            "a 3-D input (batch, steps, channels)",
            "For a single channel add the channels axis: x[..., None]; for one sequence add the batch axis: x[None].",
        )


def check_rank(layer: Layer, shape: tuple, rank: int) -> None:
    """A (batch, *rank spatial axes, channels) input, or an error that says how to get one."""
    (check_image if rank == 2 else check_sequence)(layer, shape)


def check_fits(layer: Layer, shape: tuple, span: tuple[int, ...], what: str) -> None:
    """With padding='valid' every spatial axis must hold at least one window of `span`."""
    if any(size < n for size, n in zip(shape[1:-1], span)):
        least = f"images of at least {span[0]}x{span[1]} pixels" if len(span) == 2 else f"at least {span[0]} steps"
        raise incompatible(layer, shape, f"{least} for padding='valid'", f"Use padding='same' or a smaller {what}.")


class Conv2D(Layer):
    """`activation(conv2d(inputs, kernel) + bias)`: `filters` output channels from kernel_size windows."""

    rank = 2
    paddings: tuple[str, ...] = ("valid", "same")
    strides_with_dilation = False  # Keras 3 refuses both above 1 in Conv2D, takes them in DepthwiseConv2D

    def __init__(
        self,
        filters: int,
        kernel_size: Any,
        strides: Any = 1,
        padding: str = "valid",
        data_format: str | None = None,
        dilation_rate: Any = 1,
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
        kind = type(self).__name__
        self.kernel_regularizer, self.bias_regularizer = kernel_regularizer, bias_regularizer
        self.kernel_constraint, self.bias_constraint = kernel_constraint, bias_constraint
        check_channels_last(data_format, kind)
        if groups != 1:
            raise NotImplementedError(
                f"{kind}: groups={groups!r} is not supported by minitape, only groups=1; for grouped channels "
                "split the input with mt.split, convolve each part with its own layer and mt.concat the results"
            )
        if not isinstance(filters, int) or filters < 1:
            raise ValueError(f"{kind}: filters must be a positive int, got {filters!r}")
        self.groups, self.filters = 1, filters
        self.kernel_size = window(kernel_size, "kernel_size", kind, self.rank)
        self.strides = window(strides, "strides", kind, self.rank)
        self.dilation_rate = window(dilation_rate, "dilation_rate", kind, self.rank)
        if max(self.strides) > 1 and max(self.dilation_rate) > 1 and not self.strides_with_dilation:
            raise ValueError(
                f"{kind}: strides > 1 together with dilation_rate > 1 is not supported (as in Keras), got "
                f"strides={self.strides} and dilation_rate={self.dilation_rate}; use one of them, or add pooling"
            )
        self.padding = _padding(padding, kind, self.paddings)
        self.activation = activations.get(activation)
        self.use_bias = use_bias
        self.kernel_initializer = kernel_initializer
        self.bias_initializer = bias_initializer

    def check_input(self, shape: tuple) -> None:
        self.check_channels(shape)
        if self.padding == "valid":
            span = tuple((k - 1) * d + 1 for k, d in zip(self.kernel_size, self.dilation_rate))
            check_fits(
                self, shape, span, "kernel_size or dilation_rate" if max(self.dilation_rate) > 1 else "kernel_size"
            )

    def check_channels(self, shape: tuple) -> None:
        check_rank(self, shape, self.rank)
        if self.built and shape[-1] != self.channels:
            raise incompatible(
                self,
                shape,
                f"axis -1 (channels) of the input to have size {self.channels} (the layer was built for "
                "that many channels)",
                "A layer keeps the input size it was first called with; create a new layer for other sizes.",
            )

    def kernel_shape(self, channels: int) -> tuple:
        """(kh, kw, input channels, filters) ((k, in, filters) in 1-D): TensorFlow's layout of a kernel."""
        return (*self.kernel_size, channels, self.filters)

    def build(self, input_shape: tuple) -> None:
        self.channels = input_shape[-1]
        self.build_kernels(self.channels)
        self.bias = None
        if self.use_bias:
            self.bias = self.add_weight(
                "bias",
                (self.out_channels(self.channels),),
                initializer=self.bias_initializer,
                regularizer=self.bias_regularizer,
                constraint=self.bias_constraint,
            )

    def build_kernels(self, channels: int) -> None:
        """The weights before the bias (SeparableConv2D has two)."""
        self.kernel = self.add_weight(
            "kernel",
            self.kernel_shape(channels),
            initializer=self.kernel_initializer,
            regularizer=self.kernel_regularizer,
            constraint=self.kernel_constraint,
        )

    def out_channels(self, channels: int) -> int:
        return self.filters

    def call(self, inputs: Any) -> Any:
        outputs = self.convolve(inputs)
        if self.use_bias:
            outputs = outputs + self.bias
        return self.activation(outputs)

    def convolve(self, inputs: Any) -> Any:
        return conv2d(inputs, self.kernel, self.strides, self.padding.upper(), dilations=self.dilation_rate)


class Conv2DTranspose(Conv2D):
    """The transpose of Conv2D, a learned upsampling: each input pixel spreads a kernel_size patch, `strides`
    apart, so an image grows `strides` times (padding='same'), or to (size - 1) * stride + kernel ('valid')."""

    def __init__(self, filters: int, kernel_size: Any, *args: Any, **kwargs: Any) -> None:
        super().__init__(filters, kernel_size, *args, **kwargs)
        if self.dilation_rate != (1, 1):
            raise NotImplementedError(
                f"Conv2DTranspose: dilation_rate={self.dilation_rate} is not supported by minitape, only 1"
            )

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


class Pooling(Layer):
    """What the 1-D and 2-D pooling layers share: the window, its stride (default: the window), the padding,
    and `pool`, the `mt.nn` op that pools."""

    rank = 2
    pool: Any = None

    def __init__(
        self,
        pool_size: Any = 2,
        strides: Any = None,
        padding: str = "valid",
        data_format: str | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        kind = type(self).__name__
        check_channels_last(data_format, kind)
        self.pool_size = window(pool_size, "pool_size", kind, self.rank)
        self.strides = window(strides, "strides", kind, self.rank) if strides is not None else self.pool_size
        self.padding = _padding(padding, kind)

    def check_input(self, shape: tuple) -> None:
        check_rank(self, shape, self.rank)
        if self.padding == "valid":
            check_fits(self, shape, self.pool_size, "pool_size")

    def call(self, inputs: Any) -> Any:
        return type(self).pool(inputs, self.pool_size, self.strides, self.padding.upper())


class MaxPooling2D(Pooling):
    """The maximum of each pool_size window, moving by `strides` (default: pool_size)."""

    pool = staticmethod(max_pool2d)


MaxPool2D = MaxPooling2D


class AveragePooling2D(Pooling):
    """The mean of each pool_size window, moving by `strides` (default: pool_size); with padding='same' a
    border window is the mean of the pixels it covers (the padding is not counted), as in TensorFlow."""

    pool = staticmethod(avg_pool2d)


class _GlobalPooling2D(Layer):
    """(batch, height, width, channels) -> (batch, channels): each channel reduced over the image by `reduce`."""

    reduce: Any = None
    axes = (1, 2)

    def __init__(self, data_format: str | None = None, keepdims: bool = False, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        check_channels_last(data_format, type(self).__name__)
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
        check_sequence(self, shape)


class GlobalAveragePooling1D(_GlobalPooling1D):
    """Each feature's mean over the steps of a sequence; with a mask (given, or the Keras mask of the input), the
    mean over the steps the mask keeps, as in Keras 3. The steps are gone: the output has no mask."""

    reduce = staticmethod(reduce_mean)
    supports_masking = True

    def compute_mask(self, inputs: Any, previous_mask: Any = None) -> None:
        return None

    def call(self, inputs: Any, mask: Any = None) -> Any:
        if mask is None:
            return reduce_mean(inputs, axis=1, keepdims=self.keepdims)
        kept = expand_dims(bool_mask(mask), -1)  # (batch, steps, 1)
        total = reduce_sum(where(kept, inputs, zeros_like(inputs)), axis=1, keepdims=self.keepdims)
        return total / reduce_sum(cast(kept, inputs.dtype), axis=1, keepdims=self.keepdims)


class GlobalMaxPooling1D(_GlobalPooling1D):
    """Each feature's maximum over the steps of a sequence."""

    reduce = staticmethod(reduce_max)


AvgPool2D = AveragePooling2D
GlobalAvgPool2D = GlobalAveragePooling2D
GlobalMaxPool2D = GlobalMaxPooling2D
GlobalAvgPool1D, GlobalMaxPool1D = GlobalAveragePooling1D, GlobalMaxPooling1D
