"""Layers that move values without computing new ones: UpSampling, ZeroPadding and Cropping in 1-D and 2-D,
Permute, RepeatVector. Each is built from differentiable ops (repeat, pad, slicing, transpose, tile)."""

from __future__ import annotations

from typing import Any

from minitape.keras.layers.base import Layer, incompatible
from minitape.keras.layers.convolutional import check_image, check_sequence, pair
from minitape.ops.api import expand_dims, pad, tile, transpose
from minitape.ops.shape_ops import repeat


def _margins(value: Any, what: str, layer: str) -> tuple[tuple[int, int], tuple[int, int]]:
    """((top, bottom), (left, right)) from an int, a (rows, columns) pair or a pair of pairs, as Keras reads it."""
    if isinstance(value, int):
        value = (value, value)
    rows, cols = value
    pairs = tuple((n, n) if isinstance(n, int) else tuple(n) for n in (rows, cols))
    if any(len(p) != 2 or not all(isinstance(n, int) and n >= 0 for n in p) for p in pairs):
        raise ValueError(f"{layer}: {what} must be an int, a pair, or a pair of (before, after) pairs, not {value!r}")
    return pairs


class UpSampling2D(Layer):
    """Each pixel repeated `size` times down and across (nearest-neighbour upsampling of NHWC images)."""

    def __init__(self, size: Any = (2, 2), data_format: str | None = None, interpolation: str = "nearest", **kw):
        super().__init__(**kw)
        if interpolation != "nearest":
            raise NotImplementedError(
                f"UpSampling2D: only interpolation='nearest' is in minitape, not {interpolation!r}"
            )
        self.size = pair(size, "size", "UpSampling2D")

    def check_input(self, shape: tuple) -> None:
        check_image(self, shape)

    def call(self, inputs: Any) -> Any:
        return repeat(repeat(inputs, self.size[0], axis=1), self.size[1], axis=2)


class ZeroPadding2D(Layer):
    """Rows and columns of zeros around each image: padding=1, (rows, columns) or ((top, bottom), (left, right))."""

    def __init__(self, padding: Any = (1, 1), data_format: str | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.padding = _margins(padding, "padding", "ZeroPadding2D")

    def check_input(self, shape: tuple) -> None:
        check_image(self, shape)

    def call(self, inputs: Any) -> Any:
        return pad(inputs, [[0, 0], list(self.padding[0]), list(self.padding[1]), [0, 0]])


class Cropping2D(Layer):
    """Rows and columns cut off each image's borders, given as ZeroPadding2D's padding is."""

    def __init__(self, cropping: Any = ((0, 0), (0, 0)), data_format: str | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.cropping = _margins(cropping, "cropping", "Cropping2D")

    def check_input(self, shape: tuple) -> None:
        check_image(self, shape)
        (top, bottom), (left, right) = self.cropping
        if top + bottom >= shape[1] or left + right >= shape[2]:
            raise incompatible(self, shape, f"images larger than the crop {self.cropping}")

    def call(self, inputs: Any) -> Any:
        (top, bottom), (left, right) = self.cropping
        height, width = tuple(inputs.shape)[1:3]
        return inputs[:, top : height - bottom, left : width - right, :]


def _ends(value: Any, what: str, layer: str) -> tuple[int, int]:
    """(before, after) steps from an int or a pair, as Keras' 1-D padding and cropping read it."""
    ends = (value, value) if isinstance(value, int) else tuple(value)
    if len(ends) != 2 or not all(isinstance(n, int) and n >= 0 for n in ends):
        raise ValueError(f"{layer}: {what} must be an int or a (before, after) pair of ints >= 0, not {value!r}")
    return ends  # type: ignore[return-value]


class UpSampling1D(Layer):
    """Each step of a (batch, steps, channels) sequence repeated `size` times."""

    def __init__(self, size: int = 2, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if not isinstance(size, int) or size < 1:
            raise ValueError(f"UpSampling1D: size must be a positive int, not {size!r}")
        self.size = size

    def check_input(self, shape: tuple) -> None:
        check_sequence(self, shape)

    def call(self, inputs: Any) -> Any:
        return repeat(inputs, self.size, axis=1)


class ZeroPadding1D(Layer):
    """Steps of zeros before and after each sequence: padding=1 or (before, after)."""

    def __init__(self, padding: Any = 1, data_format: str | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.padding = _ends(padding, "padding", "ZeroPadding1D")

    def check_input(self, shape: tuple) -> None:
        check_sequence(self, shape)

    def call(self, inputs: Any) -> Any:
        return pad(inputs, [[0, 0], list(self.padding), [0, 0]])


class Cropping1D(Layer):
    """Steps cut off the start and end of each sequence: cropping=1 or (start, end)."""

    def __init__(self, cropping: Any = (1, 1), **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.cropping = _ends(cropping, "cropping", "Cropping1D")

    def check_input(self, shape: tuple) -> None:
        check_sequence(self, shape)
        if sum(self.cropping) >= shape[1]:
            raise incompatible(self, shape, f"sequences longer than the crop {self.cropping}")

    def call(self, inputs: Any) -> Any:
        start, end = self.cropping
        return inputs[:, start : int(inputs.shape[1]) - end, :]


class Permute(Layer):
    """The non-batch axes in a new order: dims counts them from 1, e.g. Permute((2, 1)) swaps two."""

    def __init__(self, dims: Any, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.dims = tuple(int(d) for d in dims)
        if sorted(self.dims) != list(range(1, len(self.dims) + 1)):
            raise ValueError(f"Permute: dims must be a permutation of 1..{len(self.dims)}, not {dims!r}")

    def check_input(self, shape: tuple) -> None:
        if len(shape) != len(self.dims) + 1:
            raise incompatible(self, shape, f"inputs of rank {len(self.dims) + 1} (a batch axis and {self.dims})")

    def call(self, inputs: Any) -> Any:
        return transpose(inputs, perm=[0, *self.dims])


class RepeatVector(Layer):
    """(batch, features) -> (batch, n, features): the input repeated n times."""

    def __init__(self, n: int, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.n = int(n)

    def check_input(self, shape: tuple) -> None:
        if len(shape) != 2:
            raise incompatible(self, shape, "a 2-D input (batch, features)")

    def call(self, inputs: Any) -> Any:
        return tile(expand_dims(inputs, 1), [1, self.n, 1])
