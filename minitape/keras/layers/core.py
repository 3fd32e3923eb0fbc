"""Dense, Flatten, Dropout, Activation, ReLU, Lambda, Reshape, Masking."""

from __future__ import annotations

import inspect
from typing import Any

import numpy as np

from minitape.engine.tensor import Tensor
from minitape.function.trace import runs_each_call
from minitape.keras import activations
from minitape.keras.layers.base import Layer, incompatible, is_positive_int
from minitape.namespaces import random
from minitape.ops.api import reduce_any
from minitape.ops.array_ops import reshape
from minitape.ops.math_ops import cast, matmul, not_equal
from minitape.ops.nn_ops import relu


class Dense(Layer):
    """`activation(inputs @ kernel + bias)`, on the last axis of the input."""

    supports_masking = True  # step by step: the input's mask is the output's

    def __init__(
        self,
        units: int,
        activation: Any = None,
        use_bias: bool = True,
        kernel_initializer: Any = "glorot_uniform",
        bias_initializer: Any = "zeros",
        kernel_regularizer: Any = None,
        bias_regularizer: Any = None,
        kernel_constraint: Any = None,
        bias_constraint: Any = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.kernel_regularizer, self.bias_regularizer = kernel_regularizer, bias_regularizer
        self.kernel_constraint, self.bias_constraint = kernel_constraint, bias_constraint
        if not is_positive_int(units):  # Keras 3's words, and the type where that is what is wrong
            kind = f" (a numpy {type(units).__name__}: pass int(units))" if isinstance(units, np.integer) else ""
            raise ValueError(
                f"Received an invalid value for `units`, expected a positive integer. Received: units={units}{kind}"
            )
        self.units = int(units)
        self.activation = activations.get(activation)
        self.use_bias = use_bias
        self.kernel_initializer = kernel_initializer
        self.bias_initializer = bias_initializer

    def check_input(self, shape: tuple) -> None:
        if len(shape) < 2:
            raise incompatible(
                self,
                shape,
                "an input of rank >= 2 (batch, features)",
                "Several examples of one feature each make a column: x[:, None] (or x.reshape(-1, 1)); "
                "one example of several features needs the batch axis: x[None, :].",
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
        self.kernel = self.add_weight(
            "kernel",
            (input_shape[-1], self.units),
            initializer=self.kernel_initializer,
            regularizer=self.kernel_regularizer,
            constraint=self.kernel_constraint,
        )
        self.bias = None
        if self.use_bias:
            self.bias = self.add_weight(
                "bias",
                (self.units,),
                initializer=self.bias_initializer,
                regularizer=self.bias_regularizer,
                constraint=self.bias_constraint,
            )

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

    supports_masking = True  # step by step: the input's mask is the output's

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
        shape = tuple(inputs.shape) if self.noise_shape is None else tuple(self.noise_shape)
        return inputs * self._scale(shape, inputs.dtype.as_numpy_dtype)

    @runs_each_call  # a traced train step draws a new mask at every call
    def _scale(self, shape: tuple, dtype: Any) -> Tensor:
        keep = (self._rng or random.generator()).random(shape) >= self.rate
        return Tensor((keep / (1.0 - self.rate)).astype(dtype))


class Activation(Layer):
    """Apply an activation function, given by name ('relu') or as a callable."""

    supports_masking = True  # step by step: the input's mask is the output's

    def __init__(self, activation: Any, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.activation = activations.get(activation)

    def call(self, inputs: Any) -> Any:
        return self.activation(inputs)


class ReLU(Layer):
    """max(x, 0), with Keras 3's options: capped at `max_value`, negative_slope * (x - threshold) below
    `threshold` (see keras.activations.relu)."""

    supports_masking = True  # step by step: the input's mask is the output's

    def __init__(
        self, max_value: float | None = None, negative_slope: float = 0.0, threshold: float = 0.0, **kwargs: Any
    ) -> None:
        super().__init__(**kwargs)
        if max_value is not None and max_value < 0:
            raise ValueError(f"ReLU: max_value must be >= 0 (or None), got {max_value!r}")
        if negative_slope is None or negative_slope < 0:
            raise ValueError(f"ReLU: negative_slope must be a number >= 0, got {negative_slope!r}")
        if threshold is None or threshold < 0:
            raise ValueError(f"ReLU: threshold must be a number >= 0, got {threshold!r}")
        self.max_value, self.negative_slope, self.threshold = max_value, float(negative_slope), float(threshold)

    def call(self, inputs: Any) -> Any:
        if self.max_value is None and not self.negative_slope and not self.threshold:
            return relu(inputs)
        return activations.relu(inputs, self.negative_slope, self.max_value, self.threshold)


class Lambda(Layer):
    """Wrap a function of tensors as a layer: `Lambda(lambda x: x ** 2)`. It has no weights."""

    def __init__(self, function: Any, output_shape: Any = None, mask: Any = None, arguments: dict | None = None, **kw):
        """`mask`, as in Keras 3: the output's mask, or a function `mask(inputs, input_mask)` giving it; without
        one the layer drops the mask of its input. A `function` with a `mask` argument receives the input's."""
        super().__init__(**kw)
        if not callable(function):
            raise TypeError(f"Lambda: function must be callable, got {type(function).__name__}")
        self.function, self.arguments, self.mask = function, dict(arguments or {}), mask
        try:
            self._function_takes_mask = "mask" in inspect.signature(function).parameters
        except (TypeError, ValueError):  # a builtin without a signature
            self._function_takes_mask = False

    @property
    def supports_masking(self) -> bool:
        return self.mask is not None

    def compute_mask(self, inputs: Any, previous_mask: Any = None) -> Any:
        return self.mask(inputs, previous_mask) if callable(self.mask) else self.mask

    def call(self, inputs: Any, mask: Any = None) -> Any:
        if self._function_takes_mask:
            return self.function(inputs, mask=mask, **self.arguments)
        return self.function(inputs, **self.arguments)


class Reshape(Layer):
    """(batch, ...) -> (batch, *target_shape); one entry of target_shape may be -1 (inferred)."""

    def __init__(self, target_shape: Any, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.target_shape = tuple(int(n) for n in target_shape)
        if sum(n == -1 for n in self.target_shape) > 1 or any(n < -1 or n == 0 for n in self.target_shape):
            raise ValueError(f"Reshape: target_shape must hold positive sizes and at most one -1, got {target_shape}")

    def check_input(self, shape: tuple) -> None:
        size = int(np.prod(shape[1:], dtype=np.int64))
        known = int(np.prod([n for n in self.target_shape if n != -1], dtype=np.int64))
        fits = size % known == 0 if -1 in self.target_shape else size == known
        if not fits:
            raise incompatible(
                self,
                shape,
                f"{known} values per example to fill target_shape {self.target_shape}",
                f"Each example has {size} values.",
            )

    def call(self, inputs: Any) -> Any:
        return reshape(inputs, (tuple(inputs.shape)[0], *self.target_shape))


class Masking(Layer):
    """Mark the steps of (batch, steps, features) sequences whose features all equal `mask_value` as padding:
    they become zeros, and the output's mask (`_keras_mask`, (batch, steps)) is False there, so the layers after
    it (an LSTM, GlobalAveragePooling1D, a loss in fit) skip them."""

    supports_masking = True

    def __init__(self, mask_value: float = 0.0, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.mask_value = mask_value

    def compute_mask(self, inputs: Any, previous_mask: Any = None) -> Any:
        return reduce_any(not_equal(inputs, self.mask_value), axis=-1)

    def call(self, inputs: Any) -> Any:
        kept = reduce_any(not_equal(inputs, self.mask_value), axis=-1, keepdims=True)
        return inputs * cast(kept, inputs.dtype)

    def compute_output_shape(self, input_shape: tuple) -> tuple:
        return tuple(input_shape)
