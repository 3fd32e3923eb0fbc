"""Checkers for lesson 02, autodiff by hand: a neuron by pencil, the tape's division rule, dual division."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from lesson_tools.checking import (
    Evidence,
    RTOL,
    NotYet,
    as_array,
    as_number,
    call,
    describe,
    exercise,
    expect_function,
    is_template,
    items,
    not_written,
)
from lesson_tools.language import say

# exercise 2.1's neuron: y = tanh(w x + b) at x = -1.5, w = 0.6, b = 0.2, so z = -0.7 (the lesson's table has 0.5)
_X, _W, _B = -1.5, 0.6, 0.2
_Z = _W * _X + _B
_DY_DZ = 1.0 - math.tanh(_Z) ** 2
# Exercise 2.1 is done by hand: about three significant digits are right (a number rounded to three digits is off
# by up to 0.5 in its last digit, 5e-3 relative), unlike a gradient a tape computed (there, a rounded number means
# it was typed, not computed). Within NEAR it is the right idea, rounded too early.
PENCIL = 5e-3
NEAR = 3e-2
# 2.2 and 2.3 run the student's code: float32 rounding (a rule written with tensors) is all that may separate it
# from the exact values.


def _close(got: float, want: float, rtol: float = PENCIL) -> bool:
    return abs(got - want) <= rtol * max(abs(want), 1e-3)


def _rounded(name: str, value: float) -> NotYet:
    return NotYet(
        say(
            f"{name} is {value:.6g}: close, but off by more than rounding to 3 digits: round only at the end.",
            f"{name}: {value:.6g}, 가깝지만 세 자리 반올림보다 크게 어긋납니다. 반올림은 맨 마지막에만 하세요.",
        )
    )


def _check_db(db: float, right_db: float) -> None:
    if _close(db, right_db):
        return
    if _close(db, math.tanh(_Z), NEAR):
        raise NotYet(
            say(
                "dy_db is tanh(z), the neuron's output; the local derivative of tanh is 1 - tanh(z)².",
                "dy_db가 뉴런의 출력 tanh(z)입니다. tanh의 국소 도함수는 1 - tanh(z)²입니다.",
            )
        )
    if _close(db, 1.0):
        raise NotYet(
            say(
                "dy_db is 1, which is dz/db alone; the chain rule multiplies it by dy/dz = 1 - tanh(z)².",
                "dy_db가 1, 곧 dz/db뿐입니다. 연쇄 법칙에 따라 dy/dz = 1 - tanh(z)²를 곱해야 합니다.",
            )
        )
    if _close(db, 1.0 - math.tanh(_W * 0.5 + _B) ** 2, NEAR):
        raise NotYet(
            say(
                "dy_db is 1 - tanh(z)² for the lesson's table (x = 0.5); this exercise has x = -1.5, so z = -0.7.",
                "dy_db가 본문 표의 값(x = 0.5)으로 계산한 1 - tanh(z)²입니다. 이 연습 문제는 x = -1.5, "
                "그래서 z = -0.7입니다.",
            )
        )
    if _close(db, right_db, NEAR):
        raise _rounded("dy_db", db)
    raise NotYet(
        say(
            f"dy_db is {db:.6g}; it equals dy/dz, since dz/db = 1. Compute z, then 1 - tanh(z)² first.",
            f"dy_db가 {db:.6g}입니다. dz/db = 1이므로 dy_db는 dy/dz와 같습니다. z를 구하고 1 - tanh(z)²부터 "
            "계산하세요.",
        )
    )


def _check_dw(dw: float, right_dw: float) -> None:
    if _close(dw, right_dw):
        return
    if _close(dw, _DY_DZ * _W, NEAR):
        raise NotYet(
            say(
                "that dy_dw is dy/dx (dy/dz times w); for dy/dw multiply dy/dz by x = -1.5.",
                "그 dy_dw는 dy/dx(dy/dz 곱하기 w)입니다. dy/dw는 dy/dz에 x = -1.5를 곱합니다.",
            )
        )
    if _close(dw, -right_dw, NEAR):
        raise NotYet(
            say(
                f"dy_dw has the wrong sign: dz/dw = x = {_X:g} is negative.",
                f"dy_dw의 부호가 반대입니다. dz/dw = x = {_X:g}는 음수입니다.",
            )
        )
    if _close(dw, _X, NEAR):
        raise NotYet(
            say(
                "dy_dw is x, which is dz/dw alone; the chain rule multiplies it by dy/dz = 1 - tanh(z)².",
                "dy_dw가 x, 곧 dz/dw뿐입니다. 연쇄 법칙에 따라 dy/dz = 1 - tanh(z)²를 곱해야 합니다.",
            )
        )
    if _close(dw, right_dw, NEAR):
        raise _rounded("dy_dw", dw)
    raise NotYet(
        say(
            f"dy_dw is {dw:.6g}; by the chain rule it is dy/dz · dz/dw, and dz/dw = x = {_X:g}.",
            f"dy_dw가 {dw:.6g}입니다. 연쇄 법칙으로 dy_dw = dy/dz · dz/dw이고, dz/dw = x = {_X:g}입니다.",
        )
    )


@exercise(
    "2.1",
    "z = w·x + b; dy/dz = 1 - tanh(z)²; then dy/dw = dy/dz · x and dy/db = dy/dz · 1.",
    ko="z = w·x + b, dy/dz = 1 - tanh(z)², 그다음 dy/dw = dy/dz · x, dy/db = dy/dz · 1입니다.",
)
def neuron_by_pencil(answer: Any, evidence: Evidence) -> str:
    first, second = items(answer, 2, say("a list of two numbers, [dy_dw, dy_db]", "숫자 두 개의 리스트 [dy_dw, dy_db]"))
    dw, db = as_number(first, "dy_dw"), as_number(second, "dy_db")
    right_dw, right_db = _DY_DZ * _X, _DY_DZ
    if _close(dw, right_db) and _close(db, right_dw):
        raise NotYet(
            say(
                "the two numbers are in the wrong order: the list is [dy_dw, dy_db].",
                "두 숫자의 순서가 바뀌었습니다. 리스트는 [dy_dw, dy_db]입니다.",
            )
        )
    _check_db(db, right_db)
    _check_dw(dw, right_dw)
    return say(
        f"dy/dz = 1 - tanh({_Z:.1f})² = {_DY_DZ:.5f}, times x = {_X:g} for w and times 1 for b.",
        f"dy/dz = 1 - tanh({_Z:.1f})² = {_DY_DZ:.5f}이고, w는 여기에 x = {_X:g}를, b는 1을 곱합니다.",
    )


def _run_rule(rule: Any, a: float, b: float) -> tuple[float, float, float]:
    """The student's rule at (a, b): its value and its two local derivatives, or NotYet saying what is off."""
    shown = f'RULES["div"]({a:g}, {b:g})'
    result = call(rule, (a, b), shown)
    if result is Ellipsis:  # lambda a, b: ...
        raise not_written(say('the body of RULES["div"]', 'RULES["div"]의 본문'))
    if result is None:
        raise NotYet(
            say(
                f"{shown} returned None: the rule returns (a / b, (d(a/b)/da, d(a/b)/db)).",
                f"{shown}이(가) None을 돌려주었습니다. 규칙은 (a / b, (d(a/b)/da, d(a/b)/db))를 돌려줍니다.",
            )
        )
    if not isinstance(result, (tuple, list)) or len(result) != 2:
        raise NotYet(
            say(
                f"{shown} returned {describe(result)}; the rule returns a pair: "
                "(the output value, (d(a/b)/da, d(a/b)/db)).",
                f"{shown}이(가) {describe(result)}을(를) 돌려주었습니다. 규칙은 쌍 (출력값, (d(a/b)/da, d(a/b)/db))을 "
                "돌려줍니다.",
            )
        )
    value, local = result
    pair = say("a pair (d(a/b)/da, d(a/b)/db), one per input", "입력마다 하나씩인 쌍 (d(a/b)/da, d(a/b)/db)")
    where = say(f"the local derivatives in {shown}", f"{shown}의 국소 도함수")
    if hasattr(local, "numpy") or isinstance(local, np.ndarray):  # both derivatives in one array: fine
        local = as_array(local, where)
        if local.shape != (2,):
            raise NotYet(
                say(
                    f"{where} should be {pair}; they have shape {local.shape}.",
                    f"{where}: {pair}이어야 하는데 shape이 {local.shape}입니다.",
                )
            )
    elif not isinstance(local, (tuple, list)) or len(local) != 2:
        raise NotYet(
            say(
                f"{where} should be {pair}, not {describe(local)}.",
                f"{where}: {pair}이어야 하는데 {describe(local)}입니다.",
            )
        )
    value_name = say("the value", "값")
    return as_number(value, value_name), as_number(local[0], "d(a/b)/da"), as_number(local[1], "d(a/b)/db")


