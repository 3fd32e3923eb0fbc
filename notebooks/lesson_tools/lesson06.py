"""Checkers for lesson 06: getting None."""

from __future__ import annotations

import minitape as mt
from lesson_tools.checking import Evidence, NotYet, describe, exercise, expect_close, items, not_written
from lesson_tools.language import say


@exercise(
    "6.1",
    "x = x + 1.0 makes x a tensor; x.assign_add(1.0) changes the variable in place.",
    evidence=("x",),
    ko="x = x + 1.0은 x를 텐서로 만듭니다. x.assign_add(1.0)은 변수를 제자리에서 바꿉니다.",
)
def keep_the_variable(answer: object, evidence: Evidence) -> str:
    first, second = items(
        answer, 2, say("the list of the two gradients, one per step", "스텝마다 하나씩인 그래디언트 두 개의 리스트")
    )
    x = evidence.given.get("x", Ellipsis)
    if x is Ellipsis:
        raise NotYet(
            say(
                'pass x too, so the check can see what your loop made of it: check("6.1", answer, x=x).',
                'x도 함께 넘겨서 루프가 x를 어떻게 만들었는지 보게 해 주세요: check("6.1", answer, x=x).',
            )
        )
    if not isinstance(x, mt.Variable):
        raise NotYet(
            say(
                f"after your loop x is {describe(x)}, no longer a mt.Variable: `x = x + 1.0` made a new tensor "
                "(watching it only hides that). Update the variable in place with x.assign_add(1.0).",
                f"루프가 끝난 뒤 x는 {describe(x)}이고, 더 이상 mt.Variable이 아닙니다. `x = x + 1.0`이 새 텐서를 "
                "만들었습니다(감시하면 그 사실이 가려질 뿐입니다). x.assign_add(1.0)으로 변수를 제자리에서 바꾸세요.",
            )
        )
    if second is None:
        raise NotYet(
            say(
                "the second gradient is None: was the tape's y computed from the variable x?",
                "두 번째 그래디언트가 None입니다. 테이프의 y를 변수 x로 계산했나요?",
            )
        )
    first_name, second_name = (
        say("the first gradient", "첫 번째 그래디언트"),
        say("the second gradient", "두 번째 그래디언트"),
    )
    slips = [
        (
            4.0,
            say(
                "the second gradient is 4 again, 2x at x = 2: x did not change between the steps. "
                "x.assign_add(1.0) belongs inside the loop, after the gradient.",
                "두 번째 그래디언트가 또 4, 곧 x = 2에서의 2x입니다. 스텝 사이에 x가 바뀌지 않았습니다. "
                "x.assign_add(1.0)은 루프 안, 그래디언트 다음에 둡니다.",
            ),
        )
    ]
    expect_close(
        first,
        4.0,
        first_name,
        slips=[
            (
                6.0,
                say(
                    "the first gradient is 6: x was increased before the first step.",
                    "첫 번째 그래디언트가 6입니다. 첫 스텝 전에 x를 늘렸습니다.",
                ),
            )
        ],
    )
    expect_close(second, 6.0, second_name, slips=slips)
    return say(
        "4 then 6: x stayed a variable, updated in place.",
        "4, 그다음 6입니다. x는 변수로 남아 제자리에서 바뀌었습니다.",
    )


@exercise(
    "6.2",
    "tape.gradient(y, [w, extra], unconnected_gradients='zero') (or mt.UnconnectedGradients.ZERO).",
    ko="tape.gradient(y, [w, extra], unconnected_gradients='zero')(또는 mt.UnconnectedGradients.ZERO)를 쓰세요.",
)
def zeros(answer: object, evidence: Evidence) -> str:
    dw, dextra = items(
        answer, 2, say("the list of two gradients, [dy/dw, dy/dextra]", "그래디언트 두 개의 리스트 [dy/dw, dy/dextra]")
    )
    if dw is None:
        raise NotYet(
            say(
                "dy/dw is None: compute y = w * 3.0 inside the tape's with block.",
                "dy/dw가 None입니다. y = w * 3.0을 테이프의 with 블록 안에서 계산하세요.",
            )
        )
    expect_close(dw, 3.0, "dy/dw")
    if dextra is None:
        raise NotYet(
            say(
                "dy/dextra is still None (y does not use extra): ask for zeros with unconnected_gradients='zero'.",
                "dy/dextra가 아직 None입니다(y는 extra를 쓰지 않습니다). unconnected_gradients='zero'로 0을 요청하세요.",
            )
        )
    expect_close(dextra, [0.0, 0.0], "dy/dextra")
    return say("Zeros with the source's shape, (2,), instead of None.", "None 대신 소스와 shape이 같은 (2,)의 0입니다.")


@exercise(
    "6.3",
    "explanation = tape.explain(y, scale); print(explanation); answer = explanation.reasons[0].kind",
    ko="explanation = tape.explain(y, scale)로 설명을 얻어 print(explanation)으로 읽고, "
    "answer = explanation.reasons[0].kind로 첫 이유의 종류를 꺼내세요.",
)
def find_the_cut(answer: object, evidence: Evidence) -> str:
    if answer is Ellipsis:
        raise not_written("answer")
    if hasattr(answer, "reasons"):
        raise NotYet(
            say(
                "answer is the whole explanation: take the kind of its first reason, explanation.reasons[0].kind.",
                "answer가 설명 전체입니다. 첫 번째 이유의 kind, 곧 explanation.reasons[0].kind를 넣으세요.",
            )
        )
    kind = getattr(answer, "kind", answer)
    if not isinstance(kind, str):
        raise NotYet(
            say(
                f"answer should be a string like 'no_path', not {describe(kind)}.",
                f"answer는 'no_path' 같은 문자열이어야 하는데 {describe(kind)}입니다.",
            )
        )
    if kind != "stop_gradient":
        raise NotYet(
            say(
                f"{kind!r} is not what explain() says for scale: print the explanation and read its kind.",
                f"{kind!r}은(는) explain()이 scale에 대해 말한 것이 아닙니다. 설명을 출력해서 kind를 읽으세요.",
            )
        )
    return say(
        "normalise divides by mt.stop_gradient(norm * scale): scale sits inside the cut.",
        "normalise는 mt.stop_gradient(norm * scale)로 나눕니다. scale이 끊긴 곳 안에 있습니다.",
    )
