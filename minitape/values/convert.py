"""Turning Python numbers, lists, numpy arrays and variables into tensors, with TensorFlow's dtype rules."""

from __future__ import annotations

from typing import Any

import numpy as np

from minitape.engine.context import state
from minitape.engine.tensor import Tensor
from minitape.values.dtypes import DType, as_dtype
from minitape.values.errors import InvalidArgumentError
from minitape.values.tensor_like import TensorLike


def _default_dtype(value: Any, hinted: bool = False) -> DType:
    """TensorFlow's defaults: numpy keeps its dtype; Python floats become float32, ints int32 (int64 if too big).

    In a list, as in TensorFlow, a tensor's dtype wins, and otherwise the first number decides whether a float
    is float32 or wider: `[np.float64(1.), 2.]` is float64, `[2., np.float64(1.)]` float32.
    """
    if isinstance(value, (np.ndarray, np.generic)):
        return as_dtype(value.dtype)
    tensors = _tensors_in(value) if isinstance(value, (list, tuple)) else ()
    if tensors:
        return _one_dtype(tensors)
    array = _rectangular(value)
    kind = array.dtype.kind
    if kind in "iuf" and not hinted and isinstance(value, (list, tuple)) and _holds_bool(value):
        raise ValueError(  # numpy would read True as 1; given a dtype hint, TensorFlow converts it, as here
            f"Can't convert Python sequence with mixed types to Tensor: {value!r} mixes bools with numbers; "
            "write the numbers (1 and 0), or compare to get bools"
        )
    if kind == "f":
        first = _first_number(value)  # a numpy float: its dtype; a Python float or any int: float32
        numpy_float = isinstance(first, (np.ndarray, np.generic)) and first.dtype.kind == "f"
        return as_dtype(first.dtype) if numpy_float else as_dtype("float32")
    if kind in "iu":
        fits = not array.size or (_INT32.min <= array.min() and array.max() <= _INT32.max)
        return as_dtype("int32" if fits else "int64")  # a Python int too big for int32 makes int64, as in TF
    return as_dtype("bool") if kind == "b" else as_dtype(array.dtype)


_INT32 = np.iinfo(np.int32)


def _first_number(value: Any) -> Any:
    """The first element of a nested list (an empty numpy array counts as no number, a Python float)."""
    while isinstance(value, (list, tuple)) and value:
        value = value[0]
    return value if not isinstance(value, np.ndarray) or value.size else None


def _tensors_in(value: list | tuple) -> list:
    """The tensors and variables in a nested list, in order. Most lists hold numbers only: told by their types."""
    if not any(issubclass(kind, (list, tuple, TensorLike)) for kind in set(map(type, value))):
        return []
    found = []
    for item in value:
        if isinstance(item, TensorLike):
            found.append(item)
        elif isinstance(item, (list, tuple)):
            found.extend(_tensors_in(item))
    return found


def _one_dtype(tensors: list) -> DType:
    """The dtype the tensors in a list share; tensors of two dtypes are refused, as TensorFlow's Pack does."""
    dtypes = {t.dtype for t in tensors}
    if len(dtypes) > 1:
        names = " and ".join(sorted(d.name for d in dtypes))
        raise InvalidArgumentError(
            f"cannot make one tensor of a list holding tensors of dtypes {names}; "
            f"cast them to one dtype first, e.g. mt.cast(x, mt.{max(d.name for d in dtypes)})"
        )
    return tensors[0].dtype


def _rectangular(value: Any) -> np.ndarray:
    """`value` as a numpy array; a nested list whose rows differ in length is refused as TensorFlow refuses it,
    and so are values that are not numbers (None, dicts, sets, generators)."""
    try:
        array = np.asarray(value)
    except ValueError as err:
        if "inhomogeneous" not in str(err):
            raise
        raise ValueError(
            f"can't convert a non-rectangular Python sequence to a tensor: {value!r} has rows of different "
            "lengths. Pad the rows to one length (or use one tensor per row)"
        ) from None
    if array.dtype.kind == "O":
        _refuse_objects(value)
    return array


def as_array(value: Any) -> np.ndarray:
    """An op argument's value as numpy, for reading its shape or dtype: a list whose rows differ in length, or
    holding None, a dict, a set, is refused in our words (numpy's would say "inhomogeneous" or make objects)."""
    if isinstance(value, TensorLike):
        return value._array()
    return _rectangular(value) if isinstance(value, (list, tuple)) else np.asarray(value)