def _check_division(a: float, b: float, value: float, da: float, db: float) -> None:
    at = f"a = {a:g}, b = {b:g}"
    if not _close(value, a / b, RTOL):
        raise NotYet(
            say(
                f"at {at} the value is {value:g}, not a / b = {a / b:g}.",
                f"{at}에서 값이 {value:g}입니다. a / b = {a / b:g}이어야 합니다.",
            )
        )
    if not _close(da, 1 / b, RTOL):
        if _close(da, -a / b**2, RTOL) and _close(db, 1 / b, RTOL):
            raise NotYet(
                say(
                    "the two local derivatives are swapped: the pair is (d(a/b)/da, d(a/b)/db) = (1/b, -a/b²).",
                    "두 국소 도함수의 순서가 바뀌었습니다. 쌍은 (d(a/b)/da, d(a/b)/db) = (1/b, -a/b²)입니다.",
                )
            )
        raise NotYet(
            say(
                f"at {at}, d(a/b)/da is {da:g}; it should be 1/b = {1 / b:g}.",
                f"{at}에서 d(a/b)/da가 {da:g}입니다. 1/b = {1 / b:g}이어야 합니다.",
            )
        )
    if _close(db, -a / b**2, RTOL):
        return
    if _close(db, a / b**2, RTOL):
        raise NotYet(
            say(
                "d(a/b)/db has the wrong sign: a bigger b makes a/b smaller, so it is -a/b².",
                "d(a/b)/db의 부호가 반대입니다. b가 커지면 a/b는 작아지므로 -a/b²입니다.",
            )
        )
    if _close(db, -1 / b**2, RTOL):
        raise NotYet(
            say(
                "d(a/b)/db is -1/b², the derivative of 1/b: the factor a is missing (a/b = a · b⁻¹).",
                "d(a/b)/db가 1/b의 도함수 -1/b²입니다. 인수 a가 빠졌습니다(a/b = a · b⁻¹).",
            )
        )
    raise NotYet(
        say(
            f"at {at}, d(a/b)/db is {db:g}; it should be -a/b² = {-a / b**2:g}.",
            f"{at}에서 d(a/b)/db가 {db:g}입니다. -a/b² = {-a / b**2:g}이어야 합니다.",
        )
    )


