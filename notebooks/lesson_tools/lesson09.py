"""Checkers for lesson 09: forward and reverse mode."""

from __future__ import annotations

import numpy as np

from lesson_tools._core import NotYet, as_number, exercise, expect_close


@exercise("9.1", "ForwardAccumulator(x, u) around the computation of h, then acc.jvp(h).")
def directional(answer: object) -> str:
    x, u = np.array([0.5, 1.0, 1.5]), np.array([1.0, -1.0, 2.0])
    expected = float(np.sum((2 * x * np.cos(x) - x**2 * np.sin(x)) * u))
    value = as_number(answer, "your directional derivative")
    if not np.isclose(value, expected, rtol=1e-4):
        raise NotYet(f"your directional derivative is {value:.6f}, which is not ∇h(x)·u.")
    return f"∇h(x)·u = {expected:.4f}, in one forward pass."


@exercise("9.2", "tape.gradient(y, x, output_gradients=mt.constant([2.0, -1.0])) weights each output.")
def vjp(answer: object) -> str:
    expect_close(answer, [2 * 3.0 - np.cos(2.0), 2 * 2.0], "your VJP")
    return "vᵀJ = 2·(first row) - 1·(second row) = (6 - cos 2, 4)."


@exercise("9.3", "put the tape (and tape.gradient) inside the ForwardAccumulator block; then acc.jvp of the gradient.")
def hvp(answer: object) -> str:
    expect_close(answer, [2 * 0.0 * 1 + 2 * 1.0 * 2, 2 * 1.0 * 1 + 1.0 * 2], "your Hessian-vector product")
    return "H = [[2 x1, 2 x0], [2 x0, e^x1]] = [[0, 2], [2, 1]], so H v = (4, 4)."
