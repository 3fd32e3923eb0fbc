"""`mt.TensorSpec`: a description of a tensor (shape and dtype), as `tf.function(input_signature=...)` takes."""

from __future__ import annotations

from typing import Any

from minitape.values.dtypes import DType, as_dtype, float32
from minitape.values.shape import TensorShape
from minitape.values.tensor_like import TensorLike


class TensorSpec:
    """The shape (None for any size) and dtype a tensor should have. `mt.function` accepts and ignores it."""

    def __init__(self, shape: Any, dtype: Any = float32, name: str | None = None) -> None:
        self.shape = TensorShape(shape)  # None: unknown rank, shown as <unknown>
        self.dtype: DType = as_dtype(dtype)
        self.name = name

    @classmethod
    def from_tensor(cls, tensor: Any, name: str | None = None) -> TensorSpec:
        """The spec of `tensor`: its shape and dtype (`name` given, or none)."""
        if not isinstance(tensor, TensorLike):
            raise TypeError(f"TensorSpec.from_tensor takes a tensor, not {type(tensor).__name__}; convert it first")
        return cls(tensor.shape, tensor.dtype, name)

    @classmethod
    def from_spec(cls, spec: TensorSpec, name: str | None = None) -> TensorSpec:
        """A copy of `spec` (with `name` in place of its name if given)."""
        return cls(spec.shape, spec.dtype, name if name is not None else spec.name)

    def is_compatible_with(self, value: Any) -> bool:
        """Whether `value` (a tensor or a spec) has this dtype and a shape that fits."""
        if not isinstance(value, (TensorLike, TensorSpec)) or value.dtype != self.dtype:
            return False
        return self.shape.is_compatible_with(value.shape)

    def most_specific_common_supertype(self, others: list) -> TensorSpec | None:
        """The spec every one of `others` and this fit (None where sizes differ); None if a dtype differs."""
        shape = self.shape
        for other in others:
            if not isinstance(other, TensorSpec) or other.dtype != self.dtype:
                return None
            shape = shape.most_specific_compatible_shape(other.shape)
        return TensorSpec(shape, self.dtype, self.name)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, TensorSpec) and (self.shape, self.dtype) == (other.shape, other.dtype)

    def __hash__(self) -> int:
        return hash((self.shape, self.dtype))

    def __repr__(self) -> str:
        return f"TensorSpec(shape={self.shape}, dtype=mt.{self.dtype.name}, name={self.name!r})"
