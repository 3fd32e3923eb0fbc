"""Checkers for lesson 03: recording and watching."""

from __future__ import annotations

from lesson_tools.checking import (
    Evidence,
    NotYet,
    as_array,
    as_number,
    describe,
    exercise,
    expect_gradient,
    items,
    not_written,
    tape_reasons,
)
from lesson_tools.language import say

TAPE = ("tape", "target", "sources")


@exercise(
    "3.1",
    "a constant is not watched: call tape.watch(x) inside the with block, before computing x**3.",
    evidence=TAPE,
    names=("x",),
    ko="상수는 감시되지 않습니다. with 블록 안에서 x**3을 계산하기 전에 tape.watch(x)를 호출하세요.",
)
def watch_constant(answer: object, evidence: Evidence) -> str:
    what = say("your gradient", "여러분의 그래디언트")
    if answer is not None and as_number(answer, what) == 8.0:
        raise NotYet(
            say(
                "8 is x³ itself at x = 2; the exercise asks for its derivative.",
                "8은 x = 2에서 x³의 값 자체입니다. 이 연습 문제는 도함수를 묻습니다.",
            )
        )
    slips = [
        (
            4.0,
            say(
                "4 is x² at x = 2: the exponent 3 of x³ did not come down as a factor, d(x³)/dx = 3x².",
                "4는 x = 2에서 x²입니다. x³의 지수 3이 인수로 내려오지 않았습니다: d(x³)/dx = 3x².",
            ),
        ),
        (
            6.0,
            say(
                "6 is 3x at x = 2: the power of x is one too low, d(x³)/dx = 3x².",
                "6은 x = 2에서 3x입니다. x의 거듭제곱이 하나 모자랍니다: d(x³)/dx = 3x².",
            ),
        ),
    ]
    expect_gradient(answer, 12.0, what, evidence, ("x",), slips=slips)
    return say("d(x³)/dx = 3x² = 12: the constant was watched.", "d(x³)/dx = 3x² = 12입니다. 상수를 감시했습니다.")


@exercise(
    "3.2",
    "GradientTape(watch_accessed_variables=False), then tape.watch(b); ask for [a, b].",
    evidence=TAPE,
    names=("a", "b"),
    ko="GradientTape(watch_accessed_variables=False)로 만들고 tape.watch(b)를 호출한 다음 [a, b]에 대해 구하세요.",
)
def watch_only_b(answer: object, evidence: Evidence) -> str:
    df_da, df_db = items(answer, 2, say("a pair (df_da, df_db)", "쌍 (df_da, df_db)"))
    if df_da is not None:
        value = as_number(df_da, "df_da")
        raise NotYet(
            say(
                f"df_da is {value:g}, but it should be None: the tape should watch only b "
                "(GradientTape(watch_accessed_variables=False) and tape.watch(b)), so it never records a's use.",
                f"df_da가 {value:g}인데, None이어야 합니다. 테이프는 b만 감시해야 하므로"
                "(GradientTape(watch_accessed_variables=False)와 tape.watch(b)) a의 사용을 기록하지 않습니다.",
            )
        )
    slips = [
        (
            5.0,
            say(
                "df_db is 5, the value of b: the derivative of f = a·b along b is a = 4.",
                "df_db가 b의 값 5입니다. f = a·b를 b로 미분하면 a = 4입니다.",
            ),
        ),
        (
            20.0,
            say(
                "df_db is 20, f = a·b itself: the exercise asks for its derivative along b.",
                "df_db가 f = a·b의 값 20 자체입니다. 이 연습 문제는 b에 대한 도함수를 묻습니다.",
            ),
        ),
    ]
    expect_gradient(df_db, 4.0, "df_db", evidence, ("a", "b"), only=("b",), slips=slips)
    watched_a = [r for r in tape_reasons(evidence, ("a", "b")) or [] if r.source == "a" and r.connected]
    if watched_a:
        raise NotYet(
            say(
                "your tape still watches a, so its gradient would be 4, not None: watch only b.",
                "테이프가 아직 a를 감시하고 있어서 a의 그래디언트는 None이 아니라 4가 됩니다. b만 감시하세요.",
            )
        )
    return say(
        "df_da is None (a was never watched) and df_db = a = 4.",
        "df_da는 None(a는 감시되지 않음)이고 df_db = a = 4입니다.",
    )


