"""The `check` function, the registry of exercise checkers, and the helpers that read a student's answer.

A checker sees the answer and, where the exercise uses a tape, the evidence the student passes along
(`tape=`, `target=`, `sources=`, ...). It returns a word of praise or raises `NotYet` with a sentence that
says why the answer is wrong. `check` prints that; it never shows a traceback.
"""

from __future__ import annotations

import inspect
import os
import textwrap
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

import minitape as mt

# float32 keeps about 7 significant digits: a right answer computed in float32 is within a few ulps
# (2**-23 relative), while a number rounded or typed by hand to 4-6 digits is off by 1e-6 or more.
RTOL = 1e-6
NEAR = 1e-2  # off by less than this (relative): the right idea, rounded
WIDTH = 90  # check() wraps its lines here, on word boundaries: a browser would break them mid-word
# Set when the lessons are built or tested (build_lessons.py, notebooks/conftest.py): then solutions run.
RUN_SOLUTIONS = "MINITAPE_LESSONS_RUN_SOLUTIONS"


class NotYet(Exception):  # noqa: N818 - a friendly verdict, not an error
    """Raised by a checker when the answer is not right yet; the message says what is wrong."""


@dataclass
class Evidence:
    """What the student passed besides the answer: their tape, its target and sources, or other names."""

    key: str
    given: dict[str, Any] = field(default_factory=dict)

    def get(self, name: str) -> Any:
        value = self.given.get(name)
        return None if value is Ellipsis else value


@dataclass
class Exercise:
    checker: Callable[[Any, Evidence], str]
    hint: str
    evidence: tuple[str, ...]  # the keyword arguments check() accepts for this exercise
    names: tuple[str, ...]  # how the exercise names its sources, for tape.explain's sentences


_EXERCISES: dict[str, Exercise] = {}


def exercise(key: str, hint: str, evidence: Sequence[str] = (), names: Sequence[str] = ()) -> Callable:
    """Register a checker for exercise `key`: `checker(answer, evidence)` returns praise or raises NotYet."""

    def register(checker: Callable[[Any, Evidence], str]) -> Callable[[Any, Evidence], str]:
        _EXERCISES[key] = Exercise(checker, hint, tuple(evidence), tuple(names))
        return checker

    return register


def exercise_keys() -> list[str]:
    """Every registered exercise, in order."""
    return sorted(_EXERCISES)


def check(key: str, answer: Any = Ellipsis, **evidence: Any) -> None:
    """Print friendly feedback on `answer` for exercise `key`; `evidence` is e.g. tape=tape, target=y, sources=x."""
    print(wrap(verdict(key, answer, **evidence)))


def wrap(text: str) -> str:
    """Each line of `text` folded at WIDTH characters, between words."""
    return "\n".join(
        textwrap.fill(line, WIDTH, break_long_words=False, break_on_hyphens=False) for line in text.splitlines()
    )


def _sentence_case(text: str) -> str:
    """A capital on the first word, when it is an ordinary word (an identifier like dy_db or f(2) keeps its case)."""
    first = text.split(" ", 1)[0]
    return text[0].upper() + text[1:] if first.isalpha() and first.islower() else text


def verdict(key: str, answer: Any = Ellipsis, **evidence: Any) -> str:
    """The feedback `check` prints, as a string (the tests read it)."""
    if key not in _EXERCISES:
        return f"There is no exercise {key!r}: the exercises are {', '.join(exercise_keys())}."
    spec = _EXERCISES[key]
    unknown = sorted(set(evidence) - set(spec.evidence))
    if unknown:
        accepted = ", ".join(f"{name}=..." for name in spec.evidence) or "nothing besides the answer"
        return f'Exercise {key}: check("{key}", ...) does not take {", ".join(unknown)}; it takes {accepted}.'
    try:
        praise = spec.checker(answer, Evidence(key, evidence))
    except NotYet as wrong:
        return f"Exercise {key}: not yet. {_sentence_case(str(wrong))}\nHint: {spec.hint}"
    except Exception as error:  # a bug the checker did not foresee: say so in one line, never a traceback
        message = str(error).splitlines()[0] if str(error) else ""
        return f"Exercise {key}: checking your answer raised {type(error).__name__}: {message}\nHint: {spec.hint}"
    return f"Exercise {key}: correct! {praise}"


def run_solution(solution: Callable[[], None]) -> None:
    """Run a hidden solution only when the lessons are built or tested: Run All must not replace the student's answer."""
    if os.environ.get(RUN_SOLUTIONS):
        solution()
    else:
        print(
            f"The solution did not run (Run All keeps your own answer): call {solution.__name__}() to see it checked."
        )