_OBJECT_HINTS = {
    type(None): "a None often means a function returned nothing, or an optional value was left out",
    dict: "a dict has no order as a tensor: pass its values, e.g. list(d.values())",
    set: "a set has no order: make it a list first, e.g. sorted(s)",
}


def _refuse_objects(value: Any) -> None:
    """Name the first element that is not a number (TensorFlow's words first) and say what to do instead."""
    bad = _first_non_number(value) if isinstance(value, (list, tuple)) else value
    hint = _OBJECT_HINTS.get(type(bad), "tensors hold numbers and bools; convert it to numbers first")
    if hasattr(bad, "__next__"):
        hint = "a generator or iterator is read once, lazily: make it a list first, e.g. list(gen)"
    raise ValueError(f"Attempt to convert a value ({bad!r}) with an unsupported type ({type(bad)}) to a Tensor: {hint}")


def _first_non_number(value: Any) -> Any:
    """The first leaf of a nested list that is not a number (the value itself if it is no list; None if none)."""
    if not isinstance(value, (list, tuple)):
        return None if isinstance(value, (int, float, np.generic, np.ndarray)) else value
    for item in value:
        found = _first_non_number(item)
        if found is not None:
            return found
    return None


def _holds_bool(value: list | tuple) -> bool:
    """Is there a Python bool anywhere in this nested list (of numbers, else numpy would have said bool)?"""
    return any(
        isinstance(item, (bool, np.bool_)) or (isinstance(item, (list, tuple)) and _holds_bool(item)) for item in value
    )


def constant(value: Any, dtype: Any = None, shape: Any = None, name: str | None = None) -> Tensor:
    """A tensor holding `value` (a number, nested list or numpy array)."""
    source = None  # the tensor or variable `value` was, if it was one
    if isinstance(value, TensorLike):
        if dtype is not None and as_dtype(dtype) is not value.dtype:  # TensorFlow converts no tensor here
            raise TypeError(
                f"constant: the tensor has dtype {value.dtype.name}, not {as_dtype(dtype).name}; "
                f"use mt.cast(x, mt.{as_dtype(dtype).name})"
            )
        source, value = value, value._array()
    target = as_dtype(dtype) if dtype is not None else _default_dtype(value)
    array = _rectangular(value)
    if target.is_bool and array.dtype.kind != "b" and array.size and not isinstance(value, np.ndarray):  # 2 is no bool
        raise TypeError(f"cannot convert {value!r} to a tensor of dtype bool; compare instead, e.g. x != 0")
    if array.dtype.kind == "f" and target.is_integer and array.size:  # an empty list holds no float
        _refuse_float_to_integer(value, array, target)
    if array.dtype.kind in "OUS":
        raise TypeError(f"cannot convert {value!r} (of type {type(value).__name__}) to a tensor of numbers")
    if array.dtype.kind in "iu" and target.is_integer and array.size:
        limits = np.iinfo(target.as_numpy_dtype)
        if array.min() < limits.min or array.max() > limits.max:  # numpy would wrap around without a word
            raise TypeError(
                f"cannot convert {value!r} to {target.name}: it holds values outside [{limits.min}, {limits.max}]"
            )
    with np.errstate(over="ignore"):  # a number beyond the dtype's range is inf, silently, as in TensorFlow
        array = np.array(array, dtype=target.as_numpy_dtype)
    if shape is not None:
        array = np.broadcast_to(array, tuple(shape)).copy() if array.size == 1 else array.reshape(tuple(shape))
    result = Tensor(array)
    if state.tracers and source is not None:
        _traced_copy(result, source, shape)
    return result


def _refuse_float_to_integer(value: Any, array: np.ndarray, target: DType) -> None:
    """Python floats never become an integer tensor, as in TensorFlow; a numpy array does when no fraction is lost.

    (TensorFlow truncates an array's fractions silently: minitape refuses that instead of a wrong number.)
    """
    if not isinstance(value, (np.ndarray, np.generic)):
        raise TypeError(
            f"cannot convert {value!r} to a tensor of dtype {target.name}: Python floats do not become integers "
            f"(TensorFlow refuses them too); write integers, or cast: mt.cast({value!r}, mt.{target.name})"
        )
    if not np.all(np.equal(np.mod(array, 1), 0)):
        raise TypeError(f"cannot convert {value!r} to a tensor of dtype {target.name} without losing the fraction")


