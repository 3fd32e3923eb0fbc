"""Checkers for lesson 04: persistent tapes."""

from __future__ import annotations

import numpy as np

from lesson_tools.checking import Evidence, NotYet, as_array, as_number, exercise, expect_gradient, items


@exercise(
    "4.1",
    "GradientTape(persistent=True), then two tape.gradient calls after the with block.",
    evidence=("tape", "target", "sources"),
    names=("x",),
)
def two_gradients(answer: object, evidence: Evidence) -> str:
    dv_dx, du_dx = items(answer, 2, "a list of two gradients, [dv_dx, du_dx]")
    right = (2 * np.sin(1.0) * np.cos(1.0), np.cos(1.0))
    for value, what in ((dv_dx, "dv/dx"), (du_dx, "du/dx")):
        if value is not None:
            as_array(value, what)  # a string or a wrong type is named before the values are compared
    if dv_dx is not None and du_dx is not None and np.allclose(as_array([dv_dx, du_dx]), right[::-1], rtol=1e-4):
        raise NotYet("the two gradients are in the wrong order: the list should be [dv_dx, du_dx].")
    expect_gradient(dv_dx, right[0], "dv/dx", evidence, ("x",))
    expect_gradient(du_dx, right[1], "du/dx", evidence, ("x",))
    return "dv/dx = 2 sin x cos x = 0.9093 and du/dx = cos x = 0.5403, from one recording."


@exercise("4.2", "each tanh keeps its own output (not its input): count the tanh ops.")
def tanh_chain(answer: object, evidence: Evidence) -> str:
    if answer is None:
        raise NotYet("answer is None: put a whole number in it, your prediction (then measure it with tape.stats()).")
    count = as_number(answer, "your count")
    if count != round(count):
        raise NotYet(f"{count:g} tensors? Tensors come whole: answer with a whole number.")
    if count != 3:
        raise NotYet(f"the tape keeps {'more' if count < 3 else 'fewer'} than {count:g} tensor(s).")
    return "Three: each tanh keeps its output (8,000 bytes each), and x itself is not needed."
