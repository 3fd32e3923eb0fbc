"""`Model` (subclass it: layers in `__init__`, the forward pass in `call`) and `Sequential`.

Training is split as in Keras: `fit` loops over epochs and batches and calls
`train_step(data)`, which is exactly the hand-written loop a lesson shows:
forward pass under a GradientTape, loss, `tape.gradient`, `optimizer.apply_gradients`.
Override `train_step` to customise training and keep `fit`'s loop and progress bar.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from minitape import random
from minitape.keras import backend
from minitape.keras import losses as losses_module
from minitape.keras import metrics as metrics_module
from minitape.keras import optimizers as optimizers_module
from minitape.keras.callbacks import Callback, History, Progbar
from minitape.keras.layers.base import Layer
from minitape.tape import GradientTape
from minitape.tensor import TensorLike


class Model(Layer):
    """A layer that can be trained: `compile`, then `fit`, `evaluate`, `predict`."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if args:
            raise TypeError(
                "minitape's Model does not support the functional API Model(inputs, outputs): subclass Model "
                "(layers in __init__, forward pass in call) or use Sequential"
            )
        super().__init__(**kwargs)
        self.optimizer: Any = None
        self.loss: Any = None
        self.compiled_metrics: list = []
        self.stop_training = False

    def _build_from_call(self, input_shape: Any) -> None:
        if type(self).build is not Model.build and type(self).build is not Sequential.build:
            self.build(input_shape)  # a subclass's own build(input_shape)

    def build(self, input_shape: Any) -> None:
        """Create every weight by running the model once on zeros of `input_shape` (batch axis may be None)."""
        if self.built:
            return
        shape = tuple(1 if n is None else int(n) for n in input_shape)
        self.built = True
        self(np.zeros(shape, dtype=self.dtype))

    def call(self, inputs: Any, training: bool = False) -> Any:
        raise NotImplementedError(f"{type(self).__name__} must define call(self, inputs) with the forward pass")

    # ---- configuration -----------------------------------------------------------------------------
    def compile(
        self,
        optimizer: Any = "rmsprop",
        loss: Any = None,
        metrics: list | None = None,
        loss_weights: Any = None,
        run_eagerly: Any = None,
        **kwargs: Any,
    ) -> None:
        """Choose the optimizer, the loss and the metrics (e.g. ['accuracy']) that `fit` and `evaluate` use."""
        self.optimizer = optimizers_module.get(optimizer)
        self.loss = losses_module.get(loss) if loss is not None else None
        self.compiled_metrics = [metrics_module.for_loss(m, self.loss) for m in (metrics or [])]
        self._loss_tracker = metrics_module.Mean(name="loss")

    @property
    def metrics(self) -> list:
        tracker = getattr(self, "_loss_tracker", None)
        return ([tracker] if tracker is not None else []) + list(self.compiled_metrics)

    @property
    def metrics_names(self) -> list[str]:
        return [m.name for m in self.metrics]

    def _require_compiled(self, what: str) -> None:
        missing_optimizer = what == "fit" and self.optimizer is None
        if missing_optimizer or self.loss is None:
            raise RuntimeError(
                f"You must compile your model before using {what}(): call "
                "model.compile(optimizer='adam', loss='sparse_categorical_crossentropy', metrics=['accuracy'])"
            )

    # ---- one step ----------------------------------------------------------------------------------
    def compute_loss(self, x: Any = None, y: Any = None, y_pred: Any = None, sample_weight: Any = None) -> Any:
        return self.loss(y, y_pred) if sample_weight is None else self.loss(y, y_pred, sample_weight)

    def compute_metrics(self, x: Any, y: Any, y_pred: Any, sample_weight: Any = None) -> dict[str, float]:
        for metric in self.compiled_metrics:
            metric.update_state(y, y_pred)
        return {m.name: float(m.result()._value) for m in self.metrics}

    def train_step(self, data: Any) -> dict[str, float]:
        """One optimisation step on a batch `(x, y)`: the loop a custom training lesson writes by hand."""
        x, y = data
        with GradientTape() as tape:
            y_pred = self(x, training=True)
            loss = self.compute_loss(x, y, y_pred)
        variables = self.trainable_variables
        gradients = tape.gradient(loss, variables)
        self.optimizer.apply_gradients(zip(gradients, variables))
        self._loss_tracker.update_state(loss._value, sample_weight=len(y_pred))
        return self.compute_metrics(x, y, y_pred)

    def test_step(self, data: Any) -> dict[str, float]:
        x, y = data
        y_pred = self(x, training=False)
        self._loss_tracker.update_state(self.compute_loss(x, y, y_pred)._value, sample_weight=len(y_pred))
        return self.compute_metrics(x, y, y_pred)

    def reset_metrics(self) -> None:
        for metric in self.metrics:
            metric.reset_state()

    # ---- loops -------------------------------------------------------------------------------------
    def fit(
        self,
        x: Any = None,
        y: Any = None,
        batch_size: int | None = None,
        epochs: int = 1,
        verbose: Any = "auto",
        callbacks: list[Callback] | None = None,
        validation_split: float = 0.0,
        validation_data: Any = None,
        shuffle: bool = True,
        initial_epoch: int = 0,
        steps_per_epoch: int | None = None,
    ) -> History:
        """Train for `epochs` passes over (x, y) in batches (default 32), shuffled each epoch unless told not to.

        Batches are drawn with `mt.random`'s generator: fix `mt.random.set_seed` for repeatable runs.
        Returns a History whose `.history` maps 'loss', each metric, and 'val_*' to per-epoch values.
        """
        self._require_compiled("fit")
        verbose = 1 if verbose == "auto" else int(verbose)
        batches_of = _batcher(x, y, batch_size, "fit")
        if validation_split and validation_data is None:
            x, y, validation_data = _split(x, y, validation_split)
            batches_of = _batcher(x, y, batch_size, "fit")
        history = History()
        hooks = [history, *(callbacks or [])]
        steps = batches_of.steps if steps_per_epoch is None else steps_per_epoch
        for hook in hooks:
            hook.set_model(self)
            hook.set_params({"epochs": epochs, "steps": steps, "verbose": verbose})
            hook.on_train_begin()
        self.stop_training = False
        for epoch in range(initial_epoch, epochs):
            if verbose:
                print(f"Epoch {epoch + 1}/{epochs}")
            for hook in hooks:
                hook.on_epoch_begin(epoch)
            self.reset_metrics()
            bar = Progbar(steps, verbose=verbose)
            logs: dict[str, float] = {}
            for step, batch in enumerate(batches_of(shuffle)):
                if step >= steps:
                    break
                for hook in hooks:
                    hook.on_train_batch_begin(step)
                logs = self.train_step(batch)
                for hook in hooks:
                    hook.on_train_batch_end(step, logs)
                bar.update(step + 1, logs)
            if validation_data is not None:
                val = self.evaluate(*validation_data[:2], batch_size=batch_size, verbose=0, return_dict=True)
                logs = {**logs, **{f"val_{k}": v for k, v in val.items()}}
            bar.update(steps, logs, finalize=True)
            for hook in hooks:
                hook.on_epoch_end(epoch, dict(logs))
            if self.stop_training:
                break
        for hook in hooks:
            hook.on_train_end()
        return history

    def evaluate(
        self,
        x: Any = None,
        y: Any = None,
        batch_size: int | None = None,
        verbose: Any = "auto",
        return_dict: bool = False,
        **kwargs: Any,
    ) -> Any:
        """The loss (and metrics) over all of (x, y): a number, or [loss, metric, ...] when there are metrics."""
        self._require_compiled("evaluate")
        verbose = 1 if verbose == "auto" else int(verbose)
        batches_of = _batcher(x, y, batch_size, "evaluate")
        self.reset_metrics()
        bar = Progbar(batches_of.steps, verbose=verbose)
        logs: dict[str, float] = {}
        for step, batch in enumerate(batches_of(False)):
            logs = self.test_step(batch)
            bar.update(step + 1, logs)
        bar.update(batches_of.steps, logs, finalize=True)
        if return_dict:
            return logs
        values = [logs[m.name] for m in self.metrics]
        return values[0] if len(values) == 1 else values

    def predict(self, x: Any, batch_size: int | None = None, verbose: Any = "auto", **kwargs: Any) -> np.ndarray:
        """The model's outputs for every example of x, as one numpy array (computed in batches, training=False)."""
        verbose = 1 if verbose == "auto" else int(verbose)
        batches_of = _batcher(x, None, batch_size, "predict")
        bar = Progbar(batches_of.steps, verbose=verbose)
        outputs = []
        for step, (batch, _) in enumerate(batches_of(False)):
            outputs.append(backend.to_numpy(self(batch, training=False)))
            bar.update(step + 1)
        bar.update(batches_of.steps, finalize=True)
        return np.concatenate(outputs) if outputs else np.zeros((0,))

    def predict_on_batch(self, x: Any) -> np.ndarray:
        return backend.to_numpy(self(x, training=False))

    def train_on_batch(self, x: Any, y: Any) -> Any:
        self._require_compiled("fit")
        self.reset_metrics()
        logs = self.train_step((x, y))
        values = list(logs.values())
        return values[0] if len(values) == 1 else values

    # ---- inspection --------------------------------------------------------------------------------
    def summary(self, line_length: int | None = None, print_fn: Callable[[str], Any] | None = None, **kw: Any) -> None:
        """Print a table of the layers with their output shapes and parameter counts, as Keras does."""
        from minitape.keras.summary import model_summary

        (print_fn or print)(model_summary(self, line_length or 65))


