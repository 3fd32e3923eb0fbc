"""Checkers for lesson 11: graphs and `tf.function`."""

from __future__ import annotations

import warnings

import minitape as mt
from lesson_tools.checking import (
    NotYet,
    as_number,
    call,
    describe,
    exercise,
    expect_function,
    not_written,
    refuse_text,
)
from lesson_tools.language import say

# why a count of traces is off, by the count a typical slip gives (the lesson's seven calls trace 5 times); each
# reason in English and Korean, said when it is needed (the language can change after this module is imported)
_TRACE_SLIPS = {
    7: (
        "7 is the number of calls. A call whose tensors have the shape and dtype of an earlier one (and whose Python "
        "values are equal) replays that graph: double(mt.constant(5.0)) replays the graph of double(mt.constant(1.0)).",
        "7은 호출 횟수입니다. 텐서의 shape과 dtype이 앞선 호출과 같고 Python 값도 같은 호출은 그 그래프를 다시 "
        "실행합니다. double(mt.constant(5.0))은 double(mt.constant(1.0))의 그래프를 다시 실행합니다.",
    ),
    6: (
        "2 and 2.0 are equal Python values (2 == 2.0), and Python values pick a graph by value: double(2.0) "
        "replays the graph traced for double(2).",
        "2와 2.0은 같은 Python 값이고(2 == 2.0), Python 값은 값으로 그래프를 고릅니다. double(2.0)은 double(2)를 "
        "위해 추적한 그래프를 다시 실행합니다.",
    ),
    4: (
        "mt.constant(3) is an int32 tensor, the others float32: a new dtype traces a new graph, as a new shape does.",
        "mt.constant(3)은 int32 텐서이고 나머지는 float32입니다. 새 shape과 마찬가지로 새 dtype도 새 그래프를 "
        "추적합니다.",
    ),
    3: (
        "Python numbers are not tensors: each new Python value traces its own graph (2 and 3 are two graphs), "
        "where tensors are told apart only by shape and dtype.",
        "Python 숫자는 텐서가 아닙니다. 텐서는 shape과 dtype으로만 구별되지만, 새 Python 값은 저마다 자기 그래프를 "
        "추적합니다(2와 3은 그래프 두 개입니다).",
    ),
}


@exercise(
    "11.1",
    "count the distinct (shape, dtype) of the tensors, plus the distinct Python values (2 == 2.0).",
    ko="텐서의 서로 다른 (shape, dtype) 개수에 서로 다른 Python 값의 개수를 더하세요(2 == 2.0).",
)
def tracing_count(answer: object, evidence: object) -> str:
    if isinstance(answer, str):
        raise refuse_text(answer, "answer")
    number = as_number(answer, "answer")
    if number in _TRACE_SLIPS:
        raise NotYet(say(*_TRACE_SLIPS[int(number)]))
    if number != 5:
        raise NotYet(
            say(
                f"{number:g} traces is not right: after the calls, double.experimental_get_tracing_count() says.",
                f"{number:g}번 추적한다는 답은 맞지 않습니다. 호출을 마친 뒤 "
                "double.experimental_get_tracing_count()가 답을 알려 줍니다.",
            )
        )
    return say(
        "5 traces: float32 scalar, float32 vector, int32 scalar, and the Python values 2 (= 2.0) and 3.",
        "5번 추적합니다: float32 스칼라, float32 벡터, int32 스칼라, 그리고 Python 값 2(= 2.0)와 3입니다.",
    )


@exercise(
    "11.2",
    "count with a mt.Variable made outside the function, and counter.assign_add(1) inside it.",
    ko="함수 밖에서 만든 mt.Variable로 세고, 함수 안에서 counter.assign_add(1)을 부르세요.",
)
def counter(answer: object, evidence: object) -> str:
    if answer is Ellipsis:
        raise not_written("answer")
    if isinstance(answer, mt.Variable):
        answer = answer.read_value()
    if isinstance(answer, str):
        raise refuse_text(answer, "answer")
    number = as_number(answer, "answer")
    if number == 1:
        raise NotYet(
            say(
                "the counter says 1: a Python side effect (calls += 1) runs while the function is traced, once, not "
                "at the calls that replay the graph. A variable's assign_add is part of the graph: it runs every call.",
                "카운터가 1입니다. Python 부작용(calls += 1)은 함수를 추적하는 동안 한 번 실행될 뿐, 그래프를 "
                "다시 실행하는 호출에서는 실행되지 않습니다. 변수의 assign_add는 그래프의 일부라서 호출할 때마다 "
                "실행됩니다.",
            )
        )
    if number == 0:
        raise NotYet(
            say(
                "the counter is still 0: call the traced function five times, then read the counter.",
                "카운터가 아직 0입니다. 추적된 함수를 다섯 번 호출한 다음 카운터를 읽으세요.",
            )
        )
    if number != 5:
        raise NotYet(
            say(
                f"the counter says {number:g} after five calls; it should count each call once.",
                f"다섯 번 호출한 뒤 카운터가 {number:g}입니다. 호출마다 한 번씩 세어야 합니다.",
            )
        )
    return say(
        "5: the assign_add is a step of the graph, so every call counts, traced or replayed.",
        "5: assign_add는 그래프의 한 단계라서, 추적하는 호출이든 다시 실행하는 호출이든 모두 셉니다.",
    )


@exercise(
    "11.3",
    "mt.where(x > 0, x * x, -x) chooses inside the graph, where an `if` chooses in Python.",
    ko="`if`는 Python에서 고르지만, mt.where(x > 0, x * x, -x)는 그래프 안에서 고릅니다.",
)
def branch_free(answer: object, evidence: object) -> str:
    expect_function(answer, "g")
    traced = mt.function(answer)
    expected = {2.0: 4.0, -3.0: 3.0, 0.5: 0.25, -0.5: 0.5}
    for x, want in expected.items():
        shown = say(f"g(mt.constant({x})) under mt.function", f"mt.function으로 감싼 g(mt.constant({x}))")
        with warnings.catch_warnings():  # each check traces g anew: the retracing warning would only repeat the count
            warnings.simplefilter("ignore", UserWarning)
            got = call(traced, (mt.constant(x),), shown)
        value = as_number(got, f"g({x})") if got is not None else None
        if value is None or abs(value - want) > 1e-6:
            given = describe(got) if value is None else f"{value:g}"
            raise NotYet(
                say(
                    f"g({x}) gives {given}, but it should be {want:g}.",
                    f"g({x})의 결과가 {given}입니다. {want:g}이어야 합니다.",
                )
            )
    count = traced.experimental_get_tracing_count()
    if count > 1:
        raise NotYet(
            say(
                f"g is right but traced {count} times for four scalar float32 calls: a Python `if` on a tensor "
                "records a guard, and each direction traces its own graph. Choose inside the graph with mt.where.",
                f"값은 맞지만, g는 float32 스칼라로 네 번 호출하는 동안 {count}번 추적했습니다. 텐서에 쓴 "
                "Python `if`는 가드를 기록하고, 분기 방향마다 자기 그래프를 추적합니다. mt.where로 그래프 "
                "안에서 고르세요.",
            )
        )
    return say(
        "one graph for every sign: mt.where computes both sides and picks per element, inside the graph.",
        "부호가 무엇이든 그래프 하나입니다. mt.where는 양쪽을 모두 계산하고, 그래프 안에서 원소마다 고릅니다.",
    )
