"""The one path every primitive op takes: convert the inputs, compute with numpy, wrap, tell, record.

This is the tracing half of the engine; backprop.py is the differentiating half. Gradient
rules call ops too, so the backward pass runs through here as well: that is what lets a tape
that is still recording see it, and take a higher derivative.
"""

from __future__ import annotations

import sys
from typing import Any

from minitape.engine import context, unwatched
from minitape.engine.context import state
from minitape.engine.opdef import OpDef, is_differentiable
from minitape.engine.record import ID, VALUE, facts
from minitape.engine.tensor import Tensor
from minitape.values.convert import check_same_dtype, convert_inputs, joined_positions
from minitape.values.errors import InvalidArgumentError, op_error


def apply(op: OpDef, *args: Any, name: str | None = None, **attrs: Any) -> Any:
    """Run `op` on `args` with keyword `attrs`; return its output tensor(s)."""
    inputs = as_inputs(op, args)
    outputs = unwatched.run(op, inputs, attrs) if state.unwatched else None  # a shortcut a reader can skip
    if outputs is None:
        outputs = compute(op, inputs, attrs)
        for listener in state.listeners:  # the numerics check: it stops a NaN before a tape keeps it
            listener.op_ran(op, inputs, attrs, outputs)
        for tracer in state.tracers:  # mt.function: each op this path runs joins the graph being traced
            tracer.op_ran(op, inputs, attrs, outputs)
        if state.tapes or state.accumulators:
            record(op.name, inputs, outputs, attrs, op.keep, None, sys._getframe(1))
    return outputs[0] if op.n_outputs == 1 else outputs


def as_inputs(op: OpDef, args: tuple) -> list:
    """The arguments as tensors of the dtypes the op accepts (numbers, arrays, variables converted)."""
    inputs = args
    for arg in args:
        if type(arg) is not Tensor:  # a number, an array, a variable: convert them all
            inputs = convert_inputs(op, args)
            break
    else:  # tensors already; two of one dtype need no further check
        if len(args) > 1 and op.same_dtype and (len(args) > 2 or args[0]._value.dtype is not args[1]._value.dtype):
            check_same_dtype(op, args, joined_positions(op, len(args)))
    if op.floating and inputs[0]._value.dtype.kind != "f":
        raise op_error(op, inputs, {}, TypeError(NOT_FLOATING.format(inputs[0]._value.dtype)))
    return inputs


def compute(op: OpDef, inputs: Any, attrs: dict) -> list[Tensor]:
    """numpy's result as tensors of the op's dtype; numpy's failures as errors that name the op."""
    arrays = list(map(VALUE, inputs))
    quiet = context.quiet_numpy()  # NaN and inf are values here, as in TensorFlow: no warnings
    try:
        return op.outputs(arrays, op.forward(*arrays, **attrs))
    except (ValueError, TypeError, IndexError, InvalidArgumentError) as err:
        raise op_error(op, inputs, attrs, err) from None
    finally:
        context.restore_numpy(quiet)


def record(
    op_type: str, inputs: Any, outputs: list, attrs: dict, keep: str, grad_fn: Any = None, caller: Any = None
) -> None:
    """Record one op call on each recording tape that watches one of its inputs; tell the accumulators.

    `caller` is the frame that called the op: the record finds the user's line of code from it.
    """
    ids, fact = tuple(map(ID, inputs)), None
    for tape in state.tapes:
        if not tape._watched.isdisjoint(ids):
            fact = fact or facts(op_type, ids, inputs, outputs, attrs, keep, grad_fn, caller or sys._getframe(1))
            differentiable = grad_fn is not None or is_differentiable(op_type)
            tape.add_record(fact, inputs, outputs if differentiable else ())  # one record, shared by the tapes
    if state.accumulators:
        fact = fact or facts(op_type, ids, inputs, outputs, attrs, keep, grad_fn, caller or sys._getframe(1))
        for accumulator in list(state.accumulators):  # a copy: each steps aside from the list in turn
            accumulator.propagate(fact, inputs, outputs)


NOT_FLOATING = "needs a floating-point tensor, not {}: convert it first, e.g. mt.cast(x, mt.float32)"
