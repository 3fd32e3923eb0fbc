"""What an autograder asks of an exercise: does `check` judge the answer correct? (build_lessons.py --nbgrader)

The autograded test cells of the nbgrader edition call `assert_correct` with the arguments the lesson passes to
`check`: a right answer passes, a wrong one fails with the sentence `check` would have printed, which nbgrader shows
the student in their feedback.
"""

from __future__ import annotations

from typing import Any

from lesson_tools.checking import verdict


def assert_correct(key: str, answer: Any = Ellipsis, **evidence: Any) -> None:
    """Nothing when `check(key, answer, **evidence)` says "correct!"; otherwise AssertionError with its feedback."""
    feedback = verdict(key, answer, **evidence)
    if not feedback.startswith(f"Exercise {key}: correct!"):
        raise AssertionError(feedback)
