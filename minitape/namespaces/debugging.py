"""`mt.debugging`, as `tf.debugging`: switch the numerics check (aids/numerics.py) on and off, check a tensor."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import numpy as np

from minitape.aids import numerics
from minitape.values.convert import convert_to_tensor
from minitape.values.errors import InvalidArgumentError


def enable_check_numerics(stack_height_limit: int = 30, path_length_limit: int = 50) -> None:
    """Check every op's output from now on (in this thread), forward and backward; costs a scan of each output."""
    numerics.switch(True)


def disable_check_numerics() -> None:
    numerics.switch(False)


@contextlib.contextmanager
def check_numerics_scope() -> Iterator[None]:
    """The numerics check inside a `with` block only (minitape's addition to TensorFlow's API)."""
    before = numerics.switch(True)
    try:
        yield
    finally:
        numerics.switch(before)


def check_numerics(tensor: Any, message: str, name: str | None = None) -> Any:
    """Return `tensor` unchanged, or raise InvalidArgumentError if it holds NaN or inf."""
    t = convert_to_tensor(tensor)
    if t.dtype.is_floating and not np.all(np.isfinite(t.numpy())):
        raise InvalidArgumentError(f"{message}: tensor had NaN or inf values")
    return t


def set_log_device_placement(enabled: bool) -> None:
    """Accepted and ignored: every op runs on the CPU (see mt.config)."""
