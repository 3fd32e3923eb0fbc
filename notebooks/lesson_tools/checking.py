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
from lesson_tools.language import say

# float32 keeps about 7 significant digits: a right answer computed in float32 is within a few ulps
# (2**-23 relative), while a number rounded or typed by hand to 4-6 digits is off by 1e-6 or more.
RTOL = 1e-6
NEAR = 1e-2  # off by less than this (relative): the right idea, rounded
WIDTH = 90  # check() wraps its lines here, on word boundaries: a browser would break them mid-word
WIDTH_KO = 64  # a Hangul syllable is as wide as about 1.5 Latin letters in a notebook's monospace font
# Set when the lessons are built or tested (build_lessons.py, notebooks/conftest.py): then solutions run.
RUN_SOLUTIONS = "MINITAPE_LESSONS_RUN_SOLUTIONS"


class NotYet(Exception):  # noqa: N818 - a friendly verdict, not an error
    """Raised by a checker when the answer is not right yet; the message says what is wrong."""


@dataclass
class Evidence:
    """What the student passed besides the answer: their tape, its target and sources, or other names."""

    key: str
    given: dict[str, Any] = field(default_factory=dict)
    tape_name: str = "tape"  # what the exercise calls its tape: "outer" in 5.2, so a fix says outer.watch(x)

    def get(self, name: str) -> Any:
        value = self.given.get(name)
        return None if value is Ellipsis else value


@dataclass
class Exercise:
    checker: Callable[[Any, Evidence], str]
    hints: dict[str, str]  # the hint in each language, {"en": ..., "ko": ...}
    evidence: tuple[str, ...]  # the keyword arguments check() accepts for this exercise
    names: tuple[str, ...]  # how the exercise names its sources, for tape.explain's sentences
    tape_name: str

    @property
    def hint(self) -> str:
        return say(self.hints["en"], self.hints.get("ko", self.hints["en"]))


_EXERCISES: dict[str, Exercise] = {}


def exercise(
    key: str,
    hint: str,
    evidence: Sequence[str] = (),
    names: Sequence[str] = (),
    ko: str = "",
    tape_name: str = "tape",
) -> Callable:
    """Register a checker for exercise `key`: `checker(answer, evidence)` returns praise or raises NotYet.

    `hint` is English, `ko` the same hint in Korean; `tape_name` is the name the exercise gives its tape.
    """

    def register(checker: Callable[[Any, Evidence], str]) -> Callable[[Any, Evidence], str]:
        hints = {"en": hint, "ko": ko} if ko else {"en": hint}
        _EXERCISES[key] = Exercise(checker, hints, tuple(evidence), tuple(names), tape_name)
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
    width = int(say(str(WIDTH), str(WIDTH_KO)))
    return "\n".join(
        textwrap.fill(line, width, break_long_words=False, break_on_hyphens=False) for line in text.splitlines()
    )


def _sentence_case(text: str) -> str:
    """A capital on the first word, when it is an ordinary English word (an identifier like dy_db or f(2) keeps its
    case, and so does a name that opens a Korean sentence: "g의 본문" is not "G의 본문")."""
    first = text.split(" ", 1)[0]
    return text[0].upper() + text[1:] if first.isascii() and first.isalpha() and first.islower() else text


def verdict(key: str, answer: Any = Ellipsis, **evidence: Any) -> str:
    """The feedback `check` prints, as a string (the tests read it)."""
    if key not in _EXERCISES:
        return say(
            f"There is no exercise {key!r}: the exercises are {', '.join(exercise_keys())}.",
            f"연습 문제 {key!r}은(는) 없습니다. 연습 문제는 {', '.join(exercise_keys())}입니다.",
        )
    spec = _EXERCISES[key]
    unknown = sorted(set(evidence) - set(spec.evidence))
    if unknown:
        accepted = ", ".join(f"{name}=..." for name in spec.evidence)
        return say(
            f'Exercise {key}: check("{key}", ...) does not take {", ".join(unknown)}; '
            f"it takes {accepted or 'nothing besides the answer'}.",
            f'연습 {key}: check("{key}", ...)는 {", ".join(unknown)}을(를) 받지 않습니다. '
            + (f"받는 것은 {accepted}입니다." if accepted else "답 말고는 아무것도 받지 않습니다."),
        )
    hint = say("Hint", "힌트")
    try:
        praise = spec.checker(answer, Evidence(key, evidence, spec.tape_name))
    except NotYet as wrong:
        return f"{say('Exercise', '연습')} {key}: {NOT_YET[_lang()]} {_sentence_case(str(wrong))}\n{hint}: {spec.hint}"
    except Exception as error:  # a bug the checker did not foresee: say so in one line, never a traceback
        message = str(error).splitlines()[0] if str(error) else ""
        raised = say(
            f"checking your answer raised {type(error).__name__}: {message}",
            f"답을 확인하다가 {type(error).__name__} 오류가 났습니다: {message}",
        )
        return f"{say('Exercise', '연습')} {key}: {raised}\n{hint}: {spec.hint}"
    return f"{say('Exercise', '연습')} {key}: {CORRECT[_lang()]} {praise}"


