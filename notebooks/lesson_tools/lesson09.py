"""Checkers for lesson 09: forward and reverse mode."""

from __future__ import annotations

import numpy as np

from lesson_tools.checking import Evidence, NotYet, as_array, exercise, expect_close, expect_gradient, tape_reasons
from lesson_tools.language import say

TAPE = ("tape", "target", "sources")


def _three_entries(got: np.ndarray, per_entry: np.ndarray) -> NotYet:
    if np.allclose(got, per_entry, rtol=1e-4):
        return NotYet(
            say(
                "your answer has 3 entries, one per x_i: your h is still the vector x**2 * mt.cos(x), not its sum. "
                "Sum it where it is computed, inside the accumulator's block: h = mt.reduce_sum(x**2 * mt.cos(x)); "
                "a sum taken after the block carries no tangent, and acc.jvp of it is None.",
                "여러분의 답은 x_i마다 하나씩, 원소가 3개입니다. h가 아직 합이 아니라 벡터 x**2 * mt.cos(x)입니다. "
                "계산하는 자리, 곧 누산기의 블록 안에서 더하세요: h = mt.reduce_sum(x**2 * mt.cos(x)). 블록이 끝난 뒤에 "
                "더한 합에는 접선이 없어서 acc.jvp가 None을 줍니다.",
            )
        )
    return NotYet(
        say(
            "your answer has 3 entries: the directional derivative ∇h(x)·u is a single number, the tangent of "
            "h = mt.reduce_sum(x**2 * mt.cos(x)) computed inside the accumulator's block.",
            "여러분의 답은 원소가 3개입니다. 방향 도함수 ∇h(x)·u는 숫자 하나, 곧 누산기의 블록 안에서 계산한 "
            "h = mt.reduce_sum(x**2 * mt.cos(x))의 접선입니다.",
        )
    )


@exercise(
    "9.1",
    "inside `with mt.autodiff.ForwardAccumulator(x, u) as acc:` compute h = mt.reduce_sum(x**2 * mt.cos(x)), "
    "the sum included; after the block, acc.jvp(h).",
    ko="`with mt.autodiff.ForwardAccumulator(x, u) as acc:` 안에서 합까지 포함해 h = mt.reduce_sum(x**2 * mt.cos(x))를 "
    "계산하고, 블록이 끝난 뒤 acc.jvp(h)를 구하세요.",
)
def directional(answer: object, evidence: Evidence) -> str:
    x, u = np.array([0.5, 1.0, 1.5]), np.array([1.0, -1.0, 2.0])
    gradient = 2 * x * np.cos(x) - x**2 * np.sin(x)
    what = say("your directional derivative", "여러분의 방향 도함수")
    if answer is None:
        raise NotYet(
            say(
                "acc.jvp(h) is None: the accumulator did not follow h back to x. Forward mode's way of watching is "
                "the primal: compute h inside `with mt.autodiff.ForwardAccumulator(x, u) as acc:`, from that same x.",
                "acc.jvp(h)가 None입니다. 누산기가 h에서 x까지 따라가지 못했습니다. 순방향 모드에서 감시에 해당하는 것은 "
                "primal입니다. `with mt.autodiff.ForwardAccumulator(x, u) as acc:` 안에서 바로 그 x로 h를 계산하세요.",
            )
        )
    if answer is not Ellipsis and np.allclose(as_array(answer, what), u):
        raise NotYet(
            say(
                "your answer is u itself, the tangent you gave x: acc.jvp(x) hands it back. Ask for the tangent of "
                "the output, acc.jvp(h).",
                "여러분의 답은 x에 준 접선 u 그 자체입니다. acc.jvp(x)는 그것을 그대로 돌려줍니다. 출력의 접선 "
                "acc.jvp(h)를 요청하세요.",
            )
        )
    if answer is not Ellipsis and as_array(answer, what).shape == (3,):
        raise _three_entries(as_array(answer), gradient * u)
    slips = [
        (
            float(np.sum(gradient)),
            say(
                "that is ∇h(x)·(1, 1, 1): the accumulator's tangent was ones, not u. Pass u as the second argument, "
                "ForwardAccumulator(x, u).",
                "그것은 ∇h(x)·(1, 1, 1)입니다. 누산기의 접선이 u가 아니라 1이었습니다. u를 두 번째 인수로 넘기세요: "
                "ForwardAccumulator(x, u).",
            ),
        ),
        (
            float(np.sum((2 * x * np.cos(x) + x**2 * np.sin(x)) * u)),
            say(
                "your h'(x) has + x² sin x; the derivative of cos x is -sin x, so ∂h/∂x_i = 2 x_i cos x_i - x_i² sin x_i.",
                "여러분의 h'(x)에 + x² sin x가 있습니다. cos x의 도함수는 -sin x이므로 "
                "∂h/∂x_i = 2 x_i cos x_i - x_i² sin x_i입니다.",
            ),
        ),
        (
            float(np.sum(x**2 * np.cos(x))),
            say(
                "that is h(x) itself, the primal: acc.jvp(h) gives the tangent, ∇h(x)·u.",
                "그것은 h(x) 자체, 곧 primal입니다. acc.jvp(h)가 접선 ∇h(x)·u를 줍니다.",
            ),
        ),
    ]
    right = float(np.sum(gradient * u))
    expect_close(answer, right, what, slips=slips)
    return say(
        f"∇h(x)·u = {right:.4f}, in one forward pass.", f"∇h(x)·u = {right:.4f}, 순방향 패스 한 번으로 구했습니다."
    )


