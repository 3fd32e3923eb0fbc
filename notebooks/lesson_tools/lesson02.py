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


@exercise("2.1", "z = w·x + b; dy/dz = 1 - tanh(z)²; then dy/dw = dy/dz · x and dy/db = dy/dz · 1.")
def neuron_by_pencil(answer: Any, evidence: Evidence) -> str:
    first, second = items(answer, 2, "a list of two numbers, [dy_dw, dy_db]")
    dw, db = as_number(first, "dy_dw"), as_number(second, "dy_db")
    right_dw, right_db = _DY_DZ * _X, _DY_DZ
    if _close(dw, right_db) and _close(db, right_dw):
        raise NotYet("the two numbers are in the wrong order: the list is [dy_dw, dy_db].")
    if not _close(db, right_db):
        if _close(db, math.tanh(_Z), NEAR):
            raise NotYet("dy_db is tanh(z), the neuron's output; the local derivative of tanh is 1 - tanh(z)².")
        if _close(db, 1.0):
            raise NotYet("dy_db is 1, which is dz/db alone; the chain rule multiplies it by dy/dz = 1 - tanh(z)².")
        if _close(db, right_db, NEAR):
            raise NotYet(f"dy_db is {db:.6g}: close, but off by more than rounding to 3 digits: round only at the end.")
        raise NotYet(f"dy_db is {db:.6g}; it equals dy/dz, since dz/db = 1. Compute z, then 1 - tanh(z)² first.")
    if not _close(dw, right_dw):
        if _close(dw, _DY_DZ * _W, NEAR):
            raise NotYet("that dy_dw is dy/dx (dy/dz times w); for dy/dw multiply dy/dz by x = -1.5.")
        if _close(dw, -right_dw, NEAR):
            raise NotYet(f"dy_dw has the wrong sign: dz/dw = x = {_X:g} is negative.")
        if _close(dw, right_dw, NEAR):
            raise NotYet(f"dy_dw is {dw:.6g}: close, but off by more than rounding to 3 digits: round only at the end.")
        raise NotYet(f"dy_dw is {dw:.6g}; by the chain rule it is dy/dz · dz/dw, and dz/dw = x = {_X:g}.")
    return f"dy/dz = 1 - tanh({_Z:.1f})² = {_DY_DZ:.5f}, times x = {_X:g} for w and times 1 for b."


def _run_rule(rule: Any, a: float, b: float) -> tuple[float, float, float]:
    """The student's rule at (a, b): its value and its two local derivatives, or NotYet saying what is off."""
    shown = f'RULES["div"]({a:g}, {b:g})'
    result = call(rule, (a, b), shown)
    if result is Ellipsis:  # lambda a, b: ...
        raise not_written('the body of RULES["div"]')
    if result is None:
        raise NotYet(f"{shown} returned None: the rule returns (a / b, (d(a/b)/da, d(a/b)/db)).")
    if not isinstance(result, (tuple, list)) or len(result) != 2:
        raise NotYet(
            f"{shown} returned {describe(result)}; the rule returns a pair: (the output value, (d(a/b)/da, d(a/b)/db))."
        )
    value, local = result
    pair = "a pair (d(a/b)/da, d(a/b)/db), one per input"
    if hasattr(local, "numpy") or isinstance(local, np.ndarray):  # both derivatives in one array: fine
        local = as_array(local, f"the local derivatives in {shown}")
        if local.shape != (2,):
            raise NotYet(f"the local derivatives in {shown} should be {pair}; they have shape {local.shape}.")
    elif not isinstance(local, (tuple, list)) or len(local) != 2:
        raise NotYet(f"the local derivatives in {shown} should be {pair}, not {describe(local)}.")
    return as_number(value, "the value"), as_number(local[0], "d(a/b)/da"), as_number(local[1], "d(a/b)/db")