# How a verdict opens, per language (nb.py looks for CORRECT to accept a solution).
CORRECT = {"en": "correct!", "ko": "정답입니다!"}
NOT_YET = {"en": "not yet.", "ko": "아직 아닙니다."}


def _lang() -> str:
    return say("en", "ko")


def run_solution(solution: Callable[[], None]) -> None:
    """Run a hidden solution only when the lessons are built or tested: Run All must not replace the student's answer."""
    if os.environ.get(RUN_SOLUTIONS):
        solution()
    else:
        name = solution.__name__
        print(
            say(
                f"The solution did not run (Run All keeps your own answer): call {name}() to see it checked.",
                f"해답은 실행되지 않았습니다(모두 실행해도 여러분의 답은 그대로 남습니다). "
                f"확인 결과를 보려면 {name}()을 호출하세요.",
            )
        )


# ---- not written yet ---------------------------------------------------------------------------------------
def not_written(what: str) -> NotYet:
    return NotYet(
        say(
            f"{what} is still `...`: nothing is written yet. Replace the `...` with your code and run the cell.",
            f"{what}: 아직 `...`입니다. 작성된 코드가 없습니다. `...`를 여러분의 코드로 바꾸고 셀을 실행하세요.",
        )
    )


def _placeholder() -> None: ...


def is_template(fn: Any) -> bool:
    """True for a function whose body is still only `...` (or `pass`), as the exercise cell gives it."""
    fn = inspect.unwrap(fn) if callable(fn) else fn
    code = getattr(fn, "__code__", None)
    return code is not None and code.co_code == _placeholder.__code__.co_code and not code.co_names


def expect_function(fn: Any, name: str) -> None:
    """NotYet unless `fn` is a function the student wrote (not the untouched template, not a value)."""
    if fn is Ellipsis or is_template(fn):
        raise not_written(say(f"the body of {name}", f"{name}의 본문"))
    if isinstance(fn, str) or not callable(fn):
        raise NotYet(
            say(
                f"this exercise checks your function {name} itself: pass it without calling it, "
                f'check("...", {name}), not {describe(fn)}.',
                f"이 연습 문제는 여러분이 만든 함수 {name} 자체를 확인합니다. 호출하지 말고 함수를 그대로 넘기세요: "
                f'check("...", {name}). 넘긴 것은 {describe(fn)}입니다.',
            )
        )


def call(fn: Callable, args: tuple, shown: str) -> Any:
    """Call the student's function; an exception becomes NotYet naming the call and the error."""
    try:
        return fn(*args)
    except NotYet:
        raise
    except Exception as error:
        first = str(error).splitlines()[0] if str(error) else ""
        raise NotYet(
            say(
                f"calling {shown} raised {type(error).__name__}: {first}",
                f"{shown}을(를) 호출하자 {type(error).__name__} 오류가 났습니다: {first}",
            )
        ) from None


# ---- numbers and arrays ------------------------------------------------------------------------------------
def describe(value: Any) -> str:
    """A short phrase naming what a value is, for "..., not {describe(value)}"."""
    if value is None:
        return "None"
    if isinstance(value, str):
        return say(f"the string {value!r}", f"문자열 {value!r}")
    if callable(value):
        name = getattr(value, "__name__", type(value).__name__)
        return say(f"the function {name}", f"함수 {name}")
    name = type(value).__name__
    return say(f"{'an' if name[0] in 'aeiou' else 'a'} {name}", f"{name} 객체")