@exercise(
    "9.2",
    "tape.gradient(y, x, output_gradients=mt.constant([2.0, -1.0])) weights each output.",
    evidence=TAPE,
    names=("x",),
    ko="tape.gradient(y, x, output_gradients=mt.constant([2.0, -1.0]))가 출력마다 가중치를 줍니다.",
)
def vjp(answer: object, evidence: Evidence) -> str:
    what = say("your VJP", "여러분의 VJP")
    if answer is not None and answer is not Ellipsis:
        got = as_array(answer, what)
        if got.shape == (2,) and np.allclose(got, [3.0 + np.cos(2.0), 2.0], rtol=1e-4):
            raise NotYet(
                say(
                    "that is vᵀJ for v = (1, 1), the default: pass output_gradients=mt.constant([2.0, -1.0]).",
                    "그것은 기본값 v = (1, 1)에 대한 vᵀJ입니다. output_gradients=mt.constant([2.0, -1.0])를 넘기세요.",
                )
            )
    slips = [
        (
            [2 * 3.0 + np.cos(2.0), 2 * 2.0],
            say(
                "your VJP adds the second row: v = (2, 1). The weight of sin x0 is -1.",
                "여러분의 VJP는 두 번째 행을 더했습니다: v = (2, 1). sin x0의 가중치는 -1입니다.",
            ),
        ),
        (
            [2 * 3.0 - 2 * np.cos(2.0), 2 * 2.0],
            say(
                "your VJP weights the two rows with (2, -2): output_gradients is (2, -1).",
                "여러분의 VJP는 두 행에 (2, -2)를 곱했습니다. output_gradients는 (2, -1)입니다.",
            ),
        ),
        (
            [2 * 3.0 - np.cos(2.0) * 0, 2 * 2.0 - np.cos(2.0)],
            say(
                "your VJP has cos 2 in the wrong entry: the Jacobian's second row is (cos x0, 0).",
                "여러분의 VJP에서 cos 2가 다른 원소에 있습니다. 야코비안의 두 번째 행은 (cos x0, 0)입니다.",
            ),
        ),
    ]
    expect_gradient(answer, [2 * 3.0 - np.cos(2.0), 2 * 2.0], what, evidence, ("x",), slips=slips)
    return say(
        "vᵀJ = 2·(first row) - 1·(second row) = (6 - cos 2, 4).",
        "vᵀJ = 2·(첫 행) - 1·(둘째 행) = (6 - cos 2, 4)입니다.",
    )


@exercise(
    "9.3",
    "put the tape (and tape.gradient) inside the ForwardAccumulator block; then acc.jvp of the gradient.",
    evidence=TAPE,
    names=("x",),
    ko="테이프(와 tape.gradient)를 ForwardAccumulator 블록 안에 두고, 그래디언트의 acc.jvp를 구하세요.",
)
def hvp(answer: object, evidence: Evidence) -> str:
    what = say("your Hessian-vector product", "여러분의 헤세 행렬-벡터 곱")
    reasons = tape_reasons(evidence, ("x",))
    if answer is None and evidence.get("tape") is not None and not all(r.connected for r in reasons or []):
        expect_gradient(None, None, what, evidence, ("x",))
    if answer is None:  # the tape is fine (or not passed): g was computed outside the accumulator
        raise NotYet(
            say(
                "acc.jvp(g) is None: g carries no tangent. Compute the tape and g = tape.gradient(f, x) inside "
                "`with mt.autodiff.ForwardAccumulator(x, v) as acc:`, from that same x.",
                "acc.jvp(g)가 None입니다. g에 접선이 없습니다. `with mt.autodiff.ForwardAccumulator(x, v) as acc:` 안에서 "
                "바로 그 x로 테이프와 g = tape.gradient(f, x)를 계산하세요.",
            )
        )
    if answer is not Ellipsis and np.allclose(as_array(answer, what), [0.0, 2.0], atol=1e-5):
        raise NotYet(
            say(
                "that is the gradient g = (2 x0 x1, x0² + e^x1) = (0, 2); the exercise asks for H v = acc.jvp(g).",
                "그것은 그래디언트 g = (2 x0 x1, x0² + e^x1) = (0, 2)입니다. 이 연습 문제는 H v = acc.jvp(g)를 묻습니다.",
            )
        )
    slips = [
        (
            [2.0, 3.0],  # H (1, 1)
            say(
                "your H v uses the tangent (1, 1); the exercise's v is (1, 2).",
                "여러분의 H v는 접선 (1, 1)을 썼습니다. 이 연습 문제의 v는 (1, 2)입니다.",
            ),
        ),
        (
            [2.0, 1.0],
            say(
                "that is H's second column alone, H e_1: the tangent was (0, 1); v is (1, 2).",
                "그것은 H의 두 번째 열 H e_1뿐입니다. 접선이 (0, 1)이었습니다. v는 (1, 2)입니다.",
            ),
        ),
    ]
    expect_close(answer, [2 * 0.0 * 1 + 2 * 1.0 * 2, 2 * 1.0 * 1 + 1.0 * 2], what, slips=slips)
    return say(
        "H = [[2 x1, 2 x0], [2 x0, e^x1]] = [[0, 2], [2, 1]], so H v = (4, 4).",
        "H = [[2 x1, 2 x0], [2 x0, e^x1]] = [[0, 2], [2, 1]]이므로 H v = (4, 4)입니다.",
    )
