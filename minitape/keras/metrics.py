"""Running metrics with `update_state`, `result`, `reset_state`, as `tf.keras.metrics`. Computed in numpy."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from minitape import name_scope
from minitape.engine.tensor import Tensor
from minitape.engine.variables import Variable
from minitape.function.trace import runs_each_call
from minitape.keras import losses, masking, unsupported
from minitape.keras.backend import to_numpy
from minitape.ops.math_ops import cast
from minitape.values.tensor_like import TensorLike


class Metric:
    """A weighted running mean of per-example values: `update_state` adds, `result` reads.

    Subclass with your own state: make it with `add_weight` in `__init__`, update it with
    `assign_add` in `update_state`, and compute `result()` from it; `reset_state` zeroes it.
    """

    _direction: str | None = None  # 'up' or 'down': which way is better (ModelCheckpoint's mode='auto' asks)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """A metric keeps its state in Python and numpy: in a traced function it runs again at every call."""
        super().__init_subclass__(**kwargs)
        for name in _STATEFUL:
            if name in cls.__dict__ and not getattr(cls.__dict__[name], "_records_ops", False):
                setattr(cls, name, runs_each_call(cls.__dict__[name], changes_state=name != "result"))

    def __init__(self, name: str | None = None, dtype: Any = None) -> None:
        self.name = name or _snake(type(self).__name__)
        self.dtype = dtype or "float32"
        self._state: list[tuple[Variable, np.ndarray]] = []  # (variable, initial value)
        Metric.reset_state(self)  # not a subclass's own: its state is made after this, in its __init__ (Keras 3)

    def add_weight(
        self, name: Any = None, shape: Any = (), initializer: Any = "zeros", dtype: Any = None, **kwargs: Any
    ) -> Variable:
        """A non-trainable state Variable (e.g. a count), set back to its initial value by `reset_state`."""
        from minitape.keras import initializers

        if isinstance(name, (tuple, list)):  # Keras 3 puts shape first
            name, shape = None, name
        value = np.asarray(initializers.get(initializer)(tuple(shape), dtype=dtype or self.dtype))
        with name_scope(f"{self.name}/"):  # 'accuracy/total', whatever scope the metric is made in
            variable = Variable(value, trainable=False, name=name or "variable", dtype=dtype or self.dtype)
        self._state.append((variable, value))
        return variable

    def add_variable(
        self, shape: Any, initializer: Any, dtype: Any = None, aggregation: str = "sum", name: str | None = None
    ) -> Variable:
        """Keras 3's other name for `add_weight`, with the shape first."""
        return self.add_weight(name=name, shape=shape, initializer=initializer, dtype=dtype)

    @property
    def variables(self) -> list[Variable]:
        return [v for v, _ in self._state]

    def reset_state(self) -> None:
        self._total = 0.0
        self._count = 0.0
        for variable, initial in getattr(self, "_state", []):
            variable.assign(initial)

    reset_states = reset_state

    def _add(self, values: Any, sample_weight: Any = None) -> None:
        """Add per-example values (any trailing axes are averaged) with their weights, as Keras 3's Mean does."""
        values = np.asarray(values, dtype=np.float64)
        if sample_weight is None:
            per_example = values.mean(axis=tuple(range(1, values.ndim))) if values.ndim > 1 else values
            self._total += float(np.add.reduce(per_example, axis=None))  # np.sum: its wrapper costs more than a batch
            self._count += float(values.shape[0] if values.ndim else 1)
            return
        weights = np.asarray(to_numpy(sample_weight), dtype=np.float64)
        if values.ndim == 0 and weights.ndim == 0:  # one number and its weight (fit's loss per batch): the sums
            self._total += float(values * weights)  # below, without their broadcasting
            self._count += float(weights)
            return
        values, weights = _same_rank(values, weights)
        if values.ndim > weights.ndim:  # values per element, weights per example: average the values first
            values = values.mean(axis=tuple(range(weights.ndim, values.ndim)))
        weights = _broadcast_weights(self.name, weights, values.shape)
        weighted = values * weights
        if weights.ndim > 1:
            weighted = weighted.mean(axis=tuple(range(1, weights.ndim)))
            weights = weights.mean(axis=tuple(range(1, weights.ndim)))
        self._total += float(np.sum(weighted))
        self._count += float(np.sum(weights))

    def result(self) -> Tensor:
        return Tensor(np.asarray(self._total / self._count if self._count else 0.0, dtype=np.float32))

    def __call__(self, *args: Any, **kwargs: Any) -> Tensor:
        self.update_state(*args, **kwargs)
        return self.result()

    def __repr__(self) -> str:
        return f"<{type(self).__name__} name={self.name} result={float(self.result()):.4f}>"


_STATEFUL = ("update_state", "result", "reset_state", "__call__")


def _records_ops(method: Any) -> Any:
    """An update_state that is left out of `runs_each_call`: a traced function records its ops (a loss computed
    from the step's tensors, where the logits behind a softmax output are still known: kept_logits.py), and
    only the Python it calls in turn (a metric's count) runs again at every call."""
    method._records_ops = True
    return method


