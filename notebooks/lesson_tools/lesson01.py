"""Checkers for lesson 01: finite differences against automatic differentiation."""

from __future__ import annotations

import numpy as np

from lesson_tools.checking import (
    Evidence,
    NotYet,
    as_array,
    call,
    exercise,
    expect_close,
    expect_function,
    expect_gradient,
    items,
    show,
)


def _probe(w: np.ndarray) -> float:
    return float(np.sin(w[0]) * w[1] ** 2 + np.exp(w[2]))


_PROBE_POINT = np.array([0.5, -1.5, 0.25])
_PROBE_GRAD = np.array([np.cos(0.5) * 2.25, 2 * np.sin(0.5) * -1.5, np.exp(0.25)])


def _differences(fn: object, name: str, h: float) -> np.ndarray:
    """Run the student's finite-difference function on a probe, and read its result as one number per entry."""
    expect_function(fn, name)
    w = _PROBE_POINT.copy()
    result = call(fn, (_probe, w, h), f"{name}(f, w, {h:g})")
    if not np.array_equal(w, _PROBE_POINT):
        raise NotYet(f"{name} changed the w it was given: copy w before adding h (np.array(w, dtype=float)).")
    if result is None:
        raise NotYet(f"{name} returned None: end it with `return` and the array of differences.")
    got = as_array(result, f"{name}(f, w, {h:g})")
    if got.shape != _PROBE_GRAD.shape:
        raise NotYet(f"{name} should return one number per entry of w, shape {_PROBE_GRAD.shape}, not {got.shape}.")
    return got


@exercise("1.1", "for each i, add h to w[i] only (copy w first!), evaluate f, subtract f(w), divide by h.")
def forward_difference(fn: object, evidence: Evidence) -> str:
    got = _differences(fn, "forward_difference", 1e-7)
    if np.allclose(got, _PROBE_GRAD * 1e-7, rtol=1e-2):
        raise NotYet(f"forward_difference(f, w, 1e-7) is {show(got)}: about h times too small. Did you divide by h?")
    # a finite difference is an approximation: its own truncation and rounding errors set the tolerance
    expect_close(got, _PROBE_GRAD, "forward_difference(f, w, 1e-7)", rtol=1e-5)
    return "With h = 1e-7 it is good to about 6 digits, and it needed 4 evaluations of f for 3 parameters."


@exercise(
    "1.2",
    "make x and y mt.Variable(...) (or watch constants), compute g inside the tape, then tape.gradient(g, [x, y]).",
    evidence=("tape", "target", "sources"),
    names=("x", "y"),
)
def tape_gradient(answer: object, evidence: Evidence) -> str:
    dx, dy = items(answer, 2, "a list of two gradients, [dg/dx, dg/dy]")
    right = (2 * 1.0 * 2.0 + np.cos(1.0), 1.0)
    for value, what in ((dx, "dg/dx"), (dy, "dg/dy")):
        if value is not None:
            as_array(value, what)  # a string or a wrong type is named before the values are compared
    if dx is not None and dy is not None and np.allclose(as_array([dx, dy]), right[::-1], rtol=1e-4):
        raise NotYet("the two gradients are in the wrong order: the list should be [dg/dx, dg/dy].")
    expect_gradient(dx, right[0], "dg/dx", evidence, ("x", "y"), only=("x",))
    expect_gradient(dy, right[1], "dg/dy", evidence, ("x", "y"), only=("y",))
    return "dg/dx = 2xy + cos x = 4.5403 and dg/dy = x² = 1, exact to float32 precision."


@exercise("1.3", "(f(w + h e_i) - f(w - h e_i)) / (2h): the h² terms of the Taylor series cancel.")
def central_difference(fn: object, evidence: Evidence) -> str:
    got = _differences(fn, "central_difference", 1e-5)
    error = float(np.max(np.abs(got - _PROBE_GRAD)))
    if error > 1e-3:
        raise NotYet(f"central_difference(f, w, 1e-5) is {show(got)}, which is not the gradient.")
    if error > 1e-8:
        raise NotYet(
            f"at h = 1e-5 its largest error is {error:.1e}, the size a one-sided (forward) difference has; "
            "a central difference, which steps both ways, gets below 1e-8."
        )
    return "Its error shrinks like h² instead of h: at h = 1e-5 it is already below 1e-8."
