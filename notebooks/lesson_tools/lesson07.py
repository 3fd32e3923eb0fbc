"""Checkers for lesson 07: stop_gradient and custom_gradient."""

from __future__ import annotations

import numpy as np

import minitape as mt
from lesson_tools.checking import NotYet, as_number, describe, exercise, expect_function, not_written, show


def _value_and_gradient(fn: object, name: str, x: float, scale: float = 1.0) -> tuple[float, object]:
    """Run the student's function on a watched constant x: the value of scale * fn(x), and its gradient."""
    expect_function(fn, name)
    source = mt.constant(x)
    with mt.GradientTape() as tape:
        tape.watch(source)
        try:
            out = fn(source)
        except TypeError as error:
            if "unpack" in str(error):  # custom_gradient unpacks (value, grad) from what the function returned
                raise NotYet(
                    f"{name} must return two things, the value and the grad function: `return mt.identity(x), grad` "
                    f"(it returned {'nothing' if 'NoneType' in str(error) else 'something else'})."
                ) from None
            raise NotYet(f"calling {name}(x) raised TypeError: {error}") from None
        except Exception as error:
            first = str(error).splitlines()[0] if str(error) else ""
            raise NotYet(f"calling {name}(x) raised {type(error).__name__}: {first}") from None
        if out is None:
            raise NotYet(f"{name}(x) returned None: end it with `return` and a tensor.")
        if isinstance(out, tuple) and len(out) == 2 and callable(out[1]):
            raise NotYet(
                f"{name}(x) returned the pair (value, grad function) itself: without @mt.custom_gradient on the line "
                f"above `def {name}`, nothing uses your grad. Add the decorator."
            )
        if not hasattr(out, "numpy"):
            raise NotYet(f"{name}(x) returned {describe(out)}: return a tensor computed from x with mt ops.")
        y = scale * out
    try:
        gradient = tape.gradient(y, source)
    except Exception as error:
        first = str(error).splitlines()[0] if str(error) else ""
        raise NotYet(f"the gradient through {name} raised {type(error).__name__}: {first}") from None
    return float(y), gradient


@exercise("7.1", "x * mt.stop_gradient(...): the factors inside stop_gradient count as constants.")
def partial_stop(fn: object, evidence: object) -> str:
    value, grad = _value_and_gradient(fn, "f", 2.0)
    if abs(value - 8.0) > 1e-5:
        raise NotYet(f"f(2) is {value:g}, but the value should still be x³ = 8.")
    if grad is None:
        raise NotYet("the gradient of f is None: all three factors are inside stop_gradient; leave one x outside.")
    g = as_number(grad, "the gradient of f at 2")
    if abs(g - 12.0) < 1e-5:
        raise NotYet("the gradient at x = 2 is 12 = 3x²: nothing was stopped. Put two factors inside mt.stop_gradient.")
    if abs(g - 4.0) > 1e-5:
        raise NotYet(f"the gradient at x = 2 is {g:g}; with two factors stopped it should be x² = 4.")
    return "Value x³, gradient x²: the tape only sees the factor that was not stopped."


# (x, upstream): x and the upstream gradient each inside and outside [-1, 1], and negative
_CLIP_CASES = [(3.0, 5.0), (0.5, 0.25), (-2.0, -4.0), (-0.5, 3.0), (2.0, -0.5)]


@exercise("7.2", "inside, define grad(upstream) returning mt.clip_by_value(upstream, -1.0, 1.0); return (x, grad).")
def clip(fn: object, evidence: object) -> str:
    got = []
    for x, upstream in _CLIP_CASES:
        shown = f"{upstream:g} * clip_gradient(x) at x = {x:g}"
        value, grad = _value_and_gradient(fn, "clip_gradient", x, scale=upstream)
        if abs(value - upstream * x) > 1e-5:
            raise NotYet(f"{shown} is {value:g}; the value should pass unchanged ({upstream * x:g}).")
        if grad is None:
            raise NotYet(
                "the gradient through clip_gradient is None: your grad function must return the clipped upstream."
            )
        got.append(as_number(grad, f"the gradient of {shown}"))
    xs, upstreams = (np.array(column) for column in zip(*_CLIP_CASES))
    if np.allclose(got, np.clip(upstreams, -1.0, 1.0), atol=1e-6):
        return "Every upstream gradient came back clipped to [-1, 1], and the values passed unchanged."
    if np.allclose(got, upstreams, atol=1e-6):
        raise NotYet("the gradient is the upstream gradient unchanged: it was not clipped to [-1, 1].")
    if np.allclose(got, np.clip(xs, -1.0, 1.0), atol=1e-6):
        raise NotYet(
            "your grad clips x, the function's input; what comes back should be the upstream gradient, clipped."
        )
    if np.allclose(got, got[0], atol=1e-6):
        raise NotYet(
            f"the gradient is {got[0]:g} whatever the upstream gradient is (tried {show(upstreams)}): grad should "
            "return what it receives, clipped."
        )
    wrong = next(i for i, g in enumerate(got) if abs(g - np.clip(upstreams[i], -1.0, 1.0)) > 1e-6)
    x, upstream = _CLIP_CASES[wrong]
    raise NotYet(
        f"the gradient of {upstream:g} * clip_gradient(x) at x = {x:g} is {got[wrong]:g}, not the upstream {upstream:g} "
        "clipped to [-1, 1]."
    )


@exercise("7.3", "the message names the op that produced the NaN and the forward op whose gradient it was computing.")
def sqrt_nan(answer: object, evidence: object) -> str:
    if answer is Ellipsis:
        raise not_written("answer")
    if not isinstance(answer, str):
        raise NotYet(f'answer should be an op\'s name as a string, like "Mul", not {describe(answer)}.')
    name = answer.strip()
    if name.lower() in {"realdiv", "div", "mul"}:
        raise NotYet(f"{name} is the op that computed the NaN; which forward op's gradient was it computing?")
    if name.lower() != "sqrt":
        raise NotYet(f"{name!r} is not the op named after 'in the backward pass of'.")
    return "Sqrt: its derivative 1/(2√z) is infinite at 0, and 0 · ∞ (here 0/0) is NaN."
