"""`tf.TensorArray`, as TensorFlow 2's eager mode has it: a Python list of tensors of one dtype.

`write`, `unstack`, `scatter` and `split` change the array and return it, so TensorFlow's functional style
`ta = ta.write(i, x)` works, and so does a bare `ta.write(i, x)` (as in eager TensorFlow). The tensors are kept
as they are, so a tape sees `stack`, `gather` and `concat` as ordinary ops of the written tensors and gradients
flow through them. Under `mt.function` an index read from a traced tensor is a guard on its value
(minitape/function/trace.py), so a replay never writes to another index than the one it traced.

TensorFlow's eager rules, with its messages: an index past the size raises OutOfRangeError unless
`dynamic_size=True`; a value of another dtype, or of a shape that does not fit `element_shape` (with
`infer_shape`, the first value's shape), raises; writing an index twice keeps the second value, as TensorFlow
2.21 does in both its modes; reading an index never written gives zeros when the element shape is known; with
`clear_after_read` (the default) an index read once cannot be read again. `tensor_array_name`, `flow`,
`colocate_with_first_write_call` and `name` are accepted and change nothing.
"""

from __future__ import annotations

from typing import Any

from minitape.engine.tensor import Tensor
from minitape.ops.api import concat, stack, unstack
from minitape.ops.creation import zeros
from minitape.ops.shape_ops import split as split_op
from minitape.values.convert import constant, convert_to_tensor
from minitape.values.dtypes import DType, as_dtype, int32
from minitape.values.errors import InvalidArgumentError, OutOfRangeError
from minitape.values.shape import TensorShape
from minitape.values.tensor_like import TensorLike

__all__ = ["TensorArray"]


def _index(index: Any, what: str = "index") -> int:
    """A Python int from an int or an integer scalar tensor (`int()` of a traced one records a guard)."""
    if isinstance(index, TensorLike):
        if not index.dtype.is_integer or index.shape.rank != 0:
            raise TypeError(f"TensorArray: the {what} must be an integer scalar, not {index.dtype.name}{index.shape}")
        return int(index)
    if isinstance(index, bool) or not hasattr(index, "__index__"):
        raise TypeError(f"TensorArray: the {what} must be an integer, not {index!r}")
    return int(index)


def _indices(indices: Any) -> list[int]:
    if isinstance(indices, TensorLike) and indices.shape.rank != 1:
        raise TypeError(f"TensorArray: indices must be a vector of ints, not shape {indices.shape}")
    return [_index(i) for i in indices]


