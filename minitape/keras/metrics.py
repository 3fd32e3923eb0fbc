"""Running metrics with `update_state`, `result`, `reset_state`, as `tf.keras.metrics`. Computed in numpy."""

from __future__ import annotations

from typing import Any

import numpy as np

from minitape.keras.backend import to_numpy
from minitape.tensor import Tensor


class Metric:
    """A weighted running mean of per-example values: `update_state` adds, `result` reads."""

    def __init__(self, name: str | None = None, dtype: Any = None) -> None:
        self.name = name or _snake(type(self).__name__)
        self.reset_state()

    def reset_state(self) -> None:
        self.total = 0.0
        self.count = 0.0

    reset_states = reset_state

    def _add(self, values: np.ndarray, sample_weight: Any = None) -> None:
        values = np.asarray(values, dtype=np.float64)
        weights = np.ones_like(values)
        if sample_weight is not None:
            weights = np.broadcast_to(to_numpy(sample_weight), values.shape)
        self.total += float(np.sum(values * weights))
        self.count += float(np.sum(weights))

    def result(self) -> Tensor:
        return Tensor(np.asarray(self.total / self.count if self.count else 0.0, dtype=np.float32))

    def __call__(self, *args: Any, **kwargs: Any) -> Tensor:
        self.update_state(*args, **kwargs)
        return self.result()

    def __repr__(self) -> str:
        return f"<{type(self).__name__} name={self.name} result={float(np.asarray(self.result())):.4f}>"


class Mean(Metric):
    """The mean of the values given so far: `train_loss(loss)` in a custom loop."""

    def update_state(self, values: Any, sample_weight: Any = None) -> None:
        self._add(np.ravel(to_numpy(values)), sample_weight)


class Accuracy(Metric):
    """How often y_pred equals y_true exactly."""

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> None:
        self._add(np.ravel(to_numpy(y_true) == to_numpy(y_pred)), sample_weight)


class SparseCategoricalAccuracy(Metric):
    """How often argmax(y_pred) equals the integer label."""

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> None:
        labels = np.ravel(to_numpy(y_true))
        self._add(np.argmax(to_numpy(y_pred), axis=-1).ravel() == labels, sample_weight)


class CategoricalAccuracy(Metric):
    """How often argmax(y_pred) equals argmax(y_true) (one-hot labels)."""

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> None:
        self._add(np.argmax(to_numpy(y_pred), axis=-1) == np.argmax(to_numpy(y_true), axis=-1), sample_weight)


class BinaryAccuracy(Metric):
    """How often (y_pred > threshold) equals y_true, per element."""

    def __init__(self, name: str | None = None, dtype: Any = None, threshold: float = 0.5) -> None:
        self.threshold = threshold
        super().__init__(name, dtype)

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> None:
        y_pred, y_true = to_numpy(y_pred), to_numpy(y_true)
        if y_true.size == y_pred.size:
            y_true = y_true.reshape(y_pred.shape)  # labels (batch,) against predictions (batch, 1)
        hits = (y_pred > self.threshold) == (y_true > 0.5)
        self._add(np.mean(hits.reshape(len(hits), -1), axis=-1) if hits.ndim > 1 else hits, sample_weight)


def _snake(name: str) -> str:
    from minitape.keras.backend import snake_case

    return snake_case(name)


def get(identifier: Any, loss: Any = None) -> Metric:
    """The metric a name stands for; 'accuracy' picks the kind that fits the loss, as Keras does."""
    if isinstance(identifier, Metric):
        return identifier
    classes = {
        "sparse_categorical_accuracy": SparseCategoricalAccuracy,
        "categorical_accuracy": CategoricalAccuracy,
        "binary_accuracy": BinaryAccuracy,
    }
    if identifier in ("accuracy", "acc"):
        loss_name = getattr(loss, "name", getattr(loss, "__name__", ""))
        kind = {
            "sparse_categorical_crossentropy": SparseCategoricalAccuracy,
            "categorical_crossentropy": CategoricalAccuracy,
            "binary_crossentropy": BinaryAccuracy,
        }.get(loss_name, SparseCategoricalAccuracy)
        return kind(name=identifier)
    if identifier in classes:
        return classes[identifier](name=identifier)
    raise ValueError(f"Unknown metric: {identifier!r}. Use 'accuracy' or one of {sorted(classes)}, or a Metric object.")
