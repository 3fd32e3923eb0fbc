"""Learning-rate schedules, as `keras.optimizers.schedules`: `schedule(step)` is the rate for update `step`.

The optimizer calls its schedule with `optimizer.iterations` (0 for the first update).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from minitape.execute import constant


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
        exponent = float(np.asarray(step)) / self.decay_steps
        if self.staircase:
            exponent = math.floor(exponent)
        return constant(self.initial_learning_rate * self.decay_rate**exponent, dtype="float32")


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
        step = float(np.asarray(step))
        for boundary, value in zip(self.boundaries, self.values):
            if step <= boundary:
                return constant(value, dtype="float32")
        return constant(self.values[-1], dtype="float32")


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
        ratio = float(np.asarray(step)) / self.decay_steps
        if self.staircase:
            ratio = math.floor(ratio)
        return constant(self.initial_learning_rate / (1 + self.decay_rate * ratio), dtype="float32")
