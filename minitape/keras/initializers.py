"""Weight initializers, as `tf.keras.initializers`. They draw from `mt.random`'s seeded generator."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from minitape import random
from minitape.dtypes import as_dtype


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

    def __call__(self, shape: tuple[int, ...], dtype: Any = None) -> np.ndarray:
        values = self.sample(tuple(int(n) for n in shape), random.generator())
        return np.asarray(values, dtype=as_dtype(dtype or "float32").as_numpy_dtype)

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
            std = math.sqrt(variance) / 0.87962566103423978
            values = rng.normal(0.0, 1.0, shape)
            while np.any(bad := np.abs(values) > 2):
                values[bad] = rng.normal(0.0, 1.0, int(bad.sum()))
            return std * values
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


_BY_NAME = {
    "zeros": Zeros,
    "ones": Ones,
    "random_normal": RandomNormal,
    "random_uniform": RandomUniform,
    "glorot_uniform": GlorotUniform,
    "glorot_normal": GlorotNormal,
    "he_normal": HeNormal,
    "he_uniform": HeUniform,
}


def get(identifier: Any) -> Initializer:
    """An initializer from a name ('glorot_uniform'), an Initializer, or a callable(shape, dtype)."""
    if isinstance(identifier, str):
        if identifier not in _BY_NAME:
            raise ValueError(f"Unknown initializer: {identifier!r}. Use one of {sorted(_BY_NAME)}.")
        return _BY_NAME[identifier]()
    if callable(identifier):
        return identifier
    raise ValueError(f"Could not interpret initializer {identifier!r}: pass a name, an Initializer or a callable")


zeros, ones = Zeros, Ones
glorot_uniform, glorot_normal, he_normal, he_uniform = GlorotUniform, GlorotNormal, HeNormal, HeUniform
