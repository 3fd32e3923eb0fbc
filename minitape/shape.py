"""`TensorShape`: a tuple of ints that prints as TensorFlow prints shapes."""

from __future__ import annotations

import numpy as np


class TensorShape(tuple):
    """A shape: a tuple of ints, printed as TensorFlow prints it."""

    def as_list(self) -> list[int]:
        return list(self)

    @property
    def rank(self) -> int:
        return len(self)

    ndims = rank

    def num_elements(self) -> int:
        return int(np.prod(self, dtype=np.int64))

    def __repr__(self) -> str:
        return f"TensorShape({list(self)})"

    def __str__(self) -> str:
        return "(" + ", ".join(str(d) for d in self) + ("," if len(self) == 1 else "") + ")"
