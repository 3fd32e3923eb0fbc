"""BatchNormalization (per channel, over the batch) and LayerNormalization (per example, over its features)."""

from __future__ import annotations

from typing import Any

import numpy as np

from minitape.function.trace import runs_each_call
from minitape.keras.layers.attention import bool_mask
from minitape.keras.layers.base import Layer, incompatible
from minitape.ops.api import broadcast_to, cast, expand_dims, reduce_mean, reduce_sum, rsqrt, square, where, zeros_like


@runs_each_call(changes_state=True, arrays=True)  # a traced train step moves the averages at every call
def _move_towards(average: Any, batch_value: Any, keep: float) -> None:
    """A running average moved towards the batch's value: state, not part of any gradient, so plain numpy."""
    average.assign(keep * np.asarray(average) + (1 - keep) * np.asarray(batch_value))


def _masked_moments(inputs: Any, mask: Any, axes: tuple) -> tuple[Any, Any]:
    """The mean and variance over `axes` of the entries at kept steps, as Keras 3 computes them (its epsilon,
    1e-7, in the denominators: an all-masked batch gives 0, not nan)."""
    kept = broadcast_to(expand_dims(bool_mask(mask), -1), tuple(inputs.shape))
    count = reduce_sum(cast(kept, inputs.dtype), axis=axes) + 1e-7
    mean = reduce_sum(where(kept, inputs, zeros_like(inputs)), axis=axes) / count
    variance = reduce_sum(square(where(kept, inputs - mean, zeros_like(inputs))), axis=axes) / count
    return mean, variance


class BatchNormalization(Layer):
    """gamma * (x - mean) / sqrt(var + epsilon) + beta, per channel (the last axis).

    While training, mean and var are the batch's, and the non-trainable moving_mean and
    moving_variance move towards them by (1 - momentum); at inference they replace them.
    """

    def __init__(
        self,
        axis: int = -1,
        momentum: float = 0.99,
        epsilon: float = 1e-3,
        center: bool = True,
        scale: bool = True,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        if axis != -1:
            raise ValueError(f"BatchNormalization: only axis=-1 (channels last) is supported, got {axis!r}")
        self.momentum, self.epsilon, self.center, self.scale = momentum, epsilon, center, scale

    def check_input(self, shape: tuple) -> None:
        if len(shape) < 2:
            raise incompatible(self, shape, "an input of rank >= 2 (batch, ..., channels)")
        if self.built and shape[-1] != self.moving_mean.shape[0]:
            raise incompatible(
                self, shape, f"axis -1 of the input to have size {self.moving_mean.shape[0]} (built for that many)"
            )

    def build(self, input_shape: tuple) -> None:
        channels = (input_shape[-1],)
        self.gamma = self.add_weight("gamma", channels, initializer="ones") if self.scale else None
        self.beta = self.add_weight("beta", channels, initializer="zeros") if self.center else None
        self.moving_mean = self.add_weight("moving_mean", channels, initializer="zeros", trainable=False)
        self.moving_variance = self.add_weight("moving_variance", channels, initializer="ones", trainable=False)

    supports_masking = True  # as Keras 3: the input's mask is the output's, and training's moments skip the padding

    def call(self, inputs: Any, training: bool = False, mask: Any = None) -> Any:
        if mask is not None and len(mask.shape) != len(inputs.shape) - 1:  # Keras 3's words
            raise ValueError(
                "The mask provided should be one dimension less than the inputs. Received: "
                f"mask.shape={tuple(mask.shape)}, inputs.shape={tuple(inputs.shape)}"
            )
        if training:
            axes = tuple(range(len(inputs.shape) - 1))
            if mask is None:
                mean = reduce_mean(inputs, axis=axes)
                variance = reduce_mean(square(inputs - mean), axis=axes)
            else:
                mean, variance = _masked_moments(inputs, mask, axes)
            _move_towards(self.moving_mean, mean, self.momentum)
            _move_towards(self.moving_variance, variance, self.momentum)
        else:
            mean, variance = self.moving_mean, self.moving_variance
        outputs = (inputs - mean) * rsqrt(variance + self.epsilon)
        if self.scale:
            outputs = outputs * self.gamma
        if self.center:
            outputs = outputs + self.beta
        return outputs


class LayerNormalization(Layer):
    """gamma * (x - mean) / sqrt(var + epsilon) + beta, with mean and var over `axis` of each example.

    Unlike BatchNormalization it uses no batch statistics, so training and inference agree.
    gamma and beta have the shape of the normalised axes.
    """

    supports_masking = True  # step by step, as in Keras 3: the input's mask is the output's

    def __init__(
        self,
        axis: Any = -1,
        epsilon: float = 1e-3,
        center: bool = True,
        scale: bool = True,
        beta_initializer: Any = "zeros",
        gamma_initializer: Any = "ones",
        beta_regularizer: Any = None,
        gamma_regularizer: Any = None,
        beta_constraint: Any = None,
        gamma_constraint: Any = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.axis = [int(axis)] if isinstance(axis, int) else [int(a) for a in axis]
        self.epsilon, self.center, self.scale = epsilon, center, scale
        self.beta_initializer, self.gamma_initializer = beta_initializer, gamma_initializer
        self.beta_regularizer, self.gamma_regularizer = beta_regularizer, gamma_regularizer
        self.beta_constraint, self.gamma_constraint = beta_constraint, gamma_constraint

    def _axes(self, rank: int) -> tuple[int, ...]:
        return tuple(sorted(a % rank for a in self.axis))

    def check_input(self, shape: tuple) -> None:
        rank = len(shape)
        if any(not -rank <= a < rank for a in self.axis):
            raise incompatible(self, shape, f"an input with the axes {self.axis} to normalise")

    def build(self, input_shape: tuple) -> None:
        axes = self._axes(len(input_shape))
        rank = len(input_shape)
        # gamma and beta broadcast against the input: size 1 on the axes that are not normalised
        shape = tuple(input_shape[i] if i in axes else 1 for i in range(min(axes), rank))
        self.gamma = None
        self.beta = None
        if self.scale:
            self.gamma = self.add_weight(
                "gamma",
                shape,
                initializer=self.gamma_initializer,
                regularizer=self.gamma_regularizer,
                constraint=self.gamma_constraint,
            )
        if self.center:
            self.beta = self.add_weight(
                "beta",
                shape,
                initializer=self.beta_initializer,
                regularizer=self.beta_regularizer,
                constraint=self.beta_constraint,
            )

    def call(self, inputs: Any) -> Any:
        axes = self._axes(len(inputs.shape))
        mean = reduce_mean(inputs, axis=axes, keepdims=True)
        variance = reduce_mean(square(inputs - mean), axis=axes, keepdims=True)
        outputs = (inputs - mean) * rsqrt(variance + self.epsilon)
        if self.scale:
            outputs = outputs * self.gamma
        if self.center:
            outputs = outputs + self.beta
        return outputs
