"""MultiHeadAttention: the transformer's attention, with Keras 3's weights (an EinsumDense-style projection each).

The query, key and value are each projected to `num_heads` heads of `key_dim` (value: `value_dim`) features;
each head scores every query position against every key position (query . key / sqrt(key_dim)), turns the
scores into probabilities with a softmax over the key positions, and averages the value positions with them;
the heads' results are then projected together to the output size. Transposes, reshapes and matmuls do the
work, so the tape differentiates it like any other layer.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from minitape.engine.tensor import Tensor
from minitape.keras import masking, symbolic
from minitape.keras.layers.activation import Softmax
from minitape.keras.layers.attention import bool_mask, causal_mask, shape_of
from minitape.keras.layers.base import Layer, incompatible
from minitape.keras.layers.core import Dropout
from minitape.keras.layers.head_projection import HeadProjection, size_of
from minitape.ops.api import expand_dims, logical_and, matmul, reshape, transpose, where

_ROLES = {"query": "0 (query)", "value": "1 (value)", "key": "2 (key)"}


class MultiHeadAttention(Layer):
    """`num_heads` attentions side by side, each on its own learned projections of the query, key and value.

    Called as `layer(query, value)` (self-attention: `layer(x, x)`) or `layer(query, value, key)`, on
    (batch, T, features) queries and (batch, S, features) values; returns (batch, T, query features), or
    (batch, T, *output_shape). Its weights, in Keras 3's order and shapes: query/kernel (d, heads, key_dim),
    query/bias (heads, key_dim), the same for key and value (value_dim), attention_output/kernel
    (heads, value_dim, d_out) and attention_output/bias (d_out,).

    `attention_mask` is True where query position i may attend to key position j: (batch, T, S), or (T, S) for
    every example, or (batch, heads, T, S) per head. `use_causal_mask=True` stops position i attending to
    positions after i (a decoder's self-attention); `value_mask`/`key_mask` (batch, S) hide padded key positions.
    A query position that may attend to nothing outputs zeros before the output projection (its probabilities are
    all 0). `return_attention_scores=True` also returns the (batch, heads, T, S) probabilities (before dropout).
    `dropout` zeroes probabilities while training. Inputs of rank > 3 attend over all axes between the batch and
    the features (or the `attention_axes` given), as in Keras.
    """

    supports_masking = True  # the output's mask is the query's, as in Keras 3

    def __init__(
        self,
        num_heads: int,
        key_dim: int,
        value_dim: int | None = None,
        dropout: float = 0.0,
        use_bias: bool = True,
        output_shape: Any = None,
        attention_axes: Any = None,
        sliding_window: int | None = None,
        flash_attention: bool | None = None,
        kernel_initializer: Any = "glorot_uniform",
        bias_initializer: Any = "zeros",
        kernel_regularizer: Any = None,
        bias_regularizer: Any = None,
        activity_regularizer: Any = None,
        kernel_constraint: Any = None,
        bias_constraint: Any = None,
        use_gate: bool = False,
        seed: int | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)  # the activity regularizer goes to each projection, as in Keras 3
        for name, given in (("num_heads", num_heads), ("key_dim", key_dim), ("value_dim", value_dim)):
            if not (given is None and name == "value_dim") and (not isinstance(given, int) or given <= 0):
                raise ValueError(f"MultiHeadAttention: {name} must be a positive integer, got {given!r}")
        if not 0 <= dropout < 1:
            raise ValueError(f"MultiHeadAttention: dropout must be in [0, 1), got {dropout!r}")
        if sliding_window is not None and (not isinstance(sliding_window, int) or sliding_window <= 0):
            raise ValueError(f"MultiHeadAttention: sliding_window must be None or an int > 0, got {sliding_window!r}")
        if flash_attention:
            raise NotImplementedError(
                "MultiHeadAttention(flash_attention=True): minitape has no fused attention kernel; leave "
                "flash_attention out (the ordinary computation gives the same numbers)"
            )
        if isinstance(attention_axes, int):
            attention_axes = (attention_axes,)
        if attention_axes is not None and not isinstance(attention_axes, (list, tuple)):
            raise ValueError(f"MultiHeadAttention: attention_axes must be an int, list or tuple: {attention_axes!r}")
        if isinstance(output_shape, int):
            output_shape = (output_shape,)
        self._output_dims = tuple(int(n) for n in output_shape) if output_shape else None  # not `_output_shape`:
        # Layer keeps the shape of its last output there
        self._num_heads, self._key_dim, self._value_dim = num_heads, key_dim, value_dim or key_dim
        self._dropout, self._use_bias, self._use_gate = float(dropout), bool(use_bias), bool(use_gate)
        self._attention_axes = None if attention_axes is None else tuple(int(a) for a in attention_axes)
        self._sliding_window, self.seed = sliding_window, seed
        self._kernel_initializer, self._bias_initializer = kernel_initializer, bias_initializer
        self._kernel_regularizer, self._bias_regularizer = kernel_regularizer, bias_regularizer
        self._projection_activity_regularizer = activity_regularizer
        self._kernel_constraint, self._bias_constraint = kernel_constraint, bias_constraint
        self._inverse_sqrt_key_dim = 1.0 / math.sqrt(float(key_dim))

    num_heads = property(lambda self: self._num_heads)
    key_dim = property(lambda self: self._key_dim)
    value_dim = property(lambda self: self._value_dim)
    dropout = property(lambda self: self._dropout)
    use_bias = property(lambda self: self._use_bias)
    attention_axes = property(lambda self: self._attention_axes)

    def get_config(self) -> dict:
        config = super().get_config()
        config.update(
            num_heads=self._num_heads,
            key_dim=self._key_dim,
            value_dim=self._value_dim,
            dropout=self._dropout,
            use_bias=self._use_bias,
            use_gate=self._use_gate,
            output_shape=self._output_dims,
            attention_axes=self._attention_axes,
            sliding_window=self._sliding_window,
            kernel_initializer=self._kernel_initializer,
            bias_initializer=self._bias_initializer,
            kernel_regularizer=self._kernel_regularizer,
            bias_regularizer=self._bias_regularizer,
            activity_regularizer=self._projection_activity_regularizer,
            kernel_constraint=self._kernel_constraint,
            bias_constraint=self._bias_constraint,
            seed=self.seed,
        )
        return config

    # ---- checks and building -----------------------------------------------------------------------
    def __call__(self, query: Any, value: Any = None, key: Any = None, **kwargs: Any) -> Any:
        if value is None:
            raise TypeError(
                f'MultiHeadAttention "{self.name}" is called on a query and a value: layer(query, value), or '
                "layer(query, value, key); for self-attention pass the sequence twice: layer(x, x)"
            )
        if not symbolic.any_symbolic(query, (value, key)):  # a functional model's call is checked on placeholders
            shapes = (shape_of(query), shape_of(value), None if key is None else shape_of(key))
            self.check_inputs(*shapes)
            if not self.built:
                self.build(*shapes)
        return super().__call__(query, value, key, **kwargs)

    def _axes(self, rank: int) -> tuple[int, ...]:
        """The attention axes of an input of `rank`, counted from 0 (default: all between batch and features)."""
        if self._attention_axes is None:
            return tuple(range(1, rank - 1))
        axes = tuple(a % rank if -rank <= a < rank else a for a in self._attention_axes)
        if any(not 1 <= a <= rank - 2 for a in axes) or len(set(axes)) != len(axes):
            raise ValueError(
                f'MultiHeadAttention "{self.name}": attention_axes={self._attention_axes} must name distinct axes '
                f"of the inputs between the batch axis and the features axis: for inputs of rank {rank}, axes 1 to "
                f"{rank - 2} (or -{rank - 1} to -2)"
            )
        return axes

    def check_inputs(self, query: tuple, value: tuple, key: tuple | None = None) -> None:
        """A clear error for inputs this layer cannot take, before its weights are built from them."""
        key = value if key is None else key
        if len(query) < 3:
            raise incompatible(
                self,
                query,
                "an input of rank >= 3 (batch, steps, features)",
                "Attention relates positions of sequences: for one sequence add the batch axis (x[None]); for "
                "sequences of single numbers add the features axis (x[..., None]).",
                which=_ROLES["query"],
            )
        for role, shape in (("value", value), ("key", key)):
            if len(shape) != len(query):
                raise incompatible(
                    self,
                    shape,
                    f"an input of rank {len(query)}, as the query's {query}",
                    which=_ROLES[role],
                )
        if self.built:
            built = (query, self.query_dense), (value, self.value_dense), (key, self.key_dense)
            for role, (shape, projection) in zip(("query", "value", "key"), built):
                features = projection.kernel.shape[0]
                if shape[-1] != features or len(shape) != self._rank:
                    raise incompatible(
                        self,
                        shape,
                        f"an input of rank {self._rank} with {features} features on its last axis (the layer was "
                        f"built for that)",
                        "A layer keeps the input sizes it was first called with; create a new layer for other sizes.",
                        which=_ROLES[role],
                    )
        if value[:-1] != key[:-1]:
            raise ValueError(
                f'MultiHeadAttention "{self.name}": all dimensions of value and key, except the last one, must be '
                f"equal (key position j labels value position j), got value of shape {value} and key of shape {key}"
            )
        axes = self._axes(len(query))
        others = [i for i in range(len(query) - 1) if i not in axes]
        if any(query[i] != value[i] for i in others):
            raise ValueError(
                f'MultiHeadAttention "{self.name}": the query {query} and the value {value} must agree on every axis '
                f"but the attention axes {axes} and the features (axis 0 is the batch: one sequence per example)"
            )

    def build(self, query_shape: tuple, value_shape: tuple, key_shape: tuple | None = None) -> None:
        query_shape, value_shape = tuple(query_shape), tuple(value_shape)
        key_shape = value_shape if key_shape is None else tuple(key_shape)
        self._rank = len(query_shape)
        self._attention_axes = self._axes(self._rank)  # as Keras 3: the config now shows the axes used
        heads = self._num_heads

        def projection(name: str, contracted: int, dims: tuple, input_shape: tuple, activation: Any = None) -> Any:
            layer = HeadProjection(
                contracted,
                dims,
                self._use_bias,
                self._kernel_initializer,
                self._bias_initializer,
                self._kernel_regularizer,
                self._bias_regularizer,
                self._kernel_constraint,
                self._bias_constraint,
                activation,
                name=name,
                dtype=self.dtype,
                activity_regularizer=self._projection_activity_regularizer,
            )
            layer.weight_prefix = f"{self.weight_prefix}{self.name}/"  # 'multi_head_attention/query/kernel'
            layer.build(input_shape)
            return layer

        # the sublayers of Keras 3, made in its order (the order of the weights) and named as there (the paths of
        # a `.weights.h5` file: 'query_dense', ..., '_softmax'); the Softmax and Dropout take the next free names
        self.query_dense = projection("query", 1, (heads, self._key_dim), query_shape)
        self.key_dense = projection("key", 1, (heads, self._key_dim), key_shape)
        if self._use_gate:
            self._gate_dense = projection("gate", 1, (heads, self._value_dim), query_shape, "sigmoid")
        self.value_dense = projection("value", 1, (heads, self._value_dim), value_shape)
        self._softmax = Softmax(axis=-1, dtype=self.dtype)  # over the key positions, flattened into one axis
        self._dropout_layer = Dropout(self._dropout, seed=self.seed, dtype=self.dtype)
        output_dims = self._output_dims or (query_shape[-1],)
        self.output_dense = projection("attention_output", 2, output_dims, (*query_shape[:-1], heads, self._value_dim))

    def compute_output_shape(self, query_shape: tuple, value_shape: tuple, key_shape: tuple | None = None) -> tuple:
        key_shape = tuple(value_shape if key_shape is None else key_shape)
        if tuple(value_shape)[1:-1] != key_shape[1:-1]:
            raise ValueError(
                "All dimensions of `value` and `key`, except the last one, must be equal. Received: "
                f"value_shape={tuple(value_shape)} and key_shape={key_shape}"
            )
        return (*tuple(query_shape)[:-1], *(self._output_dims or tuple(query_shape)[-1:]))

    # ---- computation -------------------------------------------------------------------------------
    def _layout(self) -> tuple[list[int], list[int], np.ndarray]:
        """Projected tensors are (batch, ..., heads, channels). The axes that are not attended over (the batch,
        the heads, other axes) come first in the scores, then the query's attention axes, then the key's, as in
        Keras 3: (batch, heads, T, S) for (batch, T, features) inputs. Returns those axes, the permutation that
        puts a projected tensor in that order (channels last), and its inverse."""
        rank = self._rank + 1
        attended = list(self._attention_axes)
        batch = [i for i in range(rank - 1) if i not in attended]
        order = batch + attended + [rank - 1]
        return batch, order, np.argsort(order)

    def _gather(self, projected: Any, order: list[int], kept: int) -> Any:
        """(batch axes..., positions, channels): the attention axes flattened into one, for a batched matmul."""
        moved = transpose(projected, order)
        shape = tuple(moved.shape)
        return reshape(moved, (*shape[:kept], size_of(shape[kept:-1]), shape[-1]))

    def attention_mask_for(
        self, scores_shape: tuple, attention_mask: Any, use_causal_mask: bool, value_mask: Any, key_mask: Any
    ) -> Any:
        """One bool mask that broadcasts against the scores (None if nothing is masked): the given masks joined
        with `and`, an attention_mask's missing axes (the heads, then the batch) inserted as Keras 3 inserts them."""
        count = len(self._attention_axes)
        masks = []
        if attention_mask is not None:
            mask = bool_mask(attention_mask)
            given = tuple(mask.shape)
            if len(given) >= 2 * count:
                while len(mask.shape) < len(scores_shape):
                    mask = expand_dims(mask, -2 * count - 1)
            fits = len(mask.shape) == len(scores_shape) and all(
                m in (1, n) for m, n in zip(tuple(mask.shape), scores_shape)
            )
            if not fits:
                heads_axis = len(scores_shape) - 2 * count - 1
                wanted = tuple(n for i, n in enumerate(scores_shape) if i != heads_axis)
                layout = (
                    "(batch, heads, query positions, key positions)"
                    if self._rank == 3
                    else "(the axes not attended over, the heads last among them; the query's attention axes; the "
                    "key's)"
                )
                raise ValueError(
                    f'MultiHeadAttention "{self.name}": attention_mask of shape {given} does not fit the attention '
                    f"scores of shape {scores_shape} {layout}: give it shape {wanted}, or {wanted[-2 * count :]} for "
                    "every example, True where a query position may attend to a key position"
                )
            masks.append(mask)
        for name, given in (("value_mask", value_mask), ("key_mask", key_mask)):
            if given is None:
                continue
            wanted = (scores_shape[0], scores_shape[-1])
            if self._rank != 3 or tuple(shape_of(given)) != wanted:
                raise ValueError(
                    f'MultiHeadAttention "{self.name}": {name} must have shape (batch, key positions) = {wanted} for '
                    f"inputs of rank 3, True at the positions that may be attended to; got shape {shape_of(given)} "
                    "(for other inputs pass attention_mask)"
                )
            masks.append(expand_dims(expand_dims(bool_mask(given), 1), 1))  # (batch, 1, 1, S)
        for name, wanted in (("use_causal_mask", use_causal_mask), ("sliding_window", self._sliding_window)):
            if wanted and count != 1:
                raise NotImplementedError(
                    f'MultiHeadAttention "{self.name}": {name} needs one attention axis (the sequence), but this layer '
                    f"attends over axes {self._attention_axes}; pass attention_mask instead"
                )
        steps = scores_shape[-2:]
        if use_causal_mask:
            masks.append(causal_mask(*steps))
        if self._sliding_window is not None:  # a band: |i - j| < sliding_window
            i, j = np.arange(steps[0])[:, None], np.arange(steps[1])[None, :]
            masks.append(Tensor(np.abs(i - j) < self._sliding_window))
        mask = masks[0] if masks else None
        for other in masks[1:]:
            mask = logical_and(mask, other)
        return mask

    def masked_softmax(self, scores: Any, mask: Any) -> Any:
        """Softmax over the key positions; masked scores become -1e9 first and masked probabilities 0 after, as in
        Keras 3's Softmax layer (so a query position with nothing to attend to gets all zeros)."""
        if mask is not None:
            scores = where(mask, scores, -3e4 if scores.dtype.name == "float16" else -1e9)
        count = len(self._attention_axes)
        shape = tuple(scores.shape)
        flat = scores if count == 1 else reshape(scores, (*shape[:-count], size_of(shape[-count:])))
        probabilities = reshape(self._softmax(flat), shape)
        return probabilities if mask is None else where(mask, probabilities, 0.0)

    def call(
        self,
        query: Any,
        value: Any,
        key: Any = None,
        attention_mask: Any = None,
        return_attention_scores: bool = False,
        training: bool = False,
        use_causal_mask: bool = False,
        query_mask: Any = None,
        value_mask: Any = None,
        key_mask: Any = None,
    ) -> Any:
        if query_mask is not None:
            raise NotImplementedError(
                f'MultiHeadAttention "{self.name}": query_mask is not taken (Keras 3 ignores this argument: it reads '
                "the Keras mask of the query, `query._keras_mask`, as minitape does); to keep query positions from "
                "attending, pass attention_mask with False on their rows"
            )
        # as Keras 3: the Keras masks of the inputs (from Embedding(mask_zero=True), Masking) join the masks given
        query_mask = masking.get_mask(query)
        value_mask = masking.get_mask(value) if value_mask is None else value_mask
        if key_mask is None and key is not None and key is not value:
            key_mask = masking.get_mask(key)
        for given in (query, value, key):  # Keras 3 takes the masks off the inputs: they are handled here
            if masking.get_mask(given) is not None:
                given._keras_mask = None
        value = self._convert(value)
        key = value if key is None else self._convert(key)
        batch, order, inverse = self._layout()
        kept = len(batch)
        gate = self._gate_dense(query) if self._use_gate else None
        # as Keras 3: the projected query is scaled by 1/sqrt(key_dim), then dotted with the keys
        q = self.query_dense(query) * self._inverse_sqrt_key_dim
        k, v = self.key_dense(key), self.value_dense(value)
        q_flat, k_flat, v_flat = (self._gather(t, order, kept) for t in (q, k, v))
        q_shape, k_shape = tuple(q.shape), tuple(k.shape)
        query_positions = tuple(q_shape[a] for a in self._attention_axes)
        key_positions = tuple(k_shape[a] for a in self._attention_axes)
        scores_shape = (*(q_shape[a] for a in batch), *query_positions, *key_positions)
        scores = reshape(matmul(q_flat, k_flat, transpose_b=True), scores_shape)
        mask = self.attention_mask_for(scores_shape, attention_mask, use_causal_mask, value_mask, key_mask)
        if query_mask is not None and self._rank == 3:  # (batch, T) -> (batch, 1, T, 1): a masked row attends to none
            rows = expand_dims(expand_dims(bool_mask(query_mask), 1), -1)
            mask = rows if mask is None else logical_and(mask, rows)
        probabilities = self.masked_softmax(scores, mask)
        dropped = self._dropout_layer(probabilities, training=training)
        flat = reshape(dropped, (*scores_shape[:kept], size_of(query_positions), size_of(key_positions)))
        combined = matmul(flat, v_flat)  # (kept axes..., T, value_dim): back to (batch, ..., heads, value_dim)
        combined = reshape(combined, (*scores_shape[:kept], *query_positions, self._value_dim))
        combined = transpose(combined, [int(i) for i in inverse])
        if gate is not None:
            combined = combined * gate
        outputs = self.output_dense(combined)
        return (outputs, probabilities) if return_attention_scores else outputs
