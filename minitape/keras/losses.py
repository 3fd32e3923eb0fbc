"""Losses as classes and by name. Each returns the mean over the batch of a per-example loss.

Probabilities are clipped to [eps, 1 - eps] before the log, as Keras does, so a
saturated softmax gives a large finite loss instead of inf; with `from_logits=True`
the log-softmax is computed directly, which is both exact and stable.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from minitape import name_scope
from minitape.engine.tensor import Tensor
from minitape.function.trace import runs_each_call
from minitape.keras import backend, kept_logits, masking, unsupported
from minitape.ops.api import abs as abs_
from minitape.ops.api import (
    clip_by_value,
    expand_dims,
    gather,
    log,
    maximum,
    minimum,
    ones_like,
    reduce_all,
    reduce_max,
    reduce_mean,
    reduce_sum,
    reshape,
    rsqrt,
    square,
)
from minitape.ops.composite_ops import divide_no_nan
from minitape.ops.math_ops import cast, equal, logical_or
from minitape.ops.math_ops import where as select
from minitape.ops.nn_ops import (
    log_softmax,
    sigmoid_cross_entropy_with_logits,
    softmax_cross_entropy_with_logits,
    softplus,
    sparse_softmax_cross_entropy_with_logits,
)
from minitape.values.tensor_like import TensorLike


def _tensor(value: Any, dtype: Any = None) -> Any:
    if isinstance(value, TensorLike):
        return value if dtype is None or value.dtype.name == dtype else cast(value, dtype)
    return Tensor(np.asarray(value, dtype=dtype))


def _check_batch(loss: str, true_shape: tuple, pred_shape: tuple) -> None:
    if len(true_shape) and len(pred_shape) and true_shape[0] != pred_shape[0]:
        raise ValueError(
            f"{loss}: y_true has {true_shape[0]} examples (shape {true_shape}) but y_pred has "
            f"{pred_shape[0]} (shape {pred_shape}); they must come from the same batch"
        )


def _match_rank(y_true: Any, y_pred: Any) -> Any:
    """A trailing axis of size 1 that only one side has is added to y_true or dropped from it, as Keras does:
    labels (batch,) against predictions (batch, 1), or images (batch, h, w, 1) against predictions (batch, h, w)."""
    if len(y_true.shape) == len(y_pred.shape) - 1 and y_pred.shape[-1] == 1:
        return reshape(y_true, (*tuple(y_true.shape), 1))
    if len(y_true.shape) == len(y_pred.shape) + 1 and y_true.shape[-1] == 1:
        return reshape(y_true, tuple(y_true.shape)[:-1])
    return y_true


def _paired(loss: str, y_true: Any, y_pred: Any, hint: str, match_rank: bool = True) -> tuple[Any, Any]:
    """y_true and y_pred as tensors of one dtype and one shape, or an error naming the loss and both shapes."""
    y_pred = _tensor(y_pred)
    y_true = _tensor(y_true, y_pred.dtype.name)
    _check_batch(loss, tuple(y_true.shape), tuple(y_pred.shape))
    if match_rank:
        y_true = _match_rank(y_true, y_pred)
    if tuple(y_true.shape) != tuple(y_pred.shape):
        raise ValueError(
            f"{loss}: y_true of shape {tuple(y_true.shape)} and y_pred of shape {tuple(y_pred.shape)} differ; {hint}"
        )
    return y_true, y_pred


def _logits_if_kept(y_pred: Any, from_logits: bool, fn_name: str, op_type: str) -> tuple[Any, bool]:
    """Probabilities from a Keras softmax or sigmoid are replaced by their logits, as Keras 3 on TensorFlow does
    (its `_keras_logits`): the loss is then computed from the logits, unclipped. Asking for from_logits=True on
    such probabilities gets Keras 3's warning."""
    logits = kept_logits.of(y_pred)
    if logits is None:
        return y_pred, from_logits
    if from_logits:
        warnings.warn(
            f'"`{fn_name}` received `from_logits=True`, but the `output` argument was produced by a {op_type} '
            "activation and thus does not represent logits. Was this intended?",
            stacklevel=4,
        )
    return logits, True


def _clipped_probabilities(y_pred: Any) -> Any:
    eps = backend.epsilon()
    return clip_by_value(y_pred, eps, 1.0 - eps)


