"""`mt.image`: resizing, flips, rotations by quarter turns, crops and pads, brightness and contrast, and
`convert_image_dtype`, on channels-last images (height, width, channels) or batches of them; the colour functions
(image_color.py) and the random augmentations (image_random.py) are imported at the end.

`adjust_contrast` is registered with no gradient rule at all, exactly as in TensorFlow,
so differentiating through it raises LookupError: the guide's (and a lesson's) example
of an op the registry does not cover. The rest here are differentiable: `resize` reads the image at fixed points
(minitape/ops/image_ops.py), the others are slices, reversals, transposes, pads and additions.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minitape.engine.opdef import defop
from minitape.ops.api import cast, where
from minitape.ops.array_ops import pad, transpose
from minitape.ops.shape_ops import reverse
from minitape.values.convert import convert_to_tensor
from minitape.values.errors import InvalidArgumentError


def _adjust_contrast(images: np.ndarray, factor: np.ndarray) -> np.ndarray:
    """(x - mean) * factor + mean, the mean taken per channel over height and width."""
    mean = images.mean(axis=(-3, -2), keepdims=True)
    return (images - mean) * factor + mean


_adjust_contrast_op = defop("AdjustContrastv2", _adjust_contrast, same_dtype=(0, 1))  # no gradient registered


def adjust_contrast(images: Any, contrast_factor: Any) -> Any:
    """Scale each channel's distance from its mean by `contrast_factor` (images: [..., height, width, channels]);
    computed in float32 as TensorFlow does, integer images on the [0, 1] scale and saturated back."""
    images = convert_to_tensor(images)
    adjusted = _adjust_contrast_op(as_float(images), cast(contrast_factor, "float32"))
    return convert_image_dtype(adjusted, images.dtype, saturate=True)


def as_float(image: Any, keep_half: bool = True) -> Any:
    """The image as TensorFlow's colour ops take it: float32 (and float16 if `keep_half`) as they are, any other
    dtype converted to float32 (integers on the [0, 1] scale)."""
    keep = ("float16", "float32") if keep_half else ("float32",)
    return image if image.dtype.name in keep else convert_image_dtype(image, "float32")


def convert_image_dtype(image: Any, dtype: Any, saturate: bool = False, name: str | None = None) -> Any:
    """Convert pixel values between integer and float ranges, as TensorFlow does: an integer image is divided
    by its type's maximum (uint8 / 255 gives [0, 1]); a float image in [0, 1] is scaled by max + 0.5 and cast
    (values outside [0, 1] wrap unless saturate=True). Float to float is a plain cast."""
    from minitape.ops.api import clip_by_value
    from minitape.values.dtypes import as_dtype

    source, target = image.dtype if hasattr(image, "dtype") else as_dtype(np.asarray(image).dtype), as_dtype(dtype)
    if source == target:
        return image
    if target.is_floating:
        value = cast(image, target)
        return value if source.is_floating else value * (1.0 / source.max)  # TensorFlow's arithmetic
    if source.is_floating:
        scaled = image * (target.max + 0.5)
        return cast(clip_by_value(scaled, float(target.min), float(target.max)) if saturate else scaled, target)
    return cast(cast(image, "float64") / float(source.max) * (target.max + 0.5), target)  # integer to integer


class ResizeMethod:
    """The names `resize` takes for `method`; minitape computes BILINEAR and NEAREST_NEIGHBOR."""

    BILINEAR = "bilinear"
    NEAREST_NEIGHBOR = "nearest"
    BICUBIC = "bicubic"
    AREA = "area"
    LANCZOS3 = "lanczos3"
    LANCZOS5 = "lanczos5"
    GAUSSIAN = "gaussian"
    MITCHELLCUBIC = "mitchellcubic"


def resize(
    images: Any,
    size: Any,
    method: str = ResizeMethod.BILINEAR,
    preserve_aspect_ratio: bool = False,
    antialias: bool = False,
    name: str | None = None,
) -> Any:
    """`images` (batch, h, w, c) or (h, w, c) resized to `size` = (new_height, new_width), with half-pixel centres
    as TensorFlow 2. Bilinear gives float32 whatever the input dtype; nearest keeps the dtype. With
    `preserve_aspect_ratio` the image is scaled to fit inside `size`, keeping its shape."""
    from minitape.ops.image_ops import checked_method, resample, resize_points

    images = _image(images, "'images' must have either 3 or 4 dimensions.", exact=True)
    method = checked_method(method, "tf.image.resize")
    (h, w), size = images.shape[-3:-1], _resize_size(size)
    if preserve_aspect_ratio:  # TensorFlow's float32 arithmetic, rounded
        scale = min(np.float32(size[0]) / np.float32(h), np.float32(size[1]) / np.float32(w))
        size = (int(np.round(np.float32(h) * scale)), int(np.round(np.float32(w) * scale)))
    if antialias and method == "bilinear" and (size[0] < h or size[1] < w):
        raise NotImplementedError(
            "tf.image.resize: antialias=True when shrinking is not in minitape (TensorFlow then widens the "
            "bilinear kernel); use antialias=False, or shrink in steps of at most 2 to keep the aliasing small"
        )
    if method == "bilinear":
        images = cast(images, "float32")
    return resample(images, resize_points((h, w), size, method), method, "nearest")


def _resize_size(size: Any) -> tuple[int, int]:
    array = np.asarray(getattr(size, "_value", size))
    if array.shape != (2,):
        raise ValueError("'size' must be a 1-D Tensor of 2 elements: new_height, new_width")
    if array.dtype.kind not in "iu":
        raise ValueError(f"'size' must be a 1-D int32 Tensor (got {size!r}: write whole numbers of pixels)")
    if (array <= 0).any():
        raise InvalidArgumentError(f"output dimensions must be positive (size {array.tolist()})")
    return int(array[0]), int(array[1])


def _image(image: Any, message: str, exact: bool = False) -> Any:
    """`image` as a tensor of rank 3 or 4 (or more, unless `exact`), else TensorFlow's ValueError."""
    image = convert_to_tensor(image)
    rank = len(image.shape)
    if rank < 3 or (exact and rank > 4):
        raise ValueError(message.format(shape=tuple(image.shape)))
    return image


