"""RNN, SimpleRNN, LSTM, GRU: a cell (`recurrent_cells`) run over the steps of (batch, steps, features) sequences.

The loop over time is a Python loop of cell calls: there is no graph to unroll, so a tape records each
step's ops and `tape.gradient` backpropagates through time with no rule of its own. `unroll` is accepted
and changes nothing. A mask (given, or the Keras mask of the input: after Embedding(mask_zero=True) or
Masking) makes a masked step keep the previous states and output, as in Keras 3.
"""

from __future__ import annotations

from typing import Any

from minitape.engine.variables import Variable
from minitape.keras import backend
from minitape.keras.layers.attention import bool_mask
from minitape.keras.layers.base import Layer, incompatible
from minitape.keras.layers.recurrent_cells import GRUCell, LSTMCell, RecurrentCell, SimpleRNNCell
from minitape.ops.api import expand_dims, stack, unstack, where, zeros, zeros_like

# arguments of SimpleRNN/LSTM/GRU that belong to their cell (the rest go to the layer)
_CELL_ONLY = frozenset(
    {"kernel_regularizer", "recurrent_regularizer", "bias_regularizer", "kernel_constraint", "recurrent_constraint"}
    | {"bias_constraint", "seed", "implementation"}
)
_LAYER_BASE_KEYS = ("name", "trainable", "dtype", "activity_regularizer")
_FLAGS = ("return_sequences", "return_state", "go_backwards", "stateful", "unroll")  # RNN's own arguments