class Sequential(Model):
    """A plain stack of layers, each feeding the next."""

    def __init__(self, layers: list | None = None, name: str | None = None, **kwargs: Any) -> None:
        super().__init__(name=name, **kwargs)
        self._stack: list[Layer] = []
        for layer in layers or []:
            self.add(layer)

    def add(self, layer: Any) -> None:
        if isinstance(layer, KerasInput):
            if self._stack:
                raise ValueError("Sequential: an Input can only come first")
            self._pending_input = layer
            return
        if not isinstance(layer, Layer):
            raise TypeError(f"Sequential.add takes a layer, not {type(layer).__name__} {layer!r}")
        self._stack.append(layer)
        shape = getattr(self, "_pending_input", None)
        shape = shape.shape if shape is not None else layer._input_shape_arg if len(self._stack) == 1 else None
        if shape is not None:
            self._input_shape_arg = shape
        if self._input_shape_arg is not None:  # known input shape: build the new layer now, as Keras does
            self.built = False
            self.build(self._input_shape_arg)

    def pop(self) -> Layer:
        if not self._stack:
            raise TypeError("There are no layers in the model.")
        return self._stack.pop()

    @property
    def layers(self) -> list[Layer]:
        return list(self._stack)

    def call(self, inputs: Any, training: bool = False) -> Any:
        outputs = inputs
        for layer in self._stack:
            outputs = layer(outputs, training=training)
        return outputs


