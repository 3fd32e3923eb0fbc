"""`TensorShape`: a tuple of ints that prints, compares and combines as TensorFlow's shapes do."""

from __future__ import annotations

import operator
from typing import Any

import numpy as np


def _dim(d: Any) -> int | None:
    """One size: None, or a non-negative int (anything with __index__, e.g. numpy ints), as TensorFlow checks."""
    if d is None:
        return None
    try:
        value = operator.index(d)
    except TypeError:
        raise TypeError(
            f"Dimension value must be integer or None or have an __index__ method, got value {d!r} with type "
            f"{type(d)}; write sizes as ints, e.g. int({d!r})"
        ) from None
    if value < 0:
        raise ValueError(f"Dimension {value} must be >= 0 (use None for a size that is not known)")
    return value


class TensorShape(tuple):
    """A shape: a tuple of ints (None for a size not known), printed as TensorFlow prints it.

    It equals lists and tuples of the same sizes (`t.shape == [2, 3]`), slices and concatenations are
    TensorShapes, and `TensorShape(None)` is a shape whose rank is not known either.
    """

    def __new__(cls, dims: Any = ()) -> TensorShape:
        if type(dims) is tuple:  # a numpy shape: every tensor's .shape comes this way, so no checks
            return tuple.__new__(cls, dims)
        if dims is None or isinstance(dims, _UnknownRank):
            return tuple.__new__(_UnknownRank)
        if isinstance(dims, TensorShape):
            return dims
        if not hasattr(dims, "__iter__"):  # TensorShape(3) is TensorShape([3]), as in TensorFlow
            dims = [dims]
        return tuple.__new__(cls, [_dim(d) for d in dims])

    # ---- comparisons: a list or tuple of the same sizes is equal, as in TensorFlow -----------------------
    def __eq__(self, other: object) -> bool:
        if isinstance(other, _UnknownRank):
            return False
        if isinstance(other, list):
            other = tuple(other)
        return tuple.__eq__(self, other)

    def __ne__(self, other: object) -> bool:
        result = self.__eq__(other)
        return result if result is NotImplemented else not result

    __hash__ = tuple.__hash__

    def __bool__(self) -> bool:
        """True when the rank is known, even for a scalar's `[]`, as in TensorFlow (a tuple would say False)."""
        return True

    # ---- indexing and concatenation give TensorShapes ----------------------------------------------------
    def __getitem__(self, key: Any) -> Any:
        if type(key) is slice:
            return TensorShape(tuple.__getitem__(self, key))
        return tuple.__getitem__(self, key)

    def __add__(self, other: Any) -> TensorShape:
        return self.concatenate(other)

    def __radd__(self, other: Any) -> TensorShape:
        return TensorShape(other).concatenate(self)

    def concatenate(self, other: Any) -> TensorShape:
        """This shape's sizes followed by `other`'s (unknown rank if either has unknown rank)."""
        other = TensorShape(other)
        return other if isinstance(other, _UnknownRank) else TensorShape(tuple(self) + tuple(other))

    # ---- TensorFlow's shape methods --------------------------------------------------------------------
    def as_list(self) -> list[int]:
        return list(self)

    @property
    def dims(self) -> list[int | None]:
        """The sizes as a list (TensorFlow gives Dimension objects; minitape gives plain ints and None)."""
        return list(self)

    @property
    def rank(self) -> int:
        return len(self)

    ndims = rank

    def is_fully_defined(self) -> bool:
        return None not in self

    def num_elements(self) -> int | None:
        return int(np.prod(self, dtype=np.int64)) if None not in self else None

    def is_compatible_with(self, other: Any) -> bool:
        """Could a value of shape `other` have this shape? Same rank, and equal sizes where both are known."""
        other = TensorShape(other)
        if type(other) is _UnknownRank:
            return True
        return len(self) == len(other) and all(a is None or b is None or a == b for a, b in zip(self, other))

    def assert_is_compatible_with(self, other: Any) -> None:
        """Raise ValueError unless `other` is compatible with this shape."""
        if not self.is_compatible_with(other):
            raise ValueError(f"Shapes {self} and {other} are incompatible")

    def merge_with(self, other: Any) -> TensorShape:
        """The shape with every size known in either (they must be compatible)."""
        other = TensorShape(other)
        if type(other) is _UnknownRank:
            return self
        if not self.is_compatible_with(other):
            raise ValueError(f"Shapes {self} and {other} are not compatible")
        return TensorShape(tuple(a if a is not None else b for a, b in zip(self, other)))

    def with_rank(self, rank: int) -> TensorShape:
        """This shape, checked to have `rank` dimensions (ValueError if not)."""
        if len(self) != rank:
            raise ValueError(f"Shape {self} must have rank {rank}")
        return self

    def most_specific_compatible_shape(self, other: Any) -> TensorShape:
        """The shape both fit: sizes kept where they agree, None where they differ (unknown rank if ranks do)."""
        other = TensorShape(other)
        if type(other) is _UnknownRank or len(self) != len(other):
            return TensorShape(None)
        return TensorShape(tuple(a if a == b else None for a, b in zip(self, other)))

    def __repr__(self) -> str:
        return f"TensorShape({list(self)})"

    def __str__(self) -> str:
        return "(" + ", ".join(str(d) for d in self) + ("," if len(self) == 1 else "") + ")"


class _UnknownRank(TensorShape):
    """`TensorShape(None)`: nothing is known, not even the rank."""

    rank = ndims = dims = None

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _UnknownRank) or other is None

    __hash__ = tuple.__hash__

    def __bool__(self) -> bool:
        return False

    def __getitem__(self, key: Any) -> Any:
        """Any size of an unknown shape is unknown: None, or an unknown shape for a slice, as in TensorFlow."""
        return self if type(key) is slice else None

    def concatenate(self, other: Any) -> TensorShape:
        return self

    def __radd__(self, other: Any) -> TensorShape:
        return self

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

    def merge_with(self, other: Any) -> TensorShape:
        return TensorShape(other)

    def with_rank(self, rank: int) -> TensorShape:
        return TensorShape([None] * rank)

    def most_specific_compatible_shape(self, other: Any) -> TensorShape:
        return self

    def __repr__(self) -> str:
        return "TensorShape(None)"

    def __str__(self) -> str:
        return "<unknown>"
