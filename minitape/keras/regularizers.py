"""Weight regularizers, as `keras.regularizers`: `regularizer(weight)` is a scalar penalty added to the loss.

They are built from mt ops, so the penalty is differentiated with the rest of the loss.
"""

from __future__ import annotations

from typing import Any

from minitape.keras import unsupported
from minitape.ops.api import abs as _abs
from minitape.ops.api import reduce_sum, square


class Regularizer:
    """Called as `regularizer(x)`: a scalar tensor."""

    def __call__(self, x: Any) -> Any:
        raise NotImplementedError

    def get_config(self) -> dict:
        return dict(vars(self))

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in vars(self).items())
        return f"{type(self).__name__}({args})"


class L1L2(Regularizer):
    """l1 * sum(|x|) + l2 * sum(x^2). Both factors default to 0.0, as in Keras."""

    def __init__(self, l1: float = 0.0, l2: float = 0.0) -> None:
        self.l1, self.l2 = _factor(l1, "l1"), _factor(l2, "l2")

    def __call__(self, x: Any) -> Any:
        penalty = 0.0
        if self.l1:
            penalty = penalty + self.l1 * reduce_sum(_abs(x))
        if self.l2:
            penalty = penalty + self.l2 * reduce_sum(square(x))
        if isinstance(penalty, float):  # both factors zero: still a tensor of the weight's dtype
            penalty = reduce_sum(x * 0.0)
        return penalty


class L1(L1L2):
    """l1 * sum(|x|); Keras' default factor is 0.01."""

    def __init__(self, l1: float = 0.01) -> None:
        super().__init__(l1=l1)

    def get_config(self) -> dict:
        return {"l1": self.l1}


class L2(L1L2):
    """l2 * sum(x^2); Keras' default factor is 0.01 (no 1/2 in front)."""

    def __init__(self, l2: float = 0.01) -> None:
        super().__init__(l2=l2)

    def get_config(self) -> dict:
        return {"l2": self.l2}


def _factor(value: Any, name: str) -> float:
    value = float(value)
    if value < 0:
        raise ValueError(f"Regularizer: {name} must be >= 0, got {value}")
    return value


def l1_l2(l1: float = 0.01, l2: float = 0.01) -> L1L2:
    """Keras' shortcut: both factors default to 0.01 here."""
    return L1L2(l1=l1, l2=l2)


l1, l2 = L1, L2
_BY_NAME = {"l1": L1, "l2": L2, "l1_l2": l1_l2, "l1l2": l1_l2}


def get(identifier: Any) -> Any:
    """A regularizer from None, a name ('l1', 'l2', 'l1_l2'), a Regularizer or a callable(weight)."""
    if identifier is None:
        return None
    if isinstance(identifier, str):
        if identifier.lower() not in _BY_NAME:
            raise ValueError(f"Unknown regularizer: {identifier!r}. Use one of {sorted(_BY_NAME)}, or a callable.")
        return _BY_NAME[identifier.lower()]()
    if callable(identifier):
        return identifier
    raise ValueError(f"Could not interpret regularizer {identifier!r}: pass a name, a Regularizer or a callable")


__getattr__ = unsupported.module_getattr("keras.regularizers")  # a left-out name says what to use instead
