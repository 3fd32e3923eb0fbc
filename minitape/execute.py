"""Running an op eagerly: convert the inputs, compute the value with numpy, record the call.

This is the tracing half of the engine; `backprop.py` is the differentiating half.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minitape import context, registry
from minitape.dtypes import DType, as_dtype
from minitape.errors import InvalidArgumentError
from minitape.operation import Operation, format_where, user_line
from minitape.tensor import Tensor, TensorLike, _next_id


def _default_dtype(value: Any) -> DType:
    """TensorFlow's defaults: Python floats become float32, ints int32; numpy keeps its dtype."""
    if isinstance(value, (np.ndarray, np.generic)):
        return as_dtype(value.dtype)
    kind = np.asarray(value).dtype.kind
    return {"f": as_dtype("float32"), "i": as_dtype("int32"), "b": as_dtype("bool")}.get(kind) or as_dtype(
        np.asarray(value).dtype
    )


def constant(value: Any, dtype: Any = None, shape: Any = None, name: str | None = None) -> Tensor:
    """A tensor holding `value` (a number, nested list or numpy array)."""
    if isinstance(value, TensorLike):
        value = value._array()
    target = as_dtype(dtype) if dtype is not None else _default_dtype(value)
    array = np.asarray(value)
    if array.dtype.kind == "f" and target.is_integer and not np.all(np.equal(np.mod(array, 1), 0)):
        raise TypeError(f"cannot convert {value!r} to a tensor of dtype {target.name} without losing the fraction")
    if array.dtype.kind in "OUS":
        raise TypeError(f"cannot convert {value!r} (of type {type(value).__name__}) to a tensor of numbers")
    if array.dtype.kind in "iu" and target.is_integer and array.size:
        limits = np.iinfo(target.as_numpy_dtype)
        if array.min() < limits.min or array.max() > limits.max:  # numpy would wrap around without a word
            raise TypeError(
                f"cannot convert {value!r} to {target.name}: it holds values outside [{limits.min}, {limits.max}]"
            )
    array = np.array(array, dtype=target.as_numpy_dtype)
    if shape is not None:
        array = np.broadcast_to(array, tuple(shape)).copy() if array.size == 1 else array.reshape(tuple(shape))
    return Tensor(array)


def convert_to_tensor(value: Any, dtype: Any = None, dtype_hint: Any = None, name: str | None = None) -> Tensor:
    """Return `value` as a Tensor: Tensors pass through, Variables are read, the rest becomes a constant."""
    if isinstance(value, Tensor):
        if dtype is not None and as_dtype(dtype) is not value.dtype:
            raise ValueError(
                f"tensor has dtype {value.dtype.name}, but {as_dtype(dtype).name} was requested; "
                f"use mt.cast(x, mt.{as_dtype(dtype).name}) to change it"
            )
        return value
    if isinstance(value, TensorLike):  # a Variable
        return value._read()
    if dtype is None and dtype_hint is not None:
        natural = _default_dtype(value)
        hint = as_dtype(dtype_hint)
        if natural.is_floating and not hint.is_floating:
            raise TypeError(f"cannot convert {value!r} to a tensor of dtype {hint.name}")
        same_kind = natural.is_integer and hint.is_integer  # a Python int joins an int64 or uint8 tensor, as in TF
        dtype = hint if natural.is_floating or hint.is_floating or natural == hint or same_kind else None
    return constant(value, dtype=dtype)


def _joined(op: registry.OpDef, n_args: int) -> tuple | range:
    """The input positions that must share one dtype."""
    return range(n_args) if op.same_dtype == "all" else op.same_dtype or ()


def _convert_inputs(op: registry.OpDef, args: tuple) -> list[Tensor]:
    for arg in args:
        if type(arg) is not Tensor:
            break
    else:  # only tensors, as inside gradient rules: nothing to convert, at most a dtype comparison
        inputs = list(args)
        if len(args) > 1 and op.same_dtype is not None:
            if len(args) == 2 and op.same_dtype == (0, 1) and args[0]._value.dtype is args[1]._value.dtype:
                return inputs
            _check_same_dtype(op, inputs, _joined(op, len(args)))
        return inputs
    joined = _joined(op, len(args))
    inputs = []
    for i, arg in enumerate(args):
        if isinstance(arg, Tensor):
            inputs.append(arg)
        elif isinstance(arg, TensorLike):
            inputs.append(arg._read())
        else:
            inputs.append(_convert_arg(op, i, arg, args, joined))
    if len(joined) > 1:
        _check_same_dtype(op, inputs, joined)
    return inputs