def sparse_categorical_crossentropy(y_true: Any, y_pred: Any, from_logits: bool = False, axis: int = -1) -> Any:
    """Per-example -log p[label], for integer labels of shape (batch,) or (batch, 1)."""
    y_pred, from_logits = _logits_if_kept(y_pred, from_logits, "sparse_categorical_crossentropy", "Softmax")
    y_pred = _tensor(y_pred)
    labels = _sparse_labels(y_true, tuple(y_pred.shape))
    # Probabilities are clipped, then their logs taken as logits: as Keras 3 does, so each row is rescaled to
    # sum to 1 (after the clipping: a row of values all above 1 - eps becomes uniform)
    logits = y_pred if from_logits else log(_clipped_probabilities(y_pred))
    if axis in (-1, len(y_pred.shape) - 1):  # the fused op: one record each way
        return sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)
    one_hot = gather(Tensor(np.eye(y_pred.shape[-1], dtype=y_pred.dtype.as_numpy_dtype)), labels)
    return -reduce_sum(one_hot * log_softmax(logits, axis=axis), axis=axis)


@runs_each_call(arrays=True)  # checked at every call of a traced function too; the labels come from that call
def _sparse_labels(y_true: Any, pred_shape: tuple) -> Tensor:
    """Integer labels of shape (batch,) or (batch, 1), checked against predictions of `pred_shape`, as int64."""
    name = "SparseCategoricalCrossentropy"
    labels = backend.to_numpy(y_true)
    _check_batch(name, labels.shape, pred_shape)
    n_classes = pred_shape[-1]
    if labels.ndim == len(pred_shape) and labels.shape[-1] == 1:
        labels = labels.reshape(labels.shape[:-1])
    if labels.shape != pred_shape[:-1]:
        raise ValueError(
            f"{name}: labels of shape {labels.shape} do not fit predictions of shape {pred_shape}; "
            f"give one integer class index per example, shape {pred_shape[:-1]}"
        )
    if labels.dtype.kind == "f" and not np.all(labels == np.round(labels)):
        raise ValueError(f"{name}: labels must be integer class indices, got non-integer values {labels.ravel()[:5]}")
    as_int = labels.astype(np.int64)
    # as unsigned, a negative label is huge: one maximum finds a label outside the range on either side
    if as_int.size and np.maximum.reduce(as_int.view(np.uint64), axis=None) >= n_classes:
        bad = labels[(labels < 0) | (labels >= n_classes)].ravel()[0].item()
        raise ValueError(
            f"{name}: label {bad} is out of range: y_pred has shape {pred_shape}, so labels must be in "
            f"[0, {n_classes}). Check that the last Dense layer has one unit per class."
        )
    return Tensor(as_int)


def categorical_crossentropy(
    y_true: Any, y_pred: Any, from_logits: bool = False, label_smoothing: float = 0.0, axis: int = -1
) -> Any:
    """Per-example -sum(y_true * log p), for one-hot (or probability) targets.

    With logits (`from_logits=True`, or probabilities from a Keras softmax, whose logits Keras 3 uses instead)
    it is TensorFlow's fused softmax_cross_entropy_with_logits, with TensorFlow's gradient p - y_true: the exact
    derivative only when each row of y_true sums to 1 (see mt.nn.softmax_cross_entropy_with_logits).
    """
    y_pred, from_logits = _logits_if_kept(y_pred, from_logits, "categorical_crossentropy", "Softmax")
    y_true, y_pred = _paired(
        "CategoricalCrossentropy", y_true, y_pred, "for integer labels use SparseCategoricalCrossentropy", False
    )
    if label_smoothing:
        y_true = y_true * (1.0 - label_smoothing) + label_smoothing / y_pred.shape[-1]
    if from_logits:
        return softmax_cross_entropy_with_logits(labels=y_true, logits=y_pred, axis=axis)
    # as Keras: each row rescaled to sum to 1, then clipped
    log_p = log(_clipped_probabilities(y_pred / reduce_sum(y_pred, axis=axis, keepdims=True)))
    return -reduce_sum(y_true * log_p, axis=axis)


