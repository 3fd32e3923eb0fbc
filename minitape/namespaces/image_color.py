"""`mt.image`'s colour functions: grayscale, HSV, saturation, hue, gamma and per-image standardization, with
TensorFlow's dtypes (an integer image is converted to float32 on the [0, 1] scale and back, as TensorFlow does).

`rgb_to_grayscale`, `grayscale_to_rgb`, `rgb_to_hsv`, `hsv_to_rgb`, `adjust_gamma` and
`per_image_standardization` are made of differentiable ops; `adjust_saturation` and `adjust_hue` are one op each
with no gradient, as in TensorFlow (minitape/ops/image_color.py).
"""

from __future__ import annotations

from typing import Any

import minitape as mt
from minitape.namespaces.image import _image, as_float, convert_image_dtype
from minitape.values.convert import convert_to_tensor
from minitape.values.errors import FailedPreconditionError, InvalidArgumentError


def _three_channels(images: Any, op: str, error: type = InvalidArgumentError) -> Any:
    images = convert_to_tensor(images)
    channels = images.shape[-1] if len(images.shape) else 0
    if channels != 3:
        raise error(
            f"{op}: input must have 3 channels (red, green, blue on the last axis) but has {channels} "
            f"(shape {tuple(images.shape)})"
        )
    return images


def rgb_to_grayscale(images: Any, name: str | None = None) -> Any:
    """Luma 0.2989 R + 0.5870 G + 0.1140 B, with a last axis of 1: (..., 3) -> (..., 1), the input's dtype."""

    images = _three_channels(images, "rgb_to_grayscale")
    gray = mt.tensordot(convert_image_dtype(images, "float32"), mt.constant([0.2989, 0.5870, 0.1140]), [[-1], [-1]])
    return convert_image_dtype(mt.expand_dims(gray, -1), images.dtype)


def grayscale_to_rgb(images: Any, name: str | None = None) -> Any:
    """A grayscale image (..., 1) with its one channel repeated three times: (..., 3)."""

    images = convert_to_tensor(images)
    if len(images.shape) < 2:
        raise ValueError(f"A grayscale image (shape {tuple(images.shape)}) must be at least two-dimensional.")
    if images.shape[-1] != 1:
        raise ValueError(f"Last dimension of a grayscale image should be size 1 (shape {tuple(images.shape)}).")
    return mt.tile(images, [1] * (len(images.shape) - 1) + [3])


def _float_image(images: Any, op: str) -> Any:
    images = _three_channels(images, op, FailedPreconditionError)  # TensorFlow's type for these two ops
    if not images.dtype.is_floating:
        raise InvalidArgumentError(
            f"{op}: Value for attr 'T' of {images.dtype.name} is not in the list of allowed values: half, "
            "float, double; convert the images first with mt.image.convert_image_dtype(images, mt.float32)"
        )
    return images


def rgb_to_hsv(images: Any, name: str | None = None) -> Any:
    """Hue, saturation and value, each in [0, 1], of float RGB images in [0, 1] (last axis 3)."""
    return _hsv(_float_image(images, "rgb_to_hsv"))


def hsv_to_rgb(images: Any, name: str | None = None) -> Any:
    """RGB images of float HSV ones (last axis 3: hue, saturation, value in [0, 1])."""
    return _rgb(_float_image(images, "hsv_to_rgb"))


# TensorFlow's RGBToHSV and HSVToRGB arithmetic, in minitape ops: their gradient is the derivative of these very
# formulas (TensorFlow registers gradients for both). A division a `where` throws away divides by 1, not 0, so no
# inf or NaN reaches the gradient.
def _hsv(rgb: Any) -> Any:
    """Hue, saturation and value in [0, 1] of RGB pixels on the last axis (TensorFlow's RGBToHSV arithmetic)."""
    r, g, b = rgb[..., 0], rgb[..., 1], rgb[..., 2]
    v = mt.maximum(mt.maximum(r, g), b)
    spread = v - mt.minimum(mt.minimum(r, g), b)
    s = mt.where(v > 0, spread / mt.where(v > 0, v, 1.0), 0.0)
    norm = (1.0 / mt.where(spread > 0, spread, 1.0)) * (1.0 / 6.0)
    h = mt.where(r == v, norm * (g - b), mt.where(g == v, norm * (b - r) + 2 / 6, norm * (r - g) + 4 / 6))
    h = mt.where(spread > 0, h, 0.0)
    return mt.stack([mt.where(h < 0, h + 1.0, h), s, v], axis=-1)


