"""Preprocessing layers that tutorials put first in a model: Rescaling and Normalization."""

from __future__ import annotations

from typing import Any

import numpy as np

from minitape.keras.backend import to_numpy
from minitape.keras.layers.base import Layer
from minitape.ops.api import maximum, reshape, sqrt
from minitape.values.convert import constant

EPSILON = 1e-7  # Keras's backend epsilon: a constant feature is divided by this, not by zero


class Rescaling(Layer):
    """inputs * scale + offset, in float32: Rescaling(1/255) takes uint8 pixels to [0, 1]."""

    supports_masking = True  # step by step, as in Keras 3: the input's mask is the output's

    def __init__(self, scale: float, offset: float = 0.0, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.scale, self.offset = scale, offset

    def call(self, inputs: Any) -> Any:
        return inputs * self.scale + self.offset


class Normalization(Layer):
    """(inputs - mean) / sqrt(variance), per feature along `axis`; `adapt(data)` measures mean and variance.

    axis=-1 (the default) keeps one mean per last-axis feature; axis=None one mean for everything. As in
    Keras 3, adapt keeps three non-trainable weights: the mean and variance per kept feature ((9,) for 9
    features, () for axis=None) and the count of examples seen; `layer.mean` and `layer.variance` are those
    shaped to broadcast against the input ((1, 9)). Given mean and variance are constants, not weights.
    `invert=True` undoes the normalization.
    """

    supports_masking = True  # step by step, as in Keras 3: the input's mask is the output's

    def __init__(self, axis: Any = -1, mean: Any = None, variance: Any = None, invert: bool = False, **kw) -> None:
        super().__init__(**kw)
        if (mean is None) != (variance is None):
            raise ValueError("Normalization: give both mean and variance, or neither (and call adapt)")
        self.axis = () if axis is None else (axis,) if isinstance(axis, int) else tuple(axis)
        self.invert = invert
        self._given = None if mean is None else (np.asarray(mean, np.float64), np.asarray(variance, np.float64))
        self.adapt_mean = self.adapt_variance = self.count = self._broadcast = None

    def adapt(self, data: Any, batch_size: Any = None, steps: Any = None) -> None:
        """Measure the mean and variance of `data`: an array, a tensor, or a dataset of batches."""
        batches = [data] if not _is_dataset(data) else list(data if steps is None else data.take(steps))
        arrays = [to_numpy(b[0] if isinstance(b, tuple) else b).astype(np.float64) for b in batches]
        values = np.concatenate([a.reshape(-1, *a.shape[1:]) if a.ndim else a.reshape(1) for a in arrays])
        reduced = self._reduced_axes(values.ndim)
        self._broadcast = self._broadcast_shape(values.shape)
        kept = tuple(n for i, n in enumerate(values.shape) if i not in reduced)
        if self.adapt_mean is None:
            self.adapt_mean = self.add_weight("mean", kept, initializer="zeros", trainable=False)
            self.adapt_variance = self.add_weight("variance", kept, initializer="ones", trainable=False)
            self.count = self.add_weight("count", (), initializer="zeros", dtype="int64", trainable=False)
        self.adapt_mean.assign(values.mean(axis=reduced).reshape(kept))  # in the weights' dtype (the layer's)
        self.adapt_variance.assign(values.var(axis=reduced).reshape(kept))
        self.count.assign(np.int64(len(values)))

    def build(self, input_shape: tuple) -> None:
        if self._broadcast is None:
            self._broadcast = self._broadcast_shape(input_shape)
        super().build(input_shape)

    @property
    def mean(self) -> Any:
        """The mean, shaped to broadcast against the input ((1, features)); None before adapt or build."""
        return self._shaped(0)

    @property
    def variance(self) -> Any:
        return self._shaped(1)

    def _shaped(self, which: int) -> Any:
        if self._given is not None and self._broadcast is not None:
            return constant(np.broadcast_to(self._given[which], self._broadcast), dtype=self.dtype)
        weight = (self.adapt_mean, self.adapt_variance)[which]
        return None if weight is None else reshape(weight, self._broadcast)

    def call(self, inputs: Any) -> Any:
        if self.adapt_mean is None and self._given is None:
            raise RuntimeError(
                f'Normalization layer "{self.name}" has no mean and variance yet: call adapt(data) before using it, '
                "or create it with mean=... and variance=..."
            )
        mean, spread = self.mean, maximum(sqrt(self.variance), EPSILON)
        return mean + inputs * spread if self.invert else (inputs - mean) / spread

    def _reduced_axes(self, rank: int) -> tuple[int, ...]:
        kept = {a % rank for a in self.axis}
        if any(not -rank <= a < rank for a in self.axis) or 0 in kept and rank > 1:
            raise ValueError(f"Normalization: axis {self.axis} does not fit data of rank {rank} (axis 0 is the batch)")
        return tuple(a for a in range(rank) if a not in kept)

    def _broadcast_shape(self, shape: tuple) -> tuple:
        """1 for every axis the statistics are taken over, the size for every kept one: (1, 9) for (n, 9)."""
        reduced = self._reduced_axes(len(shape))
        return tuple(1 if i in reduced else int(n) for i, n in enumerate(shape)) or (1,)


def _is_dataset(data: Any) -> bool:
    return hasattr(data, "element_spec") and hasattr(data, "batch")
