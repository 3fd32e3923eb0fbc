"""Checkers for lesson 05: nested tapes."""

from __future__ import annotations

import numpy as np

from lesson_tools.checking import Evidence, NotYet, as_array, describe, exercise, expect_gradient, not_written

TAPE = ("tape", "target", "sources")


@exercise(
    "5.1",
    "nest two tapes; call inner.gradient inside the outer with block, then outer.gradient on its result.",
    evidence=TAPE,
    names=("x",),
)
def second_derivative(answer: object, evidence: Evidence) -> str:
    if answer is not None and answer is not Ellipsis and as_array(answer, "your second derivative").size == 1:
        if np.isclose(float(as_array(answer).reshape(())), np.sin(1.0) + np.cos(1.0), rtol=1e-4):
            raise NotYet("that is the first derivative, sin x + x cos x: differentiate it again with the outer tape.")
    expect_gradient(answer, 2 * np.cos(1.0) - np.sin(1.0), "your second derivative", evidence, ("x",))
    return "d²/dx² (x sin x) = 2 cos x - x sin x = 0.2391 at x = 1."


@exercise(
    "5.2",
    "the inner tape gives the gradient (a vector of 2); the outer tape's jacobian of it is the Hessian.",
    evidence=TAPE,
    names=("x",),
)
def hessian(answer: object, evidence: Evidence) -> str:
    if answer is not None and answer is not Ellipsis and as_array(answer, "your Hessian").shape == (2,):
        raise NotYet("your answer has shape (2,): that is the gradient. The Hessian is its jacobian, shape (2, 2).")
    expect_gradient(answer, [[6.0, 4.0], [4.0, 2.0]], "your Hessian", evidence, ("x",))
    return "H = [[6 x0, 2 x1], [2 x1, 2 x0]]: symmetric, as every Hessian of a smooth function."


@exercise("5.3", "is the outer tape still recording when the line runs? Look at the indentation.")
def place(answer: object, evidence: Evidence) -> str:
    if answer is Ellipsis:
        raise not_written("answer")
    if not isinstance(answer, str):
        raise NotYet(f'answer with a letter in quotes, "A", "B" or "C", not {describe(answer)}.')
    letter = answer.strip().upper()
    if letter not in {"A", "B", "C"}:
        raise NotYet(f"answer with one letter, 'A', 'B' or 'C', not {answer!r}.")
    if letter != "C":
        raise NotYet(f"in place {letter} the second derivative would work, but this code gets None.")
    return "It runs after both blocks (place C); indent it once, into the outer block (place B)."
