"""Callbacks `fit` calls at each epoch and batch: `History` (returned by fit) and the progress bar."""

from __future__ import annotations

import os
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


def better_direction(callback: str, monitor: str, mode: str, model: Any) -> str:
    """'min' or 'max': which way `monitor` improves, as Keras 3 decides it for mode='auto': lower for a loss,
    else what the compiled metric of that name says (its `_direction`), else an error that asks for the mode."""
    if mode != "auto":
        return mode
    name = monitor.removeprefix("val_")
    if name == "loss":  # only the total: Keras 3.15 asks for the mode of 'a_loss' too
        return "min"
    for metric in (m for listed in model.metrics for m in getattr(listed, "metrics", [listed])):  # compile_metrics
        if metric.name == name and getattr(metric, "_direction", None) is not None:
            return "max" if metric._direction == "up" else "min"
    raise ValueError(
        f"{callback} callback received monitor={monitor}, but Keras isn't able to automatically determine whether "
        "that metric should be maximized or minimized. Pass `mode='max'` in order to monitor based on the highest "
        "metric value, or pass `mode='min'` in order to use the lowest value."
    )


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
        self.mode = better_direction("EarlyStopping", self.monitor, self.mode, self.model)  # known once compiled
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


class ModelCheckpoint(Callback):
    """Save the weights to `filepath` (ending in `.weights.h5`) after each epoch, or every `save_freq` batches.

    `filepath` may name the epoch and any logged value: 'ckpt/e{epoch:02d}-{val_loss:.2f}.weights.h5'.
    With `save_best_only=True` it saves only when `monitor` improves on the best value so far (or on
    `initial_value_threshold`): lower is better with mode='min', higher with 'max'; 'auto' takes 'min' for a loss
    and asks the compiled metric of that name (accuracy and the like go up). minitape saves weights only, so
    `save_weights_only=True` is required: load them back with `model.load_weights(filepath)`.
    """

    def __init__(
        self,
        filepath: Any,
        monitor: str = "val_loss",
        verbose: int = 0,
        save_best_only: bool = False,
        save_weights_only: bool = False,
        mode: str = "auto",
        save_freq: Any = "epoch",
        initial_value_threshold: float | None = None,
    ) -> None:
        super().__init__()
        from minitape.keras.saving import SUFFIX, suggest_name

        self.filepath = os.fspath(filepath)
        if save_freq != "epoch" and not isinstance(save_freq, int):
            raise ValueError(f"Unrecognized save_freq: {save_freq}. Expected save_freq are 'epoch' or integer values")
        if not save_weights_only:
            raise NotImplementedError(
                "ModelCheckpoint(save_weights_only=False) saves whole models (`.keras` files: architecture, weights "
                "and optimizer), which minitape cannot write: it writes no model files (a model's get_config "
                "rebuilds it in the same session only). "
                f"Save the weights instead: ModelCheckpoint({suggest_name(self.filepath)!r}, save_weights_only=True, "
                "...), and after building the same model, restore them with model.load_weights(...)"
            )
        if not self.filepath.endswith(SUFFIX):
            raise ValueError(
                "When using `save_weights_only=True` in `ModelCheckpoint`, the filepath provided must end in "
                f"`.weights.h5` (Keras weights format). Received: filepath={self.filepath} "
                f"(e.g. {suggest_name(self.filepath)!r})"
            )
        if mode not in ("auto", "min", "max"):
            warnings.warn(f"ModelCheckpoint mode '{mode}' is unknown, fallback to auto mode.", stacklevel=2)
            mode = "auto"
        self.monitor, self.verbose, self.mode = monitor, verbose, mode
        self.save_best_only, self.save_weights_only, self.save_freq = save_best_only, save_weights_only, save_freq
        self.best = initial_value_threshold  # kept from one fit to the next, as in Keras
        self.monitor_op: Any = None
        self._current_epoch = 0
        self._batches_since_saving = 0
        self._last_batch: int | None = None

    def _set_monitor_op(self) -> None:
        self.monitor_op = (
            np.greater if better_direction("ModelCheckpoint", self.monitor, self.mode, self.model) == "max" else np.less
        )

    def on_epoch_begin(self, epoch: int, logs: dict | None = None) -> None:
        self._current_epoch = epoch

    def on_train_batch_end(self, batch: int, logs: dict | None = None) -> None:
        if self.save_freq == "epoch":
            return
        # batches since the last save, counting across epochs (the batch number starts again at 0 each epoch)
        fresh = self._last_batch is None or batch <= self._last_batch
        self._batches_since_saving += batch + 1 if fresh else batch - self._last_batch
        self._last_batch = batch
        if self._batches_since_saving >= self.save_freq:
            self._batches_since_saving = 0
            self._save(self._current_epoch, batch, logs or {})

    def on_epoch_end(self, epoch: int, logs: dict | None = None) -> None:
        if self.monitor_op is None:
            self._set_monitor_op()
        if self.save_freq == "epoch":
            self._save(epoch, None, logs or {})

    def _save(self, epoch: int, batch: int | None, logs: dict) -> None:
        filepath = self._file_path(epoch, batch, logs)
        if not self._should_save(epoch, logs, filepath):
            return
        if os.path.isdir(filepath):
            raise OSError(
                "Please specify a non-directory filepath for ModelCheckpoint. Filepath used is an existing "
                f"directory: {filepath}"
            )
        folder = os.path.dirname(filepath)
        if folder:
            os.makedirs(folder, exist_ok=True)
        self.model.save_weights(filepath, overwrite=True)
        if self.verbose > 0:
            print(f"\nEpoch {epoch + 1}: finished saving model to {filepath}")

    def _should_save(self, epoch: int, logs: dict, filepath: str) -> bool:
        if not self.save_best_only:
            if self.verbose > 0:
                print(f"\nEpoch {epoch + 1}: saving model to {filepath}")
            return True
        current = logs.get(self.monitor)
        if current is None:
            warnings.warn(f"Can save best model only with {self.monitor} available.", stacklevel=3)
            return True
        if np.ndim(current) > 0:
            warnings.warn(
                f"Can save best model only when `monitor` is a scalar value. Received: {current}. "
                "Falling back to `save_best_only=False`.",
                stacklevel=3,
            )
            return True
        if self.monitor_op is None:  # saving every few batches, before the first epoch ended
            self._set_monitor_op()
        best = "None" if self.best is None else f"{self.best:.5f}"
        if self.best is None or self.monitor_op(current, self.best):
            if self.verbose > 0:
                print(
                    f"\nEpoch {epoch + 1}: {self.monitor} improved from {best} to {current:.5f}, saving model to "
                    f"{filepath}"
                )
            self.best = current
            return True
        if self.verbose > 0:
            print(f"\nEpoch {epoch + 1}: {self.monitor} did not improve from {best}")
        return False

    def _file_path(self, epoch: int, batch: int | None, logs: dict) -> str:
        """`filepath` with {epoch} (counted from 1), {batch} when saving by batches, and the logged values."""
        try:
            if batch is None or "batch" in logs:
                return self.filepath.format(epoch=epoch + 1, **logs)
            return self.filepath.format(epoch=epoch + 1, batch=batch + 1, **logs)
        except KeyError as error:
            raise KeyError(
                f'Failed to format this callback filepath: "{self.filepath}". Reason: {error} (the names in {{}} '
                f"can be epoch{', batch' if batch is not None else ''} and the logged values: {sorted(logs)})"
            ) from None


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

__getattr__ = module_getattr("keras.callbacks")  # TensorBoard, CSVLogger, ...: says what to use instead


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
            # Keras 3: `3/3 ━━━━ 0s 4ms/step` under a bar, `3/3 - 0s - 4ms/step` on the one line of verbose=2
            gap = " " if self.verbose == 1 else " - "
            timing = f"{elapsed:.0f}s{gap}{_format_step(per_step)}/{self.unit}"
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
