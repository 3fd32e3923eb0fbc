"""Random tensors from one seeded generator, so a fixed `set_seed` gives the same numbers every run."""

from __future__ import annotations

from typing import Any

import numpy as np

from minitape.dtypes import as_dtype, float32
from minitape.tensor import Tensor

_generator = np.random.default_rng(0)


def set_seed(seed: int) -> None:
    """Restart the global generator: everything random after this call is reproducible."""
    global _generator
    _generator = np.random.default_rng(seed)


def _rng(seed: Any) -> np.random.Generator:
    return np.random.default_rng(seed) if seed is not None else _generator


def _shape(shape: Any) -> tuple[int, ...]:
    return tuple(int(n) for n in np.asarray(getattr(shape, "_value", shape)).ravel())


def normal(
    shape: Any, mean: float = 0.0, stddev: float = 1.0, dtype: Any = float32, seed: Any = None, name: Any = None
) -> Tensor:
    """Samples from N(mean, stddev^2)."""
    values = _rng(seed).normal(mean, stddev, _shape(shape))
    return Tensor(values.astype(as_dtype(dtype).as_numpy_dtype))


def uniform(
    shape: Any, minval: float = 0, maxval: Any = None, dtype: Any = float32, seed: Any = None, name: Any = None
) -> Tensor:
    """Samples from [minval, maxval); maxval defaults to 1 for floats. Integer dtypes need maxval."""
    dtype = as_dtype(dtype)
    if dtype.is_integer:
        if maxval is None:
            raise ValueError("random.uniform with an integer dtype needs maxval")
        values = _rng(seed).integers(minval, maxval, _shape(shape))
    else:
        values = _rng(seed).uniform(minval, 1.0 if maxval is None else maxval, _shape(shape))
    return Tensor(values.astype(dtype.as_numpy_dtype))


def truncated_normal(
    shape: Any, mean: float = 0.0, stddev: float = 1.0, dtype: Any = float32, seed: Any = None, name: Any = None
) -> Tensor:
    """Normal samples, redrawn until within two standard deviations of the mean."""
    rng = _rng(seed)
    values = rng.normal(0.0, 1.0, _shape(shape))
    while np.any(bad := np.abs(values) > 2):
        values[bad] = rng.normal(0.0, 1.0, int(bad.sum()))
    return Tensor((mean + stddev * values).astype(as_dtype(dtype).as_numpy_dtype))


def shuffle(value: Any, seed: Any = None, name: Any = None) -> Tensor:
    array = np.asarray(getattr(value, "_value", value))
    return Tensor(array[_rng(seed).permutation(len(array))])


def categorical(logits: Any, num_samples: int, dtype: Any = None, seed: Any = None, name: Any = None) -> Tensor:
    """For each row of `logits` (batch, classes), `num_samples` class indices drawn with probabilities
    softmax(row); int64 by default."""
    values = np.asarray(getattr(logits, "numpy", lambda: logits)(), dtype=np.float64)
    if values.ndim != 2:
        raise ValueError(f"random.categorical: logits must be 2-D (batch, classes), got shape {list(values.shape)}")
    shifted = np.exp(values - values.max(axis=1, keepdims=True))
    probabilities = shifted / shifted.sum(axis=1, keepdims=True)
    rng = _rng(seed)
    draws = [rng.choice(values.shape[1], size=int(num_samples), p=row) for row in probabilities]
    out = np.array(draws, dtype=np.int64).reshape(values.shape[0], int(num_samples))
    return Tensor(out.astype(as_dtype(dtype or "int64").as_numpy_dtype))


def generator() -> np.random.Generator:
    """The global numpy generator (for library code that needs more than the functions above)."""
    return _generator