def _convert_arg(op: registry.OpDef, i: int, arg: Any, args: tuple, joined: tuple | range) -> Tensor:
    """A non-tensor argument as a constant; a Python number joined to a tensor takes that tensor's dtype."""
    hint = None
    if i in joined:  # the first joined tensor's dtype (a loop, not a generator: this runs for every `x * 2.0`)
        for j, a in enumerate(args):
            if j in joined and isinstance(a, TensorLike):
                hint = a.dtype
                break
    # fast path for `x * 0.5`: a Python number next to a floating tensor (the most common constant by far)
    try:
        if hint is not None and hint.is_floating and type(arg) in (float, int):
            return Tensor(np.array(arg, hint.as_numpy_dtype))
        return convert_to_tensor(arg, dtype_hint=hint)
    except (TypeError, ValueError, OverflowError) as err:
        raise TypeError(f"{op.name}: input {i}: {err}") from None


def _check_same_dtype(op: registry.OpDef, inputs: list[Tensor], joined: tuple | range) -> None:
    # comparing the numpy dtypes is cheap and nearly always settles it; only a mismatch asks for DTypes
    first = None
    for i in joined:  # a plain loop: this runs for every op that meets a variable or a Python number
        if i < len(inputs):
            dtype = inputs[i]._value.dtype
            if first is None:
                first = dtype
            elif dtype is not first:
                break
    else:
        return
    dtypes = {inputs[i].dtype for i in joined if i < len(inputs)}
    if len(dtypes) > 1:
        names = " and ".join(sorted(d.name for d in dtypes))
        raise InvalidArgumentError(
            f"{op.name} cannot combine tensors of dtypes {names}; "
            f"convert one first, e.g. mt.cast(x, mt.{max(d.name for d in dtypes)})"
        )


def _describe(op: registry.OpDef, inputs: list[Tensor], attrs: dict) -> str:
    parts = [f"{t.dtype.name}{list(t.shape)}" for t in inputs]
    extra = "".join(f", {k}={v!r}" for k, v in attrs.items())
    return f"{op.name}({', '.join(parts)}{extra})"


def apply(op: registry.OpDef, args: tuple, attrs: dict) -> Any:
    """Run `op` on `args`: the single path every primitive op takes."""
    inputs = _convert_inputs(op, args)
    values = [t._value for t in inputs]
    try:
        token = _silence_numpy()
        try:
            result = op.forward(*values, **attrs)
        finally:
            _restore_numpy(token)
    except InvalidArgumentError as err:
        raise InvalidArgumentError(f"{_describe(op, inputs, attrs)}: {err}") from None
    except (ValueError, TypeError, IndexError) as err:
        raise InvalidArgumentError(f"{_describe(op, inputs, attrs)} failed: {err}") from None
    want = values[op.dtype_from].dtype if op.dtype_from is not None else None
    if op.n_outputs == 1:
        outputs = [Tensor(_as_array(result, want))]
    else:
        outputs = [Tensor(_as_array(a, want)) for a in result]
    if context.check_numerics:
        check_finite(op.name, inputs, outputs)
    if context.recording_tapes or context.accumulators:
        record(op.name, inputs, outputs, attrs, op.keep)
    return outputs if op.n_outputs > 1 else outputs[0]


# NaN and inf are values here, as in TensorFlow, so numpy's floating-point warnings are silenced while an op
# runs. `with np.errstate(all="ignore")` costs about 1 us, more than numpy takes for a small array. numpy >= 2
# keeps that setting in a context variable: setting it directly does the same at a tenth of the cost.
try:
    from numpy._core._ufunc_config import _extobj_contextvar, _make_extobj

    _IGNORE_ALL = _make_extobj(all="ignore")

    def _silence_numpy() -> Any:
        return _extobj_contextvar.set(_IGNORE_ALL)

    def _restore_numpy(token: Any) -> None:
        _extobj_contextvar.reset(token)

