"""Checkers for the lesson "Autodiff by hand": a neuron by pencil, the tape's division rule, dual division."""

from __future__ import annotations

import math
from typing import Any

from lesson_tools._core import NotYet, as_number, exercise

# exercise 2.1's neuron: y = tanh(w x + b) at x = -1.5, w = 0.4, b = 0.1, so z = -0.5
_X, _W, _B = -1.5, 0.4, 0.1
_DY_DZ = 1.0 - math.tanh(_W * _X + _B) ** 2


def _refuse_text(answer: Any, what: str) -> None:
    if isinstance(answer, str):
        raise NotYet(f"{what} is the text {answer!r}; write the number itself, without quotes.")


@exercise("2.1", "z = w·x + b = -0.5; dy/dz = 1 - tanh(z)²; then dy/dw = dy/dz · x and dy/db = dy/dz · 1.")
def neuron_by_pencil(answer: Any) -> str:
    if not isinstance(answer, (list, tuple)) or len(answer) != 2:
        raise NotYet("answer should be a list of two numbers, [dy/dw, dy/db].")
    _refuse_text(answer[0], "dy/dw")
    _refuse_text(answer[1], "dy/db")
    dw, db = as_number(answer[0], "dy/dw"), as_number(answer[1], "dy/db")
    if abs(db - _DY_DZ) > 1e-3:
        if abs(db - math.tanh(-0.5)) < 1e-3:
            raise NotYet("dy/db is tanh(z), the output; the local derivative of tanh is 1 - tanh(z)².")
        raise NotYet(f"dy/db is {db:.5f}; it equals dy/dz, since dz/db = 1. Compute 1 - tanh(-0.5)² first.")
    if abs(dw - _DY_DZ * _X) > 1e-3:
        if abs(dw - _DY_DZ * _W) < 1e-3:
            raise NotYet("that is dy/dx (dy/dz times w); for dy/dw multiply dy/dz by x = -1.5.")
        raise NotYet(f"dy/dw is {dw:.5f}; by the chain rule it is dy/dz · dz/dw, and dz/dw = x = -1.5.")
    return f"dy/dz = 1 - tanh(-0.5)² = {_DY_DZ:.5f}, times x = -1.5 for w and times 1 for b."


def _call_rule(rule: Any, a: float, b: float) -> tuple[float, float, float]:
    if not callable(rule):
        raise NotYet(f"pass the rule itself, a function of two numbers, not a {type(rule).__name__}.")
    result = rule(a, b)
    if not isinstance(result, tuple) or len(result) != 2:
        raise NotYet("the rule should return a pair: (output value, (d out/d a, d out/d b)).")
    value, local = result
    if not isinstance(local, (tuple, list)) or len(local) != 2:
        raise NotYet("the local derivatives should be a pair (d out/d a, d out/d b), one per input.")
    return as_number(value, "the value"), as_number(local[0], "d(a/b)/da"), as_number(local[1], "d(a/b)/db")


@exercise("2.2", "a lambda of the two values returning (a / b, (d/da, d/db)); a/b = a · b⁻¹ and d(b⁻¹)/db = -b⁻².")
def division_rule(rule: Any) -> str:
    for a, b in [(6.0, 3.0), (-1.0, 0.5), (2.5, -4.0)]:
        value, da, db = _call_rule(rule, a, b)
        if abs(value - a / b) > 1e-9:
            raise NotYet(f"at a = {a}, b = {b} the value is {value:g}, not a / b = {a / b:g}.")
        if abs(da - 1 / b) > 1e-9:
            raise NotYet(f"at a = {a}, b = {b}, d(a/b)/da is {da:g}; it should be 1/b = {1 / b:g}.")
        if abs(db + a / b**2) > 1e-9:
            if abs(db - a / b**2) < 1e-9:
                raise NotYet("d(a/b)/db has the wrong sign: a bigger b makes a/b smaller, so it is -a/b².")
            raise NotYet(f"at a = {a}, b = {b}, d(a/b)/db is {db:g}; it should be -a/b² = {-a / b**2:g}.")
    return "The tape now divides: one rule (a value and its local derivatives) is all a new op needs."


@exercise("2.3", "(a + a'ε)/(b + b'ε) = a/b + (a'b - ab')/b² ε: the quotient rule, on the tangents.")
def dual_division(dual_class: Any) -> str:
    if not isinstance(dual_class, type):
        raise NotYet(f"pass the class DualWithDivision itself, not a {type(dual_class).__name__}.")
    for (a, da), (b, db) in [((6.0, 1.0), (3.0, 2.0)), ((1.0, 0.5), (4.0, 0.0)), ((-2.0, 0.0), (0.5, 1.0))]:
        quotient = dual_class(a, da) / dual_class(b, db)
        if quotient is None:
            raise NotYet("__truediv__ returned None: return a new Dual(value, tangent).")
        value, tangent = as_number(quotient.value, "the value"), as_number(quotient.tangent, "the tangent")
        want = (da * b - a * db) / b**2
        if abs(value - a / b) > 1e-9:
            raise NotYet(f"Dual({a}, {da}) / Dual({b}, {db}) has value {value:g}, not {a / b:g}.")
        if abs(tangent - want) > 1e-9:
            if abs(tangent - (da * b + a * db) / b**2) < 1e-9:
                raise NotYet("the tangent has a + where the quotient rule has a -: (a'b - ab')/b².")
            raise NotYet(f"Dual({a}, {da}) / Dual({b}, {db}) has tangent {tangent:g}; it should be {want:g}.")
    return "Forward mode divides too: the tangent follows the quotient rule, in the same pass as the value."
