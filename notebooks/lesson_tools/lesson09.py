"""Checkers for lesson 09: forward and reverse mode."""

from __future__ import annotations

import numpy as np

from lesson_tools.checking import Evidence, NotYet, as_array, exercise, expect_close, expect_gradient, tape_reasons

TAPE = ("tape", "target", "sources")


@exercise(
    "9.1",
    "inside `with mt.autodiff.ForwardAccumulator(x, u) as acc:` compute h = mt.reduce_sum(x**2 * mt.cos(x)), "
    "the sum included; after the block, acc.jvp(h).",
)
def directional(answer: object, evidence: Evidence) -> str:
    x, u = np.array([0.5, 1.0, 1.5]), np.array([1.0, -1.0, 2.0])
    gradient = 2 * x * np.cos(x) - x**2 * np.sin(x)
    if answer is None:
        raise NotYet(
            "acc.jvp(h) is None: the accumulator did not follow h back to x. Forward mode's way of watching is the "
            "primal: compute h inside `with mt.autodiff.ForwardAccumulator(x, u) as acc:`, from that same x."
        )
    if answer is not Ellipsis and np.allclose(as_array(answer, "your directional derivative"), u):
        raise NotYet(
            "your answer is u itself, the tangent you gave x: acc.jvp(x) hands it back. Ask for the tangent of the "
            "output, acc.jvp(h)."
        )
    if answer is not Ellipsis and as_array(answer, "your directional derivative").shape == (3,):
        got = as_array(answer)
        if np.allclose(got, gradient * u, rtol=1e-4):
            raise NotYet(
                "your answer has 3 entries, one per x_i: your h is still the vector x**2 * mt.cos(x), not its sum. "
                "Sum it where it is computed, inside the accumulator's block: h = mt.reduce_sum(x**2 * mt.cos(x)); "
                "a sum taken after the block carries no tangent, and acc.jvp of it is None."
            )
        raise NotYet(
            "your answer has 3 entries: the directional derivative ∇h(x)·u is a single number, the tangent of "
            "h = mt.reduce_sum(x**2 * mt.cos(x)) computed inside the accumulator's block."
        )
    slips = [
        (
            float(np.sum(gradient)),
            "that is ∇h(x)·(1, 1, 1): the accumulator's tangent was ones, not u. Pass u as the second argument, "
            "ForwardAccumulator(x, u).",
        ),
        (
            float(np.sum((2 * x * np.cos(x) + x**2 * np.sin(x)) * u)),
            "your h'(x) has + x² sin x; the derivative of cos x is -sin x, so ∂h/∂x_i = 2 x_i cos x_i - x_i² sin x_i.",
        ),
        (
            float(np.sum(x**2 * np.cos(x))),
            "that is h(x) itself, the primal: acc.jvp(h) gives the tangent, ∇h(x)·u.",
        ),
    ]
    expect_close(answer, float(np.sum(gradient * u)), "your directional derivative", slips=slips)
    return f"∇h(x)·u = {float(np.sum(gradient * u)):.4f}, in one forward pass."


@exercise(
    "9.2",
    "tape.gradient(y, x, output_gradients=mt.constant([2.0, -1.0])) weights each output.",
    evidence=TAPE,
    names=("x",),
)
def vjp(answer: object, evidence: Evidence) -> str:
    if answer is not None and answer is not Ellipsis:
        got = as_array(answer, "your VJP")
        if got.shape == (2,) and np.allclose(got, [3.0 + np.cos(2.0), 2.0], rtol=1e-4):
            raise NotYet("that is vᵀJ for v = (1, 1), the default: pass output_gradients=mt.constant([2.0, -1.0]).")
    expect_gradient(answer, [2 * 3.0 - np.cos(2.0), 2 * 2.0], "your VJP", evidence, ("x",))
    return "vᵀJ = 2·(first row) - 1·(second row) = (6 - cos 2, 4)."


@exercise(
    "9.3",
    "put the tape (and tape.gradient) inside the ForwardAccumulator block; then acc.jvp of the gradient.",
    evidence=TAPE,
    names=("x",),
)
def hvp(answer: object, evidence: Evidence) -> str:
    reasons = tape_reasons(evidence, ("x",))
    if answer is None and evidence.get("tape") is not None and not all(r.connected for r in reasons or []):
        expect_gradient(None, None, "your Hessian-vector product", evidence, ("x",))
    if answer is None:  # the tape is fine (or not passed): g was computed outside the accumulator
        raise NotYet(
            "acc.jvp(g) is None: g carries no tangent. Compute the tape and g = tape.gradient(f, x) inside "
            "`with mt.autodiff.ForwardAccumulator(x, v) as acc:`, from that same x."
        )
    if answer is not Ellipsis and np.allclose(as_array(answer, "your answer"), [0.0, 2.0], atol=1e-5):
        raise NotYet("that is the gradient g = (2 x0 x1, x0² + e^x1) = (0, 2); the exercise asks for H v = acc.jvp(g).")
    expect_close(answer, [2 * 0.0 * 1 + 2 * 1.0 * 2, 2 * 1.0 * 1 + 1.0 * 2], "your Hessian-vector product")
    return "H = [[2 x1, 2 x0], [2 x0, e^x1]] = [[0, 2], [2, 1]], so H v = (4, 4)."
