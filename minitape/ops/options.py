"""How ops take TensorFlow's plain parameters: integers (an axis, a count), and options taken only at their default."""

from __future__ import annotations

import operator
from typing import Any

from minitape.engine.tensor import TensorLike


def only_default(op: str, parameter: str, value: Any, allowed: tuple, why: str) -> None:
    """Refuse `parameter=value` unless it is one of `allowed` (the default first), saying why minitape has no other."""
    if not any(value is a or (type(value) is type(a) and value == a) for a in allowed):
        raise NotImplementedError(f"{op}: minitape takes only {parameter}={allowed[0]!r} ({why}), not {value!r}")


# TensorFlow's bad_indices_policy values that mean what minitape does: an index outside the tensor raises
BAD_INDICES = ("", "DEFAULT", "ERROR"), "an index outside the tensor is an error; there is no IGNORE"


def integer(value: Any, op: str, what: str) -> int:
    """An integer parameter (an axis, k, a depth): a Python or numpy int, or an int scalar tensor, as TensorFlow
    takes it; a float is refused (int() would drop its fraction without a word)."""
    try:
        return operator.index(value._array() if isinstance(value, TensorLike) else value)
    except TypeError:
        raise TypeError(
            f"{op}: {what} must be an integer, not {value!r} (TensorFlow: Cannot convert {value!r} to EagerTensor "
            "of dtype int32); make a number computed as a float an int first, e.g. int(n)"
        ) from None
