"""Activation functions by name, as `tf.keras.activations`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from minitape.keras import kept_logits, unsupported
from minitape.namespaces.nn import elu, gelu, leaky_relu, log_softmax, relu6, selu, silu, softsign, swish
from minitape.ops import nn_ops
from minitape.ops.api import clip_by_value, where, zeros_like
from minitape.ops.api import exp as _exp
from minitape.ops.api import sigmoid as _sigmoid
from minitape.ops.api import tanh as _tanh


def relu(x: Any, negative_slope: float = 0.0, max_value: float | None = None, threshold: float = 0.0) -> Any:
    """max(x, 0); Keras 3's options: x below `threshold` gives negative_slope * (x - threshold), and the
    output is capped at `max_value` (negative_slope=0.1 is a leaky ReLU, max_value=6 is relu6)."""
    if not negative_slope and max_value is None and not threshold:
        return nn_ops.relu(x)
    if negative_slope and max_value is None and not threshold:
        return leaky_relu(x, alpha=negative_slope)
    positive = where(x > threshold, x, zeros_like(x)) if threshold else nn_ops.relu(x)
    if max_value is not None:
        positive = clip_by_value(positive, 0.0, max_value)
    if negative_slope:
        positive = positive - negative_slope * nn_ops.relu(threshold - x)
    return positive


def sigmoid(x: Any) -> Any:
    """1 / (1 + e^-x), its output linked to x so that binary crossentropy uses the logits, as Keras 3 does."""
    return kept_logits.keep(_sigmoid(x), x)


def tanh(x: Any) -> Any:
    return _tanh(x)


def softmax(x: Any, axis: int = -1) -> Any:
    """exp(x) / sum(exp(x)), its output linked to x so that the crossentropies use the logits, as Keras 3 does."""
    return kept_logits.keep(nn_ops.softmax(x, axis=axis), x)


def hard_sigmoid(x: Any) -> Any:
    """relu6(x + 3) / 6: Keras 3's piecewise-linear sigmoid (slope 1/6; Keras 2's backend one has 0.2)."""
    return relu6(x + 3.0) / 6.0


def softplus(x: Any) -> Any:
    return nn_ops.softplus(x)


def linear(x: Any) -> Any:
    """The identity: what a layer with activation=None applies."""
    return x


def exponential(x: Any) -> Any:
    return _exp(x)


_BY_NAME: dict[str, Callable] = {
    "relu": relu,
    "sigmoid": sigmoid,
    "tanh": tanh,
    "softmax": softmax,
    "softplus": softplus,
    "hard_sigmoid": hard_sigmoid,
    "linear": linear,
    "exponential": exponential,
    "elu": elu,
    "selu": selu,
    "gelu": gelu,
    "swish": swish,
    "silu": silu,
    "relu6": relu6,
    "softsign": softsign,
    "leaky_relu": leaky_relu,  # TensorFlow's default slope, 0.2
    "log_softmax": log_softmax,
}


def get(identifier: str | Callable | None) -> Callable:
    """The activation function for a name, a callable (returned as is), or None (linear)."""
    if identifier is None:
        return linear
    if callable(identifier):
        return identifier
    if isinstance(identifier, str) and identifier in _BY_NAME:
        return _BY_NAME[identifier]
    raise ValueError(f"Unknown activation function: {identifier!r}. Use one of {sorted(_BY_NAME)}, or a callable.")


def serialize(fn: Callable) -> str:
    return getattr(fn, "__name__", repr(fn))


__all__ = ["get", "linear", "relu", "sigmoid", "softmax", "softplus", "tanh", "exponential", "elu", "selu", "gelu"]
__all__ += ["swish", "silu", "relu6", "softsign", "leaky_relu", "log_softmax", "hard_sigmoid"]


__getattr__ = unsupported.module_getattr("keras.activations")  # a left-out name says what to use instead