class KerasInput:
    """What `keras.Input(shape=...)` returns: here only a way to give Sequential its input shape."""

    def __init__(self, shape: tuple, batch_size: int | None = None, name: str | None = None) -> None:
        self.shape = (batch_size, *tuple(shape))
        self.name = name

    def __repr__(self) -> str:
        return f"<KerasInput shape={self.shape}>"


def Input(shape: Any, batch_size: int | None = None, name: str | None = None, dtype: Any = None) -> KerasInput:
    """An input shape (without the batch axis) for Sequential([keras.Input(shape=(8, 8, 1)), ...])."""
    return KerasInput(tuple(shape), batch_size, name)


# ---- data: arrays into batches -------------------------------------------------------------------
def _length(value: Any, what: str) -> int:
    shape = np.shape(value._array() if isinstance(value, TensorLike) else value)
    if not shape:
        raise ValueError(f"{what} must have a batch axis (one entry per example), but it is a scalar")
    return shape[0]


class _Batches:
    """Callable giving the batches of one epoch: `(x_batch, y_batch)`, shuffled if asked."""

    def __init__(self, x: Any, y: Any, batch_size: int) -> None:
        self.x, self.y, self.batch_size = x, y, batch_size
        self.n = len(x)
        self.steps = -(-self.n // batch_size)

    def __call__(self, shuffle: bool):
        order = random.generator().permutation(self.n) if shuffle else None
        for start in range(0, self.n, self.batch_size):
            if order is None:
                pick = slice(start, start + self.batch_size)
            else:
                pick = order[start : start + self.batch_size]
            yield self.x[pick], (None if self.y is None else self.y[pick])


def _array(value: Any, name: str, what: str) -> np.ndarray:
    array = backend.to_numpy(value)
    if array.dtype.kind not in "biuf":
        raise TypeError(
            f"{what}(): {name} must be a numpy array or a tensor of numbers (one entry per example), "
            f"not {type(value).__name__}; datasets and generators are not supported: pass arrays"
        )
    return array


def _batcher(x: Any, y: Any, batch_size: int | None, what: str) -> _Batches:
    if x is None:
        raise ValueError(f"{what}() needs the input data x")
    if batch_size is not None and (int(batch_size) != batch_size or batch_size < 1):
        raise ValueError(f"{what}(): batch_size must be a positive integer, got {batch_size!r}")
    x = _array(x, "x", what)
    if y is not None:
        y = _array(y, "y", what)
        nx, ny = _length(x, "x"), _length(y, "y")
        if nx != ny:
            raise ValueError(
                f"{what}(): x and y have different lengths: x has {nx} examples (shape {x.shape}) and y has {ny} "
                f"(shape {y.shape}). Make sure they hold the same number of samples."
            )
    elif what != "predict":
        raise ValueError(f"{what}() needs the targets y as well as x")
    _length(x, "x")
    return _Batches(x, y, int(batch_size or 32))


def _split(x: Any, y: Any, fraction: float) -> tuple:
    if not 0 < fraction < 1:
        raise ValueError(f"validation_split must be between 0 and 1, got {fraction!r}")
    x, y = backend.to_numpy(x), backend.to_numpy(y)
    cut = int(len(x) * (1 - fraction))
    return x[:cut], y[:cut], (x[cut:], y[cut:])
