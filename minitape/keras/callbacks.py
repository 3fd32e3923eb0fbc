"""Callbacks `fit` calls at each epoch and batch: `History` (returned by fit) and the progress bar."""

from __future__ import annotations

import sys
import time
from typing import Any


class Callback:
    """Override the hooks you need; `self.model` is set by fit."""

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
    def on_train_batch_begin(self, batch: int, logs: dict | None = None) -> None: ...
    def on_train_batch_end(self, batch: int, logs: dict | None = None) -> None: ...


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
