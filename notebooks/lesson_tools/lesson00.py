"""Checker for the warm-up exercise of the start page."""

from __future__ import annotations

from lesson_tools._core import NotYet, as_number, exercise


@exercise("0.1", "record y = x**2 + 3 * x on a tape with x = mt.Variable(2.0), then tape.gradient(y, x).")
def warm_up(answer: object) -> str:
    value = as_number(answer, "your derivative")
    if abs(value - 7.0) > 1e-5:
        raise NotYet(f"{value:g} is not the derivative of x² + 3x at x = 2.")
    return "dy/dx = 2x + 3 = 7. You are ready for lesson 1."
