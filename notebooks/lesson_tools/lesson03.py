"""Checkers for lesson 03: recording and watching."""

from __future__ import annotations

from lesson_tools._core import NotYet, exercise, expect_close


@exercise("3.1", "a constant is not watched: call tape.watch(x) inside the with block, before computing x**3.")
def watch_constant(answer: object) -> str:
    expect_close(answer, 12.0, "your gradient")
    return "d(x³)/dx = 3x² = 12: the constant was watched."


@exercise("3.2", "GradientTape(watch_accessed_variables=False), then tape.watch(b); ask for [a, b].")
def watch_only_b(answer: object) -> str:
    if not isinstance(answer, (list, tuple)) or len(answer) != 2:
        raise NotYet("answer should be a pair (df_da, df_db).")
    if answer[0] is not None:
        raise NotYet("df_da should be None: a was not watched, so the tape did not record its use.")
    expect_close(answer[1], 4.0, "df_db")
    return "df_da is None (a was never watched) and df_db = a = 4."


@exercise("3.3", "read params['w'] and params['b'] inside the tape, then tape.gradient(loss, params).")
def dict_sources(answer: object) -> str:
    if not isinstance(answer, dict) or set(answer) != {"w", "b"}:
        raise NotYet("answer should be a dict with the keys 'w' and 'b', like params: pass params itself as sources.")
    # residual r = w·x + b - 1 = 3 - 2 + 0.5 - 1 = 0.5; dloss/dw = 2 r x, dloss/db = 2 r
    expect_close(answer["w"], [3.0, 1.0], "the gradient for 'w'")
    expect_close(answer["b"], 1.0, "the gradient for 'b'")
    return "The residual is 0.5, so dL/dw = 2·0.5·x = (3, 1) and dL/db = 1."
