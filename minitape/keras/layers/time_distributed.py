"""TimeDistributed: one layer applied to every time step of a (batch, steps, ...) input, with the same weights."""

from __future__ import annotations

from typing import Any

from minitape.keras.layers.attention import bool_mask
from minitape.keras.layers.base import Layer, incompatible, takes_mask
from minitape.ops.api import stack, unstack


class TimeDistributed(Layer):
    """`layer` on each step `inputs[:, t]` in turn, the outputs stacked back along axis 1, as Keras 3 does.

    The steps share the layer's weights, so their gradients add up, as for a recurrent layer; the tape
    records one call per step. (Dense needs no wrapper: it already acts on the last axis of every step.)
    """

    def __init__(self, layer: Layer, **kwargs: Any) -> None:
        if not isinstance(layer, Layer):
            raise ValueError(
                f"Please initialize `TimeDistributed` layer with a `keras.layers.Layer` instance. Received: {layer!r}"
                " (to apply a function to each step, wrap it first: keras.layers.Lambda(fn))"
            )
        super().__init__(**kwargs)
        self.layer = layer

    def check_input(self, shape: tuple) -> None:
        if len(shape) < 3:
            raise incompatible(
                self,
                shape,
                "an input with at least 3 dimensions (batch, steps, ...)",
                "TimeDistributed applies its layer to each step of axis 1; for one step of data apply the layer "
                "itself, or add the steps axis: x[:, None].",
            )

    def build(self, input_shape: tuple) -> None:
        if not self.layer.built:
            self.layer.weight_prefix = f"{self.weight_prefix}{self.name}/"  # 'time_distributed/dense/kernel'
            self.layer.build((input_shape[0], *input_shape[2:]))
            self.layer.built = True

    supports_masking = True  # the steps stay: the input's mask is the output's, as in Keras 3

    def call(self, inputs: Any, training: bool = False, mask: Any = None) -> Any:
        steps = unstack(inputs, axis=1)
        if mask is None or not takes_mask(self.layer.call):
            return stack([self.layer(step, training=training) for step in steps], axis=1)
        # as Keras 3: a layer whose call takes a mask gets each step's (batch,) column of it
        step_masks = unstack(bool_mask(mask), axis=1)
        return stack([self.layer(x, training=training, mask=m) for x, m in zip(steps, step_masks)], axis=1)

    def get_config(self) -> dict:
        return {**super().get_config(), "layer": self.layer}