def _looks_like_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def refuse_text(value: str, what: str) -> NotYet:
    if _looks_like_number(value):
        return NotYet(
            say(
                f"{what} is the string {value!r}: text in quotes, not a number. Python does not do arithmetic on "
                f"text. Give the value your code computed (the tensor itself), or the number without quotes: "
                f"{value.strip()}.",
                f"{what}: 문자열 {value!r}입니다. 따옴표 안의 글자일 뿐 숫자가 아니어서 Python은 이것으로 계산하지 "
                f"않습니다. 코드가 계산한 값(텐서 그 자체)을 넘기거나, 따옴표 없이 {value.strip()}라고 쓰세요.",
            )
        )
    return NotYet(
        say(
            f"{what} is the string {value!r}, but the exercise asks for numbers: the value your code computed.",
            f"{what}: 문자열 {value!r}입니다. 이 연습 문제는 숫자, 곧 코드가 계산한 값을 묻습니다.",
        )
    )


def as_array(value: Any, what: str = "") -> np.ndarray:
    """A float64 array from a tensor, numpy array, number or nested list; NotYet with the reason otherwise."""
    what = what or say("your answer", "여러분의 답")
    if value is Ellipsis:
        raise not_written(what)
    if value is None:
        raise NotYet(say(f"{what} is None.", f"{what}: None입니다."))
    if isinstance(value, str):
        raise refuse_text(value, what)
    if isinstance(value, (bool, np.bool_)):
        raise NotYet(
            say(
                f"{what} is {value}, a yes/no value, but the exercise asks for a number.",
                f"{what}: 참/거짓 값 {value}입니다. 이 연습 문제는 숫자를 묻습니다.",
            )
        )
    if isinstance(value, dict) or callable(value) and not hasattr(value, "numpy"):
        raise NotYet(
            say(
                f"{what} should be a number or an array of numbers, not {describe(value)}.",
                f"{what}: 숫자나 숫자 배열이어야 하는데 {describe(value)}입니다.",
            )
        )
    if isinstance(value, mt.Variable):
        raise NotYet(
            say(
                f"{what} is a mt.Variable, a source itself (named {value.name!r}); the answer is what "
                "tape.gradient(...) returned for it.",
                f"{what}: mt.Variable(이름 {value.name!r}), 곧 소스 자체입니다. 답은 tape.gradient(...)가 이 변수에 "
                "대해 돌려준 값입니다.",
            )
        )
    if isinstance(value, (list, tuple)):
        return np.array([as_array(v, f"{what}[{i}]") for i, v in enumerate(value)])
    if hasattr(value, "numpy"):
        value = value.numpy()
    array = np.asarray(value)
    if array.dtype.kind not in "iuf":
        raise NotYet(
            say(
                f"{what} should be a number or an array of numbers, not {describe(value)} of {array.dtype}.",
                f"{what}: 숫자나 숫자 배열이어야 하는데 {array.dtype} 자료형의 {describe(value)}입니다.",
            )
        )
    return array.astype(np.float64)


def as_number(value: Any, what: str = "") -> float:
    """A plain float from a tensor, array or number; NotYet with a readable reason otherwise."""
    what = what or say("your answer", "여러분의 답")
    array = as_array(value, what)
    if array.size != 1:
        raise NotYet(
            say(
                f"{what} should be a single number, but it has shape {array.shape}.",
                f"{what}: 숫자 하나여야 하는데 shape이 {array.shape}입니다.",
            )
        )
    return float(array.reshape(()))


def show(array: Any) -> str:
    """Numbers to 7 significant digits (%g): a tiny value stays readable, not rounded to 0.0."""
    array = np.asarray(array, dtype=np.float64)
    if array.size == 1:
        return f"{float(array.reshape(())):.7g}"
    return str(np.vectorize(lambda v: float(f"{v:.7g}"), otypes=[object])(array).tolist())


Slips = Sequence[tuple[Any, str]]  # (the value a typical slip gives, the sentence that names the slip)


def _matches(got: np.ndarray, value: Any, rtol: float) -> bool:
    want = np.asarray(value, dtype=np.float64)
    scale = max(float(np.max(np.abs(want), initial=0.0)), 1e-3)
    return got.shape == want.shape and float(np.max(np.abs(got - want), initial=0.0)) <= max(rtol, 1e-4) * scale


