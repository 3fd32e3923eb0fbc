"""TensorFlow parameters minitape takes (so positions and keywords match TensorFlow's), but only at their default."""

from __future__ import annotations

from typing import Any


def only_default(op: str, parameter: str, value: Any, allowed: tuple, why: str) -> None:
    """Refuse `parameter=value` unless it is one of `allowed` (the default first), saying why minitape has no other."""
    if not any(value is a or (type(value) is type(a) and value == a) for a in allowed):
        raise NotImplementedError(f"{op}: minitape takes only {parameter}={allowed[0]!r} ({why}), not {value!r}")


# TensorFlow's bad_indices_policy values that mean what minitape does: an index outside the tensor raises
BAD_INDICES = ("", "DEFAULT", "ERROR"), "an index outside the tensor is an error; there is no IGNORE"