# exercise 3.3: w = (1, -2), x = (3, 1), b = 0.5. The right loss (w·x + b - 1)² has the residual r = 0.5, so
# dL/dw = 2 r x = (3, 1) and dL/db = 2 r = 1. Each slip below gives its own pair of gradients.
_SLIPS_3_3 = [
    (
        [15.0, -5.0],
        0.0,
        "your loss was not reduced: (w * x + b - 1)² squares each entry's residual, (2.5, -2.5), so the tape "
        "differentiated their sum. The model's output is one number, w·x = mt.reduce_sum(params['w'] * x).",
        "손실을 하나로 줄이지 않았습니다. (w * x + b - 1)²은 원소마다의 잔차 (2.5, -2.5)를 제곱하므로, 테이프는 그 "
        "합을 미분했습니다. 모델의 출력은 숫자 하나, w·x = mt.reduce_sum(params['w'] * x)입니다.",
    ),
    (
        [0.0, 0.0],
        0.0,
        "your w·x is a mean, mt.reduce_mean(params['w'] * x) = 0.5, so the residual is 0: the dot product is "
        "a sum, mt.reduce_sum.",
        "w·x를 평균 mt.reduce_mean(params['w'] * x) = 0.5로 계산해서 잔차가 0이 되었습니다. 내적은 합, "
        "mt.reduce_sum입니다.",
    ),
    (
        [9.0, 3.0],
        3.0,
        "your loss leaves out the - 1: the residual is w·x + b - 1 = 0.5, not w·x + b = 1.5.",
        "손실에 - 1이 빠졌습니다. 잔차는 w·x + b = 1.5가 아니라 w·x + b - 1 = 0.5입니다.",
    ),
]


@exercise(
    "3.3",
    "read params['w'] and params['b'] inside the tape, then tape.gradient(loss, params).",
    evidence=TAPE,
    ko="테이프 안에서 params['w']와 params['b']를 읽고, tape.gradient(loss, params)를 구하세요.",
)
def dict_sources(answer: object, evidence: Evidence) -> str:
    if answer is Ellipsis:
        raise not_written("answer")
    if not isinstance(answer, dict):
        raise NotYet(
            say(
                f"answer should be a dict with the keys 'w' and 'b', like params, not {describe(answer)}: "
                "pass params itself as the sources of tape.gradient.",
                f"answer는 params처럼 키 'w'와 'b'를 가진 dict여야 하는데 {describe(answer)}입니다. "
                "params 자체를 tape.gradient의 소스로 넘기세요.",
            )
        )
    if set(answer) != {"w", "b"}:
        keys = sorted(answer)
        raise NotYet(
            say(
                f"answer has the keys {keys}, but it should have the keys of params, 'b' and 'w'.",
                f"answer의 키가 {keys}인데, params의 키 'b'와 'w'여야 합니다.",
            )
        )
    for key in ("w", "b"):
        if answer[key] is not None:  # a string or a wrong type is named before the values are compared
            as_array(answer[key], say(f"the gradient for '{key}'", f"'{key}'의 그래디언트"))
    slips_w = [(w, say(en, ko)) for w, _, en, ko in _SLIPS_3_3]
    expect_gradient(
        answer["w"],
        [3.0, 1.0],
        say("the gradient for 'w'", "'w'의 그래디언트"),
        evidence,
        (),
        only=("w",),
        slips=slips_w,
    )
    slips_b = [(b, say(en, ko)) for _, b, en, ko in _SLIPS_3_3]
    expect_gradient(
        answer["b"], 1.0, say("the gradient for 'b'", "'b'의 그래디언트"), evidence, (), only=("b",), slips=slips_b
    )
    return say(
        "The residual is 0.5, so dL/dw = 2·0.5·x = (3, 1) and dL/db = 1.",
        "잔차가 0.5이므로 dL/dw = 2·0.5·x = (3, 1), dL/db = 1입니다.",
    )
