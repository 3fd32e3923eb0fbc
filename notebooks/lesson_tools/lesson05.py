"""Checkers for lesson 05: nested tapes."""

from __future__ import annotations

import numpy as np

from lesson_tools.checking import Evidence, NotYet, as_array, describe, exercise, expect_gradient, not_written
from lesson_tools.language import say

TAPE = ("tape", "target", "sources")


@exercise(
    "5.1",
    "nest two tapes; call inner.gradient inside the outer with block, then outer.gradient on its result.",
    evidence=TAPE,
    names=("x",),
    ko="테이프 두 개를 중첩하세요. 바깥 with 블록 안에서 inner.gradient를 호출하고, 그 결과에 outer.gradient를 "
    "호출합니다.",
    tape_name="outer",
)
def second_derivative(answer: object, evidence: Evidence) -> str:
    x = 1.0
    what = say("your second derivative", "여러분의 이계도함수 값")
    if answer is not None and answer is not Ellipsis and as_array(answer, what).size == 1:
        if np.isclose(float(as_array(answer).reshape(())), np.sin(x) + x * np.cos(x), rtol=1e-4):
            raise NotYet(
                say(
                    "that is the first derivative, sin x + x cos x: differentiate it again with the outer tape.",
                    "그것은 일계도함수 sin x + x cos x입니다. 바깥 테이프로 한 번 더 미분하세요.",
                )
            )
    slips = [
        (
            np.cos(x) - x * np.sin(x),
            say(
                "your second derivative is cos x - x sin x: one cos x is missing. Differentiating sin x + x cos x "
                "gives cos x from sin x and, by the product rule, cos x - x sin x from x cos x.",
                "여러분의 이계도함수는 cos x - x sin x로, cos x 하나가 빠졌습니다. sin x + x cos x를 미분하면 sin x에서 "
                "cos x가, 곱의 법칙에 따라 x cos x에서 cos x - x sin x가 나옵니다.",
            ),
        ),
        (
            x * np.sin(x),
            say(
                "your second derivative is x sin x, the function itself: nothing was differentiated.",
                "여러분의 이계도함수는 함수 값 x sin x 자체입니다. 아무것도 미분되지 않았습니다.",
            ),
        ),
        (
            -x * np.sin(x),
            say(
                "your second derivative is -x sin x: the product rule's 2 cos x is missing.",
                "여러분의 이계도함수는 -x sin x로, 곱의 법칙에서 나오는 2 cos x가 빠졌습니다.",
            ),
        ),
    ]
    expect_gradient(answer, 2 * np.cos(x) - x * np.sin(x), what, evidence, ("x",), slips=slips)
    return say(
        "d²/dx² (x sin x) = 2 cos x - x sin x = 0.2391 at x = 1.",
        "x = 1에서 d²/dx² (x sin x) = 2 cos x - x sin x = 0.2391입니다.",
    )