def binary_crossentropy(
    y_true: Any, y_pred: Any, from_logits: bool = False, label_smoothing: float = 0.0, axis: int = -1
) -> Any:
    """Per-example mean over the last axis of -(y log p + (1 - y) log(1 - p)).

    `label_smoothing` moves the targets towards 1/2, as Keras does: y (1 - label_smoothing) + label_smoothing / 2.
    """
    y_pred, from_logits = _logits_if_kept(y_pred, from_logits, "binary_crossentropy", "Sigmoid")
    y_true, y_pred = _paired("BinaryCrossentropy", y_true, y_pred, "they must match")
    if label_smoothing:
        y_true = y_true * (1.0 - label_smoothing) + 0.5 * label_smoothing
    return reduce_mean(binary_crossentropy_elements(y_true, y_pred, from_logits), axis=axis)


def binary_crossentropy_elements(y_true: Any, y_pred: Any, from_logits: bool = False) -> Any:
    """-(y log p + (1 - y) log(1 - p)) per element, p clipped away from 0 and 1 (keras.ops' form, not averaged)."""
    if from_logits:
        return sigmoid_cross_entropy_with_logits(labels=y_true, logits=y_pred)
    p = _clipped_probabilities(y_pred)
    return -(y_true * log(p) + (1.0 - y_true) * log(1.0 - p))


def mean_squared_error(y_true: Any, y_pred: Any) -> Any:
    """Per-example mean over the last axis of (y_true - y_pred)^2."""
    y_true, y_pred = _paired("MeanSquaredError", y_true, y_pred, "they must match (reshape one, e.g. y[:, None])")
    return reduce_mean(square(y_true - y_pred), axis=-1)


def mean_absolute_error(y_true: Any, y_pred: Any) -> Any:
    """Per-example mean over the last axis of |y_true - y_pred|."""
    y_true, y_pred = _paired("MeanAbsoluteError", y_true, y_pred, "they must match (reshape one, e.g. y[:, None])")
    return reduce_mean(abs_(y_true - y_pred), axis=-1)


def mean_absolute_percentage_error(y_true: Any, y_pred: Any) -> Any:
    """Per-example mean over the last axis of 100 |y_true - y_pred| / max(|y_true|, eps)."""
    y_true, y_pred = _paired("MeanAbsolutePercentageError", y_true, y_pred, "they must match")
    scale = maximum(abs_(y_true), backend.epsilon())
    return 100.0 * reduce_mean(abs_(y_true - y_pred) / scale, axis=-1)


def huber(y_true: Any, y_pred: Any, delta: float = 1.0) -> Any:
    """Per-example mean over the last axis of x^2 / 2 where |x| <= delta, else delta (|x| - delta / 2)."""
    y_true, y_pred = _paired("Huber", y_true, y_pred, "they must match (reshape one, e.g. y[:, None])")
    error = abs_(y_pred - y_true)
    quadratic = minimum(error, delta)  # the part of the error inside [0, delta]
    linear = error - quadratic
    return reduce_mean(0.5 * square(quadratic) + delta * linear, axis=-1)


def log_cosh(y_true: Any, y_pred: Any) -> Any:
    """Per-example mean over the last axis of log(cosh(y_pred - y_true)), computed as x + softplus(-2x) - log 2."""
    y_true, y_pred = _paired("LogCosh", y_true, y_pred, "they must match (reshape one, e.g. y[:, None])")
    x = y_pred - y_true
    return reduce_mean(x + softplus(-2.0 * x) - float(np.log(2.0)), axis=-1)


def kl_divergence(y_true: Any, y_pred: Any) -> Any:
    """Per-example sum over the last axis of y_true log(y_true / y_pred), both clipped to [eps, 1]."""
    y_true, y_pred = _paired("KLDivergence", y_true, y_pred, "both must be distributions over the same classes")
    eps = backend.epsilon()
    y_true = clip_by_value(y_true, eps, 1.0)
    y_pred = clip_by_value(y_pred, eps, 1.0)
    return reduce_sum(y_true * log(y_true / y_pred), axis=-1)


