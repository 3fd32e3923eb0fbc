"""Activation layers: Softmax, LeakyReLU, ELU, Identity (ReLU lives in core.py with Dense)."""

from __future__ import annotations

from typing import Any

from minitape.keras import activations
from minitape.keras.layers.base import Layer
from minitape.namespaces import nn
from minitape.ops.api import where


class Softmax(Layer):
    """Probabilities along `axis`: what turns a model's logits into class probabilities."""

    def __init__(self, axis: int = -1, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.axis = axis

    def call(self, inputs: Any) -> Any:
        return activations.softmax(inputs, axis=self.axis)


class LeakyReLU(Layer):
    """x where x > 0, else negative_slope * x (Keras 2 called it alpha; both are accepted, default 0.3)."""

    supports_masking = True

    def __init__(self, negative_slope: float = 0.3, alpha: float | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.negative_slope = float(negative_slope if alpha is None else alpha)

    def call(self, inputs: Any) -> Any:
        return nn.leaky_relu(inputs, alpha=self.negative_slope)


class ELU(Layer):
    """x where x > 0, else alpha * (exp(x) - 1)."""

    supports_masking = True

    def __init__(self, alpha: float = 1.0, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.alpha = float(alpha)

    def call(self, inputs: Any) -> Any:
        return nn.elu(inputs) if self.alpha == 1.0 else where(inputs > 0, inputs, nn.elu(inputs) * self.alpha)


class Identity(Layer):
    """Its input, unchanged: a placeholder in a list of layers."""

    supports_masking = True

    def call(self, inputs: Any) -> Any:
        return inputs