# ---- not written yet ---------------------------------------------------------------------------------------
def not_written(what: str) -> NotYet:
    return NotYet(f"{what} is still `...`: nothing is written yet. Replace the `...` with your code and run the cell.")


def _placeholder() -> None: ...


def is_template(fn: Any) -> bool:
    """True for a function whose body is still only `...` (or `pass`), as the exercise cell gives it."""
    fn = inspect.unwrap(fn) if callable(fn) else fn
    code = getattr(fn, "__code__", None)
    return code is not None and code.co_code == _placeholder.__code__.co_code and not code.co_names


def expect_function(fn: Any, name: str) -> None:
    """NotYet unless `fn` is a function the student wrote (not the untouched template, not a value)."""
    if fn is Ellipsis or is_template(fn):
        raise not_written(f"the body of {name}")
    if isinstance(fn, str) or not callable(fn):
        raise NotYet(
            f"this exercise checks your function {name} itself: pass it without calling it, "
            f'check("...", {name}), not {describe(fn)}.'
        )


def call(fn: Callable, args: tuple, shown: str) -> Any:
    """Call the student's function; an exception becomes NotYet naming the call and the error."""
    try:
        return fn(*args)
    except NotYet:
        raise
    except Exception as error:
        first = str(error).splitlines()[0] if str(error) else ""
        raise NotYet(f"calling {shown} raised {type(error).__name__}: {first}") from None


# ---- numbers and arrays ------------------------------------------------------------------------------------
def describe(value: Any) -> str:
    """A short phrase naming what a value is, for "..., not {describe(value)}"."""
    if value is None:
        return "None"
    if isinstance(value, str):
        return f"the string {value!r}"
    if callable(value):
        return f"the function {getattr(value, '__name__', type(value).__name__)}"
    name = type(value).__name__
    return f"{'an' if name[0] in 'aeiou' else 'a'} {name}"


def _looks_like_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def refuse_text(value: str, what: str) -> NotYet:
    if _looks_like_number(value):
        return NotYet(
            f"{what} is the string {value!r}: text in quotes, not a number. Python does not do arithmetic on "
            f"text, so a gradient is never a string. Give the value your code computed (the tensor itself), "
            f"or the number without quotes: {value.strip()}."
        )
    return NotYet(f"{what} is the string {value!r}, but the exercise asks for numbers: the value your code computed.")


def as_array(value: Any, what: str = "your answer") -> np.ndarray:
    """A float64 array from a tensor, numpy array, number or nested list; NotYet with the reason otherwise."""
    if value is Ellipsis:
        raise not_written(what)
    if value is None:
        raise NotYet(f"{what} is None.")
    if isinstance(value, str):
        raise refuse_text(value, what)
    if isinstance(value, (bool, np.bool_)):
        raise NotYet(f"{what} is {value}, a yes/no value, but the exercise asks for a number.")
    if isinstance(value, dict) or callable(value) and not hasattr(value, "numpy"):
        raise NotYet(f"{what} should be a number or an array of numbers, not {describe(value)}.")
    if isinstance(value, mt.Variable):
        raise NotYet(
            f"{what} is a mt.Variable, a source itself (named {value.name!r}); the answer is what "
            "tape.gradient(...) returned for it."
        )
    if isinstance(value, (list, tuple)):
        return np.array([as_array(v, f"{what}[{i}]") for i, v in enumerate(value)])
    if hasattr(value, "numpy"):
        value = value.numpy()
    array = np.asarray(value)
    if array.dtype.kind not in "iuf":
        raise NotYet(f"{what} should be a number or an array of numbers, not {describe(value)} of {array.dtype}.")
    return array.astype(np.float64)


def as_number(value: Any, what: str = "your answer") -> float:
    """A plain float from a tensor, array or number; NotYet with a readable reason otherwise."""
    array = as_array(value, what)
    if array.size != 1:
        raise NotYet(f"{what} should be a single number, but it has shape {array.shape}.")
    return float(array.reshape(()))


def show(array: Any) -> str:
    """Numbers to 7 significant digits (%g): a tiny value stays readable, not rounded to 0.0."""
    array = np.asarray(array, dtype=np.float64)
    if array.size == 1:
        return f"{float(array.reshape(())):.7g}"
    return str(np.vectorize(lambda v: float(f"{v:.7g}"), otypes=[object])(array).tolist())


