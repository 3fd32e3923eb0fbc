"""Checkers for lesson 03: recording and watching."""

from __future__ import annotations

from lesson_tools.checking import (
    Evidence,
    NotYet,
    as_number,
    describe,
    exercise,
    expect_gradient,
    items,
    not_written,
    tape_reasons,
)

TAPE = ("tape", "target", "sources")


@exercise(
    "3.1",
    "a constant is not watched: call tape.watch(x) inside the with block, before computing x**3.",
    evidence=TAPE,
    names=("x",),
)
def watch_constant(answer: object, evidence: Evidence) -> str:
    if answer is not None and as_number(answer, "your gradient") == 8.0:
        raise NotYet("8 is x³ itself at x = 2; the exercise asks for its derivative.")
    expect_gradient(answer, 12.0, "your gradient", evidence, ("x",))
    return "d(x³)/dx = 3x² = 12: the constant was watched."


@exercise(
    "3.2",
    "GradientTape(watch_accessed_variables=False), then tape.watch(b); ask for [a, b].",
    evidence=TAPE,
    names=("a", "b"),
)
def watch_only_b(answer: object, evidence: Evidence) -> str:
    df_da, df_db = items(answer, 2, "a pair (df_da, df_db)")
    if df_da is not None:
        raise NotYet(
            f"df_da is {as_number(df_da, 'df_da'):g}, but it should be None: the tape should watch only b "
            "(GradientTape(watch_accessed_variables=False) and tape.watch(b)), so it never records a's use."
        )
    expect_gradient(df_db, 4.0, "df_db", evidence, ("a", "b"), only=("b",))
    watched_a = [r for r in tape_reasons(evidence, ("a", "b")) or [] if r.source == "a" and r.connected]
    if watched_a:
        raise NotYet("your tape still watches a, so its gradient would be 4, not None: watch only b.")
    return "df_da is None (a was never watched) and df_db = a = 4."


@exercise(
    "3.3",
    "read params['w'] and params['b'] inside the tape, then tape.gradient(loss, params).",
    evidence=TAPE,
)
def dict_sources(answer: object, evidence: Evidence) -> str:
    if answer is Ellipsis:
        raise not_written("answer")
    if not isinstance(answer, dict):
        raise NotYet(
            f"answer should be a dict with the keys 'w' and 'b', like params, not {describe(answer)}: "
            "pass params itself as the sources of tape.gradient."
        )
    if set(answer) != {"w", "b"}:
        raise NotYet(f"answer has the keys {sorted(answer)}, but it should have the keys of params, 'b' and 'w'.")
    # residual r = w·x + b - 1 = 3 - 2 + 0.5 - 1 = 0.5; dloss/dw = 2 r x, dloss/db = 2 r
    expect_gradient(answer["w"], [3.0, 1.0], "the gradient for 'w'", evidence, (), only=("w",))
    expect_gradient(answer["b"], 1.0, "the gradient for 'b'", evidence, (), only=("b",))
    return "The residual is 0.5, so dL/dw = 2·0.5·x = (3, 1) and dL/db = 1."