def _traced_copy(result: Tensor, source: Any, shape: Any) -> None:
    """mt.function hook: a copy of a traced tensor holds what it holds when the graph runs; a copy of a variable
    is a read of it; a reshaped copy would be a value frozen at tracing, so it is refused as graph mode does."""
    for tracer in state.tracers:
        if shape is not None:
            tracer.value_used(source, "array")
        elif isinstance(source, Tensor):
            tracer.alias(result, source)
        else:
            tracer.variable_read(source, result)


def convert_to_tensor(value: Any, dtype: Any = None, dtype_hint: Any = None, name: str | None = None) -> Tensor:
    """Return `value` as a Tensor: Tensors pass through, Variables are read, the rest becomes a constant.

    `dtype_hint` is taken where the value fits it; a float given an integer hint keeps its own dtype.
    """
    return _convert(value, dtype, dtype_hint, strict=False)


def _convert(value: Any, dtype: Any, dtype_hint: Any, strict: bool) -> Tensor:
    if isinstance(value, Tensor):
        if dtype is not None and as_dtype(dtype) is not value.dtype:
            raise ValueError(
                f"tensor has dtype {value.dtype.name}, but {as_dtype(dtype).name} was requested; "
                f"use mt.cast(x, mt.{as_dtype(dtype).name}) to change it"
            )
        return value
    if isinstance(value, TensorLike):  # a Variable
        return value._read()
    tensors = _tensors_in(value) if isinstance(value, (list, tuple)) else ()
    if tensors:  # a list holding tensors: packed in their one dtype (_default_dtype's answer for such a list)
        packed = _pack(value, _one_dtype(tensors))
        return packed if dtype is None else convert_to_tensor(packed, dtype=dtype)
    if dtype is None and dtype_hint is not None:
        dtype = _hinted_dtype(value, as_dtype(dtype_hint), strict)
    return constant(value, dtype=dtype)


def _hinted_dtype(value: Any, hint: DType, strict: bool) -> DType | None:
    """The dtype a value given a hint takes: the hint where TensorFlow takes it, else None (its own dtype).

    A float with an integer hint keeps its own, as tf.convert_to_tensor(2.5, dtype_hint=tf.int32) does; an op's
    input (`strict`) is refused instead, as TensorFlow refuses `int_tensor * 2.5`.
    """
    natural = _default_dtype(value, hinted=True)
    empty = isinstance(value, (list, tuple)) and not _rectangular(value).size  # no number: the hint decides
    if natural.is_floating and not hint.is_floating and not empty:
        if strict:
            raise TypeError(f"cannot convert {value!r} to a tensor of dtype {hint.name}")
        return None
    same_kind = natural.is_integer and hint.is_integer  # a Python int joins an int64 or uint8 tensor, as in TF
    return hint if natural.is_floating or hint.is_floating or natural == hint or same_kind or empty else None


def _pack(value: Any, dtype: DType) -> Tensor:
    """A nested list holding tensors, stacked as TensorFlow packs it: a recorded op, so gradients flow through."""
    from minitape.ops.array_ops import stack

    if isinstance(value, TensorLike):
        return convert_to_tensor(value)
    if isinstance(value, (list, tuple)) and _tensors_in(value):
        return stack([_pack(item, dtype) for item in value])
    return constant(value, dtype=dtype)


def joined_positions(op: Any, n_args: int) -> tuple | range:
    """The input positions that must share one dtype."""
    return range(n_args) if op.same_dtype == "all" else op.same_dtype or ()