@exercise("2.2", "a lambda of the two values returning (a / b, (d/da, d/db)); a/b = a · b⁻¹ and d(b⁻¹)/db = -b⁻².")
def division_rule(rule: Any, evidence: Evidence) -> str:
    if rule is Ellipsis:
        raise not_written('RULES["div"]')
    if not callable(rule):
        raise NotYet(
            f'RULES["div"] should be a function of the two values a and b (a lambda), not {describe(rule)}: '
            'check("2.2", RULES["div"]) passes the rule itself.'
        )
    expect_function(rule, 'RULES["div"]')
    for a, b in [(6.0, 3.0), (-1.0, 0.5), (2.5, -4.0)]:
        value, da, db = _run_rule(rule, a, b)
        if not _close(value, a / b, RTOL):
            raise NotYet(f"at a = {a:g}, b = {b:g} the value is {value:g}, not a / b = {a / b:g}.")
        if not _close(da, 1 / b, RTOL):
            raise NotYet(f"at a = {a:g}, b = {b:g}, d(a/b)/da is {da:g}; it should be 1/b = {1 / b:g}.")
        if not _close(db, -a / b**2, RTOL):
            if _close(db, a / b**2, RTOL):
                raise NotYet("d(a/b)/db has the wrong sign: a bigger b makes a/b smaller, so it is -a/b².")
            raise NotYet(f"at a = {a:g}, b = {b:g}, d(a/b)/db is {db:g}; it should be -a/b² = {-a / b**2:g}.")
    return "The tape now divides: one rule (a value and its local derivatives) is all a new op needs."


def _divide(dual_class: type, left: tuple[float, float], right: tuple[float, float]) -> tuple[float, float]:
    """(value, tangent) of dual_class(*left) / dual_class(*right), or NotYet saying what is off."""
    shown = f"{dual_class.__name__}{left} / {dual_class.__name__}{right}"
    quotient = call(lambda: dual_class(*left) / dual_class(*right), (), shown)
    if quotient is None:
        raise NotYet(f"{shown} is None: __truediv__ must end with `return {dual_class.__name__}(value, tangent)`.")
    if not hasattr(quotient, "value") or not hasattr(quotient, "tangent"):
        raise NotYet(
            f"{shown} is {describe(quotient)}, which has no .value and .tangent: "
            f"return a new {dual_class.__name__}(value, tangent)."
        )
    return as_number(quotient.value, "the quotient's value"), as_number(quotient.tangent, "the quotient's tangent")


@exercise("2.3", "(a + a'ε)/(b + b'ε) = a/b + (a'b - ab')/b² ε: the quotient rule, on the tangents.")
def dual_division(dual_class: Any, evidence: Evidence) -> str:
    if dual_class is Ellipsis:
        raise not_written("answer")
    if not isinstance(dual_class, type):
        raise NotYet(
            f'pass the class DualWithDivision itself, check("2.3", DualWithDivision), not {describe(dual_class)}.'
        )
    divide = getattr(dual_class, "__truediv__", None)
    if divide is None:
        raise NotYet(f"{dual_class.__name__} has no __truediv__: define it inside the class, under `def`.")
    if is_template(divide):
        raise not_written("the body of __truediv__")
    for left, right in [((6.0, 1.0), (3.0, 2.0)), ((1.0, 0.5), (4.0, 0.0)), ((-2.0, 0.0), (0.5, 1.0))]:
        (a, da), (b, db) = left, right
        value, tangent = _divide(dual_class, left, right)
        want = (da * b - a * db) / b**2
        if not _close(value, a / b, RTOL):
            raise NotYet(f"Dual{left} / Dual{right} has value {value:g}, not {a / b:g}.")
        if not _close(tangent, want, RTOL):
            if _close(tangent, (da * b + a * db) / b**2, RTOL):
                raise NotYet("the tangent has a + where the quotient rule has a -: (a'b - ab')/b².")
            if _close(tangent, da * b - a * db, RTOL):
                raise NotYet("the tangent is a'b - ab' without the division by b²: (a'b - ab')/b².")
            raise NotYet(f"Dual{left} / Dual{right} has tangent {tangent:g}; it should be {want:g}.")
    return "Forward mode divides too: the tangent follows the quotient rule, in the same pass as the value."
