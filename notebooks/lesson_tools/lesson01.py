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
from lesson_tools.language import say


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
        raise NotYet(
            say(
                f"{name} changed the w it was given: copy w before adding h (np.array(w, dtype=float)).",
                f"{name}이(가) 받은 w를 바꿔 버렸습니다. h를 더하기 전에 w를 복사하세요(np.array(w, dtype=float)).",
            )
        )
    if result is None:
        raise NotYet(
            say(
                f"{name} returned None: end it with `return` and the array of differences.",
                f"{name}이(가) None을 돌려주었습니다. 마지막에 `return`으로 차분의 배열을 돌려주세요.",
            )
        )
    got = as_array(result, f"{name}(f, w, {h:g})")
    if got.shape != _PROBE_GRAD.shape:
        raise NotYet(
            say(
                f"{name} should return one number per entry of w, shape {_PROBE_GRAD.shape}, not {got.shape}.",
                f"{name}은(는) w의 원소마다 숫자 하나, 곧 shape {_PROBE_GRAD.shape}을 돌려주어야 하는데 "
                f"{got.shape}을 돌려주었습니다.",
            )
        )
    return got


@exercise(
    "1.1",
    "for each i, add h to w[i] only (copy w first!), evaluate f, subtract f(w), divide by h.",
    ko="각 i마다 w[i]에만 h를 더하고(w는 먼저 복사!), f를 계산해 f(w)를 빼고, h로 나누세요.",
)
def forward_difference(fn: object, evidence: Evidence) -> str:
    got = _differences(fn, "forward_difference", 1e-7)
    shown = "forward_difference(f, w, 1e-7)"
    if np.allclose(got, _PROBE_GRAD * 1e-7, rtol=1e-2):
        raise NotYet(
            say(
                f"{shown} is {show(got)}: about h times too small. Did you divide by h?",
                f"{shown}: {show(got)}, h배쯤 너무 작습니다. h로 나누었나요?",
            )
        )
    if np.allclose(got, -_PROBE_GRAD, rtol=1e-4):
        raise NotYet(
            say(
                f"{shown} is {show(got)}: the gradient with the wrong sign. Subtract f(w) from f(w + h e_i), "
                "not the other way round.",
                f"{shown}: {show(got)}, 부호가 반대인 그래디언트입니다. f(w)에서 f(w + h e_i)를 빼지 말고, "
                "f(w + h e_i)에서 f(w)를 빼세요.",
            )
        )
    if np.allclose(got, np.full(3, _PROBE_GRAD.sum()), rtol=1e-4):
        raise NotYet(
            say(
                f"{shown} gives the same number for every entry: the sum of the partial derivatives. You added h "
                "to every entry of w at once; step along one entry w[i] at a time.",
                f"{shown}: 모든 원소에 같은 숫자, 곧 편미분의 합이 나옵니다. w의 모든 원소에 한꺼번에 h를 "
                "더했습니다. 한 번에 원소 w[i] 하나만 움직이세요.",
            )
        )
    # a finite difference is an approximation: its own truncation and rounding errors set the tolerance
    expect_close(got, _PROBE_GRAD, shown, rtol=1e-5)
    return say(
        "With h = 1e-7 it is good to about 6 digits, and it needed 4 evaluations of f for 3 parameters.",
        "h = 1e-7이면 유효숫자 6자리쯤 맞고, 매개변수 3개에 f를 4번 계산했습니다.",
    )


