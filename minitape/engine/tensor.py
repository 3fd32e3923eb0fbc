"""`Tensor`: an immutable numpy array with an id, so a tape can refer to it.

Ids come from one counter in creation order, so they are stable from run to run
and double as a timeline (a tensor made after a tape stopped has a larger id).
How a tensor behaves as a Python value (`x * y`, `float(x)`, `np.asarray(x)`) is TensorFlow's
business, not the engine's: `TensorLike` in values/tensor_like.py.
"""

from __future__ import annotations

import itertools

import numpy as np

from minitape.engine.context import state
from minitape.values.tensor_like import NotAssignable, TensorLike, format_value, on_own_line

_next_id = itertools.count(1).__next__


class Tensor(TensorLike):
    """An immutable value in the computation; what every op takes and returns."""

    __slots__ = ("_value", "_id", "__weakref__")
    # `v[1].assign(...)` (v[1] is a Tensor) raises an error that says what to do instead
    assign, assign_add, assign_sub = NotAssignable(), NotAssignable(), NotAssignable()

    def __init__(self, value: np.ndarray) -> None:
        self._value = value
        self._id = _next_id()

    @classmethod
    def recorded(cls, value: np.ndarray, tensor_id: int) -> Tensor:
        """The tensor a record refers to, made again from the array it kept, with its recorded id."""
        tensor = cls.__new__(cls)
        tensor._value, tensor._id = value, tensor_id
        return tensor

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
        if state.tracers and state.tracers[-1].traces(self):  # inside mt.function: shown as graph mode shows it
            return state.tracers[-1].symbolic_text(self)
        numpy = on_own_line(format_value(self._value))
        return f"<mt.Tensor: shape={self.shape}, dtype={self.dtype.name}, numpy={numpy}>"

    def __str__(self) -> str:
        if state.tracers and state.tracers[-1].traces(self):  # as in __repr__
            return state.tracers[-1].symbolic_text(self)
        return f"mt.Tensor({on_own_line(str(self._value))}, shape={self.shape}, dtype={self.dtype.name})"
