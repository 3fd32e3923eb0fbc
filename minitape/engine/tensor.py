"""`Tensor`: an immutable numpy array with an id, so a tape can refer to it.

Ids come from one counter in creation order, so they are stable from run to run
and double as a timeline (a tensor made after a tape stopped has a larger id).
"""

from __future__ import annotations

import itertools

import numpy as np

from minitape.engine.context import state
from minitape.engine.operators import TensorLike
from minitape.namespaces import missing

_next_id = itertools.count(1).__next__


def format_value(value: np.ndarray) -> str:
    """The value as TensorFlow shows it: `36.0` for a scalar, numpy's repr otherwise."""
    if value.ndim == 0:
        return str(value[()])
    return repr(value)


def on_own_line(text: str) -> str:
    """An array's text as TensorFlow puts it in a repr: on a line of its own when it takes several."""
    return "\n" + text if "\n" in text else text


class Tensor(TensorLike):
    """An immutable value in the computation; what every op takes and returns."""

    __slots__ = ("_value", "_id", "__weakref__")
    # `v[1].assign(...)` (v[1] is a Tensor) raises an error that says what to do instead
    assign, assign_add, assign_sub = (missing.NotAssignable() for _ in range(3))

    def __init__(self, value: np.ndarray) -> None:
        self._value = value
        self._id = _next_id()

    def _array(self) -> np.ndarray:
        return self._value

    @property
    def id(self) -> int:
        """Stable identity in creation order: what records and tapes refer to."""
        return self._id

    @property
    def name(self) -> str:
        return f"tensor_{self._id}"

    def __repr__(self) -> str:
        if state.tracers and state.tracers[-1].traces(self):  # mt.function hook: shown as graph mode shows it
            return state.tracers[-1].symbolic_text(self)
        return (
            f"<mt.Tensor: shape={self.shape}, dtype={self.dtype.name}, numpy={on_own_line(format_value(self._value))}>"
        )

    def __str__(self) -> str:
        if state.tracers and state.tracers[-1].traces(self):  # mt.function hook, as in __repr__
            return state.tracers[-1].symbolic_text(self)
        text = str(self._value) if self._value.ndim else format_value(self._value)
        return f"mt.Tensor({on_own_line(text)}, shape={self.shape}, dtype={self.dtype.name})"


from minitape.engine import operators  # noqa: E402
from minitape.ops import api  # noqa: E402 - the op tables need Tensor, so they load after it

operators.use_ops(api)
