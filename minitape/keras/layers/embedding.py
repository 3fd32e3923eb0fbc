"""Embedding: integer indices -> rows of a trainable (input_dim, output_dim) table."""

from __future__ import annotations

from typing import Any

import numpy as np

from minitape.function.trace import runs_each_call
from minitape.keras.layers.base import Layer, incompatible, is_positive_int
from minitape.ops.api import gather
from minitape.ops.math_ops import cast, not_equal


class Embedding(Layer):
    """Look up `embeddings[i]` for each index i in the input: (batch, ...) -> (batch, ..., output_dim).

    mask_zero=True reads index 0 as padding: the output's mask (`_keras_mask`) is False there (so input_dim
    counts the 0 too: the vocabulary size + 1)."""

    autocast = False  # the inputs are indices: they stay integers

    def __init__(
        self,
        input_dim: int,
        output_dim: int,
        embeddings_initializer: Any = "uniform",
        embeddings_regularizer: Any = None,
        embeddings_constraint: Any = None,
        mask_zero: bool = False,
        **kwargs: Any,
    ) -> None:
        kwargs.pop("input_length", None)  # tf.keras 2 argument, ignored by Keras 3 too
        super().__init__(**kwargs)
        for what, size in (("input_dim", input_dim), ("output_dim", output_dim)):
            if not is_positive_int(size):  # Keras 3's words
                raise ValueError(
                    f"`{what}` must be a positive integer. Received: {what}={size} (of type {type(size).__name__})."
                )
        self.input_dim, self.output_dim = int(input_dim), int(output_dim)
        self.mask_zero = bool(mask_zero)
        self.embeddings_initializer = embeddings_initializer
        self.embeddings_regularizer, self.embeddings_constraint = embeddings_regularizer, embeddings_constraint

    def build(self, input_shape: Any) -> None:
        self.embeddings = self.add_weight(
            "embeddings",
            (self.input_dim, self.output_dim),
            initializer=self.embeddings_initializer,
            regularizer=self.embeddings_regularizer,
            constraint=self.embeddings_constraint,
        )

    @property
    def supports_masking(self) -> bool:
        return self.mask_zero

    def compute_mask(self, inputs: Any, previous_mask: Any = None) -> Any:
        """With mask_zero=True, False where the index is 0 (the padding), as Keras 3; else no mask."""
        return not_equal(inputs, 0) if self.mask_zero else None

    def call(self, inputs: Any) -> Any:
        self._check_indices(inputs)
        if inputs.dtype.is_floating or inputs.dtype.is_bool:
            inputs = cast(inputs, "int32")
        return gather(self.embeddings, inputs)

    @runs_each_call(arrays=True)  # the indices' values are checked again at every call of a traced step
    def _check_indices(self, inputs: Any) -> None:
        indices = np.asarray(inputs)
        if indices.dtype.kind == "f" and not np.all(indices == np.round(indices)):
            raise incompatible(self, indices.shape, "integer indices", f"Got non-integer values {indices.ravel()[:5]}.")
        if indices.size and (indices.min() < 0 or indices.max() >= self.input_dim):
            bad = indices[(indices < 0) | (indices >= self.input_dim)].ravel()[0]
            raise ValueError(
                f'Embedding "{self.name}": index {bad} is out of range [0, {self.input_dim}) '
                f"(input_dim={self.input_dim}); raise input_dim to the vocabulary size"
            )