except (ImportError, AttributeError, TypeError):  # another numpy: the public, slower way

    def _silence_numpy() -> Any:
        return np.seterr(all="ignore")

    def _restore_numpy(token: Any) -> None:
        np.seterr(**token)


def _as_array(value: Any, dtype: np.dtype | None) -> np.ndarray:
    """A forward result as an ndarray of `dtype`: numpy returns scalars from reductions and may widen dtypes."""
    if type(value) is np.ndarray and (dtype is None or value.dtype is dtype):
        return value  # the usual case, with no call into numpy
    return np.asarray(value, dtype=dtype)


def record(
    op_type: str, inputs: list, outputs: list, attrs: dict, keep: str = "both", grad_fn: Any = None
) -> Operation | None:
    """Record one op call on every recording tape that watches one of its inputs.

    The outputs become watched too, so the tape follows the computation forward;
    outputs of a non-differentiable op, or of a non-floating dtype, stay unwatched.
    """
    if len(inputs) == 1:  # the common case, without building a list of ids
        first = inputs[0]._id
        tapes = [tape for tape in context.recording_tapes if first in tape._watched]
    else:
        ids = [t._id for t in inputs]
        tapes = [tape for tape in context.recording_tapes if not tape._watched.isdisjoint(ids)]
    if not tapes and not context.accumulators:
        return None
    operation = Operation(op_type, inputs, outputs, attrs, keep, grad_fn, user_line())
    if tapes:
        watched = ()
        if grad_fn is not None or registry.is_differentiable(op_type):
            if len(outputs) == 1:  # most ops: no list to build
                watched = operation.output_ids if operation.output_dtypes[0].is_floating else ()
            else:
                watched = [i for i, d in zip(operation.output_ids, operation.output_dtypes) if d.is_floating]
        for tape in tapes:
            tape._records.append(operation)
            tape._watched.update(watched)
    for accumulator in list(context.accumulators):
        accumulator._propagate(operation, inputs, outputs)
    return operation


def check_finite(op_type: str, inputs: list, outputs: list[Tensor]) -> None:
    """The numerics check: stop at the first op whose output holds NaN or inf."""
    for t in outputs:
        if t.dtype.is_floating and not np.all(np.isfinite(t._value)):
            bad = "NaN" if np.any(np.isnan(t._value)) else "inf"
            forward_op = context.backward_of
            called_from = format_where(user_line())
            stage = f"in the forward pass (called from {called_from})"
            if forward_op is not None:
                stage = (
                    f"in the backward pass, computing the gradient of {forward_op.type} (that {forward_op.type} "
                    f"ran at {format_where(forward_op.where)}; gradient() was called from {called_from})"
                )
            values = "; ".join(f"input {i}: {_summary(x._array())}" for i, x in enumerate(inputs))
            hint = ""
            if any(x.dtype.is_floating and not np.all(np.isfinite(x._array())) for x in inputs):
                hint = (
                    "\n  An input is already NaN or inf, so it began earlier: often an overflow in the forward pass "
                    "(e.g. exp of a large number); rewrite that step stably or give it a custom_gradient."
                )
            raise InvalidArgumentError(f"check_numerics: {op_type} produced {bad} {stage}.\n  {values}{hint}")


def _summary(value: np.ndarray) -> str:
    if value.size <= 6:
        return f"{value.dtype.name}{list(value.shape)} = {np.array2string(value, precision=4)}"
    return f"{value.dtype.name}{list(value.shape)} in [{np.nanmin(value):.4g}, {np.nanmax(value):.4g}]"


def note_numpy_conversion(tensor: TensorLike) -> None:
    """Remember, on recording tapes that watch `tensor`, that its value left the library here."""
    for tape in context.recording_tapes:
        if tensor._id in tape._watched:
            tape._escapes.append((tensor._id, user_line()))
            tape._timeline.append(("numpy", _next_id()))  # dates it, for explain()
