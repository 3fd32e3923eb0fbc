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
        got = as_array(answer)
        if np.allclose(got, [6.0 + 4.0, 4.0 + 2.0], rtol=1e-4):
            raise NotYet(
                "your answer is the Hessian's two rows added up: that is what outer.gradient gives for a vector "
                "target (the gradient of the sum of its entries). For one row per entry, ask outer.jacobian."
            )
        if np.allclose(got, [3.0 + 4.0, 4.0], rtol=1e-4):
            raise NotYet("your answer is the gradient of g, shape (2,). The Hessian is its jacobian, shape (2, 2).")
        raise NotYet("your answer has shape (2,), a vector; the Hessian is a matrix, shape (2, 2).")
    expect_gradient(answer, [[6.0, 4.0], [4.0, 2.0]], "your Hessian", evidence, ("x",))
    return "H = [[6 x0, 2 x1], [2 x1, 2 x0]]: symmetric, as every Hessian of a smooth function."


@exercise("5.3", "which tape must be recording when the line runs, and which need not? Look at the indentation.")
def place(answer: object, evidence: Evidence) -> str:
    if answer is Ellipsis:
        raise not_written("answer")
    if not isinstance(answer, str):
        raise NotYet(f'answer with a letter in quotes, "A", "B" or "C", not {describe(answer)}.')
    letter = answer.strip().upper()
    if letter not in {"A", "B", "C"}:
        raise NotYet(f"answer with one letter, 'A', 'B' or 'C', not {answer!r}.")
    if letter == "C":
        raise NotYet(
            "place C is where the line is now, after both blocks: the outer tape has stopped recording there, so "
            "it never sees the ops that compute the first derivative. Move it to where the outer tape still records."
        )
    if letter == "A":
        raise NotYet(
            "in place A the second derivative works, but the inner tape then records its own backward ops too "
            "(section 2 measured what that costs): there is a place where only the outer tape records."
        )
    return "Place B: after the inner block, inside the outer one. Now it runs after both blocks (place C)."