@exercise(
    "5.2",
    "the inner tape gives the gradient (a vector of 2); the outer tape's jacobian of it is the Hessian.",
    evidence=TAPE,
    names=("x",),
    ko="안쪽 테이프가 그래디언트(길이 2인 벡터)를 주고, 그것에 대한 바깥 테이프의 jacobian이 헤세 행렬입니다.",
    tape_name="outer",
)
def hessian(answer: object, evidence: Evidence) -> str:
    what = say("your Hessian", "여러분의 헤세 행렬")
    if answer is not None and answer is not Ellipsis and as_array(answer, what).shape == (2,):
        got = as_array(answer)
        if np.allclose(got, [6.0 + 4.0, 4.0 + 2.0], rtol=1e-4):
            raise NotYet(
                say(
                    "your answer is the Hessian's two rows added up: that is what outer.gradient gives for a vector "
                    "target (the gradient of the sum of its entries). For one row per entry, ask outer.jacobian.",
                    "여러분의 답은 헤세 행렬의 두 행을 더한 것입니다. 벡터 타깃에 outer.gradient를 쓰면 그렇게 "
                    "나옵니다(원소 합의 그래디언트). 원소마다 한 행씩 얻으려면 outer.jacobian을 쓰세요.",
                )
            )
        if np.allclose(got, [3.0 + 4.0, 4.0], rtol=1e-4):
            raise NotYet(
                say(
                    "your answer is the gradient of g, shape (2,). The Hessian is its jacobian, shape (2, 2).",
                    "여러분의 답은 g의 그래디언트(shape (2,))입니다. 헤세 행렬은 그것의 야코비안(shape (2, 2))입니다.",
                )
            )
        raise NotYet(
            say(
                "your answer has shape (2,), a vector; the Hessian is a matrix, shape (2, 2).",
                "여러분의 답은 shape (2,)인 벡터입니다. 헤세 행렬은 shape (2, 2)인 행렬입니다.",
            )
        )
    slips = [
        (
            [[6.0, 0.0], [0.0, 2.0]],
            say(
                "your Hessian has only its diagonal, ∂²g/∂x0² and ∂²g/∂x1²: the mixed term ∂²g/∂x0∂x1 = 2 x1 = 4 "
                "is missing off the diagonal.",
                "여러분의 헤세 행렬에는 대각 성분 ∂²g/∂x0²와 ∂²g/∂x1²만 있습니다. 대각선 밖의 혼합 항 "
                "∂²g/∂x0∂x1 = 2 x1 = 4가 빠졌습니다.",
            ),
        ),
        (
            [[3.0, 4.0], [4.0, 2.0]],
            say(
                "the top-left entry of your Hessian is 3: the second derivative of x0³ is 6 x0, not 3 x0.",
                "여러분의 헤세 행렬 왼쪽 위 원소가 3입니다. x0³의 이계도함수는 3 x0가 아니라 6 x0입니다.",
            ),
        ),
    ]
    expect_gradient(answer, [[6.0, 4.0], [4.0, 2.0]], what, evidence, ("x",), slips=slips)
    return say(
        "H = [[6 x0, 2 x1], [2 x1, 2 x0]]: symmetric, as every Hessian of a smooth function.",
        "H = [[6 x0, 2 x1], [2 x1, 2 x0]]: 매끄러운 함수의 헤세 행렬이 모두 그렇듯 대칭입니다.",
    )


@exercise(
    "5.3",
    "which tape must be recording when the line runs, and which need not? Look at the indentation.",
    ko="그 줄이 실행될 때 어느 테이프는 기록 중이어야 하고, 어느 테이프는 아니어도 될까요? 들여쓰기를 보세요.",
)
def place(answer: object, evidence: Evidence) -> str:
    if answer is Ellipsis:
        raise not_written("answer")
    if not isinstance(answer, str):
        raise NotYet(
            say(
                f'answer with a letter in quotes, "A", "B" or "C", not {describe(answer)}.',
                f'따옴표 안의 글자 "A", "B", "C" 중 하나로 답하세요. 넘긴 것은 {describe(answer)}입니다.',
            )
        )
    letter = answer.strip().upper()
    if letter not in {"A", "B", "C"}:
        raise NotYet(
            say(
                f"answer with one letter, 'A', 'B' or 'C', not {answer!r}.",
                f"'A', 'B', 'C' 중 한 글자로 답하세요. {answer!r}이(가) 아닙니다.",
            )
        )
    if letter == "C":
        raise NotYet(
            say(
                "place C is where the line is now, after both blocks: the outer tape has stopped recording there, "
                "so it never sees the ops that compute the first derivative. Move it to where the outer tape still "
                "records.",
                "자리 C는 지금 그 줄이 있는 곳, 두 블록이 모두 끝난 뒤입니다. 거기서는 바깥 테이프가 이미 기록을 "
                "멈춰서 일계도함수를 계산하는 연산을 보지 못합니다. 바깥 테이프가 아직 기록하는 곳으로 옮기세요.",
            )
        )
    if letter == "A":
        raise NotYet(
            say(
                "in place A the second derivative works, but the inner tape then records its own backward ops too "
                "(section 2 measured what that costs): there is a place where only the outer tape records.",
                "자리 A에서도 이계도함수는 나오지만, 그러면 안쪽 테이프가 자기 역전파 연산까지 기록합니다(2절에서 "
                "그 비용을 쟀습니다). 바깥 테이프만 기록하는 자리가 있습니다.",
            )
        )
    return say(
        "Place B: after the inner block, inside the outer one. There the outer tape records the ops of "
        "inner.gradient, and the inner tape, which has stopped, records nothing more. The student's line was in "
        "place C, after both blocks, where no tape records.",
        "자리 B, 곧 안쪽 블록이 끝난 뒤 바깥 블록 안입니다. 거기서는 바깥 테이프가 inner.gradient의 연산을 기록하고, "
        "이미 멈춘 안쪽 테이프는 더 기록하지 않습니다. 학생의 코드는 두 블록이 모두 끝난 뒤인 자리 C에 있었고, "
        "거기서는 어느 테이프도 기록하지 않습니다.",
    )