class RNN(Layer):
    """Run `cell` over axis 1 of (batch, steps, features) inputs, carrying its states from step to step.

    Returns the last output (batch, units), or every output (batch, steps, units) with return_sequences=True;
    with return_state=True a tuple (output, *final_states) (LSTM: output, h, c). go_backwards=True reads the
    steps last to first (and returns the outputs in that order). `initial_state=[...]` in the call replaces
    the zero states. A cell is any Layer with `state_size` and `call(inputs, states) -> (output, new_states)`.
    """

    def __init__(
        self,
        cell: Any,
        return_sequences: bool = False,
        return_state: bool = False,
        go_backwards: bool = False,
        stateful: bool = False,
        unroll: bool = False,
        zero_output_for_mask: bool = False,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        kind = type(self).__name__
        if isinstance(cell, (list, tuple)):
            raise NotImplementedError(
                f"{kind}: a list of cells (Keras's StackedRNNCells) is not supported by minitape; stack layers "
                f"instead, each but the last with return_sequences=True: {kind}(cell_1, return_sequences=True), "
                f"then {kind}(cell_2)"
            )
        if not callable(getattr(cell, "call", None)) or getattr(cell, "state_size", None) is None:
            raise ValueError(
                f"{kind}: the cell must have a method call(inputs, states) returning (output, new_states) and a "
                f"state_size (an int, or a list of ints, one per state); got {cell!r}"
            )
        self.cell = cell
        self.return_sequences, self.return_state, self.go_backwards = return_sequences, return_state, go_backwards
        self.stateful, self.unroll, self.zero_output_for_mask = stateful, unroll, zero_output_for_mask
        self._states: list | None = None  # stateful: the states carried from one call to the next (Variables)

    @property
    def states(self) -> list | None:
        """A stateful layer's carried states: non-trainable Variables of shape (batch, units), not among its
        weights, made on the first call; None for a layer that is not stateful (as in Keras 3)."""
        return self._states

    def reset_states(self) -> None:
        """Start the next sequence afresh: a stateful layer's carried states go back to zeros."""
        for variable in self._states or ():
            variable.assign(zeros(variable.shape, dtype=variable.dtype))

    reset_state = reset_states

    @property
    def state_sizes(self) -> list[int]:
        sizes = self.cell.state_size
        return list(sizes) if isinstance(sizes, (list, tuple)) else [sizes]

    def get_config(self) -> dict:
        config = super().get_config()
        config.update(
            cell=self.cell,
            return_sequences=self.return_sequences,
            return_state=self.return_state,
            go_backwards=self.go_backwards,
            stateful=self.stateful,
            unroll=self.unroll,
            zero_output_for_mask=self.zero_output_for_mask,
        )
        return config

    @classmethod
    def from_config(cls, config: dict) -> Any:
        """A new layer; a cell in the config is copied (from its own config), so the two never share weights."""
        cell = config.get("cell")
        if isinstance(cell, Layer):
            config = {**config, "cell": type(cell).from_config(cell.get_config())}
        return super().from_config(config)

    def check_input(self, shape: tuple) -> None:
        if len(shape) != 3:
            raise incompatible(
                self,
                shape,
                "a 3-D input (batch, steps, features)",
                "A recurrent layer reads each example as a sequence of steps. For sequences of single numbers "
                "add the features axis: x[..., None] (or keras.layers.Reshape((steps, 1))); if each row is one "
                "step of several features, add the steps axis: x[:, None, :]; for one sequence add the batch "
                "axis: x[None].",
            )
        if shape[1] == 0:
            raise incompatible(self, shape, "at least one time step (axis 1)")
        if self.built and shape[-1] != self.features:
            raise incompatible(
                self,
                shape,
                f"axis -1 of the input to have size {self.features} (the layer was built for that many features "
                "per step)",
                "A layer keeps the input size it was first called with; create a new layer for other sizes.",
            )

    def build(self, input_shape: tuple) -> None:
        self.features = input_shape[-1]
        if isinstance(self.cell, Layer) and not self.cell.built:
            self.cell.weight_prefix = f"{self.weight_prefix}{self.name}/"  # 'lstm/lstm_cell/kernel', as in Keras
            self.cell.build((input_shape[0], input_shape[-1]))
        if self.stateful:  # the states of each sequence in the batch: the batch size is fixed from now on
            self._states = [
                Variable(state, trainable=False, name=f"{self.name}/state_{i}")
                for i, state in enumerate(self.get_initial_state(input_shape[0]))
            ]

    def compute_output_shape(self, input_shape: tuple) -> Any:
        batch, steps = input_shape[0], input_shape[1]
        units = getattr(self.cell, "output_size", None) or self.state_sizes[0]
        output = (batch, steps, units) if self.return_sequences else (batch, units)
        return (output, *((batch, n) for n in self.state_sizes)) if self.return_state else output

    supports_masking = True

    def compute_mask(self, inputs: Any, previous_mask: Any = None) -> Any:
        """The input's mask for the sequence of outputs (return_sequences=True), None for the last output alone
        and for the states, as Keras 3 (with go_backwards too, where the outputs come last step first)."""
        output_mask = previous_mask if self.return_sequences else None
        return [output_mask] + [None] * len(self.state_sizes) if self.return_state else output_mask

    def call(self, inputs: Any, initial_state: Any = None, mask: Any = None, training: bool = False) -> Any:
        batch, steps = tuple(inputs.shape)[:2]
        step_masks = self._step_masks(mask, batch, steps)
        if self.stateful and initial_state is None:
            initial_state = self.carried_states(batch)
        states = self.initial_states(initial_state, batch)
        if isinstance(self.cell, RecurrentCell):
            self.cell.reset_dropout_masks()
        step_inputs = unstack(inputs, axis=1)
        outputs: list = []
        for t in reversed(range(steps)) if self.go_backwards else range(steps):
            if isinstance(self.cell, Layer):
                output, new_states = self.cell(step_inputs[t], states, training=training)
            else:
                output, new_states = self.cell.call(step_inputs[t], states)
            new_states = list(new_states) if isinstance(new_states, (list, tuple)) else [new_states]
            if step_masks is not None:  # a masked step keeps the states, and outputs the previous output (or 0)
                kept = step_masks[t]
                previous = outputs[-1] if outputs and not self.zero_output_for_mask else zeros_like(output)
                output = where(kept, output, previous)
                new_states = [where(kept, new, old) for new, old in zip(new_states, states)]
            states = new_states
            outputs.append(output)
        result = stack(outputs, axis=1) if self.return_sequences else outputs[-1]
        for variable, state in zip(self._states or (), states):  # stateful: the next call goes on from here
            variable.assign(state)
        return (result, *states) if self.return_state else result

    def _step_masks(self, mask: Any, batch: int, steps: int) -> list | None:
        """The mask as one (batch, 1) bool tensor per step (None without a mask), after checking its shape."""
        if mask is None:
            return None
        if isinstance(mask, (list, tuple)):  # the masks of [inputs, *initial_state]: the inputs' one counts
            mask = mask[0]
            if mask is None:
                return None
        mask = bool_mask(mask)
        if tuple(mask.shape) != (batch, steps):
            raise ValueError(
                f'{type(self).__name__} "{self.name}": the mask must have shape (batch, steps) = {(batch, steps)} '
                f"(True at the steps to read), but it has shape {tuple(mask.shape)}"
            )
        return unstack(expand_dims(mask, -1), axis=1)

    def carried_states(self, batch: int) -> list:
        """A stateful layer's states as the next call starts from them (their values: no gradient flows back
        into the previous batch, as in Keras); the batch size must be the one the layer was built with."""
        carried = self._states[0].shape[0]
        if batch != carried:
            raise ValueError(
                f'{type(self).__name__} "{self.name}" is stateful: the batch size of its input sequences must stay '
                f"the size it was built with, {carried}, so that example i of a batch continues example i of the "
                f"batch before; got a batch of {batch}. Cut the data into batches of {carried} (drop the "
                "remainder), or make a new layer"
            )
        return [variable.read_value() for variable in self._states]

    def get_initial_state(self, batch_size: int) -> list:
        """The states a sequence starts from when no initial_state is given: the cell's, or zeros."""
        get = getattr(self.cell, "get_initial_state", None)
        if get is not None:
            return list(get(batch_size))
        return [zeros((batch_size, n), dtype=self.dtype) for n in self.state_sizes]

    def initial_states(self, initial_state: Any, batch: int) -> list:
        """The states the first step reads: zeros, or `initial_state` once its count and shapes are checked."""
        if initial_state is None:
            return self.get_initial_state(batch)
        given = list(initial_state) if isinstance(initial_state, (list, tuple)) else [initial_state]
        sizes = self.state_sizes
        names = list(getattr(self.cell, "state_names", ())) or [f"state_{i}" for i in range(len(sizes))]
        wanted = ", ".join(f"{name} of shape {(batch, n)}" for name, n in zip(names, sizes))
        kind = type(self).__name__
        if len(given) != len(sizes):
            raise ValueError(
                f'{kind} "{self.name}": initial_state must be a list of {len(sizes)} tensor(s), [{", ".join(names)}]'
                f" ({wanted}: batch, units), got {len(given)}"
            )
        states = [self._convert(s) for s in given]
        for name, n, state in zip(names, sizes, states):
            if tuple(state.shape) != (batch, n):
                raise ValueError(
                    f'{kind} "{self.name}": initial state {name} must have shape (batch, units) = {(batch, n)} for '
                    f"this input of batch size {batch}, but it has shape {tuple(state.shape)} (expected: {wanted})"
                )
        return states


def _from_cell(name: str) -> property:
    return property(lambda self: getattr(self.cell, name), doc=f"The cell's {name} (the layer's argument).")


class _CellLayer(RNN):
    """What SimpleRNN, LSTM and GRU share: a cell made from the layer's arguments, whose settings show as
    the layer's (`layer.units`) and in its config, as in Keras. Weights: kernel, recurrent_kernel, bias."""

    units = _from_cell("units")
    activation = _from_cell("activation")
    use_bias = _from_cell("use_bias")
    dropout = _from_cell("dropout")
    recurrent_dropout = _from_cell("recurrent_dropout")

    def __init__(self, cell_class: type, arguments: dict) -> None:
        """`arguments`: the subclass's `locals()`, its signature spelled out so that help() shows it. The RNN's
        own flags go to RNN; the rest to the cell; of `kwargs`, the regularizers, constraints, seed and
        implementation go to the cell, the rest (name, dtype, ...) to the layer."""
        cell_args = {k: v for k, v in arguments.items() if k not in ("self", "__class__", "kwargs", *_FLAGS)}
        flags, kwargs = [arguments[k] for k in _FLAGS], dict(arguments["kwargs"])
        kwargs.pop("use_cudnn", None)  # there is no cuDNN: accepted and ignored
        layer_args = {k: v for k, v in kwargs.items() if k not in _CELL_ONLY}
        cell = cell_class(
            **cell_args,
            **{k: v for k, v in kwargs.items() if k in _CELL_ONLY},
            name=backend.snake_case(cell_class.__name__),  # 'lstm_cell' in every LSTM, as in Keras
            dtype=layer_args.get("dtype"),
            trainable=layer_args.get("trainable", True),
        )
        super().__init__(cell, *flags, **layer_args)

    def get_config(self) -> dict:
        config = super().get_config()
        del config["cell"]
        config.update({k: v for k, v in self.cell.get_config().items() if k not in _LAYER_BASE_KEYS})
        return config


class SimpleRNN(_CellLayer):
    """A fully connected recurrence, h_t = activation(x_t @ kernel + h_{t-1} @ recurrent_kernel + bias)."""

    def __init__(
        self,
        units: int,
        activation: Any = "tanh",
        use_bias: bool = True,
        kernel_initializer: Any = "glorot_uniform",
        recurrent_initializer: Any = "orthogonal",
        bias_initializer: Any = "zeros",
        dropout: float = 0.0,
        recurrent_dropout: float = 0.0,
        return_sequences: bool = False,
        return_state: bool = False,
        go_backwards: bool = False,
        stateful: bool = False,
        unroll: bool = False,
        **kwargs: Any,
    ) -> None:
        super().__init__(SimpleRNNCell, locals())


class LSTM(_CellLayer):
    """Long short-term memory over a sequence; states [h, c]; gates i, f, c, o in the kernels (see LSTMCell)."""

    recurrent_activation = _from_cell("recurrent_activation")
    unit_forget_bias = _from_cell("unit_forget_bias")

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
        dropout: float = 0.0,
        recurrent_dropout: float = 0.0,
        return_sequences: bool = False,
        return_state: bool = False,
        go_backwards: bool = False,
        stateful: bool = False,
        unroll: bool = False,
        **kwargs: Any,
    ) -> None:
        super().__init__(LSTMCell, locals())


class GRU(_CellLayer):
    """Gated recurrent unit over a sequence; state [h]; gates z, r, h in the kernels (see GRUCell).
    reset_after=True (the default) gives a (2, 3 * units) bias: the input's row, then the recurrent one."""

    recurrent_activation = _from_cell("recurrent_activation")
    reset_after = _from_cell("reset_after")

    def __init__(
        self,
        units: int,
        activation: Any = "tanh",
        recurrent_activation: Any = "sigmoid",
        use_bias: bool = True,
        kernel_initializer: Any = "glorot_uniform",
        recurrent_initializer: Any = "orthogonal",
        bias_initializer: Any = "zeros",
        dropout: float = 0.0,
        recurrent_dropout: float = 0.0,
        return_sequences: bool = False,
        return_state: bool = False,
        go_backwards: bool = False,
        stateful: bool = False,
        unroll: bool = False,
        reset_after: bool = True,
        **kwargs: Any,
    ) -> None:
        super().__init__(GRUCell, locals())
