"""The numerics check: once switched on, the first op (forward or backward) producing NaN or inf raises.

It listens to the op path (`state.listeners`), so it hears exactly the ops the engine runs, the
backward pass's included, and says which op of which pass went wrong. `mt.debugging` switches it.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minitape.engine.context import state
from minitape.engine.where import format_where, user_line
from minitape.values.errors import InvalidArgumentError


class NumericsCheck:
    """The listener: `op_ran` scans each floating output."""

    def op_ran(self, op: Any, inputs: list, attrs: dict, outputs: list) -> None:
        check_outputs(op.name, inputs, outputs)


CHECK = NumericsCheck()


def switch(on: bool) -> bool:
    """Switch the check on or off in this thread; return whether it was on."""
    was_on = CHECK in state.listeners
    if on and not was_on:
        state.listeners = [*state.listeners, CHECK]  # a new list: a sweep iterating the old one is not disturbed
    elif was_on and not on:
        state.listeners = [x for x in state.listeners if x is not CHECK]
    return was_on


def is_on() -> bool:
    return CHECK in state.listeners


def check_outputs(op_type: str, inputs: Any, outputs: list) -> None:
    """Raise at the first op whose output holds NaN or inf, naming the op, the pass and the inputs."""
    for t in outputs:
        value = t._value
        if value.dtype.kind != "f" or np.all(np.isfinite(value)):
            continue
        bad = "NaN" if np.any(np.isnan(value)) else "inf"
        forward_op = state.backward_of
        called_from = format_where(user_line())
        stage = f"in the forward pass (called from {called_from})"
        if forward_op is not None:
            stage = (
                f"in the backward pass, computing the gradient of {forward_op.type} (that {forward_op.type} "
                f"ran at {format_where(forward_op.where)}; gradient() was called from {called_from})"
            )
        values = "; ".join(f"input {i}: {_summary(x._array())}" for i, x in enumerate(inputs))
        hint = ""
        if any(x._array().dtype.kind == "f" and not np.all(np.isfinite(x._array())) for x in inputs):
            hint = (
                "\n  An input is already NaN or inf, so it began earlier: often an overflow in the forward pass "
                "(e.g. exp of a large number); rewrite that step stably or give it a custom_gradient."
            )
        raise InvalidArgumentError(f"check_numerics: {op_type} produced {bad} {stage}.\n  {values}{hint}")


def _summary(value: np.ndarray) -> str:
    if value.size <= 6:
        return f"{value.dtype.name}{list(value.shape)} = {np.array2string(value, precision=4)}"
    return f"{value.dtype.name}{list(value.shape)} in [{np.nanmin(value):.4g}, {np.nanmax(value):.4g}]"


def _summary(value: np.ndarray) -> str:
    if value.size <= 6:
        return f"{value.dtype.name}{list(value.shape)} = {np.array2string(value, precision=4)}"
    return f"{value.dtype.name}{list(value.shape)} in [{np.nanmin(value):.4g}, {np.nanmax(value):.4g}]"
