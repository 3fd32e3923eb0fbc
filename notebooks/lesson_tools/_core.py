"""The `check` function and the registry of exercise checkers."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np


class NotYet(Exception):  # noqa: N818 - a friendly verdict, not an error
    """Raised by a checker when the answer is not right yet; the message says what is wrong."""


_CHECKERS: dict[str, tuple[Callable[[Any], str], str]] = {}


def exercise(key: str, hint: str) -> Callable:
    """Register a checker for exercise `key`: it returns a word of praise or raises NotYet."""

    def register(checker: Callable[[Any], str]) -> Callable[[Any], str]:
        _CHECKERS[key] = (checker, hint)
        return checker

    return register


def check(key: str, answer: Any) -> None:
    """Print friendly feedback on `answer` for exercise `key`."""
    if key not in _CHECKERS:
        print(f"There is no exercise {key!r}: the exercises are {', '.join(sorted(_CHECKERS))}.")
        return
    checker, hint = _CHECKERS[key]
    if answer is None or answer is Ellipsis:
        print(f"Exercise {key}: no answer yet. Replace the `...` or `None` with your code, then run the cell again.")
        print(f"Hint: {hint}")
        return
    try:
        praise = checker(answer)
    except NotYet as wrong:
        print(f"Exercise {key}: not quite. {wrong}")
        print(f"Hint: {hint}")
        return
    except Exception as error:  # the student's code failed inside the checker: explain, never a traceback
        message = str(error).splitlines()[0] if str(error) else ""
        print(f"Exercise {key}: your code raised {type(error).__name__}: {message}")
        print(f"Hint: {hint}")
        return
    print(f"Exercise {key}: correct! {praise}")


def as_number(value: Any, what: str = "your answer") -> float:
    """A plain float from a tensor, array or number; NotYet with a readable reason otherwise."""
    if value is None:
        raise NotYet(f"{what} is None (not written yet? or is the tape not watching the right tensor?)")
    array = as_array(value, what)
    if array.size != 1:
        raise NotYet(f"{what} should be a single number, but it has shape {array.shape}.")
    return float(array.reshape(()))


def as_array(value: Any, what: str = "your answer") -> np.ndarray:
    if value is None:
        raise NotYet(f"{what} is None (not written yet? or is the tape not watching the right tensor?)")
    if hasattr(value, "numpy"):
        value = value.numpy()
    try:
        return np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise NotYet(f"{what} should be a number or an array of numbers, not {type(value).__name__}.") from None


def expect_close(value: Any, expected: Any, what: str = "your answer", rtol: float = 1e-4, atol: float = 1e-6) -> None:
    """NotYet unless `value` matches `expected` in shape and (closely) in value."""
    got, want = as_array(value, what), np.asarray(expected, dtype=np.float64)
    if got.shape != want.shape:
        raise NotYet(f"{what} has shape {got.shape}, but it should have shape {want.shape}.")
    if not np.allclose(got, want, rtol=rtol, atol=atol):
        raise NotYet(f"{what} is {np.round(got, 6).tolist()}, which is not what it should be.")
