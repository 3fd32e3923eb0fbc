"""Callbacks `fit` calls at each epoch and batch: `History` (returned by fit) and the progress bar."""

from __future__ import annotations

import sys
import time
import warnings
from typing import Any

import numpy as np


class Callback:
    """Override the hooks you need; `self.model` is set by fit, evaluate and predict.

    Every hook of Keras 3 is here; each gets `logs`, a dict (empty where Keras passes nothing).
    As in Keras, `on_train_batch_begin/end` call `on_batch_begin/end` unless overridden.
    """

    def __init__(self) -> None:
        self.model: Any = None
        self.params: dict = {}

    def set_model(self, model: Any) -> None:
        self.model = model

    def set_params(self, params: dict) -> None:
        self.params = params

    def on_train_begin(self, logs: dict | None = None) -> None: ...
    def on_train_end(self, logs: dict | None = None) -> None: ...
    def on_epoch_begin(self, epoch: int, logs: dict | None = None) -> None: ...
    def on_epoch_end(self, epoch: int, logs: dict | None = None) -> None: ...
    def on_batch_begin(self, batch: int, logs: dict | None = None) -> None: ...
    def on_batch_end(self, batch: int, logs: dict | None = None) -> None: ...

    def on_train_batch_begin(self, batch: int, logs: dict | None = None) -> None:
        self.on_batch_begin(batch, logs=logs)

    def on_train_batch_end(self, batch: int, logs: dict | None = None) -> None:
        self.on_batch_end(batch, logs=logs)

    def on_test_begin(self, logs: dict | None = None) -> None: ...
    def on_test_end(self, logs: dict | None = None) -> None: ...
    def on_test_batch_begin(self, batch: int, logs: dict | None = None) -> None: ...
    def on_test_batch_end(self, batch: int, logs: dict | None = None) -> None: ...
    def on_predict_begin(self, logs: dict | None = None) -> None: ...
    def on_predict_end(self, logs: dict | None = None) -> None: ...
    def on_predict_batch_begin(self, batch: int, logs: dict | None = None) -> None: ...
    def on_predict_batch_end(self, batch: int, logs: dict | None = None) -> None: ...


HOOKS = tuple(name for name in vars(Callback) if name.startswith("on_"))


class CallbackList:
    """The callbacks of one fit, evaluate or predict: each hook called on each, in order, with a logs dict.

    As in Keras, one dict goes to every callback of a hook, so what one callback adds, the next sees.
    """

    def __init__(self, callbacks: Any, model: Any, params: dict) -> None:
        callbacks = [] if callbacks is None else list(callbacks)
        for callback in callbacks:
            if not isinstance(callback, Callback):
                raise TypeError(
                    f"callbacks must be a list of keras.callbacks.Callback instances, got {type(callback).__name__} "
                    f"{callback!r}; subclass keras.callbacks.Callback, or wrap functions in "
                    "keras.callbacks.LambdaCallback"
                )
            callback.set_model(model)
            callback.set_params(params)
        self.callbacks = callbacks

    def __getattr__(self, hook: str) -> Any:
        if hook not in HOOKS:
            raise AttributeError(hook)

        def call(*args: Any, logs: dict | None = None) -> None:
            logs = {} if logs is None else logs
            for callback in self.callbacks:
                getattr(callback, hook)(*args, logs)

        return call


class History(Callback):
    """`history.history['loss']` lists the loss of every epoch (and every other logged value)."""

    def __init__(self) -> None:
        super().__init__()
        self.epoch: list[int] = []
        self.history: dict[str, list[float]] = {}

    def on_epoch_end(self, epoch: int, logs: dict | None = None) -> None:
        self.epoch.append(epoch)
        for key, value in (logs or {}).items():
            self.history.setdefault(key, []).append(value)

    def __repr__(self) -> str:
        return f"<History epochs={len(self.epoch)} keys={list(self.history)}>"


class EarlyStopping(Callback):
    """Stop `fit` when `monitor` (default 'val_loss') has not improved by min_delta for `patience` epochs."""

    def __init__(
        self,
        monitor: str = "val_loss",
        min_delta: float = 0.0,
        patience: int = 0,
        verbose: int = 0,
        mode: str = "auto",
        baseline: float | None = None,
        restore_best_weights: bool = False,
        start_from_epoch: int = 0,
    ) -> None:
        super().__init__()
        if mode not in ("auto", "min", "max"):
            raise ValueError(f"EarlyStopping: mode must be 'auto', 'min' or 'max', got {mode!r}")
        if mode == "auto":
            mode = "max" if "acc" in monitor or monitor.endswith("auc") else "min"
        self.monitor, self.min_delta, self.patience, self.verbose = monitor, abs(min_delta), patience, verbose
        self.mode, self.baseline, self.restore_best_weights = mode, baseline, restore_best_weights
        self.start_from_epoch = start_from_epoch
        self.stopped_epoch = 0

    def _better(self, value: float, reference: float | None) -> bool:
        if reference is None:
            return True
        if self.mode == "min":
            return value < reference - self.min_delta
        return value > reference + self.min_delta

    def on_train_begin(self, logs: dict | None = None) -> None:
        self.wait, self.stopped_epoch = 0, 0
        self.best: float | None = None
        self.best_weights: list | None = None
        self.best_epoch = 0

    def on_epoch_end(self, epoch: int, logs: dict | None = None) -> None:
        value = (logs or {}).get(self.monitor)
        if value is None:
            warnings.warn(
                f"Early stopping conditioned on metric `{self.monitor}` which is not available. "
                f"Available metrics are: {','.join(logs or {})}",
                stacklevel=2,
            )
            return
        if epoch < self.start_from_epoch:
            return
        if self.restore_best_weights and self.best_weights is None:
            self.best_weights = self.model.get_weights()
        self.wait += 1
        if self._better(value, self.best):
            self.best, self.best_epoch = value, epoch
            if self.restore_best_weights:
                self.best_weights = self.model.get_weights()
            if self.baseline is None or self._better(value, self.baseline):
                self.wait = 0
            return
        if self.wait >= self.patience and epoch > 0:
            self.stopped_epoch = epoch
            self.model.stop_training = True

    def on_train_end(self, logs: dict | None = None) -> None:
        if self.stopped_epoch > 0 and self.verbose > 0:
            print(f"Epoch {self.stopped_epoch + 1}: early stopping")
        if self.restore_best_weights and self.best_weights is not None and self.stopped_epoch > 0:
            if self.verbose > 0:
                print(f"Restoring model weights from the end of the best epoch: {self.best_epoch + 1}.")
            self.model.set_weights(self.best_weights)