class TensorArray:
    """A list of tensors of one dtype that `write`/`read` fill and read by index and `stack` turns into a tensor."""

    def __init__(
        self,
        dtype: Any,
        size: Any = None,
        dynamic_size: bool | None = None,
        clear_after_read: bool | None = None,
        tensor_array_name: str | None = None,
        handle: Any = None,
        flow: Any = None,
        infer_shape: bool = True,
        element_shape: Any = None,
        colocate_with_first_write_call: bool = True,
        name: str | None = None,
    ) -> None:
        if handle is not None:
            raise ValueError("TensorArray handles are not supported when eager execution is enabled.")
        if size is None:
            raise ValueError("Size must be declared for TensorArrays when eager execution is enabled.")
        self._dtype = as_dtype(dtype)
        self._dynamic_size = bool(dynamic_size)
        self._clear_after_read = True if clear_after_read is None else bool(clear_after_read)
        self._infer_shape = bool(infer_shape)
        self._element_shape = TensorShape(element_shape)
        self._values: list = [None] * _index(size, "size")
        self._cleared: set[int] = set()  # indices read once with clear_after_read

    # ---- what it is --------------------------------------------------------------------------------------------
    @property
    def dtype(self) -> DType:
        return self._dtype

    @property
    def element_shape(self) -> TensorShape:
        """The shape every element has: `element_shape`, narrowed by the values written when `infer_shape`."""
        return self._element_shape

    @property
    def dynamic_size(self) -> bool:
        return self._dynamic_size

    @property
    def flow(self) -> Tensor:
        """For code that passes it on; eager TensorFlow's is a dummy 0 too."""
        return constant(0, dtype=int32)

    @property
    def handle(self) -> None:
        return None

    def __repr__(self) -> str:
        return f"<mt.TensorArray dtype={self._dtype.name} size={len(self._values)} element_shape={self._element_shape}>"

    def size(self, name: str | None = None) -> Tensor:
        """How many elements it holds (written or not), as an int32 scalar."""
        return constant(len(self._values), dtype=int32)

    def identity(self) -> TensorArray:
        return self

    def close(self, name: str | None = None) -> None:
        """Empty it (its size becomes 0)."""
        del self._values[:]

    def grad(self, source: Any, flow: Any = None, name: str | None = None) -> Any:
        raise NotImplementedError(
            "TensorArray.grad is not supported when executing eagerly; eager's gradient implementation does not "
            "use/need this function to compute gradients of operations that use TensorArrays."
        )

    # ---- writing ----------------------------------------------------------------------------------------------
    def _converted(self, value: Any) -> Tensor:
        value = convert_to_tensor(value, dtype_hint=self._dtype)
        if value.dtype != self._dtype:
            raise InvalidArgumentError(
                f"TensorArray dtype is {self._dtype.name} but Op is trying to write dtype {value.dtype.name}"
            )
        return value

    def _check_shape(self, value: Tensor) -> None:
        if not self._element_shape.is_compatible_with(value.shape):
            raise ValueError(f"Incompatible shape for value ({value.shape}), expected ({self._element_shape})")
        if self._infer_shape:
            self._element_shape = self._element_shape.merge_with(value.shape)

    def _write(self, index: int, value: Tensor) -> None:
        if index < 0:
            raise OutOfRangeError(f"Writing to negative indices (index {index}) is not allowed.")
        size = len(self._values)
        if index >= size:
            if not self._dynamic_size:
                raise OutOfRangeError(
                    f"Tried to write to index {index} but array is not resizeable and size is: {size}; "
                    "give a larger size, or dynamic_size=True"
                )
            self._values.extend([None] * (index - size + 1))
        self._check_shape(value)
        self._values[index] = value
        self._cleared.discard(index)

    def write(self, index: Any, value: Any, name: str | None = None) -> TensorArray:
        """Put `value` at `index`; returns the array, so `ta = ta.write(i, x)` reads as in TensorFlow."""
        self._write(_index(index), self._converted(value))
        return self

    def unstack(self, value: Any, name: str | None = None) -> TensorArray:
        """Hold `value`'s slices along axis 0 (in place of what it held)."""
        parts = unstack(self._converted(value))
        if len(parts) > len(self._values) and not self._dynamic_size:
            size = len(self._values)
            raise ValueError(f"Cannot unstack {len(parts)} tensors into a TensorArray of static size {size}")
        for part in parts[:1]:
            self._check_shape(part)
        self._values, self._cleared = list(parts), set()
        return self

    def scatter(self, indices: Any, value: Any, name: str | None = None) -> TensorArray:
        """Write `value[k]` at `indices[k]` for each k."""
        indices, value = _indices(indices), self._converted(value)
        if value.shape.rank == 0 or len(indices) != value.shape[0]:
            raise InvalidArgumentError(
                f"TensorArray.scatter: {len(indices)} indices but a value of shape {value.shape}; give one row of "
                "value per index"
            )
        for index, part in zip(indices, unstack(value)):
            self._write(index, part)
        return self

    def split(self, value: Any, lengths: Any, name: str | None = None) -> TensorArray:
        """Hold the pieces of `value` along axis 0, of the given lengths (in place of what it held)."""
        value = self._converted(value)
        lengths = convert_to_tensor(lengths)
        if lengths.shape.rank != 1:
            raise InvalidArgumentError(f"Expected lengths to be a vector, received shape: {list(lengths.shape)}")
        if value.shape.rank == 0:
            raise InvalidArgumentError(
                f"Expected value to be at least a vector, but received shape: {list(value.shape)}"
            )
        sizes = [_index(n, "length") for n in lengths]
        if sum(sizes) != value.shape[0]:
            raise InvalidArgumentError(
                f"Expected sum of lengths to be equal to values.shape[0], but sum of lengths is {sum(sizes)} and "
                f"value's shape is: {list(value.shape)}"
            )
        if not self._dynamic_size and len(sizes) != len(self._values):
            raise InvalidArgumentError(
                f"TensorArray's size is not equal to the size of lengths ({len(self._values)} vs. {len(sizes)}), "
                "and the TensorArray is not marked as dynamically resizeable."
            )
        self._values, self._cleared = list(split_op(value, sizes)), set()
        return self

    # ---- reading ----------------------------------------------------------------------------------------------
    def _element(self, index: int) -> Tensor:
        """The tensor at `index`; zeros of the element shape where nothing was written (kept there, as in TF)."""
        value = self._values[index]
        if value is None:
            if not self._element_shape.is_fully_defined():
                raise ValueError(
                    f"TensorArray: index {index} was never written and the element shape {self._element_shape} is "
                    "not fully defined, so there are no zeros to give either; write the index first, or give "
                    "element_shape=... (TensorFlow: Trying to read an uninitialized tensor but element_shape is "
                    "not fully defined)"
                )
            value = self._values[index] = zeros(list(self._element_shape), self._dtype)
        return value

    def read(self, index: Any, name: str | None = None) -> Tensor:
        """The tensor at `index` (zeros of the element shape if none was written)."""
        index = _index(index)
        if index < 0:
            raise OutOfRangeError(f"Reading from negative indices (index {index}) is not allowed.")
        if index >= len(self._values):
            raise OutOfRangeError(f"Tried to read from index {index} but array size is: {len(self._values)}")
        if self._values[index] is None and index in self._cleared:
            raise InvalidArgumentError(
                f"Could not read index {index} twice because it was cleared after a previous read (perhaps try "
                "setting clear_after_read = false?)"
            )
        value = self._element(index)
        if self._clear_after_read:
            self._values[index] = None
            self._cleared.add(index)
        return value

    def stack(self, name: str | None = None) -> Tensor:
        """The elements stacked along a new axis 0: shape [size, *element_shape]."""
        if not self._values:
            known = self._element_shape.is_fully_defined()
            return zeros([0, *self._element_shape] if known else [0], self._dtype)
        return stack([self._element(k) for k in range(len(self._values))])

    def gather(self, indices: Any, name: str | None = None) -> Tensor:
        """The elements at `indices`, stacked."""
        size = len(self._values)
        indices = _indices(indices)
        for index in indices:
            if not 0 <= index < size:
                raise InvalidArgumentError(f"Index {index} out of range; list only has {size} elements.")
        return stack([self._element(index) for index in indices])

    def concat(self, name: str | None = None) -> Tensor:
        """The elements joined along their axis 0 (each must be at least a vector)."""
        values = [self._element(k) for k in range(len(self._values))]
        for k, value in enumerate(values):
            if value.shape.rank == 0:
                raise InvalidArgumentError(f"Concat saw a scalar shape at index {k} but requires at least vectors.")
        if not values:
            if not self._element_shape.is_fully_defined() or self._element_shape.rank == 0:
                raise InvalidArgumentError(
                    "TensorArray.concat of an empty array needs a known element_shape of rank 1 or more"
                )
            return zeros([0, *self._element_shape[1:]], self._dtype)
        return concat(values, 0)
