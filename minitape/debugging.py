"""`mt.debugging`: the numerics check. Once enabled, the first op (forward or backward) producing NaN or inf raises."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import numpy as np

from minitape import context
from minitape.errors import InvalidArgumentError
from minitape.execute import convert_to_tensor


def enable_check_numerics(stack_height_limit: int = 30, path_length_limit: int = 50) -> None:
    """Check every op's output from now on, forward and backward; costs a scan of each output."""
    context.check_numerics = True


def disable_check_numerics() -> None:
    context.check_numerics = False


@contextlib.contextmanager
def check_numerics_scope() -> Iterator[None]:
    """The numerics check inside a `with` block only (minitape's addition to TensorFlow's API)."""
    before = context.check_numerics
    context.check_numerics = True
    try:
        yield
    finally:
        context.check_numerics = before


def check_numerics(tensor: Any, message: str, name: str | None = None) -> Any:
    """Return `tensor` unchanged, or raise InvalidArgumentError if it holds NaN or inf."""
    t = convert_to_tensor(tensor)
    if t.dtype.is_floating and not np.all(np.isfinite(t._value)):
        raise InvalidArgumentError(f"{message}: tensor had NaN or inf values")
    return t


def set_log_device_placement(enabled: bool) -> None:
    """Accepted and ignored: every op runs on the CPU (see mt.config)."""
