"""Checkers for lesson 06: getting None."""

from __future__ import annotations

import minitape as mt
from lesson_tools.checking import Evidence, NotYet, describe, exercise, expect_close, items, not_written


@exercise("6.1", "x = x + 1.0 makes x a tensor; x.assign_add(1.0) changes the variable in place.", evidence=("x",))
def keep_the_variable(answer: object, evidence: Evidence) -> str:
    first, second = items(answer, 2, "the list of the two gradients, one per step")
    x = evidence.given.get("x", Ellipsis)
    if x is Ellipsis:
        raise NotYet('pass x too, so the check can see what your loop made of it: check("6.1", answer, x=x).')
    if not isinstance(x, mt.Variable):
        raise NotYet(
            f"after your loop x is {describe(x)}, no longer a mt.Variable: `x = x + 1.0` made a new tensor "
            "(watching it only hides that). Update the variable in place with x.assign_add(1.0)."
        )
    if second is None:
        raise NotYet("the second gradient is None: was the tape's y computed from the variable x?")
    expect_close(first, 4.0, "the first gradient")
    expect_close(second, 6.0, "the second gradient")
    return "4 then 6: x stayed a variable, updated in place."


@exercise("6.2", "tape.gradient(y, [w, extra], unconnected_gradients='zero') (or mt.UnconnectedGradients.ZERO).")
def zeros(answer: object, evidence: Evidence) -> str:
    dw, dextra = items(answer, 2, "the list of two gradients, [dy/dw, dy/dextra]")
    if dw is None:
        raise NotYet("dy/dw is None: compute y = w * 3.0 inside the tape's with block.")
    expect_close(dw, 3.0, "dy/dw")
    if dextra is None:
        raise NotYet("dy/dextra is still None (y does not use extra): ask for zeros with unconnected_gradients='zero'.")
    expect_close(dextra, [0.0, 0.0], "dy/dextra")
    return "Zeros with the source's shape, (2,), instead of None."


@exercise("6.3", "explanation = tape.explain(y, scale); print(explanation); answer = explanation.reasons[0].kind")
def find_the_cut(answer: object, evidence: Evidence) -> str:
    if answer is Ellipsis:
        raise not_written("answer")
    if hasattr(answer, "reasons"):
        raise NotYet("answer is the whole explanation: take the kind of its first reason, explanation.reasons[0].kind.")
    kind = getattr(answer, "kind", answer)
    if not isinstance(kind, str):
        raise NotYet(f"answer should be a string like 'no_path', not {describe(kind)}.")
    if kind != "stop_gradient":
        raise NotYet(f"{kind!r} is not what explain() says for scale: print the explanation and read its kind.")
    return "normalise divides by mt.stop_gradient(norm * scale): scale sits inside the cut."
