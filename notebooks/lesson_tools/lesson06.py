"""Checkers for lesson 06: getting None."""

from __future__ import annotations

from lesson_tools._core import NotYet, exercise, expect_close


@exercise("6.1", "x = x + 1.0 makes x a tensor; x.assign_add(1.0) changes the variable in place.")
def keep_the_variable(answer: object) -> str:
    if not isinstance(answer, (list, tuple)) or len(answer) != 2:
        raise NotYet("answer should be the list of the two gradients, one per step.")
    if answer[1] is None:
        raise NotYet("the second gradient is still None: x is no longer a variable at step 1.")
    expect_close(answer[0], 4.0, "the first gradient")
    expect_close(answer[1], 6.0, "the second gradient")
    return "4 then 6: x stayed a variable, updated in place."


@exercise("6.2", "tape.gradient(y, [w, extra], unconnected_gradients='zero') (or mt.UnconnectedGradients.ZERO).")
def zeros(answer: object) -> str:
    if not isinstance(answer, (list, tuple)) or len(answer) != 2:
        raise NotYet("answer should be the list of two gradients, [dy/dw, dy/dextra].")
    expect_close(answer[0], 3.0, "dy/dw")
    if answer[1] is None:
        raise NotYet("dy/dextra is still None: ask for zeros with unconnected_gradients.")
    expect_close(answer[1], [0.0, 0.0], "dy/dextra")
    return "Zeros with the source's shape, (2,), instead of None."


@exercise("6.3", "explanation = tape.explain(y, scale); print(explanation); answer = explanation.reasons[0].kind")
def find_the_cut(answer: object) -> str:
    kind = getattr(answer, "kind", answer)
    if not isinstance(kind, str):
        raise NotYet(f"answer should be a string like 'no_path', not {type(kind).__name__}.")
    if kind != "stop_gradient":
        raise NotYet(f"{kind!r} is not what explain() says for scale.")
    return "normalise divides by mt.stop_gradient(norm * scale): scale sits inside the cut."