_AT_LEAST_3 = "'image' (shape {shape}) must be at least three-dimensional."
_3_OR_4 = "'image' (shape {shape}) must have either 3 or 4 dimensions."


def flip_left_right(image: Any) -> Any:
    """The image (or each image of a batch) mirrored: its columns in reverse order."""
    return reverse(_image(image, _3_OR_4 if len(np.shape(image)) > 4 else _AT_LEAST_3), [-2])


def flip_up_down(image: Any) -> Any:
    """The image (or each image of a batch) upside down: its rows in reverse order."""
    return reverse(_image(image, _3_OR_4 if len(np.shape(image)) > 4 else _AT_LEAST_3), [-3])


def random_flip_left_right(image: Any, seed: int | None = None) -> Any:
    """Each image mirrored with probability 1/2, each image of a batch drawn on its own."""
    return random_flip(image, seed, False, -2)


def random_flip_up_down(image: Any, seed: int | None = None) -> Any:
    """Each image turned upside down with probability 1/2, each image of a batch drawn on its own."""
    return random_flip(image, seed, False, -3)


def draw_uniform(shape: list, low: Any, high: Any, seed: Any, stateless: bool, dtype: Any = "float32") -> Any:
    """Uniform numbers in [low, high): from mt.random (the global generator, or `seed` alone), or, `stateless`,
    from the two integers of `seed` (TensorFlow's error for any other seed)."""
    from minitape.namespaces import random

    if not stateless:
        return random.uniform(shape, low, high, dtype=dtype, seed=seed)
    random._seed_tensor(seed)
    return random.stateless_uniform(shape, seed, low, high, dtype=dtype)


