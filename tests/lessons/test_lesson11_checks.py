"""Lesson 11's exercise checks (graphs and tf.function): the solutions pass, typical slips get their reason."""

from __future__ import annotations

import re
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

import minitape as mt

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "notebooks"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from lesson_tools import set_language, verdict  # noqa: E402

NUMBER = re.compile(r"\d+(?:\.\d+)?")


def _branch_free(x):
    return mt.where(x > 0, x * x, -x)


def _python_branch(x):
    if x > 0:
        return x * x
    return -x


def _counter_after_five_calls(use_variable: bool) -> Any:
    counter = mt.Variable(0) if use_variable else [0]

    @mt.function
    def counted(x):
        if use_variable:
            counter.assign_add(1)
        else:
            counter[0] += 1  # a Python side effect: at tracing only
        return x * 2

    for _ in range(5):
        counted(mt.constant(1.0))
    return counter if use_variable else counter[0]


RIGHT = [
    ("11.1", 5),
    ("11.1", mt.constant(5)),
    ("11.2", _counter_after_five_calls(True)),  # the variable itself
    ("11.2", 5.0),
    ("11.3", _branch_free),
]


@pytest.mark.parametrize(("key", "answer"), RIGHT, ids=[r[0] for r in RIGHT])
def test_the_solution_passes(key: str, answer: Any) -> None:
    assert verdict(key, answer).startswith(f"Exercise {key}: correct!"), verdict(key, answer)


WRONG = [
    ("11.1", "5", "the string '5'"),
    ("11.1", None, "is None"),
    ("11.1", 7, "7 is the number of calls"),
    ("11.1", 6, "2 and 2.0 are equal Python values"),
    ("11.1", 4, "mt.constant(3) is an int32 tensor"),
    ("11.1", 3, "Python numbers are not tensors"),
    ("11.1", 9, "9 traces is not right"),
    ("11.2", "5", "the string '5'"),
    ("11.2", None, "is None"),
    ("11.2", _counter_after_five_calls(False), "a Python side effect (calls += 1) runs while the function is traced"),
    ("11.2", 0, "the counter is still 0"),
    ("11.2", 10, "it should count each call once"),
    ("11.3", _python_branch, "traced 2 times for four scalar float32 calls"),
    ("11.3", lambda x: x * x, "g(-3.0) gives 9, but it should be 3"),
    ("11.3", lambda x: x.numpy(), "raised AttributeError: 'SymbolicTensor' object has no attribute 'numpy'"),
    ("11.3", "g", "pass it without calling it"),
    ("11.3", None, "pass it without calling it"),
]


@pytest.mark.parametrize(("key", "answer", "words"), WRONG, ids=[w[0] for w in WRONG])
def test_a_wrong_answer_gets_its_reason(key: str, answer: Any, words: str) -> None:
    said = verdict(key, answer)
    assert said.startswith(f"Exercise {key}: not yet. ") and "\nHint: " in said, said
    assert words in said or words[0].upper() + words[1:] in said, said


@pytest.mark.parametrize(("key", "answer", "words"), WRONG, ids=[w[0] for w in WRONG])
def test_a_wrong_answer_gets_its_reason_in_korean(key: str, answer: Any, words: str) -> None:
    """The Korean edition names the same slip with the same numbers, and leaves no English sentence but the text of
    an error the student's own code raised (quoted as Python wrote it)."""
    from test_korean_feedback import HANGUL, _english_left  # imported here: that module imports this one's cases

    english = verdict(key, answer)
    set_language("ko")
    try:
        korean = verdict(key, answer)
    finally:
        set_language("en")
    assert korean.startswith(f"연습 {key}: 아직 아닙니다. ") and "\n힌트: " in korean, korean
    assert HANGUL.search(korean.split("\n")[0].split(". ", 1)[1]), korean
    quoted = english.split("raised ", 1)[1].split(": ", 1)[1].split("\n")[0] if "raised " in english else ""
    assert _english_left(korean.replace(quoted, " ") if quoted else korean) is None, korean
    assert Counter(NUMBER.findall(korean)) == Counter(NUMBER.findall(english)), (english, korean)
