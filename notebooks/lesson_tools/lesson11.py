"""Checkers for lesson 11: graphs and `tf.function`."""

from __future__ import annotations

import minitape as mt
from lesson_tools.checking import NotYet, as_number, describe, exercise, expect_function, not_written, refuse_text

# why a count of traces is off, by the count a typical slip gives (the lesson's seven calls trace 5 times)
_TRACE_SLIPS = {
    7: "7 is the number of calls. A call whose tensors have the shape and dtype of an earlier one (and whose Python "
    "values are equal) replays that graph: double(mt.constant(5.0)) replays the graph of double(mt.constant(1.0)).",
    6: "2 and 2.0 are equal Python values (2 == 2.0), and Python values pick a graph by value: double(2.0) "
    "replays the graph traced for double(2).",
    4: "mt.constant(3) is an int32 tensor, the others float32: a new dtype traces a new graph, as a new shape does.",
    3: "Python numbers are not tensors: each new Python value traces its own graph (2 and 3 are two graphs), "
    "where tensors are told apart only by shape and dtype.",
}


@exercise("11.1", "count the distinct (shape, dtype) of the tensors, plus the distinct Python values (2 == 2.0).")
def tracing_count(answer: object, evidence: object) -> str:
    if isinstance(answer, str):
        raise refuse_text(answer, "answer")
    number = as_number(answer, "answer")
    if number in _TRACE_SLIPS:
        raise NotYet(_TRACE_SLIPS[int(number)])
    if number != 5:
        raise NotYet(f"{number:g} traces is not right: after the calls, double.experimental_get_tracing_count() says.")
    return "5 traces: float32 scalar, float32 vector, int32 scalar, and the Python values 2 (= 2.0) and 3."


@exercise("11.2", "count with a mt.Variable made outside the function, and counter.assign_add(1) inside it.")
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
            "the counter says 1: a Python side effect (calls += 1) runs while the function is traced, once, not at "
            "the calls that replay the graph. A variable's assign_add is part of the graph: it runs every call."
        )
    if number == 0:
        raise NotYet("the counter is still 0: call the traced function five times, then read the counter.")
    if number != 5:
        raise NotYet(f"the counter says {number:g} after five calls; it should count each call once.")
    return "5: the assign_add is a step of the graph, so every call counts, traced or replayed."


@exercise("11.3", "mt.where(x > 0, x * x, -x) chooses inside the graph, where an `if` chooses in Python.")
def branch_free(answer: object, evidence: object) -> str:
    expect_function(answer, "g")
    traced = mt.function(answer)
    expected = {2.0: 4.0, -3.0: 3.0, 0.5: 0.25, -0.5: 0.5}
    for x, want in expected.items():
        try:
            got = traced(mt.constant(x))
        except Exception as error:  # the student's code: any error is told as a sentence
            first = str(error).splitlines()[0] if str(error) else ""
            shown = f"g(mt.constant({x})) under mt.function"
            raise NotYet(f"calling {shown} raised {type(error).__name__}: {first}") from None
        value = as_number(got, f"g({x})") if got is not None else None
        if value is None or abs(value - want) > 1e-6:
            raise NotYet(f"g({x}) gives {describe(got) if value is None else f'{value:g}'}, but it should be {want:g}.")
    count = traced.experimental_get_tracing_count()
    if count > 1:
        raise NotYet(
            f"g is right but traced {count} times for four scalar float32 calls: a Python `if` on a tensor records "
            "a guard, and each direction traces its own graph. Choose inside the graph with mt.where."
        )
    return "one graph for every sign: mt.where computes both sides and picks per element, inside the graph."
