"""The one path every primitive op takes: convert the inputs, compute with numpy, wrap, record.

This is the tracing half of the engine; `backprop.py` is the differentiating half. Gradient
rules call ops too, so the backward pass runs through here as well: that is what lets a tape
that is still recording see it, and take a higher derivative.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minitape import debugging
from minitape.context import state
from minitape.convert import check_same_dtype, convert_inputs, joined_positions
from minitape.errors import InvalidArgumentError
from minitape.operation import Operation
from minitape.tensor import Tensor


def apply(op: Any, args: tuple, attrs: dict) -> Any:
    """Run `op` (an `OpDef`) on `args` with keyword `attrs`; return its output tensor(s)."""
    inputs = args
    for arg in args:
        if type(arg) is not Tensor:  # a number, array or variable: convert them all
            inputs = convert_inputs(op, args)
            break
    else:
        if op.same_dtype and len(args) > 1:
            check_same_dtype(op, args, joined_positions(op, len(args)))
    quiet = _silence_numpy()  # NaN and inf are values here, as in TensorFlow: no numpy warnings
    try:
        result = op.forward(*[t._value for t in inputs], **attrs)
    except (ValueError, TypeError, IndexError, InvalidArgumentError) as err:
        raise _op_error(op, inputs, attrs, err) from None
    finally:
        _restore_numpy(quiet)
    dtype = inputs[op.dtype_from]._value.dtype if op.dtype_from is not None else None
    if op.n_outputs == 1:
        outputs = [Tensor(result if type(result) is np.ndarray and result.dtype is dtype else _array(result, dtype))]
    else:
        outputs = [Tensor(_array(r, dtype)) for r in result]
    if state.check_numerics:
        debugging.check_outputs(op.name, inputs, outputs)
    if state.tapes or state.accumulators:
        record(op.name, inputs, outputs, attrs, op.keep)
    return outputs[0] if op.n_outputs == 1 else outputs


def record(op_type: str, inputs: Any, outputs: list, attrs: dict, keep: str = "both", grad_fn: Any = None) -> None:
    """Record one op call on each recording tape that watches one of its inputs; tell the accumulators.

    The outputs of a differentiable op become watched, so a tape follows the computation forward.
    """
    ids = [t._id for t in inputs]
    tapes = [tape for tape in state.tapes if not tape._watched.isdisjoint(ids)]
    if not tapes and not state.accumulators:
        return
    operation = Operation(op_type, inputs, outputs, attrs, keep, grad_fn)
    if tapes:
        if grad_fn is not None or _differentiable(op_type):
            watched = [t._id for t in outputs if t._value.dtype.kind == "f"]
        else:
            watched = ()
        operation.holders = len(tapes)
        for tape in tapes:
            tape._records.append(operation)
            tape._watched.update(watched)
    for accumulator in list(state.accumulators):
        accumulator.propagate(operation, inputs, outputs)


def _array(value: Any, dtype: np.dtype | None) -> np.ndarray:
    """A forward result as an ndarray of the op's dtype (numpy returns scalars from reductions, may widen)."""
    return np.asarray(value, dtype=dtype)


def _op_error(op: Any, inputs: Any, attrs: dict, err: Exception) -> InvalidArgumentError:
    """Name the op, its inputs' dtypes and shapes, and its attributes in front of what went wrong."""
    parts = [f"{t.dtype.name}{list(t.shape)}" for t in inputs] + [f"{k}={v!r}" for k, v in attrs.items()]
    verb = ":" if isinstance(err, InvalidArgumentError) else " failed:"
    return InvalidArgumentError(f"{op.name}({', '.join(parts)}){verb} {err}")


# numpy >= 2 keeps its error state in a context variable: setting it directly costs a tenth of
# `with np.errstate(all="ignore")`, which would cost more than numpy takes for a small array.
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


from minitape.registry import is_differentiable as _differentiable  # noqa: E402 - registry imports this module