class LearningRateScheduler(Callback):
    """At the start of each epoch, set the optimizer's learning rate to `schedule(epoch, current_lr)`.

    At the end of each epoch the rate is logged as 'learning_rate' (so `history.history['learning_rate']`
    lists it per epoch), as Keras 3 does.
    """

    def __init__(self, schedule: Any, verbose: int = 0) -> None:
        super().__init__()
        self.schedule, self.verbose = schedule, verbose

    def on_epoch_begin(self, epoch: int, logs: dict | None = None) -> None:
        optimizer = self.model.optimizer
        try:
            rate = self.schedule(epoch, optimizer.current_learning_rate())
        except TypeError:  # a schedule of the epoch only
            rate = self.schedule(epoch)
        optimizer.learning_rate = float(rate)
        if self.verbose > 0:
            print(f"\nEpoch {epoch + 1}: LearningRateScheduler setting learning rate to {float(rate)}.")

    def on_epoch_end(self, epoch: int, logs: dict | None = None) -> None:
        if logs is not None:
            logs["learning_rate"] = float(np.asarray(self.model.optimizer.learning_rate))


class LambdaCallback(Callback):
    """A callback from functions: on_epoch_end=lambda epoch, logs: ..., and so on."""

    def __init__(self, **hooks: Any) -> None:
        super().__init__()
        known = set(HOOKS)
        unknown = set(hooks) - known
        if unknown:
            raise TypeError(f"LambdaCallback: unknown hook(s) {sorted(unknown)}; use {sorted(known)}")
        for name, fn in hooks.items():
            setattr(self, name, fn)


from minitape.keras.unsupported import module_getattr  # noqa: E402 - beside its one use

__getattr__ = module_getattr("keras.callbacks")  # TensorBoard, ModelCheckpoint, ...: says what to use instead


class Progbar:
    """A Keras-style text bar: ` 12/45 [=====>........................] - ETA: 1s - loss: 0.4321`.

    On a terminal or in Jupyter it redraws in place; elsewhere (logs, pipes) it prints
    the final line only, so captured output stays short.
    """

    def __init__(self, target: int | None, width: int = 30, verbose: int = 1, unit: str = "step") -> None:
        self.target, self.width, self.verbose, self.unit = target, width, verbose, unit
        self.start = time.perf_counter()
        self._last_draw = 0.0
        self._interactive = _interactive()

    def update(self, current: int, values: dict | None = None, finalize: bool = False) -> None:
        if self.verbose == 0:
            return
        now = time.perf_counter()
        if not finalize and (not self._interactive or self.verbose != 1 or now - self._last_draw < 0.05):
            return
        self._last_draw = now
        elapsed = now - self.start
        metrics = "".join(f" - {k}: {_format(v)}" for k, v in (values or {}).items())
        if finalize:
            per_step = elapsed / max(current, 1)
            timing = f"{elapsed:.0f}s {_format_step(per_step)}/{self.unit}"
            bar = self._bar(current) if self.verbose == 1 else f"{current}/{self.target}"
            sys.stdout.write(("\r" if self._interactive and self.verbose == 1 else "") + f"{bar} - {timing}{metrics}\n")
        elif self.target is None:
            sys.stdout.write(f"\r{self._bar(current)}{metrics}")
        else:
            eta = elapsed / max(current, 1) * (self.target - current)
            sys.stdout.write(f"\r{self._bar(current)} - ETA: {eta:.0f}s{metrics}")
        sys.stdout.flush()

    def _bar(self, current: int) -> str:
        if self.target is None:  # a dataset of unknown length, in its first epoch
            return f"{current}/Unknown"
        digits = len(str(self.target))
        done = int(self.width * current / max(self.target, 1))
        arrow = "=" * done if current >= self.target else "=" * max(done - 1, 0) + ">"
        return f"{current:>{digits}}/{self.target} [{arrow}{'.' * (self.width - len(arrow))}]"


def _interactive() -> bool:
    return bool(getattr(sys.stdout, "isatty", lambda: False)()) or "ipykernel" in sys.modules


def _format(value: float) -> str:
    return f"{value:.4f}" if abs(value) >= 1e-3 or value == 0 else f"{value:.4e}"


def _format_step(seconds: float) -> str:
    if seconds >= 1:
        return f"{seconds:.0f}s"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.0f}ms"
    return f"{seconds * 1e6:.0f}us"