def mean_squared_logarithmic_error(y_true: Any, y_pred: Any) -> Any:
    """Per-example mean over the last axis of (log(1 + y_pred) - log(1 + y_true))^2, both floored at eps."""
    y_true, y_pred = _paired("MeanSquaredLogarithmicError", y_true, y_pred, "they must match")
    eps = backend.epsilon()
    return reduce_mean(square(log(maximum(y_pred, eps) + 1.0) - log(maximum(y_true, eps) + 1.0)), axis=-1)


def _hinge_labels(y_true: Any) -> Any:
    """Labels of 0 and 1 become -1 and 1, as Keras converts them; labels already -1/1 stay. Chosen by ops (Keras
    3's ops.cond), so that a traced step decides again for each batch."""
    binary = reduce_all(logical_or(equal(y_true, 0.0), equal(y_true, 1.0)))
    return select(binary, 2.0 * y_true - 1.0, y_true)


def hinge(y_true: Any, y_pred: Any) -> Any:
    """Per-example mean over the last axis of max(1 - y_true y_pred, 0), for labels -1/1 (or 0/1)."""
    y_true, y_pred = _paired("Hinge", y_true, y_pred, "they must match (reshape one, e.g. y[:, None])")
    return reduce_mean(maximum(1.0 - _hinge_labels(y_true) * y_pred, 0.0), axis=-1)


def squared_hinge(y_true: Any, y_pred: Any) -> Any:
    """Per-example mean over the last axis of max(1 - y_true y_pred, 0)^2, for labels -1/1 (or 0/1)."""
    y_true, y_pred = _paired("SquaredHinge", y_true, y_pred, "they must match (reshape one, e.g. y[:, None])")
    return reduce_mean(square(maximum(1.0 - _hinge_labels(y_true) * y_pred, 0.0)), axis=-1)


def categorical_hinge(y_true: Any, y_pred: Any) -> Any:
    """Per-example max(best wrong score - true score + 1, 0), for one-hot y_true."""
    y_true, y_pred = _paired("CategoricalHinge", y_true, y_pred, "y_true must be one-hot, shaped as y_pred", False)
    positive = reduce_sum(y_true * y_pred, axis=-1)
    negative = reduce_max((1.0 - y_true) * y_pred, axis=-1)
    return maximum(negative - positive + 1.0, 0.0)


def poisson(y_true: Any, y_pred: Any) -> Any:
    """Per-example mean over the last axis of y_pred - y_true log(y_pred + eps): for counts, y_pred the rate."""
    y_true, y_pred = _paired("Poisson", y_true, y_pred, "they must match (reshape one, e.g. y[:, None])")
    return reduce_mean(y_pred - y_true * log(y_pred + backend.epsilon()), axis=-1)


def _l2_normalize(x: Any, axis: int) -> Any:
    return x * rsqrt(maximum(reduce_sum(square(x), axis=axis, keepdims=True), 1e-12))


def cosine_similarity_values(y_true: Any, y_pred: Any, axis: int = -1) -> Any:
    """Per-example cosine of the angle between y_true and y_pred along `axis` (1: same direction)."""
    y_true, y_pred = _paired("CosineSimilarity", y_true, y_pred, "they must match", False)
    return reduce_sum(_l2_normalize(y_true, axis) * _l2_normalize(y_pred, axis), axis=axis)


def cosine_similarity(y_true: Any, y_pred: Any, axis: int = -1) -> Any:
    """The loss: minus the cosine similarity, so that minimising it aligns y_pred with y_true (-1 at best)."""
    return -cosine_similarity_values(y_true, y_pred, axis=axis)


_REDUCTIONS = ("sum_over_batch_size", "mean", "mean_with_sample_weight", "sum", "none", "auto", None)


