"""`mt.image`: the image op TensorFlow's autodiff guide uses, kept without a gradient on purpose, and
`convert_image_dtype`.

`adjust_contrast` is registered with no gradient rule at all, exactly as in TensorFlow,
so differentiating through it raises LookupError: the guide's (and a lesson's) example
of an op the registry does not cover.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minitape.engine.opdef import defop


def _adjust_contrast(images: np.ndarray, factor: np.ndarray) -> np.ndarray:
    """(x - mean) * factor + mean, the mean taken per channel over height and width."""
    mean = images.mean(axis=(-3, -2), keepdims=True)
    return (images - mean) * factor + mean


_adjust_contrast_op = defop("AdjustContrastv2", _adjust_contrast, same_dtype=(0, 1))  # no gradient registered


def adjust_contrast(images: Any, contrast_factor: Any) -> Any:
    """Scale each channel's distance from its mean by `contrast_factor` (images: [..., height, width, channels])."""
    return _adjust_contrast_op(images, contrast_factor)


def convert_image_dtype(image: Any, dtype: Any, saturate: bool = False, name: str | None = None) -> Any:
    """Convert pixel values between integer and float ranges, as TensorFlow does: an integer image is divided
    by its type's maximum (uint8 / 255 gives [0, 1]); a float image in [0, 1] is scaled by max + 0.5 and cast
    (values outside [0, 1] wrap unless saturate=True). Float to float is a plain cast."""
    from minitape.ops.api import cast, clip_by_value
    from minitape.values.dtypes import as_dtype

    source, target = image.dtype if hasattr(image, "dtype") else as_dtype(np.asarray(image).dtype), as_dtype(dtype)
    if source == target:
        return image
    if target.is_floating:
        value = cast(image, target)
        return value if source.is_floating else value / float(source.max)
    if source.is_floating:
        scaled = image * (target.max + 0.5)
        return cast(clip_by_value(scaled, float(target.min), float(target.max)) if saturate else scaled, target)
    return cast(cast(image, "float64") / float(source.max) * (target.max + 0.5), target)  # integer to integer


def __getattr__(name: str) -> Any:
    from minitape.namespaces import missing

    missing.raise_missing("tf.image", name, missing.IMAGE)