def random_flip(image: Any, seed: Any, stateless: bool, axis: int) -> Any:
    """`image` reversed along `axis` with probability 1/2, one draw per image of a batch."""
    image = _image(image, _AT_LEAST_3)
    draws = [image.shape[0], 1, 1, 1] if len(image.shape) == 4 else [1, 1, 1]
    return where(draw_uniform(draws, 0.0, 1.0, seed, stateless) < 0.5, reverse(image, [axis]), image)


def rot90(image: Any, k: Any = 1, name: str | None = None) -> Any:
    """The image (or each image of a batch) turned k quarter turns counter-clockwise (k < 0: clockwise)."""
    image = _image(image, _3_OR_4, exact=True)
    k = int(k) % 4
    if k == 0:
        return image
    if k == 2:
        return reverse(image, [-3, -2])
    perm = [1, 0, 2] if len(image.shape) == 3 else [0, 2, 1, 3]
    return transpose(reverse(image, [-2]), perm) if k == 1 else reverse(transpose(image, perm), [-2])


def adjust_brightness(image: Any, delta: Any) -> Any:
    """`image + delta`, computed on the [0, 1] scale for integer images (uint8 200 + 0.5 saturates at 255)."""
    image = convert_to_tensor(image)
    if image.dtype.is_floating:
        return image + cast(delta, image.dtype)
    brighter = convert_image_dtype(image, "float32") + cast(delta, "float32")
    return convert_image_dtype(brighter, image.dtype, saturate=True)


def central_crop(image: Any, central_fraction: float) -> Any:
    """The centre of the image (or of each image of a batch): `central_fraction` of its height and width."""
    if not 0.0 < central_fraction <= 1.0:
        raise ValueError("central_fraction must be within (0, 1]")
    image = _image(image, _AT_LEAST_3)
    if central_fraction == 1.0:
        return image
    h, w = image.shape[-3:-1]
    top, left = int((h - h * central_fraction) / 2), int((w - w * central_fraction) / 2)
    return image[..., top : h - top, left : w - left, :]


def resize_with_crop_or_pad(image: Any, target_height: int, target_width: int) -> Any:
    """The image cropped about its centre where it is larger than the target, padded with zeros about it where
    it is smaller (a pixel more after than before when the difference is odd)."""
    image = _image(image, _3_OR_4, exact=True)
    for what, n in (("target_height", target_height), ("target_width", target_width)):
        if int(n) <= 0:
            raise ValueError(f"{what} must be > 0.")
    h, w = image.shape[-3:-1]
    top, left = max((h - target_height) // 2, 0), max((w - target_width) // 2, 0)
    image = image[..., top : top + min(h, target_height), left : left + min(w, target_width), :]
    above, before = max((target_height - h) // 2, 0), max((target_width - w) // 2, 0)
    padding = [[above, target_height - above - image.shape[-3]], [before, target_width - before - image.shape[-2]]]
    return pad(image, [[0, 0]] * (len(image.shape) - 3) + padding + [[0, 0]])


# the colour and random functions build on the ones above
from minitape.namespaces.image_color import (  # noqa: E402, F401  (re-exported)
    adjust_gamma,
    adjust_hue,
    adjust_saturation,
    grayscale_to_rgb,
    hsv_to_rgb,
    per_image_standardization,
    rgb_to_grayscale,
    rgb_to_hsv,
)
from minitape.namespaces.image_random import (  # noqa: E402, F401  (re-exported)
    random_brightness,
    random_contrast,
    random_crop,
    random_hue,
    random_saturation,
    stateless_random_brightness,
    stateless_random_contrast,
    stateless_random_crop,
    stateless_random_flip_left_right,
    stateless_random_flip_up_down,
    stateless_random_hue,
    stateless_random_jpeg_quality,
    stateless_random_saturation,
)


def __getattr__(name: str) -> Any:
    from minitape.namespaces import missing

    missing.raise_missing("tf.image", name, missing.IMAGE)
