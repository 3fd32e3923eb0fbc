"""Feedback for the lessons' exercises: `check("1.2", answer)` says whether an answer is right, kindly.

Each lesson module registers its checkers with `@exercise(...)`. A checker raises `NotYet` with a
message when the answer is wrong; `check` turns that, or any exception from the student's code,
into two friendly lines of text. It never shows a traceback.
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
)
from lesson_tools._core import NotYet, check, exercise

__all__ = ["NotYet", "check", "exercise"]
