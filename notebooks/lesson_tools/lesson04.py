"""Checkers for lesson 04: persistent tapes."""

from __future__ import annotations

import numpy as np

from lesson_tools.checking import Evidence, NotYet, as_array, as_number, exercise, expect_gradient, items
from lesson_tools.language import say


@exercise(
    "4.1",
    "GradientTape(persistent=True), then two tape.gradient calls after the with block.",
    evidence=("tape", "target", "sources"),
    names=("x",),
    ko="GradientTape(persistent=True)로 기록하고, with 블록이 끝난 뒤 tape.gradient를 두 번 호출하세요.",
)
def two_gradients(answer: object, evidence: Evidence) -> str:
    dv_dx, du_dx = items(
        answer, 2, say("a list of two gradients, [dv_dx, du_dx]", "그래디언트 두 개의 리스트 [dv_dx, du_dx]")
    )
    sin, cos = np.sin(1.0), np.cos(1.0)
    right = (2 * sin * cos, cos)
    for value, what in ((dv_dx, "dv_dx"), (du_dx, "du_dx")):
        if value is not None:
            as_array(value, what)  # a string or a wrong type is named before the values are compared
    if dv_dx is not None and du_dx is not None and np.allclose(as_array([dv_dx, du_dx]), right[::-1], rtol=1e-4):
        raise NotYet(
            say(
                "the two gradients are in the wrong order: the list should be [dv_dx, du_dx].",
                "두 그래디언트의 순서가 바뀌었습니다. 리스트는 [dv_dx, du_dx]여야 합니다.",
            )
        )
    dv_slips = [
        (
            2 * sin,
            say(
                "dv_dx is 2 sin x, which is dv/du alone: the chain rule multiplies it by du/dx = cos x.",
                "dv_dx가 2 sin x, 곧 dv/du뿐입니다. 연쇄 법칙에 따라 du/dx = cos x를 곱해야 합니다.",
            ),
        ),
        (
            sin**2,
            say(
                "dv_dx is sin² x, the value of v: ask the tape for its gradient.",
                "dv_dx가 v의 값 sin² x입니다. 테이프에 그래디언트를 물으세요.",
            ),
        ),
    ]
    du_slips = [
        (
            sin,
            say(
                "du_dx is sin x, the value of u: its derivative is cos x.",
                "du_dx가 u의 값 sin x입니다. 그 도함수는 cos x입니다.",
            ),
        ),
    ]
    expect_gradient(dv_dx, right[0], "dv_dx", evidence, ("x",), slips=dv_slips)
    expect_gradient(du_dx, right[1], "du_dx", evidence, ("x",), slips=du_slips)
    return say(
        "dv/dx = 2 sin x cos x = 0.9093 and du/dx = cos x = 0.5403, from one recording.",
        "한 번의 기록에서 dv/dx = 2 sin x cos x = 0.9093과 du/dx = cos x = 0.5403을 얻었습니다.",
    )


_COUNT_SLIPS = {
    4: (
        "4 counts x too; but each tanh's derivative, 1 - tanh², needs only its output, so x is not kept.",
        "4는 x까지 센 것입니다. 그런데 tanh의 도함수 1 - tanh²에는 출력만 필요하므로 x는 보관되지 않습니다.",
    ),
    6: (
        "6 counts each tanh's input and output; its derivative 1 - tanh² needs only the output.",
        "6은 tanh마다 입력과 출력을 모두 센 것입니다. 도함수 1 - tanh²에는 출력만 필요합니다.",
    ),
    1: (
        "1 is the final result alone; every tanh of the chain keeps its own output for its derivative.",
        "1은 마지막 결과만 센 것입니다. 사슬의 tanh마다 도함수를 위해 자기 출력을 보관합니다.",
    ),
    0: (
        "0 would mean a backward pass without any forward value; 1 - tanh² needs each tanh's output.",
        "0이라면 순전파 값 없이 역전파를 한다는 뜻입니다. 1 - tanh²에는 tanh마다 출력이 필요합니다.",
    ),
}


@exercise(
    "4.2",
    "each tanh keeps its own output (not its input): count the tanh ops.",
    ko="tanh는 저마다 자기 출력(입력이 아니라)을 보관합니다. tanh 연산의 수를 세어 보세요.",
)
def tanh_chain(answer: object, evidence: Evidence) -> str:
    if answer is None:
        raise NotYet(
            say(
                "answer is None: put a whole number in it, your prediction (then measure it with tape.stats()).",
                "answer가 None입니다. 여러분의 예측인 정수를 넣으세요(그다음 tape.stats()로 재 보세요).",
            )
        )
    count = as_number(answer, say("your count", "여러분이 센 수"))
    if count != round(count):
        raise NotYet(
            say(
                f"{count:g} tensors? Tensors come whole: answer with a whole number.",
                f"텐서 {count:g}개요? 텐서는 하나씩 셉니다. 정수로 답하세요.",
            )
        )
    if int(count) in _COUNT_SLIPS:
        raise NotYet(say(*_COUNT_SLIPS[int(count)]))
    if count != 3:
        raise NotYet(
            say(
                f"the tape keeps {'more' if count < 3 else 'fewer'} than {count:g} tensor(s).",
                f"테이프가 보관하는 텐서는 {count:g}개보다 {'많습니다' if count < 3 else '적습니다'}.",
            )
        )
    return say(
        "Three: each tanh keeps its output (8,000 bytes each), and x itself is not needed.",
        "세 개입니다. tanh마다 출력(각 8,000바이트)을 보관하고, x 자체는 필요 없습니다.",
    )