class Loss:
    """`loss(y_true, y_pred, sample_weight=None)`: the per-example losses of `call`, reduced over the batch.

    Subclass it and define `call(y_true, y_pred)` returning one loss per example, as in Keras;
    `reduction` is 'sum_over_batch_size' (the mean over the batch, the default; 'mean' is the same, as in
    Keras 3), 'mean_with_sample_weight' (the weighted sum over the sum of the sample weights), 'sum' or 'none'.
    """

    def __init__(self, name: str | None = None, reduction: str = "sum_over_batch_size", dtype: Any = None) -> None:
        if reduction not in _REDUCTIONS:
            raise ValueError(
                f"{type(self).__name__}: reduction must be one of {[r for r in _REDUCTIONS if r]} or None, "
                f"not {reduction!r}"
            )
        self.name = name or backend.snake_case(type(self).__name__)
        self.reduction = reduction or "none"
        self.dtype = dtype

    def call(self, y_true: Any, y_pred: Any) -> Any:
        raise NotImplementedError(f"{type(self).__name__} must define call(self, y_true, y_pred)")

    def __call__(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> Any:
        mask = masking.get_mask(y_pred)  # a sequence model's output mask (padding): Keras 3 weighs it in
        with name_scope(self.name):
            losses = self.call(self._as_tensor(y_true), self._as_tensor(y_pred))
            if not isinstance(losses, TensorLike):
                losses = _tensor(losses, backend.floatx())
            if mask is not None:
                sample_weight = mask_weights(mask, sample_weight, losses.dtype.name, self.reduction)
            weights = None
            if sample_weight is not None:
                losses, weights = self._fit_weights(losses, _tensor(sample_weight, losses.dtype.name))
                losses = losses * weights
            if self.reduction == "none" or not len(losses.shape):
                return losses
            if self.reduction == "sum":
                return reduce_sum(losses)
            if self.reduction == "mean_with_sample_weight" and weights is not None:
                return divide_no_nan(reduce_sum(losses), reduce_sum(weights))
            return reduce_mean(losses)

    def _as_tensor(self, value: Any) -> Any:
        """Lists and numpy arrays of floats in the loss's dtype (floatx), as Keras 3 converts them: a float64
        array gives a float32 loss. Tensors keep their dtype (Keras 3 would cast a float64 one to float32 too;
        keeping it lets float64 gradient checks work), and integer labels stay integers."""
        if isinstance(value, TensorLike) or np.asarray(value).dtype.kind != "f":
            return value
        return _tensor(value, self.dtype.name if hasattr(self.dtype, "name") else self.dtype or backend.floatx())

    def _fit_weights(self, losses: Any, weights: Any) -> tuple[Any, Any]:
        """Losses and sample weights made to broadcast, as Keras does: a trailing axis of size 1 that only one
        has is matched ((batch,) against (batch, 1)), and weights (batch,) reach losses (batch, ...)."""
        given = tuple(weights.shape)
        l_rank, w_rank = len(losses.shape), len(weights.shape)
        if l_rank == w_rank + 1 and losses.shape[-1] == 1:
            losses = reshape(losses, tuple(losses.shape)[:-1]) if w_rank != 1 else losses
            weights = reshape(weights, (*tuple(weights.shape), 1)) if w_rank == 1 else weights
        elif w_rank == l_rank + 1 and weights.shape[-1] == 1:
            if l_rank == 1:
                losses = reshape(losses, (*tuple(losses.shape), 1))
            else:
                weights = reshape(weights, tuple(weights.shape)[:-1])
        l_shape, w_shape = tuple(losses.shape), tuple(weights.shape)
        if 0 < len(w_shape) < len(l_shape):  # one weight per example: (batch,) -> (batch, 1, ...)
            w_shape = (*w_shape, *([1] * (len(l_shape) - len(w_shape))))
            weights = reshape(weights, w_shape)
        try:
            fits = np.broadcast_shapes(l_shape, w_shape) == l_shape
        except ValueError:
            fits = False
        if not fits:
            raise ValueError(
                f"{self.name}: sample_weight of shape {given} does not fit the per-example "
                f"losses of shape {l_shape}; give one weight per example, shape ({l_shape[0] if l_shape else 1},)"
            )
        return losses, weights

    def get_config(self) -> dict:
        return {"name": self.name, "reduction": self.reduction}

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r})"


class LossFunctionWrapper(Loss):
    """A Loss from a function giving per-example losses, with keyword options passed on to it."""

    def __init__(self, fn: Any, name: str | None = None, reduction: str = "sum_over_batch_size", **options: Any):
        super().__init__(name or getattr(fn, "__name__", "loss"), reduction)
        self.fn, self.options = fn, options

    def call(self, y_true: Any, y_pred: Any) -> Any:
        return self.fn(y_true, y_pred, **self.options)

    def get_config(self) -> dict:
        return {**super().get_config(), **self.options}

    def __repr__(self) -> str:
        options = "".join(f", {k}={v!r}" for k, v in self.options.items())
        return f"{type(self).__name__}(name={self.name!r}{options})"


