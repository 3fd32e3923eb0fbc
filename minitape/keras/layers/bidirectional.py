"""Bidirectional: a recurrent layer run forwards and a copy of it run backwards, their outputs merged."""

from __future__ import annotations

from typing import Any

from minitape.keras.layers.base import Layer
from minitape.keras.layers.recurrent import RNN
from minitape.ops.api import cast, concat
from minitape.ops.shape_ops import reverse

_MERGES = ("concat", "sum", "mul", "ave", None)


def _copy(layer: RNN, **changes: Any) -> RNN:
    """A new layer with the settings of `layer` (and `changes`), and weights of its own."""
    return type(layer).from_config({**layer.get_config(), **changes})


class Bidirectional(Layer):
    """Each step's output sees the whole sequence: the forward layer reads steps 1..T, the backward one T..1.

    Both are new copies of `layer` (named forward_<name> and backward_<name>, as in Keras; `layer` itself
    is left unused), unless `backward_layer` is given. With return_sequences=True the backward outputs are
    put back in time order before merging: merge_mode 'concat' (units * 2 features), 'sum', 'mul', 'ave',
    or None (a tuple of the two outputs). With return_state=True the forward states follow the output, then
    the backward ones; an `initial_state` list holds the forward layer's states, then the backward layer's.
    """

    def __init__(
        self,
        layer: RNN,
        merge_mode: str | None = "concat",
        weights: list | None = None,
        backward_layer: RNN | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        for what, given in (("layer", layer), ("backward_layer", backward_layer)):
            if given is not None and not isinstance(given, RNN):
                raise ValueError(
                    f"Bidirectional: {what} must be a recurrent layer (SimpleRNN, LSTM, GRU or RNN), got {given!r}; "
                    "for a stack of layers wrap each recurrent layer in its own Bidirectional"
                )
        if merge_mode not in _MERGES:
            raise ValueError(f"Bidirectional: merge_mode must be one of {_MERGES}, got {merge_mode!r}")
        self.forward_layer = _copy(layer, name=f"forward_{layer.name.removeprefix('forward_')}")
        if backward_layer is None:
            name = f"backward_{layer.name.removeprefix('backward_')}"
            backward_layer = _copy(layer, name=name, go_backwards=not layer.go_backwards)
        self.backward_layer = backward_layer
        if self.forward_layer.go_backwards == backward_layer.go_backwards:
            raise ValueError(
                "Bidirectional: the forward and backward layers must read in opposite directions, but both have "
                f"go_backwards={backward_layer.go_backwards}; give backward_layer go_backwards=True"
            )
        for flag in ("return_sequences", "return_state"):
            if getattr(self.forward_layer, flag) != getattr(backward_layer, flag):
                raise ValueError(
                    f"Bidirectional: the forward and backward layers must have the same {flag}, got "
                    f"{getattr(self.forward_layer, flag)} and {getattr(backward_layer, flag)}"
                )
        for each in (self.forward_layer, backward_layer):  # as Keras 3: masked steps output zeros in both directions
            each.zero_output_for_mask = each.return_sequences
        self.merge_mode = merge_mode
        self.return_sequences, self.return_state = layer.return_sequences, layer.return_state
        self.stateful = False
        self._initial_weights = weights

    def get_config(self) -> dict:
        config = super().get_config()
        config.update(layer=self.forward_layer, merge_mode=self.merge_mode, backward_layer=self.backward_layer)
        return config

    @classmethod
    def from_config(cls, config: dict) -> Any:
        """A new layer; the layers in the config are copied, so the two never share weights."""
        backward = config.get("backward_layer")
        return super().from_config({**config, "backward_layer": backward and _copy(backward)})

    def check_input(self, shape: tuple) -> None:
        self.forward_layer.check_input(shape)

    def build(self, input_shape: tuple) -> None:
        for layer in (self.forward_layer, self.backward_layer):
            layer.weight_prefix = f"{self.weight_prefix}{self.name}/"  # 'bidirectional/forward_lstm/lstm_cell/...'
            if not layer.built:
                layer.build(input_shape)
        if self._initial_weights is not None:
            self.set_weights(self._initial_weights)
            self._initial_weights = None

    supports_masking = True

    def compute_mask(self, inputs: Any, previous_mask: Any = None) -> Any:
        """The input's mask for each sequence of outputs (return_sequences=True), else None, as Keras 3; None for
        the states."""
        mask = previous_mask[0] if isinstance(previous_mask, (list, tuple)) else previous_mask
        output_mask = mask if self.return_sequences else None
        outputs = [output_mask, output_mask] if self.merge_mode is None else [output_mask]
        states = [None] * (len(self.forward_layer.state_sizes) * 2) if self.return_state else []
        return outputs + states if len(outputs) + len(states) > 1 else output_mask

    def call(self, inputs: Any, initial_state: Any = None, mask: Any = None, training: bool = False) -> Any:
        forward_state = backward_state = None
        if initial_state is not None:
            initial_state = list(initial_state)
            half = len(initial_state) // 2
            forward_state, backward_state = initial_state[:half], initial_state[half:]
        y = self.forward_layer(inputs, initial_state=forward_state, mask=mask, training=training)
        y_rev = self.backward_layer(inputs, initial_state=backward_state, mask=mask, training=training)
        states: tuple = ()
        if self.return_state:
            states = (*y[1:], *y_rev[1:])
            y, y_rev = y[0], y_rev[0]
        y, y_rev = cast(y, self.dtype), cast(y_rev, self.dtype)  # as Keras: the wrapper's dtype, not the layer's
        if self.return_sequences:
            y_rev = reverse(y_rev, [1])  # the backward layer's outputs come last step first
        if self.merge_mode is None:
            return (y, y_rev, *states)
        merged = {
            "concat": lambda: concat([y, y_rev], axis=-1),
            "sum": lambda: y + y_rev,
            "mul": lambda: y * y_rev,
            "ave": lambda: (y + y_rev) / 2,
        }[self.merge_mode]()
        return (merged, *states) if self.return_state else merged
