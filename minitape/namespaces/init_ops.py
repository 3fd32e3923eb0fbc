"""Initializers, as TensorFlow's init ops and `keras.initializers`: `init(shape, dtype)` gives a tensor.

They draw from `mt.random`'s seeded generator (or their own, given `seed=`). The top-level
names (`mt.random_normal_initializer`, ...) keep TensorFlow's defaults, which differ from
Keras' (a standard normal, stddev 1.0, against Keras' 0.05).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from minitape.engine.tensor import Tensor
from minitape.namespaces import random
from minitape.values.dtypes import as_dtype


def _fans(shape: tuple[int, ...]) -> tuple[int, int]:
    """(fan_in, fan_out): a Dense kernel is (in, out); a conv kernel (kh, kw, in, out) counts the window too."""
    if len(shape) < 1:
        return 1, 1
    if len(shape) == 1:
        return shape[0], shape[0]
    receptive = math.prod(shape[:-2])
    return shape[-2] * receptive, shape[-1] * receptive


class Initializer:
    """Called as `init(shape, dtype)`, returns a numpy array."""

    def __call__(self, shape: Any, dtype: Any = None, **kwargs: Any) -> Tensor:
        shape = (int(shape),) if np.ndim(shape) == 0 else tuple(int(n) for n in shape)
        values = self.sample(shape, random.generator())
        return Tensor(np.asarray(values, dtype=as_dtype(dtype or "float32").as_numpy_dtype))

    def sample(self, shape: tuple[int, ...], rng: np.random.Generator) -> np.ndarray:
        raise NotImplementedError

    def get_config(self) -> dict:
        return dict(vars(self))

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in vars(self).items())
        return f"{type(self).__name__}({args})"


class Zeros(Initializer):
    def sample(self, shape, rng):
        return np.zeros(shape)


class Ones(Initializer):
    def sample(self, shape, rng):
        return np.ones(shape)


class Constant(Initializer):
    def __init__(self, value: float = 0.0) -> None:
        self.value = value

    def sample(self, shape, rng):
        return np.full(shape, self.value)


class RandomNormal(Initializer):
    def __init__(self, mean: float = 0.0, stddev: float = 0.05, seed: int | None = None) -> None:
        self.mean, self.stddev, self.seed = mean, stddev, seed

    def sample(self, shape, rng):
        return _rng(self.seed, rng).normal(self.mean, self.stddev, shape)


class RandomUniform(Initializer):
    def __init__(self, minval: float = -0.05, maxval: float = 0.05, seed: int | None = None) -> None:
        self.minval, self.maxval, self.seed = minval, maxval, seed

    def sample(self, shape, rng):
        return _rng(self.seed, rng).uniform(self.minval, self.maxval, shape)


class TruncatedNormal(Initializer):
    """A normal distribution with values beyond two standard deviations redrawn."""

    def __init__(self, mean: float = 0.0, stddev: float = 0.05, seed: int | None = None) -> None:
        self.mean, self.stddev, self.seed = mean, stddev, seed

    def sample(self, shape, rng):
        return self.mean + self.stddev * _truncated(_rng(self.seed, rng), shape)


def _truncated(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
    values = rng.normal(0.0, 1.0, shape)
    while np.any(bad := np.abs(values) > 2):
        values[bad] = rng.normal(0.0, 1.0, int(bad.sum()))
    return values


class VarianceScaling(Initializer):
    """Variance scale / fan, from a truncated normal, a normal or a uniform distribution (Keras' family)."""

    def __init__(
        self, scale: float = 1.0, mode: str = "fan_in", distribution: str = "truncated_normal", seed: int | None = None
    ) -> None:
        if mode not in ("fan_in", "fan_out", "fan_avg"):
            raise ValueError(f"VarianceScaling: mode must be 'fan_in', 'fan_out' or 'fan_avg', not {mode!r}")
        if distribution not in ("truncated_normal", "untruncated_normal", "normal", "uniform"):
            raise ValueError(f"VarianceScaling: unknown distribution {distribution!r}")
        self.scale, self.mode, self.distribution, self.seed = scale, mode, distribution, seed

    def sample(self, shape, rng):
        fan_in, fan_out = _fans(shape)
        fan = {"fan_in": fan_in, "fan_out": fan_out, "fan_avg": (fan_in + fan_out) / 2}[self.mode]
        variance = self.scale / max(1.0, fan)
        rng = _rng(self.seed, rng)
        if self.distribution == "uniform":
            limit = math.sqrt(3.0 * variance)
            return rng.uniform(-limit, limit, shape)
        if self.distribution == "truncated_normal":
            # 0.8796... is the stddev of a unit normal truncated to [-2, 2]: divide it out to keep the variance
            return math.sqrt(variance) / 0.87962566103423978 * _truncated(rng, shape)
        return rng.normal(0.0, math.sqrt(variance), shape)


class GlorotUniform(VarianceScaling):
    def __init__(self, seed: int | None = None) -> None:
        super().__init__(1.0, "fan_avg", "uniform", seed)


class GlorotNormal(VarianceScaling):
    def __init__(self, seed: int | None = None) -> None:
        super().__init__(1.0, "fan_avg", "truncated_normal", seed)


class HeNormal(VarianceScaling):
    def __init__(self, seed: int | None = None) -> None:
        super().__init__(2.0, "fan_in", "truncated_normal", seed)


class HeUniform(VarianceScaling):
    def __init__(self, seed: int | None = None) -> None:
        super().__init__(2.0, "fan_in", "uniform", seed)


def _rng(seed: int | None, default: np.random.Generator) -> np.random.Generator:
    return default if seed is None else np.random.default_rng(seed)


class LecunNormal(VarianceScaling):
    def __init__(self, seed: int | None = None) -> None:
        super().__init__(1.0, "fan_in", "truncated_normal", seed)


class LecunUniform(VarianceScaling):
    def __init__(self, seed: int | None = None) -> None:
        super().__init__(1.0, "fan_in", "uniform", seed)


class Orthogonal(Initializer):
    """A matrix with orthonormal rows or columns (times `gain`): it keeps the length of the vectors it
    multiplies, so a recurrent kernel applied at every step neither blows up nor shrinks the state at the start.

    The QR decomposition of a standard normal matrix gives Q; each column is flipped to match the sign of
    R's diagonal, so Q is uniform over the orthogonal matrices. Axes before the last are flattened into rows.
    """

    def __init__(self, gain: float = 1.0, seed: int | None = None) -> None:
        self.gain, self.seed = gain, seed

    def sample(self, shape, rng):
        if len(shape) < 2:
            raise ValueError(
                f"Orthogonal: the shape to initialize must have at least 2 axes (a matrix), got {shape}; "
                "for a bias vector use 'zeros'"
            )
        rows, cols = math.prod(shape[:-1]), shape[-1]
        normal = _rng(self.seed, rng).normal(0.0, 1.0, (max(rows, cols), min(rows, cols)))
        q, r = np.linalg.qr(normal)
        q = q * np.sign(np.diag(r))
        return self.gain * (q.T if rows < cols else q).reshape(shape)


# TensorFlow's top-level names, with TensorFlow's defaults
class random_normal_initializer(RandomNormal):  # noqa: N801 - TensorFlow's name
    """`tf.random_normal_initializer`: a normal distribution, mean 0 and stddev 1 by default."""

    def __init__(self, mean: float = 0.0, stddev: float = 1.0, seed: int | None = None) -> None:
        super().__init__(mean, stddev, seed)


class random_uniform_initializer(RandomUniform):  # noqa: N801
    """`tf.random_uniform_initializer`: uniform on [minval, maxval), [-0.05, 0.05) by default."""


class zeros_initializer(Zeros):  # noqa: N801
    """`tf.zeros_initializer`."""


class ones_initializer(Ones):  # noqa: N801
    """`tf.ones_initializer`."""


class constant_initializer(Constant):  # noqa: N801
    """`tf.constant_initializer(value)`: a number, or a list/array reshaped to the requested shape."""

    def __init__(self, value: Any = 0) -> None:
        self.value = value

    def sample(self, shape, rng):
        value = np.asarray(self.value)
        if value.ndim == 0:
            return np.full(shape, value)
        if value.size != int(np.prod(shape, dtype=np.int64)):
            raise TypeError(
                f"constant_initializer: a value of {value.size} elements cannot fill shape {shape}; "
                "give a scalar or exactly as many values as the shape holds"
            )
        return value.reshape(shape)
