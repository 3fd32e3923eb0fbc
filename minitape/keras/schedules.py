"""Learning-rate schedules, as `keras.optimizers.schedules`: `schedule(step)` is the rate for update `step`.

The optimizer calls its schedule with `optimizer.iterations` (0 for the first update). A schedule also takes
an array of steps and gives their rates, as Keras' do (tutorials plot `schedule(np.linspace(0, n, 100))`).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from minitape.keras import unsupported
from minitape.values.convert import constant


def _steps(step: Any) -> np.ndarray:
    return np.asarray(step, np.float64)


def _rate(rate: Any) -> Any:
    return constant(np.asarray(rate), dtype="float32")


class LearningRateSchedule:
    """Subclass and define `__call__(step)`; pass an instance as an optimizer's `learning_rate`."""

    def __call__(self, step: Any) -> Any:
        raise NotImplementedError(f"{type(self).__name__} must define __call__(self, step)")

    def get_config(self) -> dict:
        return dict(vars(self))

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in vars(self).items())
        return f"{type(self).__name__}({args})"


class ExponentialDecay(LearningRateSchedule):
    """initial_learning_rate * decay_rate ^ (step / decay_steps); with staircase, the exponent is floored."""

    def __init__(
        self,
        initial_learning_rate: float,
        decay_steps: int,
        decay_rate: float,
        staircase: bool = False,
        name: str = "ExponentialDecay",
    ) -> None:
        if decay_steps <= 0:
            raise ValueError(f"ExponentialDecay: decay_steps must be > 0, got {decay_steps!r}")
        self.initial_learning_rate, self.decay_steps, self.decay_rate = initial_learning_rate, decay_steps, decay_rate
        self.staircase, self.name = staircase, name

    def __call__(self, step: Any) -> Any:
        exponent = _steps(step) / self.decay_steps
        if self.staircase:
            exponent = np.floor(exponent)
        return _rate(self.initial_learning_rate * self.decay_rate**exponent)


class PiecewiseConstantDecay(LearningRateSchedule):
    """values[0] while step <= boundaries[0], values[1] while step <= boundaries[1], ..., values[-1] after."""

    def __init__(self, boundaries: list, values: list, name: str = "PiecewiseConstant") -> None:
        if len(values) != len(boundaries) + 1:
            raise ValueError(
                "PiecewiseConstantDecay: the length of boundaries should be 1 less than the length of values; "
                f"got {len(boundaries)} boundaries and {len(values)} values"
            )
        if list(boundaries) != sorted(boundaries):
            raise ValueError(f"PiecewiseConstantDecay: boundaries must be increasing, got {boundaries}")
        self.boundaries, self.values, self.name = list(boundaries), list(values), name

    def __call__(self, step: Any) -> Any:
        # values[i] for the first boundary i that the step has not passed (step <= boundary)
        return _rate(np.asarray(self.values)[np.searchsorted(self.boundaries, _steps(step), side="left")])


class InverseTimeDecay(LearningRateSchedule):
    """initial_learning_rate / (1 + decay_rate * step / decay_steps) (the exponent floored with staircase)."""

    def __init__(
        self,
        initial_learning_rate: float,
        decay_steps: int,
        decay_rate: float,
        staircase: bool = False,
        name: str = "InverseTimeDecay",
    ) -> None:
        self.initial_learning_rate, self.decay_steps, self.decay_rate = initial_learning_rate, decay_steps, decay_rate
        self.staircase, self.name = staircase, name

    def __call__(self, step: Any) -> Any:
        ratio = _steps(step) / self.decay_steps
        if self.staircase:
            ratio = np.floor(ratio)
        return _rate(self.initial_learning_rate / (1 + self.decay_rate * ratio))


class PolynomialDecay(LearningRateSchedule):
    """(initial - end) (1 - step / decay_steps)^power + end, then `end_learning_rate` once step passes
    decay_steps; with `cycle`, decay_steps grows to the first multiple of it past the step (Keras 3's formula)."""

    def __init__(
        self,
        initial_learning_rate: float,
        decay_steps: int,
        end_learning_rate: float = 0.0001,
        power: float = 1.0,
        cycle: bool = False,
        name: str = "PolynomialDecay",
    ) -> None:
        if decay_steps <= 0:
            raise ValueError(f"PolynomialDecay: decay_steps must be > 0, got {decay_steps!r}")
        self.initial_learning_rate, self.decay_steps = initial_learning_rate, decay_steps
        self.end_learning_rate, self.power, self.cycle, self.name = end_learning_rate, power, cycle, name

    def __call__(self, step: Any) -> Any:
        step = _steps(step)
        decay_steps = float(self.decay_steps)
        if self.cycle:
            decay_steps = decay_steps * np.where(step == 0, 1.0, np.ceil(step / decay_steps))
        else:
            step = np.minimum(step, decay_steps)
        fraction = 1.0 - step / decay_steps
        return _rate(
            (self.initial_learning_rate - self.end_learning_rate) * fraction**self.power + self.end_learning_rate
        )


class CosineDecay(LearningRateSchedule):
    """Half a cosine from the rate down to alpha * rate over decay_steps, then flat (Loshchilov & Hutter's SGDR
    without restarts). With `warmup_target`, the rate first climbs linearly from initial_learning_rate to
    warmup_target over warmup_steps, and the cosine starts from warmup_target (Keras 3's formula)."""

    def __init__(
        self,
        initial_learning_rate: float,
        decay_steps: int,
        alpha: float = 0.0,
        name: str = "CosineDecay",
        warmup_target: float | None = None,
        warmup_steps: int = 0,
    ) -> None:
        if decay_steps <= 0:
            raise ValueError(f"CosineDecay: decay_steps must be > 0, got {decay_steps!r}")
        self.initial_learning_rate, self.decay_steps, self.alpha, self.name = (
            initial_learning_rate,
            decay_steps,
            alpha,
            name,
        )
        self.warmup_target, self.warmup_steps = warmup_target, warmup_steps

    def _cosine(self, step: np.ndarray, start: float) -> np.ndarray:
        decayed = 0.5 * (1.0 + np.cos(math.pi * step / self.decay_steps))
        return start * ((1 - self.alpha) * decayed + self.alpha)

    def __call__(self, step: Any) -> Any:
        step = _steps(step)
        if self.warmup_target is None:
            return _rate(self._cosine(np.minimum(step, self.decay_steps), self.initial_learning_rate))
        step = np.minimum(step, self.decay_steps + self.warmup_steps)
        climb = self.initial_learning_rate + (self.warmup_target - self.initial_learning_rate) * step / max(
            self.warmup_steps, 1
        )
        return _rate(
            np.where(step < self.warmup_steps, climb, self._cosine(step - self.warmup_steps, self.warmup_target))
        )


__getattr__ = unsupported.module_getattr("keras.optimizers.schedules")  # a left-out name says what to use instead
