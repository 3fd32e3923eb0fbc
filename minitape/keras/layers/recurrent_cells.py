"""SimpleRNNCell, LSTMCell, GRUCell: one time step of a recurrent layer, `(x_t, states) -> (output, new_states)`.

Each cell is written with minitape ops (matmul, sigmoid, tanh, split), so a tape that watches a whole
sequence records every step and backpropagation through time is the engine's ordinary reverse pass.
The weights have Keras 3's names, shapes and gate order, so `set_weights` takes Keras's arrays:
`kernel` (features, gates * units), `recurrent_kernel` (units, gates * units) and `bias`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minitape.engine.tensor import Tensor
from minitape.keras import activations, initializers
from minitape.keras.layers.base import Layer, incompatible
from minitape.namespaces import random
from minitape.ops.api import concat, matmul, zeros
from minitape.ops.shape_ops import split
from minitape.values.tensor_like import TensorLike

_CONFIG = (
    ("units", "use_bias", "kernel_initializer", "recurrent_initializer", "bias_initializer", "kernel_regularizer")
    + ("recurrent_regularizer", "bias_regularizer", "kernel_constraint", "recurrent_constraint", "bias_constraint")
    + ("dropout", "recurrent_dropout", "seed")
)


class RecurrentCell(Layer):
    """What the three cells share: the weights, dropout masks that stay the same for every step of a
    sequence (as Keras's), the checks on a step's input and the zero initial state."""

    gates = 1  # blocks of `units` columns in the kernels: 4 for LSTM (i, f, c, o), 3 for GRU (z, r, h)
    state_names: tuple[str, ...] = ("h",)

    def __init__(
        self,
        units: int,
        activation: Any = "tanh",
        use_bias: bool = True,
        kernel_initializer: Any = "glorot_uniform",
        recurrent_initializer: Any = "orthogonal",
        bias_initializer: Any = "zeros",
        kernel_regularizer: Any = None,
        recurrent_regularizer: Any = None,
        bias_regularizer: Any = None,
        kernel_constraint: Any = None,
        recurrent_constraint: Any = None,
        bias_constraint: Any = None,
        dropout: float = 0.0,
        recurrent_dropout: float = 0.0,
        seed: int | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        kind = type(self).__name__
        if isinstance(units, bool) or not isinstance(units, (int, np.integer)) or units < 1:
            raise ValueError(f"{kind}: units must be a positive integer, got {units!r}")
        for what, rate in (("dropout", dropout), ("recurrent_dropout", recurrent_dropout)):
            if not 0 <= rate < 1:
                raise ValueError(f"{kind}: {what} is the fraction of values dropped, in [0, 1); got {rate!r}")
        self.units = int(units)
        self._activation = activation
        self.activation = activations.get(activation)
        self.use_bias = use_bias
        self.kernel_initializer, self.recurrent_initializer = kernel_initializer, recurrent_initializer
        self.bias_initializer = bias_initializer
        self.kernel_regularizer, self.recurrent_regularizer = kernel_regularizer, recurrent_regularizer
        self.bias_regularizer = bias_regularizer
        self.kernel_constraint, self.recurrent_constraint = kernel_constraint, recurrent_constraint
        self.bias_constraint = bias_constraint
        self.dropout, self.recurrent_dropout, self.seed = float(dropout), float(recurrent_dropout), seed
        self._rng = np.random.default_rng(seed) if seed is not None else None
        self.per_gate_masks = False  # Keras 3 draws one dropout mask per gate when there is recurrent dropout
        self.reset_dropout_masks()

    @property
    def state_size(self) -> Any:
        return self.units

    @property
    def output_size(self) -> int:
        return self.units

    def get_config(self) -> dict:
        config = super().get_config()
        config.update({name: getattr(self, name) for name in _CONFIG}, activation=self._activation)
        return config

    def check_input(self, shape: tuple) -> None:
        if len(shape) != 2:
            raise incompatible(
                self,
                shape,
                "one time step, a 2-D input (batch, features)",
                "A cell takes one step at a time; for whole (batch, steps, features) sequences wrap it: "
                f"keras.layers.RNN({type(self).__name__}(...)).",
            )
        if self.built and shape[-1] != self.kernel.shape[0]:
            raise incompatible(
                self,
                shape,
                f"{self.kernel.shape[0]} features per step (the layer was built for that many)",
                "A layer keeps the input size it was first called with; create a new layer for other sizes.",
            )

    def bias_shape(self) -> tuple:
        return (self.gates * self.units,)

    def initial_bias(self, shape: tuple, dtype: Any = None) -> Any:
        return initializers.get(self.bias_initializer)(shape, dtype=dtype)

    def build(self, input_shape: tuple) -> None:
        width = self.gates * self.units
        self.kernel = self.add_weight(
            "kernel",
            (input_shape[-1], width),
            initializer=self.kernel_initializer,
            regularizer=self.kernel_regularizer,
            constraint=self.kernel_constraint,
        )
        self.recurrent_kernel = self.add_weight(
            "recurrent_kernel",
            (self.units, width),
            initializer=self.recurrent_initializer,
            regularizer=self.recurrent_regularizer,
            constraint=self.recurrent_constraint,
        )
        self.bias = None
        if self.use_bias:
            self.bias = self.add_weight(
                "bias",
                self.bias_shape(),
                initializer=self.initial_bias,
                regularizer=self.bias_regularizer,
                constraint=self.bias_constraint,
            )

    def get_initial_state(self, batch_size: int) -> list:
        """Zeros, one (batch, size) tensor per state: where a sequence starts unless initial_state says otherwise."""
        sizes = self.state_size if isinstance(self.state_size, (list, tuple)) else [self.state_size]
        return [zeros((batch_size, n), dtype=self.dtype) for n in sizes]

    # ---- dropout -----------------------------------------------------------------------------------
    def reset_dropout_masks(self) -> None:
        """Forget the masks: the RNN layer calls this before each sequence, so each batch draws new ones."""
        self._masks: dict[str, Any] = {}

    def _dropout_masks(self, like: Any, rate: float, which: str, training: bool) -> list | None:
        """None (no dropout), or masks of 0 and 1/(1 - rate) shaped like `like`: one for all gates, or one per
        gate. Drawn at the first step and kept for the rest of the sequence, so each step drops the same units."""
        if not training or rate == 0:
            return None
        if which not in self._masks:
            rng = self._rng or random.generator()
            count = self.gates if self.per_gate_masks else 1
            scale = np.dtype(like.dtype.as_numpy_dtype).type(1.0 / (1.0 - rate))
            self._masks[which] = [Tensor((rng.random(tuple(like.shape)) >= rate) * scale) for _ in range(count)]
        return self._masks[which]

    def project(self, x: Any, masks: list | None, kernel: Any) -> Any:
        """x @ kernel, x first multiplied by its dropout mask: one for all gates, or each gate's own."""
        if masks is None:
            return matmul(x, kernel)
        if len(masks) == 1:
            return matmul(x * masks[0], kernel)
        blocks = split(kernel, len(masks), axis=1)
        return concat([matmul(x * mask, block) for mask, block in zip(masks, blocks)], axis=1)

    def step_inputs(self, inputs: Any, states: Any, training: bool) -> tuple:
        """The states as a list, and the dropout masks of this step's input and of the previous output."""
        states = list(states) if isinstance(states, (list, tuple)) else [states]
        input_masks = self._dropout_masks(inputs, self.dropout, "input", training)
        state_masks = self._dropout_masks(states[0], self.recurrent_dropout, "state", training)
        return states, input_masks, state_masks


class SimpleRNNCell(RecurrentCell):
    """h_t = activation(x_t @ kernel + h_{t-1} @ recurrent_kernel + bias): the output is the state."""

    def call(self, inputs: Any, states: Any, training: bool = False) -> tuple:
        (h,), input_masks, state_masks = self.step_inputs(inputs, states, training)
        z = self.project(inputs, input_masks, self.kernel)
        if self.use_bias:
            z = z + self.bias
        h = self.activation(z + self.project(h, state_masks, self.recurrent_kernel))
        return h, [h]


class _GatedCell(RecurrentCell):
    """What LSTMCell and GRUCell add to the shared cell: the gates' `recurrent_activation` and Keras's
    `implementation` (1 draws a dropout mask per gate, as recurrent dropout always does)."""

    def __init__(self, recurrent_activation: Any, implementation: int, args: tuple, kwargs: dict) -> None:
        super().__init__(*args, **kwargs)
        self._recurrent_activation = recurrent_activation
        self.recurrent_activation = activations.get(recurrent_activation)
        self.implementation = implementation
        self.per_gate_masks = implementation == 1 or self.recurrent_dropout > 0

    def get_config(self) -> dict:
        return {**super().get_config(), "recurrent_activation": self._recurrent_activation}


class LSTMCell(_GatedCell):
    """Long short-term memory: a carry c that gates write to (i, with candidate g), forget (f) and read (o).

        i, f, g, o = split(x_t @ kernel + h_{t-1} @ recurrent_kernel + bias, 4)   (Keras's order: i, f, c, o)
        c_t = sigmoid(f) * c_{t-1} + sigmoid(i) * tanh(g);   h_t = sigmoid(o) * tanh(c_t)

    (sigmoid is `recurrent_activation`, tanh `activation`). The states are [h, c]; the output is h.
    unit_forget_bias=True starts the forget gate's bias at 1, so the carry is kept at first.
    """

    gates = 4
    state_names = ("h", "c")

    def __init__(
        self,
        units: int,
        activation: Any = "tanh",
        recurrent_activation: Any = "sigmoid",
        use_bias: bool = True,
        kernel_initializer: Any = "glorot_uniform",
        recurrent_initializer: Any = "orthogonal",
        bias_initializer: Any = "zeros",
        unit_forget_bias: bool = True,
        implementation: int = 2,
        **kwargs: Any,
    ) -> None:
        args = (units, activation, use_bias, kernel_initializer, recurrent_initializer, bias_initializer)
        super().__init__(recurrent_activation, implementation, args, kwargs)
        self.unit_forget_bias = unit_forget_bias

    @property
    def state_size(self) -> list:
        return [self.units, self.units]

    def get_config(self) -> dict:
        config = super().get_config()
        config.update(unit_forget_bias=self.unit_forget_bias)
        return config

    def initial_bias(self, shape: tuple, dtype: Any = None) -> Any:
        if not self.unit_forget_bias:
            return super().initial_bias(shape, dtype)
        n = self.units  # the forget gate's block is ones; the other three come from bias_initializer
        first, rest = _array(super().initial_bias((n,), dtype)), _array(super().initial_bias((2 * n,), dtype))
        return np.concatenate([first, np.ones(n, first.dtype), rest])

    def call(self, inputs: Any, states: Any, training: bool = False) -> tuple:
        (h, c), input_masks, state_masks = self.step_inputs(inputs, states, training)
        z = self.project(inputs, input_masks, self.kernel) + self.project(h, state_masks, self.recurrent_kernel)
        if self.use_bias:
            z = z + self.bias
        i, f, g, o = split(z, 4, axis=1)
        gate = self.recurrent_activation
        c = gate(f) * c + gate(i) * self.activation(g)
        h = gate(o) * self.activation(c)
        return h, [h, c]


class GRUCell(_GatedCell):
    """Gated recurrent unit: an update gate z mixes the old state with a candidate built through a reset gate r.

        z = sigmoid(x W_z + h R_z + b_z);   r = sigmoid(x W_r + h R_r + b_r)
        reset_after=True (Keras 3's default, cuDNN's):  hh = tanh(x W_h + b_h + r * (h R_h + b'_h))
        reset_after=False (the original paper's):       hh = tanh(x W_h + b_h + (r * h) R_h)
        h_t = z * h + (1 - z) * hh

    With reset_after=True the bias has shape (2, 3 * units): row 0 is added to x @ kernel, row 1 to
    h @ recurrent_kernel. Gate order in the kernels: z, r, h.
    """

    gates = 3

    def __init__(
        self,
        units: int,
        activation: Any = "tanh",
        recurrent_activation: Any = "sigmoid",
        use_bias: bool = True,
        kernel_initializer: Any = "glorot_uniform",
        recurrent_initializer: Any = "orthogonal",
        bias_initializer: Any = "zeros",
        reset_after: bool = True,
        implementation: int = 2,
        **kwargs: Any,
    ) -> None:
        args = (units, activation, use_bias, kernel_initializer, recurrent_initializer, bias_initializer)
        super().__init__(recurrent_activation, implementation, args, kwargs)
        self.reset_after = reset_after

    def get_config(self) -> dict:
        config = super().get_config()
        config.update(reset_after=self.reset_after)
        return config

    def bias_shape(self) -> tuple:
        return (2, 3 * self.units) if self.reset_after else (3 * self.units,)

    def call(self, inputs: Any, states: Any, training: bool = False) -> tuple:
        (h,), input_masks, state_masks = self.step_inputs(inputs, states, training)
        n, gate = self.units, self.recurrent_activation
        input_bias = recurrent_bias = None
        if self.use_bias:
            input_bias, recurrent_bias = (self.bias[0], self.bias[1]) if self.reset_after else (self.bias, None)
        x = self.project(inputs, input_masks, self.kernel)
        if input_bias is not None:
            x = x + input_bias
        x_z, x_r, x_h = split(x, 3, axis=1)
        if self.reset_after:
            r_all = self.project(h, state_masks, self.recurrent_kernel)
            if recurrent_bias is not None:
                r_all = r_all + recurrent_bias
            r_z, r_r, r_h = split(r_all, 3, axis=1)
            z, r = gate(x_z + r_z), gate(x_r + r_r)
            candidate = self.activation(x_h + r * r_h)
        else:
            masks_zr = state_masks[:2] if state_masks and len(state_masks) > 1 else state_masks
            r_z, r_r = split(self.project(h, masks_zr, self.recurrent_kernel[:, : 2 * n]), 2, axis=1)
            z, r = gate(x_z + r_z), gate(x_r + r_r)
            h_for_candidate = h * state_masks[-1] if state_masks else h
            candidate = self.activation(x_h + matmul(r * h_for_candidate, self.recurrent_kernel[:, 2 * n :]))
        h = z * h + (1 - z) * candidate
        return h, [h]


def _array(value: Any) -> np.ndarray:
    return value.numpy() if isinstance(value, TensorLike) else np.asarray(value)
