"""Dense, Flatten, Dropout, Activation, ReLU."""

from __future__ import annotations

from typing import Any

import numpy as np

from minitape import random
from minitape.keras import activations
from minitape.keras.layers.base import Layer, incompatible
from minitape.ops.array_ops import reshape
from minitape.ops.math_ops import matmul
from minitape.ops.nn_ops import relu
from minitape.tensor import Tensor


class Dense(Layer):
    """`activation(inputs @ kernel + bias)`, on the last axis of the input."""

    def __init__(
        self,
        units: int,
        activation: Any = None,
        use_bias: bool = True,
        kernel_initializer: Any = "glorot_uniform",
        bias_initializer: Any = "zeros",
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        if int(units) < 1:
            raise ValueError(f"Dense: units must be a positive integer, got {units!r}")
        self.units = int(units)
        self.activation = activations.get(activation)
        self.use_bias = use_bias
        self.kernel_initializer = kernel_initializer
        self.bias_initializer = bias_initializer

    def check_input(self, shape: tuple) -> None:
        if len(shape) < 2:
            raise incompatible(
                self, shape, "an input of rank >= 2 (batch, features)", "Add the batch axis, e.g. x[None, :]."
            )
        if self.built and shape[-1] != self.kernel.shape[0]:
            raise incompatible(
                self,
                shape,
                f"axis -1 of the input to have size {self.kernel.shape[0]} (the layer was built for that "
                f"many features)",
                "A layer keeps the input size it was first called with; create a new layer for other sizes.",
            )

    def build(self, input_shape: tuple) -> None:
        self.kernel = self.add_weight("kernel", (input_shape[-1], self.units), initializer=self.kernel_initializer)
        self.bias = self.add_weight("bias", (self.units,), initializer=self.bias_initializer) if self.use_bias else None

    def call(self, inputs: Any) -> Any:
        shape = tuple(inputs.shape)
        flat = inputs if len(shape) == 2 else reshape(inputs, (-1, shape[-1]))
        outputs = matmul(flat, self.kernel)
        if self.use_bias:
            outputs = outputs + self.bias
        if len(shape) != 2:
            outputs = reshape(outputs, (*shape[:-1], self.units))
        return self.activation(outputs)


class Flatten(Layer):
    """(batch, d1, d2, ...) -> (batch, d1 * d2 * ...)."""

    def check_input(self, shape: tuple) -> None:
        if len(shape) < 1:
            raise incompatible(self, shape, "an input with a batch axis")

    def call(self, inputs: Any) -> Any:
        shape = tuple(inputs.shape)
        return reshape(inputs, (shape[0], int(np.prod(shape[1:], dtype=np.int64))))


class Dropout(Layer):
    """While training, zero each input with probability `rate` and scale the rest by 1/(1-rate); else identity."""

    def __init__(self, rate: float, noise_shape: Any = None, seed: int | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if not 0 <= rate < 1:
            raise ValueError(f"Dropout: rate must be in [0, 1), got {rate!r}")
        self.rate = float(rate)
        self.noise_shape = noise_shape
        self._rng = np.random.default_rng(seed) if seed is not None else None

    def call(self, inputs: Any, training: bool = False) -> Any:
        if not training or self.rate == 0:
            return inputs
        rng = self._rng or random.generator()
        shape = tuple(inputs.shape) if self.noise_shape is None else tuple(self.noise_shape)
        keep = rng.random(shape) >= self.rate
        scale = (keep / (1.0 - self.rate)).astype(inputs.dtype.as_numpy_dtype)
        return inputs * Tensor(scale)


class Activation(Layer):
    """Apply an activation function, given by name ('relu') or as a callable."""

    def __init__(self, activation: Any, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.activation = activations.get(activation)

    def call(self, inputs: Any) -> Any:
        return self.activation(inputs)


class ReLU(Layer):
    """max(x, 0)."""

    def call(self, inputs: Any) -> Any:
        return relu(inputs)
