"""`keras.random`: Keras 3's random ops, drawn by minitape's generators.

`seed` is an int (the same numbers every call, as Keras 3), a `SeedGenerator` (a new draw each call, reproducible
from its seed) or None (the global generator). The numbers are numpy's PCG64 stream, not the ones Keras prints.
"""

from __future__ import annotations

from typing import Any

import minitape as mt
from minitape.keras.unsupported import module_getattr


class SeedGenerator:
    """A stream of draws reproducible from `seed`: pass it as `seed=` to keep drawing new numbers."""

    def __init__(self, seed: int | None = None, name: str | None = None, **kwargs: Any) -> None:
        self.generator = _generator(seed)


def _generator(seed: Any) -> Any:
    if isinstance(seed, SeedGenerator):
        return seed.generator
    if seed is None:
        return mt.random.get_global_generator()
    if isinstance(seed, int):
        return mt.random.Generator.from_seed(seed)
    raise ValueError(f"keras.random: seed must be an int, a keras.random.SeedGenerator or None, not {seed!r}")


def normal(shape: Any, mean: float = 0.0, stddev: float = 1.0, dtype: Any = None, seed: Any = None) -> Any:
    return _generator(seed).normal(shape, mean, stddev, dtype=dtype or "float32")


def truncated_normal(shape: Any, mean: float = 0.0, stddev: float = 1.0, dtype: Any = None, seed: Any = None) -> Any:
    return _generator(seed).truncated_normal(shape, mean, stddev, dtype=dtype or "float32")


def uniform(shape: Any, minval: float = 0.0, maxval: float = 1.0, dtype: Any = None, seed: Any = None) -> Any:
    return _generator(seed).uniform(shape, minval, maxval, dtype=dtype or "float32")


def randint(shape: Any, minval: int, maxval: int, dtype: Any = "int32", seed: Any = None) -> Any:
    """Integers in [minval, maxval)."""
    return _generator(seed).uniform(shape, minval, maxval, dtype=dtype)


def dropout(inputs: Any, rate: float, noise_shape: Any = None, seed: Any = None) -> Any:
    """Zero each entry with probability `rate` and scale the rest by 1 / (1 - rate), as in training."""
    inputs = mt.convert_to_tensor(inputs)
    keep = uniform(noise_shape or inputs.shape, seed=seed) >= rate
    return mt.where(keep, inputs / (1 - rate), mt.zeros_like(inputs))


def shuffle(x: Any, axis: int = 0, seed: Any = None) -> Any:
    """x with its entries along `axis` in a random order."""
    x = mt.convert_to_tensor(x)
    order = mt.argsort(uniform([x.shape[axis]], seed=seed))
    return mt.gather(x, order, axis=axis)


def categorical(logits: Any, num_samples: int, dtype: Any = "int32", seed: Any = None) -> Any:
    """`num_samples` class indices per row of `logits`, drawn with the softmax probabilities (Gumbel-max)."""
    logits = mt.convert_to_tensor(logits)
    shape = [logits.shape[0], num_samples, logits.shape[1]]
    gumbel = -mt.math.log(-mt.math.log(uniform(shape, 1e-20, 1.0, dtype=logits.dtype, seed=seed)))
    return mt.cast(mt.argmax(logits[:, None, :] + gumbel, axis=-1), dtype)


__getattr__ = module_getattr("keras.random")  # a left-out name says what to use instead
