"""The one path every primitive op takes: convert the inputs, compute with numpy, wrap, record.

This is the tracing half of the engine; `backprop.py` is the differentiating half. Gradient
rules call ops too, so the backward pass runs through here as well: that is what lets a tape
that is still recording see it, and take a higher derivative.
"""

from __future__ import annotations

import sys
import weakref
from typing import Any

import numpy as np

from minitape.engine import bare
from minitape.engine.context import IGNORE_ALL, NUMPY_ERRORS, state
from minitape.engine.record import ID, VALUE, facts
from minitape.engine.tensor import Tensor
from minitape.namespaces import debugging
from minitape.values.convert import check_same_dtype, convert_inputs, joined_positions
from minitape.values.errors import InvalidArgumentError, op_error


def apply(op: Any, *args: Any, name: str | None = None, **attrs: Any) -> Any:
    """Run `op` (an `OpDef`) on `args` with keyword `attrs`; return its output tensor(s)."""
    if state.bare:  # a backward pass nothing listens to computes on numpy arrays: bare.py
        return bare.apply(op, args, attrs)
    inputs = args
    for arg in args:
        if type(arg) is not Tensor:  # a number, array or variable: convert them all
            inputs = convert_inputs(op, args)
            break
    else:  # tensors already; two of one dtype need no further check
        if len(args) > 1 and op.same_dtype and (len(args) > 2 or args[0]._value.dtype is not args[1]._value.dtype):
            check_same_dtype(op, args, joined_positions(op, len(args)))
    if op.floating and inputs[0]._value.dtype.kind != "f":
        raise op_error(op, inputs, attrs, TypeError(NOT_FLOATING.format(inputs[0]._value.dtype)))
    quiet = NUMPY_ERRORS.set(IGNORE_ALL)  # NaN and inf are values here, as in TensorFlow: no warnings
    try:
        result = op.forward(*map(VALUE, inputs), **attrs)
    except (ValueError, TypeError, IndexError, InvalidArgumentError) as err:
        raise op_error(op, inputs, attrs, err) from None
    finally:
        NUMPY_ERRORS.reset(quiet)
    dtype = inputs[op.dtype_from]._value.dtype if op.dtype_from is not None else None
    if op.n_outputs == 1:  # numpy returns scalars from reductions, and may widen: an array of the op's dtype
        exact = type(result) is np.ndarray and result.dtype is dtype
        outputs = [Tensor(result if exact else np.asarray(result, dtype))]
    else:
        outputs = [Tensor(np.asarray(r, dtype)) for r in result]
    if state.check_numerics:
        debugging.check_outputs(op.name, inputs, outputs)
    for tracer in state.tracers:  # mt.function hook: each op this path runs joins the graph being traced
        tracer.op_ran(op, inputs, attrs, outputs)
    if state.tapes or state.accumulators:
        record(op.name, inputs, outputs, attrs, op.keep, None, sys._getframe(1))
    return outputs[0] if op.n_outputs == 1 else outputs


def record(
    op_type: str, inputs: Any, outputs: list, attrs: dict, keep: str, grad_fn: Any = None, caller: Any = None
) -> None:
    """Record one op call on each recording tape that watches one of its inputs; tell the accumulators.

    The outputs of a differentiable op become watched, so a tape follows the computation forward.
    `caller` is the frame that called the op: the record finds the user's line of code from it.
    """
    ids, fact = tuple(map(ID, inputs)), None
    for tape in state.tapes:
        if tape._watched.isdisjoint(ids):
            continue
        fact = fact or facts(op_type, ids, inputs, outputs, attrs, keep, grad_fn, caller or sys._getframe(1))
        tape._records.append(fact)  # one record, shared by every tape that sees the op
        for t in inputs:  # a value no recorded op computed (a constant, a variable): viewers show it while alive
            if t._id not in tape._watched and t._id not in tape._alive:
                tape._alive[t._id] = weakref.ref(t)
        for t in outputs if grad_fn is not None or _differentiable(op_type) else ():
            if t._value.dtype.kind == "f":  # a differentiable op's floating outputs: the tape follows them
                tape._watched.add(t._id)
    if state.accumulators:
        fact = fact or facts(op_type, ids, inputs, outputs, attrs, keep, grad_fn, caller or sys._getframe(1))
        for accumulator in list(state.accumulators):  # a copy: each steps aside from the list in turn
            accumulator.propagate(fact, inputs, outputs)


NOT_FLOATING = "needs a floating-point tensor, not {}: convert it first, e.g. mt.cast(x, mt.float32)"

from minitape.engine.registry import is_differentiable as _differentiable  # noqa: E402 - registry imports this module
