"""Checkers for lesson 01: finite differences against automatic differentiation."""

from __future__ import annotations

import numpy as np

from lesson_tools._core import NotYet, as_array, exercise, expect_close


def _probe(w: np.ndarray) -> float:
    return float(np.sin(w[0]) * w[1] ** 2 + np.exp(w[2]))


_PROBE_POINT = np.array([0.5, -1.5, 0.25])
_PROBE_GRAD = np.array([np.cos(0.5) * 2.25, 2 * np.sin(0.5) * -1.5, np.exp(0.25)])


@exercise("1.1", "for each i, add h to w[i] only (copy w first!), evaluate f, subtract f(w), divide by h.")
def forward_difference(fn: object) -> str:
    got = as_array(fn(_probe, _PROBE_POINT.copy(), 1e-7), "forward_difference(f, w, 1e-7)")
    expect_close(got, _PROBE_GRAD, "forward_difference(f, w, 1e-7)", rtol=1e-5, atol=1e-5)
    return "With h = 1e-7 it is good to about 6 digits, and it needed 4 evaluations of f for 3 parameters."


@exercise(
    "1.2",
    "make x and y mt.Variable(...) (or watch constants), compute g inside the tape, then tape.gradient(g, [x, y]).",
)
def tape_gradient(answer: object) -> str:
    if not isinstance(answer, (list, tuple)) or len(answer) != 2:
        raise NotYet("answer should be a list of two gradients, [dg/dx, dg/dy].")
    expect_close(answer[0], 2 * 1.0 * 2.0 + np.cos(1.0), "dg/dx")
    expect_close(answer[1], 1.0, "dg/dy")
    return "dg/dx = 2xy + cos x = 4.5403 and dg/dy = x² = 1, exact to float32 precision."


@exercise("1.3", "(f(w + h e_i) - f(w - h e_i)) / (2h): the h² terms of the Taylor series cancel.")
def central_difference(fn: object) -> str:
    got = as_array(fn(_probe, _PROBE_POINT.copy(), 1e-5), "central_difference(f, w, 1e-5)")
    if got.shape != _PROBE_GRAD.shape:
        raise NotYet(f"central_difference should return one number per parameter, got shape {got.shape}.")
    error = np.max(np.abs(got - _PROBE_GRAD))
    if error > 1e-8:
        raise NotYet(f"at h = 1e-5 its largest error is {error:.1e}; a central difference gets below 1e-8.")
    return "Its error shrinks like h² instead of h: at h = 1e-5 it is already below 1e-8."
