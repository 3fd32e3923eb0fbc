"""Exceptions with TensorFlow's names, so `except mt.errors.InvalidArgumentError` ports unchanged."""

from __future__ import annotations

from typing import Any


class InvalidArgumentError(ValueError):
    """An op was given inputs it cannot work with: shapes that do not fit, a wrong dtype, a bad value."""


class OutOfRangeError(Exception):
    """Past the end: an iterator's `get_next()` after a dataset's last element, a TensorArray index beyond its size."""


class FailedPreconditionError(Exception):
    """The system is not in a state the op needs (TensorFlow's RGBToHSV and HSVToRGB raise it for an image whose
    last axis is not 3)."""


class NotFoundError(Exception):
    """Something asked for is not there: a kernel for an op's inputs' dtype (TensorFlow: "Could not find device
    for node"), or a checkpoint at the path a restore was given."""


class DataLossError(Exception):
    """A file is not what was expected: a checkpoint file minitape did not write, or a directory."""


def op_error(op: Any, inputs: Any, attrs: dict, err: Exception) -> InvalidArgumentError:
    """Name the op, its inputs' dtypes and shapes, and its attributes in front of what went wrong."""
    parts = [f"{t.dtype.name}{list(t.shape)}" for t in inputs] + [f"{k}={v!r}" for k, v in attrs.items()]
    verb = ":" if isinstance(err, InvalidArgumentError) else " failed:"
    text = str(err)
    if "could not be broadcast" in text:
        shapes = " and ".join(str(list(t.shape)) for t in inputs)
        text = (
            f"shapes {shapes} do not broadcast: aligned from the right, each pair of dimensions must be equal or "
            "one of them 1; reshape, slice or mt.expand_dims one operand to fit"
        )
    return InvalidArgumentError(f"{op.name}({', '.join(parts)}){verb} {text}")
