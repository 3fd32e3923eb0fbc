"""Feedback for the lessons' exercises: `check("1.2", answer, tape=tape, ...)` says whether an answer is right.

Each lesson module registers its checkers with `@exercise(...)`. A checker raises `NotYet` with a sentence
that says why an answer is wrong (asking the student's tape, when given, why a gradient is None); `check`
prints it. It never shows a traceback. Feedback (and the plots' words, `say`) is in English, or in Korean
for the lessons of notebooks/ko/ (lesson_tools.language).
"""

from lesson_tools import (
    lesson00,
    lesson01,
    lesson02,
    lesson03,
    lesson04,
    lesson05,
    lesson06,
    lesson07,
    lesson08,
    lesson09,
    lesson10,
    lesson11,
)
from lesson_tools.checking import NotYet, check, exercise, exercise_keys, run_solution, verdict
from lesson_tools.language import language, say, set_language

__all__ = ["NotYet", "check", "exercise", "exercise_keys", "language", "run_solution", "say", "set_language", "verdict"]

if language() == "ko":  # a kernel started in notebooks/ko/: Hangul in the plots, Korean in the viewer
    set_language("ko")