for _name in _STATEFUL:
    if _name in Metric.__dict__:
        setattr(Metric, _name, runs_each_call(Metric.__dict__[_name], changes_state=_name != "result"))


def _same_rank(a: np.ndarray, b: np.ndarray, expand_rank_1: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """Keras' squeeze_or_expand_to_same_rank: a trailing axis of size 1 that only one of a and b has is removed,
    or (when the other is 1-D) added to the other, so (batch,) meets (batch, 1)."""
    if a.ndim == b.ndim + 1 and a.shape[-1] == 1:
        if b.ndim == 1 and expand_rank_1:
            b = b[:, None]
        else:
            a = a[..., 0]
    elif b.ndim == a.ndim + 1 and b.shape[-1] == 1:
        if a.ndim == 1 and expand_rank_1:
            a = a[:, None]
        else:
            b = b[..., 0]
    return a, b


def _broadcast_weights(metric: str, weights: np.ndarray, shape: tuple) -> np.ndarray:
    """Sample weights broadcast to `shape`, or an error naming both shapes."""
    try:
        return np.broadcast_to(weights, shape)
    except ValueError:
        raise ValueError(
            f"{metric}: sample_weight of shape {weights.shape} does not fit values of shape {tuple(shape)}; give "
            f"one weight per example, shape ({shape[0] if shape else 1},)"
        ) from None


class Mean(Metric):
    """The mean of the values given so far: `train_loss(loss)` in a custom loop."""

    def update_state(self, values: Any, sample_weight: Any = None) -> None:
        self._add(to_numpy(values), sample_weight)


class Sum(Metric):
    """The sum of the values given so far, each times its sample weight if given: `keras.metrics.Sum`."""

    def update_state(self, values: Any, sample_weight: Any = None) -> None:
        values = np.asarray(to_numpy(values), dtype=np.float64)
        if sample_weight is not None:
            values = values * np.asarray(to_numpy(sample_weight), dtype=np.float64)
        self._total += float(np.sum(values))

    def result(self) -> Tensor:
        return Tensor(np.asarray(self._total, dtype=np.float32))


class CompileMetrics(Metric):
    """The metrics given to `compile`, as one metric named 'compile_metrics': Keras 3's `model.metrics[1]`.

    `update_state(y, y_pred)` updates each of them (each on its own output, for a model with several);
    `result()` is a dict by metric name, and fit, evaluate and the History list each metric on its own.
    """

    def __init__(self, pairs: list, ordered: Any) -> None:
        super().__init__(name="compile_metrics")
        self._pairs, self._ordered = pairs, ordered  # (output index or None, metric); y -> one target per output

    @property
    def metrics(self) -> list[Metric]:
        return [metric for _, metric in self._pairs]

    @property
    def variables(self) -> list[Variable]:
        return [v for metric in self.metrics for v in metric.variables]

    @_records_ops  # each metric's own update_state runs again at every call, or records its ops
    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> None:
        targets, predictions = (self._ordered(y_true), self._ordered(y_pred)) if self._pairs else ((), ())
        for index, metric in self._pairs:
            if index is None:
                metric.update_state(y_true, y_pred)
            else:
                metric.update_state(targets[index], predictions[index])

    def result(self) -> dict:  # type: ignore[override]
        return {metric.name: metric.result() for metric in self.metrics}

    def reset_state(self) -> None:
        for metric in self.metrics:
            metric.reset_state()


def accuracy_for_shapes(true_shape: tuple, pred_shape: tuple) -> type[Metric]:
    """Keras 3's reading of 'accuracy' (`compile_utils.get_metric`): from the shapes, never from the loss.

    One prediction per example (last axis 1) is binary; labels of lower rank than the predictions, or a
    column of labels against several scores, are class indices; anything else (one-hot rows) is categorical.
    """
    true_last = true_shape[-1] if true_shape else None
    pred_last = pred_shape[-1] if pred_shape else None
    if pred_last == 1:
        return BinaryAccuracy
    if len(true_shape) < len(pred_shape) or (true_last == 1 and pred_last is not None and pred_last > 1):
        return SparseCategoricalAccuracy
    return CategoricalAccuracy


class _Hits(Metric):
    """A metric counting hits in numpy; the Keras mask of the predictions joins the sample weights first, by ops
    a traced step records (the mask is computed from the step's inputs), as Keras 3's accuracies do."""

    @_records_ops
    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> None:
        self._update(y_true, y_pred, _masked(y_pred, sample_weight))

    def _update(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> None:
        raise NotImplementedError


class AccuracyByShape(_Hits):
    """'accuracy' (or 'acc') in `compile`: binary, sparse or categorical accuracy, chosen at the first batch from
    the shapes of its targets and predictions, as Keras 3 does (one-hot targets give categorical accuracy)."""

    _direction = "up"

    def __init__(self, name: str = "accuracy", dtype: Any = None) -> None:
        super().__init__(name=name, dtype=dtype)
        self.kind: Metric | None = None  # the metric it resolved to, once a batch was seen

    @runs_each_call(changes_state=True)
    def _update(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> None:
        if self.kind is None:
            shapes = [tuple(getattr(v, "shape", None) or np.shape(v)) for v in (y_true, y_pred)]
            self.kind = accuracy_for_shapes(*shapes)(name=self.name, dtype=self.dtype)
        self.kind._update(y_true, y_pred, sample_weight)

    def result(self) -> Tensor:
        return self.kind.result() if self.kind is not None else super().result()

    def reset_state(self) -> None:
        super().reset_state()
        if getattr(self, "kind", None) is not None:
            self.kind.reset_state()


class Accuracy(_Hits):
    """How often y_pred equals y_true exactly."""

    _direction = "up"

    @runs_each_call(changes_state=True)
    def _update(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> None:
        y_true, y_pred = _same_rank(np.asarray(to_numpy(y_true)), np.asarray(to_numpy(y_pred)))
        self._add(y_true == y_pred, sample_weight)


def _binary_hits(y_true: Any, y_pred: Any, threshold: float) -> np.ndarray:
    y_pred, y_true = to_numpy(y_pred), to_numpy(y_true)
    if y_true.size == y_pred.size:
        y_true = y_true.reshape(y_pred.shape)  # labels (batch,) against predictions (batch, 1)
    hits = (y_pred > threshold) == (y_true > 0.5)
    return np.mean(hits.reshape(len(hits), -1), axis=-1) if hits.ndim > 1 else hits


def _categorical_hits(y_true: Any, y_pred: Any) -> np.ndarray:
    return np.argmax(to_numpy(y_pred), axis=-1) == np.argmax(to_numpy(y_true), axis=-1)


def _sparse_hits(y_true: Any, y_pred: Any) -> np.ndarray:
    return np.argmax(to_numpy(y_pred), axis=-1).ravel() == np.ravel(to_numpy(y_true))


def _as_values(hits: np.ndarray) -> Tensor:
    return Tensor(np.asarray(hits, dtype=np.float32))


def binary_accuracy(y_true: Any, y_pred: Any, threshold: float = 0.5) -> Tensor:
    """Per example: the share of its outputs where (y_pred > threshold) matches the 0/1 label."""
    return _as_values(_binary_hits(y_true, y_pred, threshold))


def categorical_accuracy(y_true: Any, y_pred: Any) -> Tensor:
    """Per example: 1 where argmax(y_pred) is argmax(y_true) (one-hot labels), else 0."""
    return _as_values(_categorical_hits(y_true, y_pred))


def sparse_categorical_accuracy(y_true: Any, y_pred: Any) -> Tensor:
    """Per example: 1 where argmax(y_pred) is the integer label, else 0."""
    return _as_values(_sparse_hits(y_true, y_pred))


class SparseCategoricalAccuracy(_Hits):
    """How often argmax(y_pred) equals the integer label."""

    _direction = "up"

    @runs_each_call(changes_state=True)
    def _update(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> None:
        hits = _sparse_hits(y_true, y_pred)
        self._add(hits, _flat_like(hits, sample_weight))


class CategoricalAccuracy(_Hits):
    """How often argmax(y_pred) equals argmax(y_true) (one-hot labels)."""

    _direction = "up"

    @runs_each_call(changes_state=True)
    def _update(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> None:
        self._add(_categorical_hits(y_true, y_pred), sample_weight)


class BinaryAccuracy(_Hits):
    """How often (y_pred > threshold) equals y_true, per element."""

    _direction = "up"

    def __init__(self, name: str | None = None, dtype: Any = None, threshold: float = 0.5) -> None:
        self.threshold = threshold
        super().__init__(name, dtype)

    @runs_each_call(changes_state=True)
    def _update(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> None:
        self._add(_binary_hits(y_true, y_pred, self.threshold), sample_weight)


def _masked(y_pred: Any, sample_weight: Any) -> Any:
    """As Keras 3's accuracies and MeanMetricWrapper: the Keras mask of the predictions (a sequence model's
    padding) joins the sample weights, so masked steps do not count."""
    mask = masking.get_mask(y_pred)
    return sample_weight if mask is None else losses.mask_weights(mask, sample_weight, "float32", "sum")


def _flat_like(hits: np.ndarray, sample_weight: Any) -> Any:
    """Weights (batch, steps) for hits flattened to (batch * steps,) (a sparse accuracy on sequences)."""
    if sample_weight is None or hits.ndim != 1:
        return sample_weight
    weights = np.asarray(to_numpy(sample_weight))
    return weights.reshape(-1) if weights.ndim > 1 and weights.size == hits.size else sample_weight


def _floating(values: Any) -> Any:
    """Tensors and arrays of a float dtype as they are; integers and bools as float32."""
    if isinstance(values, TensorLike):
        return values if values.dtype.is_floating else cast(values, "float32")
    array = to_numpy(values)
    return array if array.dtype.kind == "f" else array.astype(np.float32)


class MeanMetricWrapper(Metric):
    """The running mean of `fn(y_true, y_pred)`, a function giving one value per example (a loss, say)."""

    def __init__(self, fn: Any, name: str | None = None, dtype: Any = None, **kwargs: Any) -> None:
        self.fn, self.fn_kwargs = fn, kwargs
        super().__init__(name or getattr(fn, "__name__", "metric"), dtype)

    @_records_ops
    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> None:
        sample_weight = _masked(y_pred, sample_weight)
        y_true, y_pred = _floating(y_true), _floating(y_pred)  # as Keras casts to the metric's float dtype
        self._add_values(self.fn(y_true, y_pred, **self.fn_kwargs), sample_weight)

    @runs_each_call(changes_state=True)
    def _add_values(self, values: Any, sample_weight: Any) -> None:
        self._add(to_numpy(values), sample_weight)


class MeanSquaredError(MeanMetricWrapper):
    """The running mean of (y_true - y_pred)^2."""

    _direction = "down"

    def __init__(self, name: str = "mean_squared_error", dtype: Any = None, **kwargs: Any) -> None:
        super().__init__(losses.mean_squared_error, name, dtype, **kwargs)


class MeanAbsoluteError(MeanMetricWrapper):
    """The running mean of |y_true - y_pred|."""

    _direction = "down"

    def __init__(self, name: str = "mean_absolute_error", dtype: Any = None, **kwargs: Any) -> None:
        super().__init__(losses.mean_absolute_error, name, dtype, **kwargs)


class MeanAbsolutePercentageError(MeanMetricWrapper):
    """The running mean of 100 |y_true - y_pred| / |y_true|."""

    _direction = "down"

    def __init__(self, name: str = "mean_absolute_percentage_error", dtype: Any = None, **kwargs: Any) -> None:
        super().__init__(losses.mean_absolute_percentage_error, name, dtype, **kwargs)


class BinaryCrossentropy(MeanMetricWrapper):
    """The running mean of the binary crossentropy."""

    _direction = "down"

    def __init__(self, name: str = "binary_crossentropy", dtype: Any = None, **kwargs: Any) -> None:
        super().__init__(losses.binary_crossentropy, name, dtype, **kwargs)


class CategoricalCrossentropy(MeanMetricWrapper):
    """The running mean of the categorical crossentropy."""

    _direction = "down"

    def __init__(self, name: str = "categorical_crossentropy", dtype: Any = None, **kwargs: Any) -> None:
        super().__init__(losses.categorical_crossentropy, name, dtype, **kwargs)


class SparseCategoricalCrossentropy(MeanMetricWrapper):
    """The running mean of the sparse categorical crossentropy."""

    _direction = "down"

    def __init__(self, name: str = "sparse_categorical_crossentropy", dtype: Any = None, **kwargs: Any) -> None:
        super().__init__(losses.sparse_categorical_crossentropy, name, dtype, **kwargs)


class KLDivergence(MeanMetricWrapper):
    """The running mean of sum(y_true log(y_true / y_pred))."""

    _direction = "down"

    def __init__(self, name: str = "kl_divergence", dtype: Any = None, **kwargs: Any) -> None:
        super().__init__(losses.kl_divergence, name, dtype, **kwargs)


class LogCoshError(MeanMetricWrapper):
    """The running mean of log(cosh(y_pred - y_true))."""

    _direction = "down"

    def __init__(self, name: str = "logcosh", dtype: Any = None, **kwargs: Any) -> None:
        super().__init__(losses.log_cosh, name, dtype, **kwargs)


class MeanSquaredLogarithmicError(MeanMetricWrapper):
    """The running mean of (log(1 + y_pred) - log(1 + y_true))^2."""

    _direction = "down"

    def __init__(self, name: str = "mean_squared_logarithmic_error", dtype: Any = None, **kwargs: Any) -> None:
        super().__init__(losses.mean_squared_logarithmic_error, name, dtype, **kwargs)


class Hinge(MeanMetricWrapper):
    """The running mean of max(1 - y_true y_pred, 0), labels -1/1 (or 0/1)."""

    _direction = "down"

    def __init__(self, name: str = "hinge", dtype: Any = None, **kwargs: Any) -> None:
        super().__init__(losses.hinge, name, dtype, **kwargs)


class SquaredHinge(MeanMetricWrapper):
    """The running mean of max(1 - y_true y_pred, 0)^2, labels -1/1 (or 0/1)."""

    _direction = "down"

    def __init__(self, name: str = "squared_hinge", dtype: Any = None, **kwargs: Any) -> None:
        super().__init__(losses.squared_hinge, name, dtype, **kwargs)


class CategoricalHinge(MeanMetricWrapper):
    """The running mean of max(best wrong score - true score + 1, 0), one-hot labels."""

    _direction = "down"

    def __init__(self, name: str = "categorical_hinge", dtype: Any = None, **kwargs: Any) -> None:
        super().__init__(losses.categorical_hinge, name, dtype, **kwargs)


class Poisson(MeanMetricWrapper):
    """The running mean of y_pred - y_true log(y_pred)."""

    _direction = "down"

    def __init__(self, name: str = "poisson", dtype: Any = None, **kwargs: Any) -> None:
        super().__init__(losses.poisson, name, dtype, **kwargs)


def _in_top_k(labels: np.ndarray, scores: np.ndarray, k: int) -> np.ndarray:
    """Whether each label's score is among the k highest of its row (ties at the edge count as in, as in TF)."""
    scores = scores.reshape(-1, scores.shape[-1])
    labels = np.asarray(labels).reshape(-1).astype(np.int64)
    own = scores[np.arange(len(labels)), labels]
    return np.sum(scores > own[:, None], axis=-1) < k


def _sparse_top_k_hits(y_true: Any, y_pred: Any, k: int) -> np.ndarray:
    scores, labels = np.asarray(to_numpy(y_pred)), np.asarray(to_numpy(y_true))
    if labels.ndim == scores.ndim and labels.shape[-1] == 1:
        labels = labels[..., 0]
    return _in_top_k(labels, scores, k).reshape(labels.shape)


def top_k_categorical_accuracy(y_true: Any, y_pred: Any, k: int = 5) -> Tensor:
    """Per example: 1 where the true class (argmax of the one-hot y_true) is among the k highest scores."""
    return _as_values(_sparse_top_k_hits(np.argmax(to_numpy(y_true), axis=-1), y_pred, k))


def sparse_top_k_categorical_accuracy(y_true: Any, y_pred: Any, k: int = 5) -> Tensor:
    """Per example: 1 where the integer label is among the k highest scores."""
    return _as_values(_sparse_top_k_hits(y_true, y_pred, k))


class TopKCategoricalAccuracy(_Hits):
    """How often the true class (argmax of the one-hot y_true) is among the k highest scores of y_pred."""

    _direction = "up"

    def __init__(self, k: int = 5, name: str = "top_k_categorical_accuracy", dtype: Any = None) -> None:
        self.k = int(k)
        super().__init__(name, dtype)

    @runs_each_call(changes_state=True)
    def _update(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> None:
        self._add(_sparse_top_k_hits(np.argmax(to_numpy(y_true), axis=-1), y_pred, self.k), sample_weight)


class SparseTopKCategoricalAccuracy(_Hits):
    """How often the integer label is among the k highest scores of y_pred."""

    _direction = "up"

    def __init__(
        self, k: int = 5, name: str = "sparse_top_k_categorical_accuracy", dtype: Any = None, **kwargs: Any
    ) -> None:
        if kwargs.get("from_sorted_ids"):
            raise NotImplementedError("SparseTopKCategoricalAccuracy(from_sorted_ids=True) is not in minitape")
        self.k = int(k)
        super().__init__(name, dtype)

    @runs_each_call(changes_state=True)
    def _update(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> None:
        self._add(_sparse_top_k_hits(y_true, y_pred, self.k), sample_weight)


class R2Score(Metric):
    """The coefficient of determination, 1 - sum((y - y_pred)^2) / sum((y - mean y)^2), per output column,
    then averaged ('uniform_average'), weighted by each column's variance ('variance_weighted_average') or
    not (None), as Keras 3 computes it over every batch seen; `num_regressors` > 0 gives the adjusted R2."""

    _direction = "up"

    def __init__(
        self,
        class_aggregation: str | None = "uniform_average",
        num_regressors: int = 0,
        name: str = "r2_score",
        dtype: Any = None,
    ) -> None:
        if class_aggregation not in ("uniform_average", "variance_weighted_average", None):
            raise ValueError(
                "R2Score: class_aggregation must be 'uniform_average', 'variance_weighted_average' or None, "
                f"got {class_aggregation!r}"
            )
        if num_regressors < 0:
            raise ValueError(f"R2Score: num_regressors must be >= 0, got {num_regressors!r}")
        self.class_aggregation, self.num_regressors = class_aggregation, int(num_regressors)
        super().__init__(name, dtype)
        self.reset_state()

    def reset_state(self) -> None:
        super().reset_state()
        self._sums: np.ndarray | None = None  # per column: weighted sum, sum of squares, squared error, weight
        self._samples = 0

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> None:
        y_true, y_pred = _same_rank(np.asarray(to_numpy(y_true), np.float64), np.asarray(to_numpy(y_pred), np.float64))
        if y_true.ndim != 2 or y_true.shape != y_pred.shape:
            raise ValueError(
                f"R2Score: y_true and y_pred must be 2-D (batch, outputs) of one shape; got {y_true.shape} and "
                f"{y_pred.shape}"
            )
        weights = np.ones(1) if sample_weight is None else np.asarray(to_numpy(sample_weight), np.float64)
        weights = _broadcast_weights(self.name, weights[:, None] if weights.ndim == 1 else weights, y_true.shape)
        sums = np.stack(
            [
                np.sum(y_true * weights, axis=0),
                np.sum(y_true * y_true * weights, axis=0),
                np.sum((y_true - y_pred) ** 2 * weights, axis=0),
                np.sum(weights, axis=0),
            ]
        )
        if self._sums is not None and self._sums.shape != sums.shape:
            raise ValueError(f"R2Score: built for {self._sums.shape[1]} outputs, got {sums.shape[1]}")
        self._sums = sums if self._sums is None else self._sums + sums
        self._samples += y_true.size

    def result(self) -> Tensor:
        if self._sums is None:
            return Tensor(np.asarray(0.0, dtype=np.float32))
        total_sum, squared_sum, squared_error, count = self._sums
        with np.errstate(divide="ignore", invalid="ignore"):
            total = squared_sum - total_sum * (total_sum / count)
            raw = 1.0 - squared_error / total
        raw = np.where(np.isinf(raw), 0.0, raw)
        if self.class_aggregation == "uniform_average":
            score = np.mean(raw)
        elif self.class_aggregation == "variance_weighted_average":
            score = np.sum(total * raw) / np.sum(total)
        else:
            score = raw
        n, p = self._samples, self.num_regressors
        if p and p >= n - 1:
            warnings.warn(
                f"R2Score: {p} regressors for {n} values: the adjusted R2 needs fewer; giving the plain R2 score",
                stacklevel=2,
            )
        elif p:
            score = 1.0 - (1.0 - score) * (n - 1) / (n - p - 1)
        return Tensor(np.asarray(score, dtype=np.float32))


class RootMeanSquaredError(Metric):
    """sqrt of the running mean of (y_true - y_pred)^2, over all elements."""

    _direction = "down"

    def __init__(self, name: str = "root_mean_squared_error", dtype: Any = None) -> None:
        super().__init__(name, dtype)

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> None:
        values = losses.mean_squared_error(_floating(y_true), _floating(y_pred))
        self._add(to_numpy(values), sample_weight)

    def result(self) -> Tensor:
        return Tensor(np.asarray(np.sqrt(np.asarray(super().result()))))


class CosineSimilarity(MeanMetricWrapper):
    """The running mean of the cosine of the angle between y_true and y_pred (along `axis`)."""

    _direction = "up"

    def __init__(self, name: str = "cosine_similarity", dtype: Any = None, axis: int = -1) -> None:
        super().__init__(losses.cosine_similarity_values, name, dtype, axis=axis)


class _Confusion(Metric):
    """Counts of true/false positives/negatives at each threshold: y_pred > threshold counts as positive."""

    def _confusion(self, y_true: Any, y_pred: Any, sample_weight: Any, thresholds: np.ndarray) -> tuple:
        y_pred = np.asarray(to_numpy(y_pred), dtype=np.float64)
        y_true = np.asarray(to_numpy(y_true))
        if y_true.size != y_pred.size:
            raise ValueError(
                f"{type(self).__name__}: y_true of shape {y_true.shape} and y_pred of shape {y_pred.shape} must "
                "hold one label per prediction"
            )
        labels = y_true.reshape(-1).astype(bool)
        scores = y_pred.reshape(-1)
        if sample_weight is None:
            weights = np.ones_like(scores)
        else:  # as Keras: a weight per example reaches every label of it, (batch,) against (batch, 1) too
            weights = np.asarray(to_numpy(sample_weight), np.float64)[..., None]
            _, weights = _same_rank(y_true.reshape(y_pred.shape), weights, expand_rank_1=False)
            weights = _broadcast_weights(type(self).__name__, weights, y_pred.shape).reshape(-1)
        predicted = scores[None, :] > thresholds[:, None]  # (thresholds, examples)
        positive, negative = weights * labels, weights * ~labels
        tp = (predicted * positive).sum(axis=1)
        fp = (predicted * negative).sum(axis=1)
        return tp, fp, positive.sum() - tp, negative.sum() - fp


def _divide_no_nan(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(b == 0, 0.0, a / np.where(b == 0, 1.0, b))


class Precision(_Confusion):
    """true positives / predicted positives, predicted positive meaning y_pred > threshold (0.5)."""

    _direction = "up"

    def __init__(
        self,
        thresholds: Any = None,
        top_k: Any = None,
        class_id: Any = None,
        name: str | None = None,
        dtype: Any = None,
    ) -> None:
        if top_k is not None or class_id is not None:
            raise NotImplementedError(f"{type(self).__name__}: top_k and class_id are not supported by minitape")
        self.thresholds = np.atleast_1d(np.asarray(0.5 if thresholds is None else thresholds, dtype=np.float64))
        self._single = np.ndim(0.5 if thresholds is None else thresholds) == 0
        super().__init__(name, dtype)
        self.true_positives = self.add_weight("true_positives", (len(self.thresholds),))
        self.false_positives = self.add_weight("false_positives", (len(self.thresholds),))
        self.false_negatives = self.add_weight("false_negatives", (len(self.thresholds),))

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> None:
        tp, fp, fn, _ = self._confusion(y_true, y_pred, sample_weight, self.thresholds)
        self.true_positives.assign_add(tp.astype(np.float32))
        self.false_positives.assign_add(fp.astype(np.float32))
        self.false_negatives.assign_add(fn.astype(np.float32))

    def _ratio(self) -> np.ndarray:
        tp, fp = np.asarray(self.true_positives, np.float64), np.asarray(self.false_positives, np.float64)
        return _divide_no_nan(tp, tp + fp)

    def result(self) -> Tensor:
        value = self._ratio()
        return Tensor(np.asarray(value[0] if self._single else value, dtype=np.float32))


class Recall(Precision):
    """true positives / actual positives, predicted positive meaning y_pred > threshold (0.5)."""

    def _ratio(self) -> np.ndarray:
        tp, fn = np.asarray(self.true_positives, np.float64), np.asarray(self.false_negatives, np.float64)
        return _divide_no_nan(tp, tp + fn)


class _Count(_Confusion):
    """One confusion count (weighted), at each of `thresholds` (default 0.5)."""

    _which = 0  # position in (tp, fp, fn, tn)

    def __init__(self, thresholds: Any = None, name: str | None = None, dtype: Any = None) -> None:
        self.thresholds = np.atleast_1d(np.asarray(0.5 if thresholds is None else thresholds, dtype=np.float64))
        self._single = thresholds is None or np.ndim(thresholds) == 0
        super().__init__(name, dtype)
        self.accumulator = self.add_weight("accumulator", (len(self.thresholds),))

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> None:
        counts = self._confusion(y_true, y_pred, sample_weight, self.thresholds)[self._which]
        self.accumulator.assign_add(counts.astype(np.float32))

    def result(self) -> Tensor:
        value = np.asarray(self.accumulator)
        return Tensor(np.asarray(value[0] if self._single else value, dtype=np.float32))


class TruePositives(_Count):
    """How many (weighted) examples are labelled positive and predicted positive (y_pred > threshold)."""

    _which = 0


class FalsePositives(_Count):
    """How many (weighted) examples are labelled negative but predicted positive."""

    _which = 1


class FalseNegatives(_Count):
    """How many (weighted) examples are labelled positive but predicted negative."""

    _which = 2


class TrueNegatives(_Count):
    """How many (weighted) examples are labelled negative and predicted negative."""

    _which = 3


class AUC(_Confusion):
    """Area under the ROC (or PR) curve, from confusion counts at `num_thresholds` thresholds, as Keras computes it.

    The thresholds are -1e-7, 1/(n-1), ..., (n-2)/(n-1), 1 + 1e-7; ROC areas add up trapezoids
    (summation_method='interpolation'), PR areas use Davis & Goadrich's interpolation.
    """

    _direction = "up"

    def __init__(
        self,
        num_thresholds: int = 200,
        curve: str = "ROC",
        summation_method: str = "interpolation",
        name: str | None = None,
        dtype: Any = None,
        thresholds: Any = None,
        multi_label: bool = False,
        num_labels: Any = None,
        label_weights: Any = None,
        from_logits: bool = False,
    ) -> None:
        if multi_label or label_weights is not None:
            raise NotImplementedError("AUC: multi_label and label_weights are not supported by minitape")
        if curve not in ("ROC", "PR"):
            raise ValueError(f"AUC: curve must be 'ROC' or 'PR', got {curve!r}")
        if summation_method not in ("interpolation", "minoring", "majoring"):
            raise ValueError(
                f"AUC: summation_method must be 'interpolation', 'minoring' or 'majoring', got {summation_method!r}"
            )
        if thresholds is not None:
            inner = sorted(float(t) for t in thresholds)
        else:
            if num_thresholds <= 1:
                raise ValueError(f"AUC: num_thresholds must be > 1, got {num_thresholds}")
            inner = [(i + 1) / (num_thresholds - 1) for i in range(num_thresholds - 2)]
        self.thresholds = np.array([0.0 - 1e-7, *inner, 1.0 + 1e-7])
        self.num_thresholds = len(self.thresholds)
        self.curve, self.summation_method, self.from_logits = curve, summation_method, from_logits
        super().__init__(name, dtype)
        shape = (self.num_thresholds,)
        self.true_positives = self.add_weight("true_positives", shape)
        self.false_positives = self.add_weight("false_positives", shape)
        self.true_negatives = self.add_weight("true_negatives", shape)
        self.false_negatives = self.add_weight("false_negatives", shape)

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> None:
        scores = np.asarray(to_numpy(y_pred), dtype=np.float64)
        if self.from_logits:
            scores = 1.0 / (1.0 + np.exp(-scores))
        elif scores.size and (scores.min() < 0 or scores.max() > 1):
            raise ValueError(
                f"AUC: predictions must be probabilities in [0, 1], got values from {scores.min()} to "
                f"{scores.max()}; for logits use AUC(from_logits=True)"
            )
        tp, fp, fn, tn = self._confusion(y_true, scores, sample_weight, self.thresholds)
        for variable, counts in (
            (self.true_positives, tp),
            (self.false_positives, fp),
            (self.false_negatives, fn),
            (self.true_negatives, tn),
        ):
            variable.assign_add(counts.astype(np.float32))

    def result(self) -> Tensor:
        tp, fp, tn, fn = (
            np.asarray(v, np.float64)
            for v in (self.true_positives, self.false_positives, self.true_negatives, self.false_negatives)
        )
        if self.curve == "PR" and self.summation_method == "interpolation":
            return Tensor(np.asarray(_interpolated_pr_auc(tp, fp, fn), dtype=np.float32))
        recall = _divide_no_nan(tp, tp + fn)
        if self.curve == "ROC":
            x, y = _divide_no_nan(fp, fp + tn), recall
        else:
            x, y = recall, _divide_no_nan(tp, tp + fp)
        if self.summation_method == "interpolation":
            heights = (y[:-1] + y[1:]) / 2.0
        elif self.summation_method == "minoring":
            heights = np.minimum(y[:-1], y[1:])
        else:
            heights = np.maximum(y[:-1], y[1:])
        return Tensor(np.asarray(np.sum((x[:-1] - x[1:]) * heights), dtype=np.float32))


def _interpolated_pr_auc(tp: np.ndarray, fp: np.ndarray, fn: np.ndarray) -> float:
    """Davis & Goadrich (2006): precision interpolated between thresholds, as Keras integrates the PR curve."""
    dtp = tp[:-1] - tp[1:]
    p = tp + fp
    slope = _divide_no_nan(dtp, np.maximum(p[:-1] - p[1:], 0))
    intercept = tp[1:] - slope * p[1:]
    both = (p[:-1] > 0) & (p[1:] > 0)
    ratio = np.where(both, _divide_no_nan(p[:-1], np.maximum(p[1:], 0)), 1.0)
    increments = _divide_no_nan(slope * (dtp + intercept * np.log(ratio)), np.maximum(tp[1:] + fn[1:], 0))
    return float(np.sum(increments))


def _snake(name: str) -> str:
    from minitape.keras.backend import snake_case

    return snake_case(name)


_BY_NAME: dict[str, Any] = {
    "sparse_categorical_accuracy": SparseCategoricalAccuracy,
    "categorical_accuracy": CategoricalAccuracy,
    "binary_accuracy": BinaryAccuracy,
    "mse": MeanSquaredError,
    "mean_squared_error": MeanSquaredError,
    "mae": MeanAbsoluteError,
    "mean_absolute_error": MeanAbsoluteError,
    "mape": MeanAbsolutePercentageError,
    "mean_absolute_percentage_error": MeanAbsolutePercentageError,
    "rmse": RootMeanSquaredError,
    "root_mean_squared_error": RootMeanSquaredError,
    "binary_crossentropy": BinaryCrossentropy,
    "categorical_crossentropy": CategoricalCrossentropy,
    "sparse_categorical_crossentropy": SparseCategoricalCrossentropy,
    "kl_divergence": KLDivergence,
    "kld": KLDivergence,
    "logcosh": LogCoshError,
    "log_cosh": LogCoshError,
    "cosine_similarity": CosineSimilarity,
    "msle": MeanSquaredLogarithmicError,
    "mean_squared_logarithmic_error": MeanSquaredLogarithmicError,
    "hinge": Hinge,
    "squared_hinge": SquaredHinge,
    "categorical_hinge": CategoricalHinge,
    "poisson": Poisson,
    "top_k_categorical_accuracy": TopKCategoricalAccuracy,
    "sparse_top_k_categorical_accuracy": SparseTopKCategoricalAccuracy,
    "r2_score": R2Score,
    "precision": Precision,
    "true_positives": TruePositives,
    "false_positives": FalsePositives,
    "true_negatives": TrueNegatives,
    "false_negatives": FalseNegatives,
    "recall": Recall,
    "auc": AUC,
}


# Keras 3's short class names and the per-example functions (the losses' own, under their metric names)
MSE, MAE, MAPE, MSLE = MeanSquaredError, MeanAbsoluteError, MeanAbsolutePercentageError, MeanSquaredLogarithmicError
KLD = KLDivergence
binary_crossentropy = losses.binary_crossentropy
categorical_crossentropy = losses.categorical_crossentropy
sparse_categorical_crossentropy = losses.sparse_categorical_crossentropy
hinge, squared_hinge, categorical_hinge = losses.hinge, losses.squared_hinge, losses.categorical_hinge
huber, poisson, logcosh = losses.huber, losses.poisson, losses.log_cosh
kld = kullback_leibler_divergence = losses.kl_divergence
mse, mae, mape, msle = losses.mse, losses.mae, losses.mape, losses.msle


__getattr__ = unsupported.module_getattr("keras.metrics")  # a left-out name says what to use instead


def get(identifier: Any, loss: Any = None) -> Metric:
    """The metric for a name ('mae', 'accuracy', ...), a Metric, a Metric class or a function(y_true, y_pred).

    'accuracy' picks its kind from the first batch's shapes, as Keras 3 does; a metric made from a name keeps that name
    (so `metrics=["mae"]` logs 'mae'); a function becomes the running mean of its values, named after it.
    """
    if isinstance(identifier, Metric):
        return identifier
    if isinstance(identifier, type) and issubclass(identifier, Metric):
        return identifier()
    if isinstance(identifier, str) and identifier.lower() in ("accuracy", "acc"):
        return AccuracyByShape(name=identifier)
    if isinstance(identifier, str):
        if identifier not in _BY_NAME:
            raise ValueError(
                f"Unknown metric: {identifier!r}. Use 'accuracy' or one of {sorted(_BY_NAME)}, a Metric object, "
                "or a function(y_true, y_pred)."
            )
        return _BY_NAME[identifier](name=identifier)
    if callable(identifier):
        return MeanMetricWrapper(identifier)
    raise ValueError(f"Could not interpret metric {identifier!r}: pass a name, a Metric or a function")


for_loss = get
