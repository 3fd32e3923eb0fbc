"""Checkers for lesson 07: stop_gradient and custom_gradient."""

from __future__ import annotations

import minitape as mt
from lesson_tools._core import NotYet, as_number, exercise


def _value_and_gradient(fn: object, x: float, scale: float = 1.0) -> tuple[float, object]:
    source = mt.constant(x)
    with mt.GradientTape() as tape:
        tape.watch(source)
        out = fn(source)
        if out is None:
            raise NotYet("your function returned None: return a tensor.")
        y = scale * out
    return float(y), tape.gradient(y, source)


@exercise("7.1", "x * mt.stop_gradient(...): the factors inside stop_gradient count as constants.")
def partial_stop(fn: object) -> str:
    value, grad = _value_and_gradient(fn, 2.0)
    if abs(value - 8.0) > 1e-5:
        raise NotYet(f"f(2) is {value:g}, but the value should still be x³ = 8.")
    g = as_number(grad, "the gradient of f at 2")
    if abs(g - 4.0) > 1e-5:
        raise NotYet(f"the gradient at x = 2 is {g:g}; with two factors stopped it should be x² = 4.")
    return "Value x³, gradient x²: the tape only sees the factor that was not stopped."


@exercise("7.2", "inside, define grad(upstream) returning mt.clip_by_value(upstream, -1.0, 1.0); return (x, grad).")
def clip(fn: object) -> str:
    value, grad = _value_and_gradient(fn, 3.0, scale=5.0)
    if abs(value - 15.0) > 1e-5:
        raise NotYet(f"5 * clip_gradient(3) is {value:g}; the value should pass unchanged (15).")
    g = as_number(grad, "the gradient of 5 * clip_gradient(x)")
    if abs(g - 1.0) > 1e-6:
        raise NotYet(f"the gradient of 5 * clip_gradient(x) is {g:g}, not the clipped 1.")
    return "The upstream gradient 5 was clipped to 1 on its way back."


@exercise("7.3", "the message names the op that produced the NaN and the forward op whose gradient it was computing.")
def sqrt_nan(answer: object) -> str:
    name = str(answer).strip()
    if name.lower() in {"realdiv", "div", "mul"}:
        raise NotYet(f"{name} is the op that computed the NaN; which forward op's gradient was it computing?")
    if name.lower() != "sqrt":
        raise NotYet(f"{name!r} is not the op named after 'in the backward pass of'.")
    return "Sqrt: its derivative 1/(2√z) is infinite at 0, and 0 · ∞ (here 0/0) is NaN."
