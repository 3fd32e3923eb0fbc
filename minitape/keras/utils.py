"""`mt.keras.utils`: seeding, label helpers and `get_file`."""

from __future__ import annotations

from typing import Any

import numpy as np

from minitape import random
from minitape.convert import constant
from minitape.keras import unsupported
from minitape.keras.downloads import get_file  # noqa: F401 - keras.utils.get_file
from minitape.tensor import TensorLike


def set_random_seed(seed: int) -> None:
    """Seed everything random in minitape (weights, shuffling, dropout) and numpy's legacy global generator."""
    random.set_seed(seed)
    np.random.seed(seed)


def to_categorical(x: Any, num_classes: int | None = None) -> Any:
    """Integer labels -> one-hot rows, as Keras 3: float64 numpy rows for arrays and lists, a float32 tensor for a
    tensor. A trailing axis of size 1 is dropped first (labels of shape (n, 1) give (n, num_classes))."""
    if isinstance(x, TensorLike):
        return constant(to_categorical(np.asarray(x), num_classes), dtype="float32")
    labels = np.asarray(x)
    if labels.dtype.kind not in "iub" and not np.all(labels == np.round(labels)):
        raise ValueError(f"to_categorical: labels must be whole numbers (class indices), got {labels.dtype} values")
    labels = labels.astype(np.int64)
    if labels.ndim > 1 and labels.shape[-1] == 1:
        labels = labels[..., 0]
    n = int(labels.max()) + 1 if num_classes is None else int(num_classes)
    if labels.size and (labels.min() < 0 or labels.max() >= n):
        raise ValueError(f"to_categorical: labels must be in [0, {n}), got values {labels.min()} to {labels.max()}")
    return np.eye(n)[labels]


__getattr__ = unsupported.module_getattr("keras.utils")  # a left-out name says what to use instead
