"""`mt.debugging`: the numerics check. Once enabled, the first op (forward or backward) producing NaN or inf raises.

The check sits on the op path (`execute.apply` calls `check_outputs`), so it sees exactly the ops
the engine runs, the backward pass's included, and says which op of which pass went wrong.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import numpy as np

from minitape.engine.context import state
from minitape.engine.where import format_where, user_line
from minitape.values.convert import convert_to_tensor
from minitape.values.errors import InvalidArgumentError


def enable_check_numerics(stack_height_limit: int = 30, path_length_limit: int = 50) -> None:
    """Check every op's output from now on (in this thread), forward and backward; costs a scan of each output."""
    state.check_numerics = True


def disable_check_numerics() -> None:
    state.check_numerics = False


@contextlib.contextmanager
def check_numerics_scope() -> Iterator[None]:
    """The numerics check inside a `with` block only (minitape's addition to TensorFlow's API)."""
    before = state.check_numerics
    state.check_numerics = True
    try:
        yield
    finally:
        state.check_numerics = before


def check_numerics(tensor: Any, message: str, name: str | None = None) -> Any:
    """Return `tensor` unchanged, or raise InvalidArgumentError if it holds NaN or inf."""
    t = convert_to_tensor(tensor)
    if t.dtype.is_floating and not np.all(np.isfinite(t.numpy())):
        raise InvalidArgumentError(f"{message}: tensor had NaN or inf values")
    return t


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


def set_log_device_placement(enabled: bool) -> None:
    """Accepted and ignored: every op runs on the CPU (see mt.config)."""