def _common_slip(got: np.ndarray, want: np.ndarray, what: str) -> str:
    """The sentence for a slip every numeric exercise can make: sign, transposition, a sum, a factor 2; or ""."""
    if want.ndim == 2 and want.shape[0] != want.shape[1] and _matches(got, want.T, RTOL):
        return say(
            f"{what} is transposed: shape {got.shape}, where the right answer has shape {want.shape}.",
            f"{what}: 전치되어 있습니다. shape이 {got.shape}인데, 올바른 답의 shape은 {want.shape}입니다.",
        )
    if got.shape == () and want.size > 1 and want.sum() != 0 and _matches(got, want.sum(), RTOL):
        return say(
            f"{what} is {show(got)}, the sum of the right answer's entries: the exercise asks for all "
            f"{want.size} of them, shape {want.shape}.",
            f"{what}: {show(got)}, 올바른 답의 원소를 모두 더한 값입니다. 이 연습 문제는 원소 {want.size}개 "
            f"모두를 shape {want.shape}으로 묻습니다.",
        )
    if np.any(want != 0) and _matches(got, -want, RTOL):
        return say(
            f"{what} is {show(got)}: the right size, the wrong sign. Look for a minus sign lost or added on the way.",
            f"{what}: {show(got)}, 크기는 맞고 부호가 반대입니다. 계산 중에 빠지거나 더해진 마이너스 부호를 찾아보세요.",
        )
    for factor, en, ko in ((2.0, "twice", "두 배"), (0.5, "half", "절반")):
        if np.any(want != 0) and _matches(got, factor * want, RTOL):
            return say(
                f"{what} is {show(got)}, {en} the right value: a factor 2 is {'extra' if factor > 1 else 'missing'}.",
                f"{what}: {show(got)}, 올바른 값의 {ko}입니다. 인수 2가 "
                f"{'하나 더 곱해졌습니다' if factor > 1 else '빠졌습니다'}.",
            )
    return ""


def expect_close(value: Any, expected: Any, what: str = "", rtol: float = RTOL, slips: Slips = ()) -> None:
    """NotYet unless `value` matches `expected` in shape and, to float32 precision, in value.

    `slips` are the exercise's typical wrong answers, each with the sentence that names it; the common slips
    (sign, transposition, a sum, a factor 2) are recognised for every exercise.
    """
    what = what or say("your answer", "여러분의 답")
    got, want = as_array(value, what), np.asarray(expected, dtype=np.float64)
    for slip, message in slips:
        if _matches(got, slip, rtol) and not _matches(got, want, rtol):
            raise NotYet(message)
    common = "" if _matches(got, want, rtol) else _common_slip(got, want, what)
    if common:
        raise NotYet(common)
    if got.shape != want.shape:
        raise NotYet(
            say(
                f"{what} has shape {got.shape}, but it should have shape {want.shape}.",
                f"{what}: shape이 {got.shape}인데, {want.shape}이어야 합니다.",
            )
        )
    scale = max(float(np.max(np.abs(want), initial=0.0)), 1e-3)
    error = float(np.max(np.abs(got - want), initial=0.0))
    if error <= rtol * scale:
        return
    if error <= NEAR * scale:
        raise NotYet(
            say(
                f"{what} is {show(got)}: close, but off by {error:.1e}, more than float32 rounding explains. Was it "
                "rounded or copied by hand? Give the value your code computed (the tensor itself).",
                f"{what}: {show(got)}, 가깝지만 {error:.1e}만큼 어긋납니다. float32 반올림으로는 설명되지 않는 "
                "차이입니다. 반올림했거나 손으로 옮겨 적었나요? 코드가 계산한 값(텐서 그 자체)을 넘기세요.",
            )
        )
    raise NotYet(
        say(
            f"{what} is {show(got)}, which is not the right value, and not one of the usual slips "
            "(a sign, a factor 2, a sum, a transposition): recompute it step by step.",
            f"{what}: {show(got)}, 올바른 값이 아닙니다. 흔한 실수(부호, 인수 2, 합, 전치)도 아닙니다. "
            "한 단계씩 다시 계산해 보세요.",
        )
    )


