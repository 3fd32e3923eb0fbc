"""Activation layers: Softmax, LeakyReLU, ELU, Identity (ReLU lives in core.py with Dense)."""

from __future__ import annotations

from typing import Any

import numpy as np

from minitape.keras import activations
from minitape.keras.layers.base import Layer
from minitape.namespaces import nn
from minitape.ops.api import greater, where
from minitape.values.convert import convert_to_tensor
from minitape.values.tensor_like import TensorLike


class Softmax(Layer):
    """Probabilities along `axis`: what turns a model's logits into class probabilities."""

    def __init__(self, axis: int = -1, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.axis = axis

    supports_masking = True

    def call(self, inputs: Any, mask: Any = None) -> Any:
        """`mask` (True or > 0.5 where kept; each axis 1 or the input's size) gives the other positions
        probability 0, as in Keras 3 (also the input's Keras mask, which must broadcast the same way)."""
        if mask is None:
            return activations.softmax(inputs, axis=self.axis)
        mask = mask if isinstance(mask, TensorLike) else convert_to_tensor(np.asarray(mask))
        given, shape = tuple(mask.shape), tuple(inputs.shape)
        if len(given) > len(shape) or any(m not in (1, n) for m, n in zip(given[::-1], shape[::-1])):
            raise ValueError(  # Keras 3's words
                "The `mask` must be broadcastable to `inputs`. Each mask dimension must be 1 or match the "
                f"corresponding input dimension. Received: inputs.shape={shape}, mask.shape={given}"
            )
        kept = mask if mask.dtype.is_bool else greater(mask, 0.5)
        large_negative = -3e4 if inputs.dtype.name == "float16" else -1e9
        outputs = activations.softmax(where(kept, inputs, large_negative), axis=self.axis)
        return where(kept, outputs, 0.0)


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