class SparseCategoricalCrossentropy(LossFunctionWrapper):
    def __init__(
        self,
        from_logits: bool = False,
        reduction: str = "sum_over_batch_size",
        name: str = "sparse_categorical_crossentropy",
    ) -> None:
        super().__init__(sparse_categorical_crossentropy, name, reduction, from_logits=from_logits)


class CategoricalCrossentropy(LossFunctionWrapper):
    def __init__(
        self,
        from_logits: bool = False,
        label_smoothing: float = 0.0,
        axis: int = -1,
        reduction: str = "sum_over_batch_size",
        name: str = "categorical_crossentropy",
    ) -> None:
        super().__init__(
            categorical_crossentropy,
            name,
            reduction,
            from_logits=from_logits,
            label_smoothing=label_smoothing,
            axis=axis,
        )


class BinaryCrossentropy(LossFunctionWrapper):
    def __init__(
        self,
        from_logits: bool = False,
        label_smoothing: float = 0.0,
        axis: int = -1,
        reduction: str = "sum_over_batch_size",
        name: str = "binary_crossentropy",
    ) -> None:
        super().__init__(
            binary_crossentropy, name, reduction, from_logits=from_logits, label_smoothing=label_smoothing, axis=axis
        )


class MeanSquaredError(LossFunctionWrapper):
    def __init__(self, reduction: str = "sum_over_batch_size", name: str = "mean_squared_error") -> None:
        super().__init__(mean_squared_error, name, reduction)


class MeanAbsoluteError(LossFunctionWrapper):
    def __init__(self, reduction: str = "sum_over_batch_size", name: str = "mean_absolute_error") -> None:
        super().__init__(mean_absolute_error, name, reduction)


class MeanAbsolutePercentageError(LossFunctionWrapper):
    def __init__(self, reduction: str = "sum_over_batch_size", name: str = "mean_absolute_percentage_error") -> None:
        super().__init__(mean_absolute_percentage_error, name, reduction)


class Huber(LossFunctionWrapper):
    def __init__(self, delta: float = 1.0, reduction: str = "sum_over_batch_size", name: str = "huber_loss") -> None:
        super().__init__(huber, name, reduction, delta=delta)


class LogCosh(LossFunctionWrapper):
    def __init__(self, reduction: str = "sum_over_batch_size", name: str = "log_cosh") -> None:
        super().__init__(log_cosh, name, reduction)


class KLDivergence(LossFunctionWrapper):
    def __init__(self, reduction: str = "sum_over_batch_size", name: str = "kl_divergence") -> None:
        super().__init__(kl_divergence, name, reduction)


class CosineSimilarity(LossFunctionWrapper):
    def __init__(self, axis: int = -1, reduction: str = "sum_over_batch_size", name: str = "cosine_similarity"):
        super().__init__(cosine_similarity, name, reduction, axis=axis)


class MeanSquaredLogarithmicError(LossFunctionWrapper):
    def __init__(self, reduction: str = "sum_over_batch_size", name: str = "mean_squared_logarithmic_error") -> None:
        super().__init__(mean_squared_logarithmic_error, name, reduction)


class Hinge(LossFunctionWrapper):
    def __init__(self, reduction: str = "sum_over_batch_size", name: str = "hinge") -> None:
        super().__init__(hinge, name, reduction)


class SquaredHinge(LossFunctionWrapper):
    def __init__(self, reduction: str = "sum_over_batch_size", name: str = "squared_hinge") -> None:
        super().__init__(squared_hinge, name, reduction)


class CategoricalHinge(LossFunctionWrapper):
    def __init__(self, reduction: str = "sum_over_batch_size", name: str = "categorical_hinge") -> None:
        super().__init__(categorical_hinge, name, reduction)


class Poisson(LossFunctionWrapper):
    def __init__(self, reduction: str = "sum_over_batch_size", name: str = "poisson") -> None:
        super().__init__(poisson, name, reduction)


