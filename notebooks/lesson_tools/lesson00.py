"""Checker for the warm-up exercise of the start page."""

from __future__ import annotations

import numpy as np

import minitape as mt
from lesson_tools.checking import Evidence, NotYet, as_number, exercise, expect_gradient

TAPE = ("tape", "target", "sources")


def _wrong_y(evidence: Evidence) -> str:
    """A sentence when the student's y is not x² + 3x at their x ("" when it is, or when y or x was not passed)."""
    target, source = evidence.get("target"), evidence.get("sources")
    try:
        y, x = as_number(target), as_number(source.numpy() if isinstance(source, mt.Variable) else source)
    except (NotYet, TypeError, ValueError):
        return ""
    if np.isclose(y, x**2 + 3 * x, rtol=1e-5):
        return ""
    return f" Your y is {y:g}, but x² + 3x at x = {x:g} is {x**2 + 3 * x:g}: check how y is computed."


@exercise(
    "0.1",
    "record y = x**2 + 3 * x on a tape with x = mt.Variable(2.0), then tape.gradient(y, x).",
    evidence=TAPE,
    names=("x",),
)
def warm_up(answer: object, evidence: Evidence) -> str:
    if answer is not None and as_number(answer, "your derivative") == 10.0:
        raise NotYet("10 is the value of y = x² + 3x at x = 2; the exercise asks for its derivative dy/dx.")
    try:
        expect_gradient(answer, 7.0, "your derivative", evidence, ("x",))
    except NotYet as wrong:
        raise NotYet(f"{wrong}{_wrong_y(evidence)}") from None
    return "dy/dx = 2x + 3 = 7. You are ready for lesson 1."
