"""Losses as classes and by name. Each returns the mean over the batch of a per-example loss.

Probabilities are clipped to [eps, 1 - eps] before the log, as Keras does, so a
saturated softmax gives a large finite loss instead of inf; with `from_logits=True`
the log-softmax is computed directly, which is both exact and stable.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minitape import name_scope
from minitape.keras import backend
from minitape.ops.api import clip_by_value, log, reduce_mean, reduce_sum, reshape, square
from minitape.ops.math_ops import cast
from minitape.ops.nn_ops import (
    log_softmax,
    sigmoid_cross_entropy_with_logits,
    sparse_softmax_cross_entropy_with_logits,
)
from minitape.tensor import Tensor, TensorLike


def _tensor(value: Any, dtype: Any = None) -> Any:
    if isinstance(value, TensorLike):
        return value if dtype is None or value.dtype.name == dtype else cast(value, dtype)
    return Tensor(np.asarray(value, dtype=dtype))


def _check_batch(loss: str, y_true: Any, y_pred: Any) -> None:
    if len(y_true.shape) and len(y_pred.shape) and y_true.shape[0] != y_pred.shape[0]:
        raise ValueError(
            f"{loss}: y_true has {y_true.shape[0]} examples (shape {tuple(y_true.shape)}) but y_pred has "
            f"{y_pred.shape[0]} (shape {tuple(y_pred.shape)}); they must come from the same batch"
        )


def _match_rank(y_true: Any, y_pred: Any) -> Any:
    """Labels of shape (batch,) against predictions (batch, 1) get the trailing axis, as Keras adds it."""
    if len(y_true.shape) == len(y_pred.shape) - 1 and y_pred.shape[-1] == 1:
        return reshape(y_true, (*tuple(y_true.shape), 1))
    return y_true


def _paired(loss: str, y_true: Any, y_pred: Any, hint: str, match_rank: bool = True) -> tuple[Any, Any]:
    """y_true and y_pred as tensors of one dtype and one shape, or an error naming the loss and both shapes."""
    y_pred = _tensor(y_pred)
    y_true = _tensor(y_true, y_pred.dtype.name)
    _check_batch(loss, y_true, y_pred)
    if match_rank:
        y_true = _match_rank(y_true, y_pred)
    if tuple(y_true.shape) != tuple(y_pred.shape):
        raise ValueError(
            f"{loss}: y_true of shape {tuple(y_true.shape)} and y_pred of shape {tuple(y_pred.shape)} differ; {hint}"
        )
    return y_true, y_pred


def _clipped_probabilities(y_pred: Any) -> Any:
    eps = backend.epsilon()
    return clip_by_value(y_pred, eps, 1.0 - eps)


def sparse_categorical_crossentropy(y_true: Any, y_pred: Any, from_logits: bool = False, axis: int = -1) -> Any:
    """Per-example -log p[label], for integer labels of shape (batch,) or (batch, 1)."""
    name = "SparseCategoricalCrossentropy"
    y_pred = _tensor(y_pred)
    labels = backend.to_numpy(y_true)
    _check_batch(name, labels, y_pred)
    n_classes = y_pred.shape[-1]
    if labels.ndim == len(y_pred.shape) and labels.shape[-1] == 1:
        labels = labels.reshape(labels.shape[:-1])
    if labels.shape != tuple(y_pred.shape)[:-1]:
        raise ValueError(
            f"{name}: labels of shape {labels.shape} do not fit predictions of shape {tuple(y_pred.shape)}; "
            f"give one integer class index per example, shape {tuple(y_pred.shape)[:-1]}"
        )
    if labels.dtype.kind == "f" and not np.all(labels == np.round(labels)):
        raise ValueError(f"{name}: labels must be integer class indices, got non-integer values {labels.ravel()[:5]}")
    if labels.size and (labels.min() < 0 or labels.max() >= n_classes):
        bad = labels[(labels < 0) | (labels >= n_classes)].ravel()[0].item()
        raise ValueError(
            f"{name}: label {bad} is out of range: y_pred has shape {tuple(y_pred.shape)}, so labels must be in "
            f"[0, {n_classes}). Check that the last Dense layer has one unit per class."
        )
    if from_logits and axis in (-1, len(y_pred.shape) - 1):  # the fused op: one record each way
        return sparse_softmax_cross_entropy_with_logits(labels=labels.astype(np.int64), logits=y_pred)
    one_hot = Tensor(np.eye(n_classes, dtype=y_pred.dtype.as_numpy_dtype)[labels.astype(np.int64)])
    log_p = log_softmax(y_pred, axis=axis) if from_logits else log(_clipped_probabilities(y_pred))
    return -reduce_sum(one_hot * log_p, axis=axis)


def categorical_crossentropy(
    y_true: Any, y_pred: Any, from_logits: bool = False, label_smoothing: float = 0.0, axis: int = -1
) -> Any:
    """Per-example -sum(y_true * log p), for one-hot (or probability) targets."""
    y_true, y_pred = _paired(
        "CategoricalCrossentropy", y_true, y_pred, "for integer labels use SparseCategoricalCrossentropy", False
    )
    if label_smoothing:
        y_true = y_true * (1.0 - label_smoothing) + label_smoothing / y_pred.shape[-1]
    log_p = log_softmax(y_pred, axis=axis) if from_logits else log(_clipped_probabilities(y_pred))
    return -reduce_sum(y_true * log_p, axis=axis)


def binary_crossentropy(y_true: Any, y_pred: Any, from_logits: bool = False, axis: int = -1) -> Any:
    """Per-example mean over the last axis of -(y log p + (1 - y) log(1 - p))."""
    y_true, y_pred = _paired("BinaryCrossentropy", y_true, y_pred, "they must match")
    if from_logits:
        per_element = sigmoid_cross_entropy_with_logits(labels=y_true, logits=y_pred)
    else:
        p = _clipped_probabilities(y_pred)
        per_element = -(y_true * log(p) + (1.0 - y_true) * log(1.0 - p))
    return reduce_mean(per_element, axis=axis)


def mean_squared_error(y_true: Any, y_pred: Any) -> Any:
    """Per-example mean over the last axis of (y_true - y_pred)^2."""
    y_true, y_pred = _paired("MeanSquaredError", y_true, y_pred, "they must match (reshape one, e.g. y[:, None])")
    return reduce_mean(square(y_true - y_pred), axis=-1)


class Loss:
    """`loss(y_true, y_pred)`: the per-example loss of `fn`, averaged over the batch."""

    def __init__(self, fn: Any, name: str, reduction: str = "sum_over_batch_size", **options: Any) -> None:
        if reduction not in ("sum_over_batch_size", "auto", "sum", "none"):
            raise ValueError(f"{name}: reduction must be 'sum_over_batch_size', 'sum' or 'none', not {reduction!r}")
        self.fn, self.name, self.reduction, self.options = fn, name, reduction, options

    def __call__(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> Any:
        with name_scope(self.name):
            losses = self.fn(y_true, y_pred, **self.options)
            if sample_weight is not None:
                losses = losses * _tensor(sample_weight, losses.dtype.name)
            if self.reduction == "none":
                return losses
            if self.reduction == "sum":
                return reduce_sum(losses)
            return reduce_mean(losses)

    def get_config(self) -> dict:
        return {"name": self.name, "reduction": self.reduction, **self.options}

    def __repr__(self) -> str:
        options = "".join(f", {k}={v!r}" for k, v in self.options.items())
        return f"{type(self).__name__}(name={self.name!r}{options})"


class SparseCategoricalCrossentropy(Loss):
    def __init__(
        self,
        from_logits: bool = False,
        reduction: str = "sum_over_batch_size",
        name: str = "sparse_categorical_crossentropy",
    ) -> None:
        super().__init__(sparse_categorical_crossentropy, name, reduction, from_logits=from_logits)


class CategoricalCrossentropy(Loss):
    def __init__(
        self,
        from_logits: bool = False,
        label_smoothing: float = 0.0,
        reduction: str = "sum_over_batch_size",
        name: str = "categorical_crossentropy",
    ) -> None:
        super().__init__(
            categorical_crossentropy, name, reduction, from_logits=from_logits, label_smoothing=label_smoothing
        )


class BinaryCrossentropy(Loss):
    def __init__(
        self, from_logits: bool = False, reduction: str = "sum_over_batch_size", name: str = "binary_crossentropy"
    ) -> None:
        super().__init__(binary_crossentropy, name, reduction, from_logits=from_logits)


class MeanSquaredError(Loss):
    def __init__(self, reduction: str = "sum_over_batch_size", name: str = "mean_squared_error") -> None:
        super().__init__(mean_squared_error, name, reduction)


_BY_NAME = {
    "sparse_categorical_crossentropy": SparseCategoricalCrossentropy,
    "categorical_crossentropy": CategoricalCrossentropy,
    "binary_crossentropy": BinaryCrossentropy,
    "mean_squared_error": MeanSquaredError,
    "mse": MeanSquaredError,
}


def get(identifier: Any) -> Any:
    """A Loss from a name ('sparse_categorical_crossentropy', 'mse', ...), a Loss, or a callable(y_true, y_pred).

    A plain function giving per-example losses is wrapped so that it, too, is averaged over the batch.
    """
    if isinstance(identifier, str):
        if identifier not in _BY_NAME:
            raise ValueError(f"Unknown loss function: {identifier!r}. Use one of {sorted(_BY_NAME)}, or a Loss object.")
        return _BY_NAME[identifier]()
    if isinstance(identifier, Loss):
        return identifier
    if callable(identifier):
        return Loss(identifier, getattr(identifier, "__name__", "loss"))
    raise ValueError(f"Could not interpret loss {identifier!r}: pass a name, a Loss object or a callable")


mse = MSE = mean_squared_error
