"""Checker for the warm-up exercise of the start page."""

from __future__ import annotations

import numpy as np

import minitape as mt
from lesson_tools.checking import Evidence, NotYet, as_number, exercise, expect_gradient
from lesson_tools.language import say

TAPE = ("tape", "target", "sources")


def _wrong_y(evidence: Evidence) -> str:
    """A sentence when the student's y is not x² + 3x at their x ("" when it is, or when y or x was not passed)."""
    target, source = evidence.get("target"), evidence.get("sources")
    try:
        y, x = as_number(target), as_number(source.numpy() if isinstance(source, mt.Variable) else source)
    except (NotYet, TypeError, ValueError):
        return ""
    if np.isclose(y, x**2 + 3 * x, rtol=1e-5):
        return ""
    right = x**2 + 3 * x
    return say(
        f" Your y is {y:g}, but x² + 3x at x = {x:g} is {right:g}: check how y is computed.",
        f" 여러분의 y는 {y:g}인데, x = {x:g}에서 x² + 3x는 {right:g}입니다. y를 계산하는 식을 확인하세요.",
    )


@exercise(
    "0.1",
    "record y = x**2 + 3 * x on a tape with x = mt.Variable(2.0), then tape.gradient(y, x).",
    evidence=TAPE,
    names=("x",),
    ko="x = mt.Variable(2.0)으로 두고 y = x**2 + 3 * x를 테이프에 기록한 다음 tape.gradient(y, x)를 구하세요.",
)
def warm_up(answer: object, evidence: Evidence) -> str:
    what = say("your derivative", "여러분의 도함수 값")
    if answer is not None and as_number(answer, what) == 10.0:
        raise NotYet(
            say(
                "10 is the value of y = x² + 3x at x = 2; the exercise asks for its derivative dy/dx.",
                "10은 x = 2에서 y = x² + 3x의 값입니다. 이 연습 문제는 도함수 dy/dx를 묻습니다.",
            )
        )
    slips = [
        (
            2.0 * 2.0,
            say(
                "4 is 2x alone: the derivative of 3x, which is 3, is missing from dy/dx.",
                "4는 2x뿐입니다. dy/dx에 3x의 도함수 3이 빠졌습니다.",
            ),
        ),
        (
            3.0,
            say(
                "3 is the derivative of 3x alone: the 2x from x² is missing from dy/dx.",
                "3은 3x의 도함수뿐입니다. dy/dx에 x²에서 나오는 2x가 빠졌습니다.",
            ),
        ),
        (
            2.0 * 2.0 - 3.0,
            say(
                "1 is 2x - 3: the derivative of y = x² - 3x. Is y = x**2 + 3 * x, with a plus?",
                "1은 2x - 3, 곧 y = x² - 3x의 도함수입니다. y = x**2 + 3 * x처럼 더하기로 썼나요?",
            ),
        ),
    ]
    try:
        expect_gradient(answer, 7.0, what, evidence, ("x",), slips=slips)
    except NotYet as wrong:
        raise NotYet(f"{wrong}{_wrong_y(evidence)}") from None
    return say(
        "dy/dx = 2x + 3 = 7. You are ready for lesson 1.",
        "dy/dx = 2x + 3 = 7입니다. 이제 1강을 시작할 준비가 되었습니다.",
    )