_FUNCTIONS = {
    fn.__name__: fn
    for fn in (
        sparse_categorical_crossentropy,
        categorical_crossentropy,
        binary_crossentropy,
        mean_squared_error,
        mean_absolute_error,
        mean_absolute_percentage_error,
        huber,
        log_cosh,
        kl_divergence,
        cosine_similarity,
        mean_squared_logarithmic_error,
        hinge,
        squared_hinge,
        categorical_hinge,
        poisson,
    )
}
_ALIASES = {
    "mse": "mean_squared_error",
    "mae": "mean_absolute_error",
    "mape": "mean_absolute_percentage_error",
    "msle": "mean_squared_logarithmic_error",
    "huber_loss": "huber",
    "logcosh": "log_cosh",
    "kld": "kl_divergence",
    "kullback_leibler_divergence": "kl_divergence",
}
_CLASSES = {
    cls.__name__: cls
    for cls in (
        SparseCategoricalCrossentropy,
        CategoricalCrossentropy,
        BinaryCrossentropy,
        MeanSquaredError,
        MeanAbsoluteError,
        MeanAbsolutePercentageError,
        Huber,
        LogCosh,
        KLDivergence,
        CosineSimilarity,
        MeanSquaredLogarithmicError,
        Hinge,
        SquaredHinge,
        CategoricalHinge,
        Poisson,
    )
}


class Reduction:
    """Keras 2's names for the reductions, which Keras 3 still gives: `reduction=Reduction.SUM` is `"sum"`."""

    NONE = "none"
    SUM = "sum"
    SUM_OVER_BATCH_SIZE = "sum_over_batch_size"
    AUTO = "auto"


def get(identifier: Any) -> Any:
    """Keras 3's lookup: a function name or alias gives the per-example function ('mse' -> mean_squared_error,
    one loss per example, not averaged); a class name ('MeanSquaredError') or a Loss class gives an instance;
    a Loss object or any other callable comes back as it is."""
    if isinstance(identifier, str):
        name = _ALIASES.get(identifier, identifier)
        if name in _FUNCTIONS:
            return _FUNCTIONS[name]
        if name in _CLASSES:
            return _CLASSES[name]()
        known = sorted({*_FUNCTIONS, *_ALIASES, *_CLASSES})
        raise ValueError(f"Unknown loss function: {identifier!r}. Use one of {known}, or a Loss object.")
    if isinstance(identifier, type) and issubclass(identifier, Loss):
        return identifier()
    if isinstance(identifier, Loss) or callable(identifier):
        return identifier
    raise ValueError(f"Could not interpret loss {identifier!r}: pass a name, a Loss object or a callable")


def for_compile(identifier: Any) -> Loss:
    """The Loss `compile(loss=...)` trains: `get(identifier)`, with a function (by name or your own) wrapped so
    that its per-example losses are averaged over the batch, named after the function as Keras names it."""
    loss = get(identifier)
    if isinstance(loss, Loss):
        return loss
    return LossFunctionWrapper(loss, getattr(loss, "__name__", "loss"))


mse = MSE = mean_squared_error
mae = MAE = mean_absolute_error
mape = MAPE = mean_absolute_percentage_error
kld = KLD = kullback_leibler_divergence = kl_divergence
msle = MSLE = mean_squared_logarithmic_error
logcosh = log_cosh


__getattr__ = unsupported.module_getattr("keras.losses")  # a left-out name says what to use instead


def mask_weights(mask: Any, sample_weight: Any, dtype: str, reduction: Any) -> Any:
    """A Keras mask made into sample weights, as Keras 3 does: 0 at masked steps; for a mean (the default
    reduction) total/valid at the others, so the loss is the mean over the steps the mask keeps (0 if none)."""
    kept = cast(mask, "bool")
    weights = cast(kept, dtype)
    if reduction in ("mean", "sum_over_batch_size", "auto", None):
        total = reduce_sum(ones_like(weights))  # an op, not a number: a traced step replays it on other batch sizes
        weights = weights * divide_no_nan(total, reduce_sum(weights))
    if sample_weight is None:
        return weights
    sample_weight = _tensor(sample_weight, dtype) if not isinstance(sample_weight, TensorLike) else sample_weight
    sample_weight = cast(sample_weight, dtype)
    while len(sample_weight.shape) < len(weights.shape):  # (batch,) weights reach every step: (batch, 1)
        sample_weight = expand_dims(sample_weight, -1)
    return sample_weight * weights
