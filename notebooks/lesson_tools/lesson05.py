"""Checkers for lesson 05: nested tapes."""

from __future__ import annotations

import numpy as np

from lesson_tools._core import NotYet, exercise, expect_close


@exercise("5.1", "nest two tapes; call inner.gradient inside the outer with block, then outer.gradient on its result.")
def second_derivative(answer: object) -> str:
    expect_close(answer, 2 * np.cos(1.0) - np.sin(1.0), "your second derivative")
    return "d²/dx² (x sin x) = 2 cos x - x sin x = 0.2391 at x = 1."


@exercise("5.2", "the inner tape gives the gradient (a vector of 2); the outer tape's jacobian of it is the Hessian.")
def hessian(answer: object) -> str:
    expect_close(answer, [[6.0, 4.0], [4.0, 2.0]], "your Hessian")
    return "H = [[6 x0, 2 x1], [2 x1, 2 x0]]: symmetric, as every Hessian of a smooth function."


@exercise("5.3", "is the outer tape still recording when the line runs? Look at the indentation.")
def place(answer: object) -> str:
    letter = str(answer).strip().upper()
    if letter not in {"A", "B", "C"}:
        raise NotYet(f"answer with one letter, 'A', 'B' or 'C', not {answer!r}.")
    if letter != "C":
        raise NotYet(f"in place {letter} the second derivative would work, but this code gets None.")
    return "It runs after both blocks (place C); indent it once, into the outer block (place B)."