def _unit(x: Any) -> Any:
    return mt.minimum(mt.maximum(x, 0.0), 1.0)


def _rgb(hsv: Any) -> Any:
    """RGB pixels of HSV ones (TensorFlow's HSVToRGB arithmetic: each channel a clipped tent of hue * 6)."""
    h, s, v = hsv[..., 0], hsv[..., 1], hsv[..., 2]
    dh = h * 6.0
    red = _unit(mt.abs(dh - 3.0) - 1.0)
    green = _unit(2.0 - mt.abs(dh - 2.0))
    blue = _unit(2.0 - mt.abs(dh - 4.0))
    grey = 1.0 - s
    return mt.stack([(grey + s * red) * v, (grey + s * green) * v, (grey + s * blue) * v], axis=-1)


def _adjusted(image: Any, op: Any, factor: Any, what: str) -> Any:
    """`op` (AdjustSaturation or AdjustHue) on a float32 form of `image`, converted back to its dtype."""
    from minitape.ops.api import cast

    image = convert_to_tensor(image)
    if len(image.shape) < 3:
        raise InvalidArgumentError(f"{what}: input must be at least 3-D, got shape {list(image.shape)}")
    _three_channels(image, what)
    return convert_image_dtype(op(as_float(image, keep_half=False), cast(factor, "float32")), image.dtype)


def adjust_saturation(image: Any, saturation_factor: Any, name: str | None = None) -> Any:
    """Each pixel's HSV saturation multiplied by `saturation_factor` and clipped to [0, 1] (last axis 3).
    No gradient, as in TensorFlow. float16 images are computed in float32 (TensorFlow's CPU kernel has none)."""
    from minitape.ops.image_color import adjust_saturation_op

    return _adjusted(image, adjust_saturation_op, saturation_factor, "adjust_saturation")


def adjust_hue(image: Any, delta: Any, name: str | None = None) -> Any:
    """Each pixel's hue turned by `delta` (in [-1, 1], a fraction of the colour circle). No gradient, as in
    TensorFlow."""
    from minitape.ops.image_color import adjust_hue_op

    if isinstance(delta, (int, float)) and not -1 <= delta <= 1:
        raise ValueError("delta must be in the interval [-1, 1]")
    return _adjusted(image, adjust_hue_op, delta, "adjust_hue")


def adjust_gamma(image: Any, gamma: Any = 1, gain: Any = 1) -> Any:
    """`gain * image ** gamma`, on the [0, 1] scale for integer images (saturated back to their dtype)."""

    image = convert_to_tensor(image)
    if float(mt.reduce_min(gamma)) < 0:
        raise ValueError("Gamma should be a non-negative real number.")
    flt = as_float(image)
    adjusted = mt.cast(gain, flt.dtype) * flt ** mt.cast(gamma, flt.dtype)
    return convert_image_dtype(adjusted, image.dtype, saturate=True)


def per_image_standardization(image: Any) -> Any:
    """Each image (the last three axes) less its mean, divided by max(its standard deviation, 1/sqrt(pixels)):
    float32 whatever the input dtype (integers are cast, not rescaled), as TensorFlow 2."""

    image = mt.cast(_image(image, "'image' (shape {shape}) must be at least three-dimensional."), "float32")
    pixels = image.shape[-3] * image.shape[-2] * image.shape[-1]
    mean = mt.reduce_mean(image, axis=[-1, -2, -3], keepdims=True)
    stddev = mt.reduce_std(image, axis=[-1, -2, -3], keepdims=True)
    return (image - mean) / mt.maximum(stddev, mt.math.rsqrt(mt.constant(float(pixels))))