def items(answer: Any, count: int, what: str) -> list:
    """The `count` entries of a list, tuple, array or tensor answer; NotYet if it is not such a collection."""
    if answer is Ellipsis:
        raise not_written("answer")
    if answer is None or isinstance(answer, (str, dict)) or callable(answer) and not hasattr(answer, "numpy"):
        raise NotYet(
            say(
                f"answer should be {what}, not {'None' if answer is None else describe(answer)}.",
                f"answer는 {what}이어야 하는데 {'None' if answer is None else describe(answer)}입니다.",
            )
        )
    if hasattr(answer, "numpy") or isinstance(answer, np.ndarray):
        array = as_array(answer, "answer")
        if array.ndim == 0 or len(array) != count:
            raise NotYet(
                say(
                    f"answer should be {what}; it has shape {array.shape}.",
                    f"answer는 {what}이어야 하는데 shape이 {array.shape}입니다.",
                )
            )
        return list(array)
    if not isinstance(answer, (list, tuple)) or len(answer) != count:
        if isinstance(answer, (list, tuple)):
            length = say(f"{len(answer)} entries", f"원소 {len(answer)}개")
        else:
            length = describe(answer)
        raise NotYet(say(f"answer should be {what}, not {length}.", f"answer는 {what}이어야 하는데 {length}입니다."))
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


# tape.explain speaks English; the Korean edition says the same per kind of reason ({tape}: the exercise's tape).
KOREAN_REASONS = {
    "not_watched": (
        "상수, trainable=False인 변수, watch_accessed_variables=False인 테이프의 변수는 저절로 감시되지 않습니다.",
        "with 블록 안에서 {source}을(를) 쓰기 전에 {tape}.watch({source})를 호출하거나, mt.Variable로 만드세요.",
    ),
    "integer_dtype": ("경로 위의 값이 정수나 bool 자료형입니다.", "부동소수점(예: mt.float32)으로 계산하세요."),
    "stop_gradient": (
        "mt.stop_gradient가 경로를 끊습니다.",
        "그래디언트가 흘러야 한다면 그 mt.stop_gradient를 지우세요.",
    ),
    "numpy": (
        "값이 numpy 배열로 바뀌어 라이브러리를 떠났습니다.",
        "타깃을 mt.* 연산으로 계산해서 텐서로 남게 하세요.",
    ),
    "assign": ("값이 assign을 거쳐 변수에 들어갔고, 테이프는 assign을 미분하지 않습니다.", "계산한 값을 직접 쓰세요."),
    "no_gradient": ("경로 위의 연산이 미분 불가능하다고 선언되어 있습니다.", "미분 가능한 연산으로 쓰세요."),
    "no_registered_gradient": ("경로 위의 연산에 그래디언트 규칙이 없습니다.", "그래디언트 규칙을 등록하세요."),
    "not_recorded_before_enter": (
        "타깃이 with 블록이 시작되기 전에 계산되었습니다.",
        "타깃을 with 블록 안에서 계산하세요.",
    ),
    "not_recorded_before_watch": (
        "타깃이 {tape}.watch(...)를 호출하기 전에 계산되어 기록되지 않았습니다.",
        "with 블록 맨 처음에 {tape}.watch({source})를 먼저 호출하세요.",
    ),
    "not_recorded_stop_recording": (
        "타깃이 stop_recording() 안에서 계산되어 기록되지 않았습니다.",
        "stop_recording 블록 밖에서 계산하세요.",
    ),
    "not_recorded_after_exit": (
        "타깃이 테이프가 기록을 멈춘 뒤에 계산되었습니다.",
        "with 블록 안에서(들여쓰기해서) 계산하세요.",
    ),
    "no_path": ("타깃이 {source}에 의존하지 않습니다.", ""),
}


def _sentence(reason: Any, tape_name: str = "tape") -> str:
    if say("en", "ko") == "ko" and reason.kind in KOREAN_REASONS:
        message, fix = (text.format(source=reason.source, tape=tape_name) for text in KOREAN_REASONS[reason.kind])
        if reason.kind == "not_watched":
            headline = f"{reason.source}을(를) 감시하는 것을 잊었습니다."
        else:
            headline = f"테이프가 알려 준 {reason.source}의 사정:"
        return f"{headline} {message}" + (f" 고치는 법: {fix}" if fix else "")
    headline = "You forgot to watch" if reason.kind == "not_watched" else "Your tape says, for"
    fix = f" Fix: {reason.fix}" if reason.fix else ""
    # explain() calls every tape "tape": say the exercise's own name for it (outer.watch(x) in 5.2)
    return f"{headline} {reason.source}: {reason.message}{fix}".replace("tape.watch(", f"{tape_name}.watch(")


