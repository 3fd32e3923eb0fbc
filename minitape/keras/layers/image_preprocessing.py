"""The image layers a model or a `dataset.map` puts first: `Resizing` and `CenterCrop` (deterministic), and the
random augmentations `RandomFlip`, `RandomRotation`, `RandomZoom`, `RandomTranslation`, `RandomCrop`,
`RandomContrast`, `RandomBrightness`, with Keras 3.15's arguments, draws and defaults.

Images are channels-last, one (height, width, channels) or a batch (batch, height, width, channels). The geometry
(resizing, rotation, zoom, translation) reads the image at computed points with one sampler
(minitape/ops/image_ops.py), linear in the image, so gradients flow through every layer here to the pixels.

A random layer transforms only when training: `fit` calls it with training=True, `predict` and `evaluate` with
training=False (the images pass through unchanged). Called with no `training` at all, outside any model or in a
model called as `model(x)`, it augments, as Keras 3's image layers do (their `call` defaults to training=True).
Its numbers are drawn at every call, also in a traced `fit` step (`runs_each_call`): from its own numpy generator
when given a `seed` (the same sequence in every run), else from minitape's global one (`mt.random.set_seed`).
They are numpy's PCG64 draws, not the numbers TensorFlow draws for the same seed.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from minitape.engine.tensor import Tensor
from minitape.function.trace import runs_each_call
from minitape.keras.backend import check_channels_last
from minitape.keras.layers.base import Layer, incompatible, is_positive_int
from minitape.namespaces import random
from minitape.ops import math_ops
from minitape.ops.api import clip_by_value, reduce_mean, where
from minitape.ops.array_ops import pad
from minitape.ops.composite_ops import saturate_cast
from minitape.ops.image_ops import (
    FILL_MODES,
    INTERPOLATIONS,
    checked_method,
    resample,
    resize_points,
    transform_points,
)
from minitape.ops.shape_ops import reverse


def _size(value: Any, what: str, layer: str) -> int:
    if not is_positive_int(value):
        raise ValueError(f"{layer}: `{what}` must be a positive integer (a number of pixels), got {value!r}")
    return value


class _ImageLayer(Layer):
    """Checks the rank of its images (3 or 4) and their data_format (channels_last)."""

    def __init__(self, data_format: Any = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        check_channels_last(data_format, type(self).__name__)
        self.data_format = "channels_last"

    def check_input(self, shape: tuple) -> None:
        if len(shape) not in (3, 4):
            raise incompatible(
                self,
                shape,
                "images of rank 3 (height, width, channels) or 4 (batch, height, width, channels)",
                "A grayscale image needs its channels axis: x[..., None].",
            )

    def compute_output_shape(self, input_shape: tuple) -> tuple:
        return tuple(input_shape)


def _resized(images: Any, size: tuple, interpolation: str = "bilinear") -> Any:
    """tf.image.resize's pixels (half-pixel centres), keeping the images' dtype (the layer's)."""
    in_hw = tuple(images.shape[-3:-1])
    if in_hw == tuple(size) and interpolation == "bilinear":
        return images  # half-pixel centres on the same grid read each pixel itself
    return resample(images, resize_points(in_hw, size, interpolation), interpolation, "nearest")


def _aspect_box(h: int, w: int, size: tuple) -> tuple:
    """(top, left, height, width) of the largest centred box of the target's aspect ratio, as Keras rounds it."""
    crop_h = max(min(h, int(float(w * size[0]) / size[1])), 1)
    crop_w = max(min(w, int(float(h * size[1]) / size[0])), 1)
    return int(float(h - crop_h) / 2), int(float(w - crop_w) / 2), crop_h, crop_w


def _cropped_to_aspect(images: Any, size: tuple) -> Any:
    """The images cut to that box (Keras's crop_to_aspect_ratio, and its smart_resize's crop)."""
    top, left, crop_h, crop_w = _aspect_box(*images.shape[-3:-1], size)
    return images[..., top : top + crop_h, left : left + crop_w, :]


class Resizing(_ImageLayer):
    """Resize images to (height, width), bilinear (the default) or nearest, as tf.image.resize does.

    `crop_to_aspect_ratio=True` first crops the largest centred box of the target's aspect ratio (no distortion,
    edges lost); `pad_to_aspect_ratio=True` first pads both sides with `fill_value` to that ratio instead.
    """

    def __init__(
        self,
        height: int,
        width: int,
        interpolation: str = "bilinear",
        crop_to_aspect_ratio: bool = False,
        pad_to_aspect_ratio: bool = False,
        fill_mode: str = "constant",
        fill_value: float = 0.0,
        antialias: bool = False,
        data_format: Any = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(data_format, **kwargs)
        self.height, self.width = _size(height, "height", "Resizing"), _size(width, "width", "Resizing")
        self.interpolation = checked_method(interpolation, "Resizing")
        if crop_to_aspect_ratio and pad_to_aspect_ratio:
            raise ValueError("Only one of `pad_to_aspect_ratio` & `crop_to_aspect_ratio` can be `True`.")
        if fill_mode != "constant":
            raise ValueError(
                "Invalid value for argument `fill_mode`. Only `'constant'` is supported. "
                f"Received: fill_mode={fill_mode}"
            )
        if antialias:
            raise NotImplementedError(
                "Resizing: antialias=True is not in minitape (TensorFlow then widens the kernel when shrinking); "
                "use antialias=False"
            )
        self.crop_to_aspect_ratio, self.pad_to_aspect_ratio = crop_to_aspect_ratio, pad_to_aspect_ratio
        self.fill_mode, self.fill_value, self.antialias = fill_mode, fill_value, antialias

    autocast = False  # integer images come back in their dtype, rounded, as Keras 3's Resizing gives them

    def call(self, inputs: Any) -> Any:
        size, integer = (self.height, self.width), inputs.dtype.is_integer
        images = math_ops.cast(inputs, self.dtype)  # floats of any width come out in the layer's dtype (float32)
        if self.crop_to_aspect_ratio:
            images = _cropped_to_aspect(images, size)
        elif self.pad_to_aspect_ratio:
            images = self._padded_to_aspect(images)
        resized = _resized(images, size, self.interpolation)
        return saturate_cast(math_ops.round(resized), inputs.dtype) if integer else resized

    def _padded_to_aspect(self, images: Any) -> Any:
        """`fill_value` rows (or columns) on both sides, as many on each, to reach the target's aspect ratio."""
        h, w = images.shape[-3:-1]
        tall = max(h, int(float(w * self.height) / self.width))
        wide = max(w, int(float(h * self.width) / self.height))
        top, left = int(float(tall - h) / 2), int(float(wide - w) / 2)
        paddings = [[0, 0]] * (len(images.shape) - 3) + [[top, top], [left, left], [0, 0]]
        return pad(images, paddings, constant_values=self.fill_value)

    def compute_output_shape(self, input_shape: tuple) -> tuple:
        return (*tuple(input_shape)[:-3], self.height, self.width, input_shape[-1])


class CenterCrop(_ImageLayer):
    """The centred (height, width) box of each image; an image smaller than that on either side is instead
    cropped to the target's aspect ratio and resized to it (bilinear), as Keras 3 does."""

    def __init__(self, height: int, width: int, data_format: Any = None, **kwargs: Any) -> None:
        super().__init__(data_format, **kwargs)
        self.height, self.width = _size(height, "height", "CenterCrop"), _size(width, "width", "CenterCrop")

    def call(self, inputs: Any) -> Any:
        h, w = inputs.shape[-3:-1]
        if h < self.height or w < self.width:
            return _resized(_cropped_to_aspect(inputs, (self.height, self.width)), (self.height, self.width))
        top, left = (h - self.height) // 2, (w - self.width) // 2
        return inputs[..., top : top + self.height, left : left + self.width, :]

    compute_output_shape = Resizing.compute_output_shape


# ---- the random layers --------------------------------------------------------------------------------
class _RandomLayer(_ImageLayer):
    """Transforms its images when training (the default when no model says otherwise); else passes them on."""

    def __init__(self, seed: int | None = None, data_format: Any = None, **kwargs: Any) -> None:
        super().__init__(data_format, **kwargs)
        self.seed = seed
        self._rng = np.random.default_rng(seed) if seed is not None else None

    def call(self, inputs: Any, training: bool = True) -> Any:
        return self.transform(inputs) if training else inputs

    def transform(self, images: Any) -> Any:
        raise NotImplementedError

    @runs_each_call  # a traced train step draws new numbers at every call, not the ones of its trace
    def _draw(self, how: str, shape: tuple, *args: Any) -> Tensor:
        """`getattr(self, how)(generator, shape, *args)`: the numbers of one call, as a tensor."""
        return Tensor(getattr(self, how)(self._rng or random.generator(), shape, *args))


def _per_image(images: Any) -> tuple:
    """(batch,) for a batch, (1,) for one image: how many draws a call takes."""
    return (images.shape[0] if len(images.shape) == 4 else 1,)


def _as_images(values: Any, images: Any) -> Any:
    """Per-image values (n,) shaped to broadcast against the images."""
    return values[:, None, None, None] if len(images.shape) == 4 else values[0]


class RandomFlip(_RandomLayer):
    """Mirror each image with probability 1/2: "horizontal" (left-right), "vertical" (up-down), or
    "horizontal_and_vertical" (the default), where, as in Keras 3.15, one draw decides both flips: an image is
    either turned half round or left as it is."""

    MODES = {"horizontal": (-2,), "vertical": (-3,), "horizontal_and_vertical": (-2, -3)}

    def __init__(
        self, mode: str = "horizontal_and_vertical", seed: int | None = None, data_format: Any = None, **kwargs: Any
    ) -> None:
        super().__init__(seed, data_format, **kwargs)
        if mode not in self.MODES:
            raise ValueError(f"RandomFlip: mode must be one of {sorted(self.MODES)}, got {mode!r}")
        self.mode = mode

    def transform(self, images: Any) -> Any:
        flips = _as_images(self._draw("flips", _per_image(images)), images)
        return where(flips, reverse(images, list(self.MODES[self.mode])), images)

    @staticmethod
    def flips(rng: np.random.Generator, shape: tuple) -> np.ndarray:
        return rng.random(shape) <= 0.5


def _factor_pair(factor: Any, low: float, high: float, message: str, open_low: bool = False) -> tuple:
    """Keras's (lower, upper) of a factor given as a number f (-|f|, |f|) or a pair (sorted), within [low, high]."""
    out_of_range = (lambda v: v <= low or v > high) if open_low else (lambda v: v < low or v > high)
    if isinstance(factor, (tuple, list)) and len(factor) == 2 and all(isinstance(v, (int, float)) for v in factor):
        if any(out_of_range(v) for v in factor):
            raise ValueError(message + f"Received: factor={factor}")
        lower, upper = sorted(factor)
        return float(lower), float(upper)
    if isinstance(factor, (int, float)) and not isinstance(factor, bool) and not out_of_range(factor):
        return float(max(-abs(factor), low)), float(abs(factor))
    raise ValueError(message + f"Received: factor={factor}")


class _AffineLayer(_RandomLayer):
    """Reads each image at the points of a random affine transform (`matrices`), filling what falls outside."""

    def __init__(self, fill_mode: str, interpolation: str, seed: Any, fill_value: float, data_format: Any, **kw):
        super().__init__(seed, data_format, **kw)
        if fill_mode not in FILL_MODES:
            raise NotImplementedError(f"Unknown `fill_mode` {fill_mode}. Expected of one {FILL_MODES}.")
        if interpolation not in INTERPOLATIONS:
            raise NotImplementedError(f"Unknown `interpolation` {interpolation}. Expected of one {INTERPOLATIONS}.")
        self.fill_mode, self.interpolation, self.fill_value = fill_mode, interpolation, fill_value

    def transform(self, images: Any) -> Any:
        points = self._draw("points", _per_image(images), tuple(images.shape[-3:-1]))
        return resample(images, points, self.interpolation, self.fill_mode, self.fill_value)

    def points(self, rng: np.random.Generator, shape: tuple, hw: tuple) -> np.ndarray:
        return transform_points(self.matrices(rng, shape[0], *hw), hw)


class RandomRotation(_AffineLayer):
    """Rotate each image about its centre by a random angle: `factor` is a fraction of a full turn, a number f
    (between -f and f turns; 0.2 is up to 72 degrees either way) or a pair (lower, upper)."""

    def __init__(
        self,
        factor: Any,
        fill_mode: str = "reflect",
        interpolation: str = "bilinear",
        seed: int | None = None,
        fill_value: float = 0.0,
        data_format: Any = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(fill_mode, interpolation, seed, fill_value, data_format, **kwargs)
        message = "The `factor` argument should be a number (or a list of two numbers) in the range [-1, 1]. "
        self.factor = _factor_pair(factor, -1.0, 1.0, message)

    def matrices(self, rng: np.random.Generator, n: int, h: int, w: int) -> np.ndarray:
        """Keras 3's rotation about ((w - 1) / 2, (h - 1) / 2), as the transform from output to input pixels."""
        angles = rng.uniform(self.factor[0] * 360.0, self.factor[1] * 360.0, n).astype(np.float32)
        return rotation_matrices(angles, h, w)


def rotation_matrices(degrees: np.ndarray, h: int, w: int) -> np.ndarray:
    """The projective transforms (n, 8) that rotate images of (h, w) about their centres by `degrees`."""
    theta = np.asarray(degrees, np.float32) * np.float32(math.pi / 180.0)
    cos, sin = np.cos(theta), np.sin(theta)
    cx, cy = np.float32(0.5 * (w - 1)), np.float32(0.5 * (h - 1))
    zero = np.zeros_like(theta)
    rows = [cos, -sin, cx - cx * cos + cy * sin, sin, cos, cy - cx * sin - cy * cos, zero, zero]
    return np.stack(rows, axis=1)


class RandomZoom(_AffineLayer):
    """Zoom each image about its centre: `height_factor` f draws a zoom 1 + u, u between -f and f (or in a pair
    (lower, upper)); positive values zoom out (the image shrinks in its frame), negative ones zoom in.
    `width_factor` draws the horizontal zoom on its own; None (the default) keeps the height's, so the aspect
    ratio stays."""

    def __init__(
        self,
        height_factor: Any,
        width_factor: Any = None,
        fill_mode: str = "reflect",
        interpolation: str = "bilinear",
        seed: int | None = None,
        fill_value: float = 0.0,
        data_format: Any = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(fill_mode, interpolation, seed, fill_value, data_format, **kwargs)
        message = (
            "The `height_factor` and `width_factor` arguments should be a number (or a list of two numbers) in the "
            "range (-1.0, 1.0]. "
        )
        self.height_factor, self.width_factor = height_factor, width_factor
        self.height_range = _factor_pair(height_factor, -1.0, 1.0, message, open_low=True)
        self.width_range = None if width_factor is None else _factor_pair(width_factor, -1.0, 1.0, message, True)

    def matrices(self, rng: np.random.Generator, n: int, h: int, w: int) -> np.ndarray:
        zy = rng.uniform(1.0 + self.height_range[0], 1.0 + self.height_range[1], n).astype(np.float32)
        zx = zy if self.width_range is None else rng.uniform(*(1.0 + np.array(self.width_range)), n)
        zx, zero = zx.astype(np.float32), np.zeros(n, np.float32)
        rows = [zx, zero, (w - 1) / 2.0 * (1 - zx), zero, zy, (h - 1) / 2.0 * (1 - zy), zero, zero]
        return np.stack(rows, axis=1).astype(np.float32)


class RandomTranslation(_AffineLayer):
    """Shift each image by a random fraction of its size: `height_factor` 0.2 shifts it up or down by up to 20% of
    its height, `width_factor` left or right (a number f for -f to f, or a pair (lower, upper))."""

    def __init__(
        self,
        height_factor: Any,
        width_factor: Any,
        fill_mode: str = "reflect",
        interpolation: str = "bilinear",
        seed: int | None = None,
        fill_value: float = 0.0,
        data_format: Any = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(fill_mode, interpolation, seed, fill_value, data_format, **kwargs)
        message = "The `factor` argument should be a number (or a list of two numbers) in the range [-1.0, 1.0]. "
        self.height_factor, self.width_factor = height_factor, width_factor
        self.height_range = _factor_pair(height_factor, -1.0, 1.0, message)
        self.width_range = _factor_pair(width_factor, -1.0, 1.0, message)

    def matrices(self, rng: np.random.Generator, n: int, h: int, w: int) -> np.ndarray:
        dy = (rng.uniform(*self.height_range, n) * h).astype(np.float32)
        dx = (rng.uniform(*self.width_range, n) * w).astype(np.float32)
        one, zero = np.ones(n, np.float32), np.zeros(n, np.float32)
        return np.stack([one, zero, -dx, zero, one, -dy, zero, zero], axis=1)


class RandomCrop(_RandomLayer):
    """A (height, width) box at a random place, the same place for every image of a batch (as Keras 3 draws it).
    An image not larger than the box on both sides is cropped to the box's aspect ratio and resized instead.
    At inference (training=False) the images pass through uncropped, as in Keras 3.15."""

    def __init__(self, height: int, width: int, seed: int | None = None, data_format: Any = None, **kwargs: Any):
        super().__init__(seed, data_format, **kwargs)
        self.height, self.width = _size(height, "height", "RandomCrop"), _size(width, "width", "RandomCrop")

    def transform(self, images: Any) -> Any:
        h, w = images.shape[-3:-1]
        if h > self.height and w > self.width:
            points = self._draw("box", (1,), h - self.height + 1, w - self.width + 1)
            return resample(images, points, "nearest", "constant")  # whole pixels: an exact copy of the box
        top, left, _, _ = _aspect_box(h, w, (self.height, self.width))  # Keras 3 takes the box from the
        box = images[..., top : top + self.height, left : left + self.width, :]  # aspect crop's corner
        return box if tuple(box.shape[-3:-1]) == (self.height, self.width) else _resized(box, (self.height, self.width))

    def box(self, rng: np.random.Generator, shape: tuple, rows: int, cols: int) -> np.ndarray:
        """The points of the box's pixels, (1, height, width, 2), at a random top-left corner."""
        top, left = int(rng.uniform(0, rows)), int(rng.uniform(0, cols))
        ys, xs = np.meshgrid(np.arange(top, top + self.height), np.arange(left, left + self.width), indexing="ij")
        return np.stack([ys, xs], axis=-1)[None].astype(np.float32)

    compute_output_shape = Resizing.compute_output_shape


class RandomContrast(_RandomLayer):
    """(x - mean) * c + mean per image and channel (the mean over height and width), c drawn per image between
    1 - lower and 1 + upper of `factor` (a number f gives lower 0: c in [1, 1 + f], as Keras 3.15 computes it),
    then clipped to `value_range`."""

    def __init__(self, factor: Any, value_range: Any = (0, 255), seed: int | None = None, **kwargs: Any) -> None:
        super().__init__(seed, **kwargs)
        message = "The `factor` argument should be a number (or a list of two numbers) in the range [0, 1]. "
        self.factor = _factor_pair(factor, 0.0, 1.0, message)
        self.value_range = _value_range(value_range)

    def transform(self, images: Any) -> Any:
        factors = _as_images(self._draw("factors", _per_image(images), images.dtype.as_numpy_dtype), images)
        mean = reduce_mean(images, axis=[-3, -2], keepdims=True)
        return clip_by_value((images - mean) * factors + mean, *self.value_range)

    def factors(self, rng: np.random.Generator, shape: tuple, dtype: Any) -> np.ndarray:
        return rng.uniform(1.0 - self.factor[0], 1.0 + self.factor[1], shape).astype(dtype)


class RandomBrightness(_RandomLayer):
    """Add delta * (value_range width) to each image, delta drawn per image within `factor` (a number f for -f to
    f, or a pair), then clip to `value_range` (default (0, 255): pixels as uint8 gives them)."""

    def __init__(self, factor: Any, value_range: Any = (0, 255), seed: int | None = None, **kwargs: Any) -> None:
        super().__init__(seed, **kwargs)
        message = "The `factor` argument should be a number (or a list of two numbers) in the range [-1, 1]. "
        self.factor = _factor_pair(factor, -1.0, 1.0, message)
        self.value_range = _value_range(value_range)

    def transform(self, images: Any) -> Any:
        deltas = self._draw("deltas", _per_image(images), images.dtype.as_numpy_dtype)
        return clip_by_value(images + _as_images(deltas, images), *self.value_range)

    def deltas(self, rng: np.random.Generator, shape: tuple, dtype: Any) -> np.ndarray:
        width = self.value_range[1] - self.value_range[0]
        return (rng.uniform(self.factor[0], self.factor[1], shape) * width).astype(dtype)


def _value_range(value_range: Any) -> tuple:
    if not isinstance(value_range, (tuple, list)) or len(value_range) != 2:
        raise ValueError(
            f"The `value_range` argument should be a list of two numbers. Received: value_range={value_range}"
        )
    low, high = sorted(value_range)
    return low, high
