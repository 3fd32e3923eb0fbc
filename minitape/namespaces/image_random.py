"""`mt.image`'s random augmentations: `random_brightness`, `random_contrast`, `random_saturation`, `random_hue`,
`random_crop`, and their `stateless_random_*` forms (with the stateless flips), as TensorFlow defines them: one
factor drawn uniformly for the whole call, then the matching `adjust_*`; a crop at a random offset.

The stateful ones draw from mt.random (the global generator, or `seed` alone when given); the stateless ones from
`seed`, two integers: the same seed gives the same image. The numbers are numpy's, not TensorFlow's (see
mt.random.stateless_uniform). Every one of them runs anew at each call of a traced function (a crop's offset and
a stateless seed are Python numbers here, which a trace must not freeze).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minitape.function.trace import runs_each_call
from minitape.namespaces import image as _image_ns
from minitape.namespaces import image_color
from minitape.values.convert import convert_to_tensor
from minitape.values.errors import InvalidArgumentError


def _check_range(lower: Any, upper: Any) -> None:
    if upper <= lower:
        raise ValueError("upper must be > lower.")
    if lower < 0:
        raise ValueError("lower must be non-negative.")


def _check_delta(max_delta: Any, most: float | None = None) -> None:
    if most is not None and max_delta > most:
        raise ValueError(f"max_delta must be <= {most}.")
    if max_delta < 0:
        raise ValueError("max_delta must be non-negative.")


def _brightness(image: Any, max_delta: float, seed: Any, stateless: bool) -> Any:
    _check_delta(max_delta)
    return _image_ns.adjust_brightness(image, _image_ns.draw_uniform([], -max_delta, max_delta, seed, stateless))


def _contrast(image: Any, lower: float, upper: float, seed: Any, stateless: bool) -> Any:
    _check_range(lower, upper)
    return _image_ns.adjust_contrast(image, _image_ns.draw_uniform([], lower, upper, seed, stateless))


def _saturation(image: Any, lower: float, upper: float, seed: Any, stateless: bool) -> Any:
    _check_range(lower, upper)
    return image_color.adjust_saturation(image, _image_ns.draw_uniform([], lower, upper, seed, stateless))


def _hue(image: Any, max_delta: float, seed: Any, stateless: bool) -> Any:
    _check_delta(max_delta, 0.5)
    return image_color.adjust_hue(image, _image_ns.draw_uniform([], -max_delta, max_delta, seed, stateless))


def _crop(value: Any, size: Any, seed: Any, stateless: bool) -> Any:
    value = convert_to_tensor(value)
    shape, size = np.array(value.shape), np.asarray(getattr(size, "_value", size), np.int64).ravel()
    if size.shape != shape.shape:
        raise InvalidArgumentError(
            f"random_crop: Incompatible shapes: size {size.tolist()} has {len(size)} numbers but value (shape "
            f"{shape.tolist()}) has {len(shape)} axes; give one size per axis (e.g. [height, width, channels])"
        )
    if (shape < size).any():
        raise InvalidArgumentError(f"Need value.shape >= size, got {shape.tolist()} {size.tolist()}")
    offset = _image_ns.draw_uniform(
        [len(shape)], np.zeros_like(shape), shape - size + 1, seed, stateless, "int64"
    ).numpy()
    return value[tuple(slice(int(o), int(o + n)) for o, n in zip(offset, size))]


@runs_each_call
def random_brightness(image: Any, max_delta: float, seed: Any = None) -> Any:
    """`adjust_brightness` by a delta drawn from [-max_delta, max_delta)."""
    return _brightness(image, max_delta, seed, stateless=False)


@runs_each_call
def random_contrast(image: Any, lower: float, upper: float, seed: Any = None) -> Any:
    """`adjust_contrast` by a factor drawn from [lower, upper)."""
    return _contrast(image, lower, upper, seed, stateless=False)


@runs_each_call
def random_saturation(image: Any, lower: float, upper: float, seed: Any = None) -> Any:
    """`adjust_saturation` by a factor drawn from [lower, upper)."""
    return _saturation(image, lower, upper, seed, stateless=False)


@runs_each_call
def random_hue(image: Any, max_delta: float, seed: Any = None) -> Any:
    """`adjust_hue` by a delta drawn from [-max_delta, max_delta), max_delta at most 0.5."""
    return _hue(image, max_delta, seed, stateless=False)


@runs_each_call
def random_crop(value: Any, size: Any, seed: Any = None, name: str | None = None) -> Any:
    """A piece of `value` of shape `size` (one number per axis) at a random offset."""
    return _crop(value, size, seed, stateless=False)


@runs_each_call
def stateless_random_brightness(image: Any, max_delta: float, seed: Any) -> Any:
    """`random_brightness` drawn from `seed` (two integers)."""
    return _brightness(image, max_delta, seed, stateless=True)


@runs_each_call
def stateless_random_contrast(image: Any, lower: float, upper: float, seed: Any) -> Any:
    """`random_contrast` drawn from `seed` (two integers)."""
    return _contrast(image, lower, upper, seed, stateless=True)


@runs_each_call
def stateless_random_saturation(image: Any, lower: float, upper: float, seed: Any) -> Any:
    """`random_saturation` drawn from `seed` (two integers)."""
    return _saturation(image, lower, upper, seed, stateless=True)


@runs_each_call
def stateless_random_hue(image: Any, max_delta: float, seed: Any) -> Any:
    """`random_hue` drawn from `seed` (two integers)."""
    return _hue(image, max_delta, seed, stateless=True)


@runs_each_call
def stateless_random_crop(value: Any, size: Any, seed: Any, name: str | None = None) -> Any:
    """`random_crop` drawn from `seed` (two integers)."""
    return _crop(value, size, seed, stateless=True)


@runs_each_call
def stateless_random_flip_left_right(image: Any, seed: Any) -> Any:
    """Each image mirrored with probability 1/2, drawn from `seed` (two integers)."""
    return _image_ns.random_flip(image, seed, True, -2)


@runs_each_call
def stateless_random_flip_up_down(image: Any, seed: Any) -> Any:
    """Each image turned upside down with probability 1/2, drawn from `seed` (two integers)."""
    return _image_ns.random_flip(image, seed, True, -3)


def stateless_random_jpeg_quality(image: Any, min_jpeg_quality: int, max_jpeg_quality: int, seed: Any) -> Any:
    """Not in minitape: there is no JPEG codec to encode and decode the image with."""
    raise NotImplementedError(
        "tf.image.stateless_random_jpeg_quality is not in minitape: it has no JPEG codec to encode and decode "
        "images with. Leave the step out, or re-encode the images beforehand with Pillow "
        "(Image.save(buffer, 'JPEG', quality=q)) and load them with numpy"
    )
