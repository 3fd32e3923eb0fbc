"""Weight constraints, as `keras.constraints`: after each optimizer step, `w.assign(constraint(w))`.

A layer remembers the constraint of each weight it creates (`register`); optimizers look
it up (`of`) after updating a variable, as Keras applies `variable.constraint`.
"""

from __future__ import annotations

import weakref
from typing import Any

import numpy as np

from minitape.keras import unsupported
from minitape.ops.api import clip_by_value, reduce_sum, sqrt, square
from minitape.ops.math_ops import cast


class Constraint:
    """Called as `constraint(w)`: the projected weight, a tensor of w's shape."""

    def __call__(self, w: Any) -> Any:
        return w

    def get_config(self) -> dict:
        return dict(vars(self))

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in vars(self).items())
        return f"{type(self).__name__}({args})"


def _norms(w: Any, axis: Any) -> Any:
    return sqrt(reduce_sum(square(w), axis=axis, keepdims=True))


class MaxNorm(Constraint):
    """Rescale each slice along `axis` (default 0: each unit's incoming weights) to norm <= max_value."""

    def __init__(self, max_value: float = 2, axis: Any = 0) -> None:
        self.max_value, self.axis = max_value, axis

    def __call__(self, w: Any) -> Any:
        norms = _norms(w, self.axis)
        desired = clip_by_value(norms, 0.0, float(self.max_value))
        return w * (desired / (1e-7 + norms))


class NonNeg(Constraint):
    """Negative weights become 0."""

    def __call__(self, w: Any) -> Any:
        return w * cast(w >= 0.0, w.dtype)


class UnitNorm(Constraint):
    """Each slice along `axis` divided by its norm (plus Keras' epsilon 1e-7)."""

    def __init__(self, axis: Any = 0) -> None:
        self.axis = axis

    def __call__(self, w: Any) -> Any:
        return w / (1e-7 + _norms(w, self.axis))


class MinMaxNorm(Constraint):
    """Norms moved by `rate` towards [min_value, max_value]: rate 1.0 clips them there exactly."""

    def __init__(self, min_value: float = 0.0, max_value: float = 1.0, rate: float = 1.0, axis: Any = 0) -> None:
        self.min_value, self.max_value, self.rate, self.axis = min_value, max_value, rate, axis

    def __call__(self, w: Any) -> Any:
        norms = _norms(w, self.axis)
        clipped = clip_by_value(norms, float(self.min_value), float(self.max_value))
        desired = self.rate * clipped + (1 - self.rate) * norms
        return w * (desired / (1e-7 + norms))


max_norm, non_neg, unit_norm, min_max_norm = MaxNorm, NonNeg, UnitNorm, MinMaxNorm
_BY_NAME = {"max_norm": MaxNorm, "non_neg": NonNeg, "unit_norm": UnitNorm, "min_max_norm": MinMaxNorm}


def get(identifier: Any) -> Any:
    """A constraint from None, a name ('non_neg', 'max_norm', ...), a Constraint or a callable(w)."""
    if identifier is None:
        return None
    if isinstance(identifier, str):
        if identifier not in _BY_NAME:
            raise ValueError(f"Unknown constraint: {identifier!r}. Use one of {sorted(_BY_NAME)}, or a callable.")
        return _BY_NAME[identifier]()
    if callable(identifier):
        return identifier
    raise ValueError(f"Could not interpret constraint {identifier!r}: pass a name, a Constraint or a callable")


# variable id -> (weak reference to the variable, constraint): variables keep no extra attributes
_BY_VARIABLE: dict[int, tuple[Any, Any]] = {}


def register(variable: Any, constraint: Any) -> None:
    """Remember `constraint` for `variable` (forgotten when the variable is garbage-collected)."""
    key = id(variable)
    _BY_VARIABLE[key] = (weakref.ref(variable, lambda _: _BY_VARIABLE.pop(key, None)), constraint)


def of(variable: Any) -> Any:
    """The constraint registered for `variable`, else the one it was created with (`constraint=`), or None."""
    entry = _BY_VARIABLE.get(id(variable))
    if entry is None or entry[0]() is not variable:
        return getattr(variable, "constraint", None)
    return entry[1]


def apply(variable: Any) -> None:
    """Project `variable` onto its constraint, if it has one."""
    constraint = of(variable)
    if constraint is not None:
        variable.assign(np.asarray(constraint(variable.value())))


__getattr__ = unsupported.module_getattr("keras.constraints")  # a left-out name says what to use instead
