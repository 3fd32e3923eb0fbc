"""Session state shared by all layers: the default float type, layer-name counters, the training flag."""

from __future__ import annotations

import collections
import contextlib
import re
from collections.abc import Iterator

import numpy as np

from minitape.dtypes import as_dtype

_floatx = "float32"
_name_counts: collections.Counter = collections.Counter()
_training: list[bool] = []  # the `training` flag of the outermost call, seen by the layers it calls


def floatx() -> str:
    """The dtype layers create their weights in unless given `dtype=`: 'float32', as in Keras."""
    return _floatx


def set_floatx(value: str) -> None:
    """Change the default weight dtype, e.g. to 'float64' for gradient checks."""
    global _floatx
    _floatx = as_dtype(value).name


def epsilon() -> float:
    """The fuzz factor of losses and optimizers (Keras' 1e-7)."""
    return 1e-7


def clear_session() -> None:
    """Restart layer naming (the next Dense is 'dense' again), as `tf.keras.backend.clear_session()` does."""
    _name_counts.clear()


def snake_case(name: str) -> str:
    """'MaxPooling2D' -> 'max_pooling2d', 'MyModel' -> 'my_model': Keras' default layer names."""
    name = re.sub(r"(.)([A-Z][a-z]+)", r"\1_\2", name)
    return re.sub(r"([a-z])([A-Z])", r"\1_\2", name).lower()


def unique_name(base: str) -> str:
    """'dense', then 'dense_1', 'dense_2', ... until `clear_session()`."""
    count = _name_counts[base]
    _name_counts[base] += 1
    return base if count == 0 else f"{base}_{count}"


@contextlib.contextmanager
def training_scope(training: bool) -> Iterator[None]:
    _training.append(training)
    try:
        yield
    finally:
        _training.pop()


def current_training() -> bool | None:
    return _training[-1] if _training else None


def to_numpy(value: object) -> np.ndarray:
    """A plain numpy array from a tensor, variable, list or array (no tape sees this)."""
    return value._array() if hasattr(value, "_array") else np.asarray(value)