@exercise(
    "1.2",
    "make x and y mt.Variable(...) (or watch constants), compute g inside the tape, then tape.gradient(g, [x, y]).",
    evidence=("tape", "target", "sources"),
    names=("x", "y"),
    ko="x와 y를 mt.Variable(...)로 만들고(또는 상수를 감시하고), 테이프 안에서 g를 계산한 다음 "
    "tape.gradient(g, [x, y])를 구하세요.",
)
def tape_gradient(answer: object, evidence: Evidence) -> str:
    dx, dy = items(
        answer, 2, say("a list of two gradients, [dg/dx, dg/dy]", "그래디언트 두 개의 리스트 [dg/dx, dg/dy]")
    )
    x, y = 1.0, 2.0
    right = (2 * x * y + np.cos(x), x**2)
    for value, what in ((dx, "dg/dx"), (dy, "dg/dy")):
        if value is not None:
            as_array(value, what)  # a string or a wrong type is named before the values are compared
    if dx is not None and dy is not None and np.allclose(as_array([dx, dy]), right[::-1], rtol=1e-4):
        raise NotYet(
            say(
                "the two gradients are in the wrong order: the list should be [dg/dx, dg/dy].",
                "두 그래디언트의 순서가 바뀌었습니다. 리스트는 [dg/dx, dg/dy]여야 합니다.",
            )
        )
    dx_slips = [
        (
            2 * x * y - np.cos(x),
            say(
                "dg/dx has -cos x where it needs +cos x: the derivative of sin x is cos x (of cos x, it is -sin x).",
                "dg/dx에 +cos x 대신 -cos x가 들어 있습니다. sin x의 도함수는 cos x입니다(-sin x는 cos x의 도함수).",
            ),
        ),
        (
            2 * x + np.cos(x),
            say(
                "dg/dx is 2x + cos x: the factor y of x²y is missing. The derivative of x²y along x is 2xy.",
                "dg/dx가 2x + cos x입니다. x²y의 인수 y가 빠졌습니다. x²y를 x로 미분하면 2xy입니다.",
            ),
        ),
        (
            2 * x * y,
            say(
                "dg/dx is 2xy: the term cos x, from sin x, is missing.",
                "dg/dx가 2xy입니다. sin x에서 나오는 항 cos x가 빠졌습니다.",
            ),
        ),
    ]
    dy_slips = [
        (
            2 * x,
            say(
                "dg/dy is 2x, a derivative along x; along y, x²y gives x² and sin x gives 0.",
                "dg/dy가 2x, 곧 x 방향 도함수입니다. y로 미분하면 x²y는 x², sin x는 0입니다.",
            ),
        ),
        (
            x**2 * y + np.sin(x),
            say(
                "dg/dy is g itself, the value of x²y + sin x: give the gradient tape.gradient(g, y).",
                "dg/dy가 g의 값 x²y + sin x 그 자체입니다. 그래디언트 tape.gradient(g, y)를 넘기세요.",
            ),
        ),
    ]
    expect_gradient(dx, right[0], "dg/dx", evidence, ("x", "y"), only=("x",), slips=dx_slips)
    expect_gradient(dy, right[1], "dg/dy", evidence, ("x", "y"), only=("y",), slips=dy_slips)
    return say(
        "dg/dx = 2xy + cos x = 4.5403 and dg/dy = x² = 1, exact to float32 precision.",
        "dg/dx = 2xy + cos x = 4.5403, dg/dy = x² = 1로, float32 정밀도까지 정확합니다.",
    )


@exercise(
    "1.3",
    "(f(w + h e_i) - f(w - h e_i)) / (2h): the h² terms of the Taylor series cancel.",
    ko="(f(w + h e_i) - f(w - h e_i)) / (2h): 테일러 급수의 h² 항이 서로 지워집니다.",
)
def central_difference(fn: object, evidence: Evidence) -> str:
    got = _differences(fn, "central_difference", 1e-5)
    shown = "central_difference(f, w, 1e-5)"
    if np.allclose(got, 2 * _PROBE_GRAD, rtol=1e-4):
        raise NotYet(
            say(
                f"{shown} is {show(got)}, twice the gradient: the two steps span 2h, so divide by 2h, not h.",
                f"{shown}: {show(got)}, 그래디언트의 두 배입니다. 양쪽으로 한 걸음씩이면 간격이 2h이므로 h가 아니라 "
                "2h로 나누세요.",
            )
        )
    if np.allclose(got, -_PROBE_GRAD, rtol=1e-4):
        raise NotYet(
            say(
                f"{shown} is {show(got)}: the gradient with the wrong sign. It is f(w + h e_i) - f(w - h e_i).",
                f"{shown}: {show(got)}, 부호가 반대인 그래디언트입니다. f(w + h e_i) - f(w - h e_i) 순서입니다.",
            )
        )
    error = float(np.max(np.abs(got - _PROBE_GRAD)))
    if error > 1e-3:
        raise NotYet(
            say(f"{shown} is {show(got)}, which is not the gradient.", f"{shown}: {show(got)}, 그래디언트가 아닙니다.")
        )
    if error > 1e-8:
        raise NotYet(
            say(
                f"at h = 1e-5 its largest error is {error:.1e}, the size a one-sided (forward) difference has; "
                "a central difference, which steps both ways, gets below 1e-8.",
                f"h = 1e-5에서 가장 큰 오차가 {error:.1e}로, 한쪽(전방) 차분의 크기입니다. 양쪽으로 움직이는 "
                "중앙 차분이라면 1e-8 아래로 내려갑니다.",
            )
        )
    return say(
        "Its error shrinks like h² instead of h: at h = 1e-5 it is already below 1e-8.",
        "오차가 h가 아니라 h²에 비례해 줄어듭니다. h = 1e-5에서 벌써 1e-8 아래입니다.",
    )