def convert_inputs(op: Any, args: tuple) -> list[Tensor]:
    """The op's arguments as tensors: variables are read, numbers and arrays become constants."""
    if len(args) == 2 and op.same_dtype:  # `x * 0.5` or `2 * x`: the commonest conversion by far, made short
        a, b = args
        if type(a) is Tensor and type(b) is float and a._value.dtype.kind == "f":
            return [a, number_constant(b, a._value.dtype.type)]
        if type(b) is Tensor and type(a) is float and b._value.dtype.kind == "f":
            return [number_constant(a, b._value.dtype.type), b]
        if isinstance(a, TensorLike) and isinstance(b, TensorLike):  # `x @ w`, `b + h`: read the variables
            inputs = [a if type(a) is Tensor else a._read(), b if type(b) is Tensor else b._read()]
            if inputs[0]._value.dtype is not inputs[1]._value.dtype:  # one dtype object: nothing to check
                check_same_dtype(op, inputs, joined_positions(op, 2))
            return inputs
    joined = joined_positions(op, len(args))
    inputs = []
    for i, arg in enumerate(args):
        if isinstance(arg, Tensor):
            inputs.append(arg)
        elif isinstance(arg, TensorLike):
            inputs.append(arg._read())
        else:
            inputs.append(_convert_arg(op, i, arg, args, joined, inputs))
    if len(joined) > 1:
        check_same_dtype(op, inputs, joined)
    return inputs


def _convert_arg(op: Any, i: int, arg: Any, args: tuple, joined: tuple | range, converted: list) -> Tensor:
    """A non-tensor argument as a constant; a Python number joined to a tensor takes that tensor's dtype."""
    hint = None
    if i in joined:  # the first joined tensor's dtype (a loop, not a generator: this runs for every `x * 2.0`)
        for j, a in enumerate(args):
            if j in joined and isinstance(a, TensorLike):
                hint = a.dtype
                break
        else:
            return _convert_after(op, i, arg, joined, converted)
    # fast path for `x * 0.5`: a Python number next to a floating tensor (the most common constant by far)
    try:
        if hint is not None and hint.is_floating and type(arg) in (float, int):
            return number_constant(arg, hint.as_numpy_dtype)
        return _convert(arg, None, hint, strict=True)
    except (TypeError, ValueError, OverflowError) as err:
        raise TypeError(f"{op.name}: input {i}: {err}") from None


def _convert_after(op: Any, i: int, arg: Any, joined: tuple | range, converted: list) -> Tensor:
    """A Python value joined only to other Python values: TensorFlow converts them in order, each later one to
    the first one's dtype if it can (`maximum(0., [1, -1])` is float32); if it cannot, to its own dtype, so
    that the op's dtype check names both."""
    earlier = [converted[j] for j in joined if j < i]
    try:
        if earlier:
            try:
                return convert_to_tensor(arg, dtype=earlier[0].dtype)
            except (TypeError, ValueError, OverflowError):
                pass
        return convert_to_tensor(arg)
    except (TypeError, ValueError, OverflowError) as err:
        raise TypeError(f"{op.name}: input {i}: {err}") from None


_NUMBERS: dict[tuple, Tensor] = {}  # (type, value, dtype) -> one constant tensor, as TensorFlow caches scalars


def number_constant(value: float | int, dtype: type) -> Tensor:
    """The constant for a Python number in an expression like `x * 1.01`, made once and reused.

    Reuse saves making it again on every call, and keeps it alive, so a viewer can show its value.
    Zero is not cached (0.0 and -0.0 are equal keys but differ in sign), nor NaN (never equal).
    """
    key = (type(value), value, dtype)
    tensor = _NUMBERS.get(key)
    if tensor is None:
        tensor = Tensor(np.array(value, dtype))
        if value and value == value and len(_NUMBERS) < 4096:
            _NUMBERS[key] = tensor
    return tensor


def dtypes_agree(arrays: Any, joined: tuple | range) -> bool:
    """Do the arrays at the `joined` positions share one dtype? (`is` settles it for numpy's own dtypes.)"""
    first = None
    for i in joined:  # a plain loop: this runs for every op that meets a variable or a Python number
        if i < len(arrays):
            dtype = arrays[i].dtype
            if first is None:
                first = dtype
            elif dtype is not first and dtype != first:
                return False
    return True


def check_same_dtype(op: Any, inputs: list[Tensor], joined: tuple | range) -> None:
    """Refuse inputs at the `joined` positions whose dtypes differ, naming both (a byte order is no difference)."""
    if dtypes_agree([t._value for t in inputs], joined):
        return
    dtypes = {inputs[i].dtype for i in joined if i < len(inputs)}
    if len(dtypes) > 1:
        names = " and ".join(sorted(d.name for d in dtypes))
        raise InvalidArgumentError(
            f"{op.name} cannot combine tensors of dtypes {names}; "
            f"convert one first, e.g. mt.cast(x, mt.{max(d.name for d in dtypes)})"
        )
