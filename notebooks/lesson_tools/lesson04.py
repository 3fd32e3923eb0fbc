"""Checkers for lesson 04: persistent tapes."""

from __future__ import annotations

import numpy as np

from lesson_tools._core import NotYet, as_number, exercise, expect_close


@exercise("4.1", "GradientTape(persistent=True), then two tape.gradient calls after the with block.")
def two_gradients(answer: object) -> str:
    if not isinstance(answer, (list, tuple)) or len(answer) != 2:
        raise NotYet("answer should be a list of two gradients, [dv_dx, du_dx].")
    expect_close(answer[0], 2 * np.sin(1.0) * np.cos(1.0), "dv/dx")
    expect_close(answer[1], np.cos(1.0), "du/dx")
    return "dv/dx = 2 sin x cos x = 0.9093 and du/dx = cos x = 0.5403, from one recording."


@exercise("4.2", "each tanh keeps its own output (not its input): count the tanh ops.")
def tanh_chain(answer: object) -> str:
    count = as_number(answer, "your count")
    if count != 3:
        raise NotYet(f"the tape keeps {'more' if count < 3 else 'fewer'} than {count:g} tensor(s).")
    return "Three: each tanh keeps its output (8,000 bytes each), and x itself is not needed."
