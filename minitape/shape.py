"""`TensorShape`: a tuple of ints that prints as TensorFlow prints shapes."""

from __future__ import annotations

from typing import Any

import numpy as np


class TensorShape(tuple):
    """A shape: a tuple of ints (None for a size not known), printed as TensorFlow prints it.

    `TensorShape(None)` is a shape whose rank is not known either, as a variable created with it has.
    """

    def __new__(cls, dims: Any = ()) -> TensorShape:
        return tuple.__new__(cls, dims) if dims is not None else tuple.__new__(_UnknownRank)

    def as_list(self) -> list[int]:
        return list(self)

    def is_fully_defined(self) -> bool:
        return None not in self

    def is_compatible_with(self, other: Any) -> bool:
        """Could a value of shape `other` have this shape? Same rank, and equal sizes where both are known."""
        other = TensorShape(other)
        if type(other) is _UnknownRank:
            return True
        return len(self) == len(other) and all(a is None or b is None or a == b for a, b in zip(self, other))

    @property
    def rank(self) -> int:
        return len(self)

    ndims = rank

    def num_elements(self) -> int | None:
        return int(np.prod(self, dtype=np.int64)) if None not in self else None

    def __repr__(self) -> str:
        return f"TensorShape({list(self)})"

    def __str__(self) -> str:
        return "(" + ", ".join(str(d) for d in self) + ("," if len(self) == 1 else "") + ")"


class _UnknownRank(TensorShape):
    """`TensorShape(None)`: nothing is known, not even the rank."""

    rank = ndims = None

    def as_list(self) -> list[int]:
        raise ValueError("as_list() is not defined on a shape of unknown rank (TensorShape(None))")

    def __len__(self) -> int:
        raise ValueError("cannot take the length of a shape of unknown rank (TensorShape(None))")

    def __iter__(self) -> Any:
        raise ValueError("cannot iterate over a shape of unknown rank (TensorShape(None))")

    def num_elements(self) -> None:
        return None

    def is_fully_defined(self) -> bool:
        return False

    def is_compatible_with(self, other: Any) -> bool:
        return True

    def __repr__(self) -> str:
        return "TensorShape(None)"

    def __str__(self) -> str:
        return "<unknown>"