def expect_close(value: Any, expected: Any, what: str = "your answer", rtol: float = RTOL) -> None:
    """NotYet unless `value` matches `expected` in shape and, to float32 precision, in value."""
    got, want = as_array(value, what), np.asarray(expected, dtype=np.float64)
    if got.shape != want.shape:
        raise NotYet(f"{what} has shape {got.shape}, but it should have shape {want.shape}.")
    scale = max(float(np.max(np.abs(want), initial=0.0)), 1e-3)
    error = float(np.max(np.abs(got - want), initial=0.0))
    if error <= rtol * scale:
        return
    if error <= NEAR * scale:
        raise NotYet(
            f"{what} is {show(got)}: close, but off by {error:.1e}, more than float32 rounding explains. Was it "
            "rounded or copied by hand? Give the value your code computed (the tensor itself)."
        )
    raise NotYet(f"{what} is {show(got)}, which is not the right value.")


def items(answer: Any, count: int, what: str) -> list:
    """The `count` entries of a list, tuple, array or tensor answer; NotYet if it is not such a collection."""
    if answer is Ellipsis:
        raise not_written("answer")
    if answer is None or isinstance(answer, (str, dict)) or callable(answer) and not hasattr(answer, "numpy"):
        raise NotYet(f"answer should be {what}, not {'None' if answer is None else describe(answer)}.")
    if hasattr(answer, "numpy") or isinstance(answer, np.ndarray):
        array = as_array(answer, "answer")
        if array.ndim == 0 or len(array) != count:
            raise NotYet(f"answer should be {what}; it has shape {array.shape}.")
        return list(array)
    if not isinstance(answer, (list, tuple)) or len(answer) != count:
        length = f"{len(answer)} entries" if isinstance(answer, (list, tuple)) else describe(answer)
        raise NotYet(f"answer should be {what}, not {length}.")
    return list(answer)


# ---- why is it None? ---------------------------------------------------------------------------------------
def _named_sources(sources: Any, names: tuple[str, ...]) -> Any:
    """Sources keyed by the names the exercise uses, so explain's sentences say "x", not "source 0"."""
    if isinstance(sources, dict):
        return sources
    flat = list(sources) if isinstance(sources, (list, tuple)) else [sources]
    if len(flat) == len(names):
        return dict(zip(names, flat))
    return sources


def tape_reasons(evidence: Evidence, names: tuple[str, ...]) -> list | None:
    """`tape.explain(target, sources).reasons` for the student's tape, or None when it was not passed (or unusable)."""
    tape, target, sources = evidence.get("tape"), evidence.get("target"), evidence.get("sources")
    if tape is None or target is None or sources is None or not hasattr(tape, "explain"):
        return None
    try:
        return list(tape.explain(target, _named_sources(sources, names)).reasons)
    except Exception:  # e.g. target= is not a tensor: why_none says so; a verification cannot tell
        return None


def _sentence(reason: Any) -> str:
    headline = "You forgot to watch" if reason.kind == "not_watched" else "Your tape says, for"
    fix = f" Fix: {reason.fix}" if reason.fix else ""
    return f"{headline} {reason.source}: {reason.message}{fix}"


def why_none(evidence: Evidence, names: tuple[str, ...], only: Sequence[str] | None = None) -> str:
    """Why the student's gradient is None, from `tape.explain(target, sources)`; a request for the tape if absent."""
    tape, target, sources = evidence.get("tape"), evidence.get("target"), evidence.get("sources")
    if tape is None or target is None or sources is None:
        return (
            f'Your code ran and produced None. Pass your tape along and I can say why: check("{evidence.key}", '
            "answer, tape=tape, target=..., sources=...) with the target and sources you gave tape.gradient."
        )
    if not hasattr(tape, "explain"):
        return f"tape= should be your mt.GradientTape, not {describe(tape)}."
    try:
        reasons = list(tape.explain(target, _named_sources(sources, names)).reasons)
    except Exception as error:  # e.g. target= is not a tensor: say so instead of guessing
        return f"I could not ask your tape why (tape.explain raised {type(error).__name__}: {error})."
    broken = [r for r in reasons if not r.connected]
    broken = [r for r in broken if only is None or r.source in only] or broken  # a named Variable keeps its name
    if not broken:
        return "Your tape does connect the target to the sources: is `answer` the result of tape.gradient on them?"
    return "\n".join(_sentence(reason) for reason in broken)


def expect_gradient(value: Any, expected: Any, what: str, evidence: Evidence, names: tuple[str, ...], only=None):
    """expect_close, but a None is explained from the student's tape, and a right number needs a tape that gives it."""
    if value is None:
        raise NotYet(f"{what} is None. " + why_none(evidence, names, only))
    expect_close(value, expected, what)
    reasons = tape_reasons(evidence, names)
    cut = [r for r in reasons or [] if not r.connected and (only is None or r.source in only)]
    if cut:
        raise NotYet(
            f"{what} has the right value, but your tape gives no gradient for it (typed by hand?). " + _sentence(cut[0])
        )