def why_none(evidence: Evidence, names: tuple[str, ...], only: Sequence[str] | None = None) -> str:
    """Why the student's gradient is None, from `tape.explain(target, sources)`; a request for the tape if absent."""
    tape, target, sources = evidence.get("tape"), evidence.get("target"), evidence.get("sources")
    name = evidence.tape_name
    if tape is None or target is None or sources is None:
        return say(
            f'Your code ran and produced None. Pass your tape along and I can say why: check("{evidence.key}", '
            f"answer, tape={name}, target=..., sources=...) with the target and sources you gave {name}.gradient.",
            f"코드는 실행되었고 결과가 None입니다. 테이프를 함께 넘기면 이유를 알려 드립니다: "
            f'check("{evidence.key}", answer, tape={name}, target=..., sources=...), '
            f"타깃과 소스는 {name}.gradient에 준 그대로 넘기세요.",
        )
    if not hasattr(tape, "explain"):
        return say(
            f"tape= should be your mt.GradientTape, not {describe(tape)}.",
            f"tape=에는 여러분의 mt.GradientTape을 넘기세요. 넘긴 것은 {describe(tape)}입니다.",
        )
    try:
        reasons = list(tape.explain(target, _named_sources(sources, names)).reasons)
    except Exception as error:  # e.g. target= is not a tensor: say so instead of guessing
        return say(
            f"I could not ask your tape why (tape.explain raised {type(error).__name__}: {error}).",
            f"테이프에 이유를 물을 수 없었습니다(tape.explain에서 {type(error).__name__} 오류: {error}).",
        )
    broken = [r for r in reasons if not r.connected]
    broken = [r for r in broken if only is None or r.source in only] or broken  # a named Variable keeps its name
    if not broken:
        return say(
            "Your tape does connect the target to the sources: is `answer` the result of tape.gradient on them?",
            "테이프는 타깃과 소스를 잇고 있습니다. `answer`가 이들에 대한 tape.gradient의 결과인가요?",
        )
    return "\n".join(_sentence(reason, name) for reason in broken)


def expect_gradient(
    value: Any,
    expected: Any,
    what: str,
    evidence: Evidence,
    names: tuple[str, ...],
    only: Sequence[str] | None = None,
    slips: Slips = (),
) -> None:
    """expect_close, but a None is explained from the student's tape, and a right number needs a tape that gives it.

    A right number without a tape is refused: the exercise asks for the gradient a tape computed, and a number
    typed by hand would pass otherwise.
    """
    if value is None:
        raise NotYet(say(f"{what} is None. ", f"{what}: None입니다. ") + why_none(evidence, names, only))
    expect_close(value, expected, what, slips=slips)
    name = evidence.tape_name
    if evidence.get("tape") is None:
        raise NotYet(
            say(
                f"{what} has the right value, but this exercise asks for the gradient your tape computes, and check "
                f'cannot see a tape: pass it along, check("{evidence.key}", answer, tape={name}, target=..., '
                "sources=...). A number typed by hand is not accepted.",
                f"{what}: 값은 맞지만, 이 연습 문제는 테이프가 계산한 그래디언트를 묻는데 check가 테이프를 볼 수 "
                f'없습니다. 테이프를 함께 넘기세요: check("{evidence.key}", answer, tape={name}, target=..., '
                "sources=...). 손으로 적은 숫자는 받지 않습니다.",
            )
        )
    reasons = tape_reasons(evidence, names)
    cut = [r for r in reasons or [] if not r.connected and (only is None or r.source in only)]
    if cut:
        raise NotYet(
            say(
                f"{what} has the right value, but your tape gives no gradient for it (typed by hand?). ",
                f"{what}: 값은 맞지만 여러분의 테이프는 이 값에 그래디언트를 주지 않습니다(손으로 적었나요?). ",
            )
            + _sentence(cut[0], name)
        )