@exercise(
    "2.2",
    "a lambda of the two values returning (a / b, (d/da, d/db)); a/b = a · b⁻¹ and d(b⁻¹)/db = -b⁻².",
    ko="두 값을 받아 (a / b, (d/da, d/db))를 돌려주는 lambda입니다. a/b = a · b⁻¹이고 d(b⁻¹)/db = -b⁻²입니다.",
)
def division_rule(rule: Any, evidence: Evidence) -> str:
    if rule is Ellipsis:
        raise not_written('RULES["div"]')
    if not callable(rule):
        raise NotYet(
            say(
                f'RULES["div"] should be a function of the two values a and b (a lambda), not {describe(rule)}: '
                'check("2.2", RULES["div"]) passes the rule itself.',
                f'RULES["div"]는 두 값 a, b의 함수(lambda)여야 하는데 {describe(rule)}입니다. '
                'check("2.2", RULES["div"])처럼 규칙 자체를 넘기세요.',
            )
        )
    expect_function(rule, 'RULES["div"]')
    for a, b in [(6.0, 3.0), (-1.0, 0.5), (2.5, -4.0)]:
        _check_division(a, b, *_run_rule(rule, a, b))
    return say(
        "The tape now divides: one rule (a value and its local derivatives) is all a new op needs.",
        "이제 테이프가 나눗셈도 합니다. 새 연산에 필요한 것은 규칙 하나(값과 국소 도함수)뿐입니다.",
    )


def _divide(dual_class: type, left: tuple[float, float], right: tuple[float, float]) -> tuple[float, float]:
    """(value, tangent) of dual_class(*left) / dual_class(*right), or NotYet saying what is off."""
    name = dual_class.__name__
    shown = f"{name}{left} / {name}{right}"
    quotient = call(lambda: dual_class(*left) / dual_class(*right), (), shown)
    if quotient is None:
        raise NotYet(
            say(
                f"{shown} is None: __truediv__ must end with `return {name}(value, tangent)`.",
                f"{shown}: None입니다. __truediv__는 `return {name}(value, tangent)`로 끝나야 합니다.",
            )
        )
    if not hasattr(quotient, "value") or not hasattr(quotient, "tangent"):
        raise NotYet(
            say(
                f"{shown} is {describe(quotient)}, which has no .value and .tangent: return a new {name}(value, tangent).",
                f"{shown}: {describe(quotient)}, .value와 .tangent가 없습니다. 새 {name}(value, tangent)를 돌려주세요.",
            )
        )
    return (
        as_number(quotient.value, say("the quotient's value", "몫의 값")),
        as_number(quotient.tangent, say("the quotient's tangent", "몫의 접선 성분")),
    )


