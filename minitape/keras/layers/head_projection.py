"""HeadProjection: the EinsumDense projections of MultiHeadAttention, as matmuls over the last axes of the input."""

from __future__ import annotations

from typing import Any

import numpy as np

from minitape.keras import activations, initializers
from minitape.keras.layers.base import Layer
from minitape.ops.api import matmul, reshape


def size_of(dims: tuple) -> int:
    """How many numbers an array of shape `dims` holds."""
    return int(np.prod(dims, dtype=np.int64))


class HeadProjection(Layer):
    """Keras 3's EinsumDense as MultiHeadAttention uses it: the last `contracted` axes of the input times a kernel
    of shape (*those axes, *output_dims), plus a bias of shape output_dims: (batch, T, d) -> (batch, T, heads, k)
    with kernel (d, heads, k), or (batch, T, heads, k) -> (batch, T, d) with kernel (heads, k, d)."""

    def __init__(
        self,
        contracted: int,
        output_dims: tuple,
        use_bias: bool,
        kernel_initializer: Any,
        bias_initializer: Any,
        kernel_regularizer: Any = None,
        bias_regularizer: Any = None,
        kernel_constraint: Any = None,
        bias_constraint: Any = None,
        activation: Any = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.contracted, self.output_dims, self.use_bias = contracted, tuple(output_dims), use_bias
        self.activation = activations.get(activation)
        self.kernel_initializer, self.bias_initializer = kernel_initializer, bias_initializer
        self.kernel_regularizer, self.bias_regularizer = kernel_regularizer, bias_regularizer
        self.kernel_constraint, self.bias_constraint = kernel_constraint, bias_constraint

    def build(self, input_shape: tuple) -> None:
        input_dims = tuple(input_shape[-self.contracted :])
        fans = (size_of(input_dims), size_of(self.output_dims))
        initializer = initializers.get(self.kernel_initializer)

        def kernel_values(shape: tuple, dtype: Any = None) -> Any:
            # drawn as a (fan_in, fan_out) matrix: the fans Keras 3 gives the initializer for this kernel
            return reshape(initializer(fans, dtype=dtype), shape)

        self.kernel = self.add_weight(
            "kernel",
            input_dims + self.output_dims,
            initializer=kernel_values,
            regularizer=self.kernel_regularizer,
            constraint=self.kernel_constraint,
        )
        self.bias = None
        if self.use_bias:
            self.bias = self.add_weight(
                "bias",
                self.output_dims,
                initializer=self.bias_initializer,
                regularizer=self.bias_regularizer,
                constraint=self.bias_constraint,
            )

    def call(self, inputs: Any) -> Any:
        shape = tuple(inputs.shape)
        lead, fan_in, fan_out = shape[: -self.contracted], size_of(shape[-self.contracted :]), size_of(self.output_dims)
        outputs = matmul(reshape(inputs, (-1, fan_in)), reshape(self.kernel, (fan_in, fan_out)))
        if self.use_bias:
            outputs = outputs + reshape(self.bias, (fan_out,))
        return self.activation(reshape(outputs, (*lead, *self.output_dims)))
