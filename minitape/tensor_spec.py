"""`mt.TensorSpec`: a description of a tensor (shape and dtype), as `tf.function(input_signature=...)` takes."""

from __future__ import annotations

from typing import Any

from minitape.dtypes import DType, as_dtype, float32
from minitape.tensor import TensorLike, TensorShape


class TensorSpec:
    """The shape (None for any size) and dtype a tensor should have. `mt.function` accepts and ignores it."""

    def __init__(self, shape: Any, dtype: Any = float32, name: str | None = None) -> None:
        self.shape = None if shape is None else TensorShape(None if d is None else int(d) for d in shape)
        self.dtype: DType = as_dtype(dtype)
        self.name = name

    def is_compatible_with(self, value: Any) -> bool:
        """Whether `value` (a tensor or a spec) has this dtype and a shape that fits."""
        shape, dtype = (value.shape, value.dtype) if isinstance(value, (TensorLike, TensorSpec)) else (None, None)
        if dtype is None or dtype != self.dtype:
            return False
        if self.shape is None or shape is None:
            return True
        return len(shape) == len(self.shape) and all(
            s is None or t is None or s == t for s, t in zip(self.shape, shape)
        )

    def __eq__(self, other: object) -> bool:
        return isinstance(other, TensorSpec) and (self.shape, self.dtype) == (other.shape, other.dtype)

    def __hash__(self) -> int:
        return hash((self.shape, self.dtype))

    def __repr__(self) -> str:
        shape = "None" if self.shape is None else str(self.shape)
        return f"TensorSpec(shape={shape}, dtype=mt.{self.dtype.name}, name={self.name!r})"