def _check_quotient(left: tuple[float, float], right: tuple[float, float], value: float, tangent: float) -> None:
    (a, da), (b, db) = left, right
    want = (da * b - a * db) / b**2
    shown = f"Dual{left} / Dual{right}"
    if not _close(value, a / b, RTOL):
        raise NotYet(
            say(
                f"{shown} has value {value:g}, not {a / b:g}.",
                f"{shown}의 값이 {value:g}입니다. {a / b:g}이어야 합니다.",
            )
        )
    if _close(tangent, want, RTOL):
        return
    slips = [
        (
            (da * b + a * db) / b**2,
            "the tangent has a + where the quotient rule has a -: (a'b - ab')/b².",
            "접선 성분에 몫의 법칙의 - 대신 +가 있습니다: (a'b - ab')/b².",
        ),
        (
            da * b - a * db,
            "the tangent is a'b - ab' without the division by b²: (a'b - ab')/b².",
            "접선 성분이 b²로 나누지 않은 a'b - ab'입니다: (a'b - ab')/b².",
        ),
        (
            (a * db - da * b) / b**2,
            "the tangent has the wrong sign: a'b comes first, (a'b - ab')/b², not (ab' - a'b)/b².",
            "접선 성분의 부호가 반대입니다. (ab' - a'b)/b²가 아니라 a'b가 먼저인 (a'b - ab')/b²입니다.",
        ),
        (
            (da * b - a * db) / b,
            "the tangent is divided by b once; the quotient rule divides by b²: (a'b - ab')/b².",
            "접선 성분을 b로 한 번만 나누었습니다. 몫의 법칙은 b²로 나눕니다: (a'b - ab')/b².",
        ),
    ]
    for slip, en, ko in slips:
        if _close(tangent, slip, RTOL):
            raise NotYet(say(en, ko))
    raise NotYet(
        say(
            f"{shown} has tangent {tangent:g}; it should be {want:g}.",
            f"{shown}의 접선 성분이 {tangent:g}입니다. {want:g}이어야 합니다.",
        )
    )


@exercise(
    "2.3",
    "(a + a'ε)/(b + b'ε) = a/b + (a'b - ab')/b² ε: the quotient rule, on the tangents.",
    ko="(a + a'ε)/(b + b'ε) = a/b + (a'b - ab')/b² ε: 접선 성분에 몫의 법칙을 적용합니다.",
)
def dual_division(dual_class: Any, evidence: Evidence) -> str:
    if dual_class is Ellipsis:
        raise not_written("answer")
    if not isinstance(dual_class, type):
        raise NotYet(
            say(
                f'pass the class DualWithDivision itself, check("2.3", DualWithDivision), not {describe(dual_class)}.',
                f'클래스 DualWithDivision 자체를 넘기세요: check("2.3", DualWithDivision). 넘긴 것은 '
                f"{describe(dual_class)}입니다.",
            )
        )
    divide = getattr(dual_class, "__truediv__", None)
    if divide is None:
        raise NotYet(
            say(
                f"{dual_class.__name__} has no __truediv__: define it inside the class, under `def`.",
                f"{dual_class.__name__}에 __truediv__가 없습니다. 클래스 안에 `def`로 정의하세요.",
            )
        )
    if is_template(divide):
        raise not_written(say("the body of __truediv__", "__truediv__의 본문"))
    for left, right in [((6.0, 1.0), (3.0, 2.0)), ((1.0, 0.5), (4.0, 0.0)), ((-2.0, 0.0), (0.5, 1.0))]:
        _check_quotient(left, right, *_divide(dual_class, left, right))
    return say(
        "Forward mode divides too: the tangent follows the quotient rule, in the same pass as the value.",
        "순방향 모드도 나눗셈을 합니다. 접선 성분이 값과 같은 패스에서 몫의 법칙을 따릅니다.",
    )
