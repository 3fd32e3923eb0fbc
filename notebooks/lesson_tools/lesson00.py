"""Checker for the warm-up exercise of the start page."""

from __future__ import annotations

from lesson_tools.checking import Evidence, NotYet, as_number, exercise, expect_gradient

TAPE = ("tape", "target", "sources")


@exercise(
    "0.1",
    "record y = x**2 + 3 * x on a tape with x = mt.Variable(2.0), then tape.gradient(y, x).",
    evidence=TAPE,
    names=("x",),
)
def warm_up(answer: object, evidence: Evidence) -> str:
    if answer is not None and as_number(answer, "your derivative") == 10.0:
        raise NotYet("10 is the value of y = x² + 3x at x = 2; the exercise asks for its derivative dy/dx.")
    expect_gradient(answer, 7.0, "your derivative", evidence, ("x",))
    return "dy/dx = 2x + 3 = 7. You are ready for lesson 1."
