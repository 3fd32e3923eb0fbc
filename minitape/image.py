"""`mt.image`: the one image op TensorFlow's autodiff guide uses, kept without a gradient on purpose.

`adjust_contrast` is registered with no gradient rule at all, exactly as in TensorFlow,
so differentiating through it raises LookupError: the guide's (and a lesson's) example
of an op the registry does not cover.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minitape.opdef import defop


def _adjust_contrast(images: np.ndarray, factor: np.ndarray) -> np.ndarray:
    """(x - mean) * factor + mean, the mean taken per channel over height and width."""
    mean = images.mean(axis=(-3, -2), keepdims=True)
    return (images - mean) * factor + mean


_adjust_contrast_op = defop("AdjustContrastv2", _adjust_contrast, same_dtype=(0, 1))  # no gradient registered


def adjust_contrast(images: Any, contrast_factor: Any) -> Any:
    """Scale each channel's distance from its mean by `contrast_factor` (images: [..., height, width, channels])."""
    return _adjust_contrast_op(images, contrast_factor)
