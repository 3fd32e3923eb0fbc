"""The nbgrader edition (`build_lessons.py --nbgrader`): a teacher generates lesson 3, grades a right and a wrong
submission with nbgrader itself, and the scores say which is which.

Everything happens in tmp_path: the course folder, its nbgrader_config.py and its own sqlite gradebook.
"""

from __future__ import annotations

import ast
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("nbgrader", reason="the nbgrader test needs `pip install nbgrader` (the test extra has it)")

from nbgrader.api import Gradebook  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
LESSON = "03_recording_and_watching"
BEGIN, END = "### BEGIN SOLUTION", "### END SOLUTION"
# nbgrader's gradebook runs the `alembic` program of its environment, which need not be on PATH (a venv not activated)
PATH = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])


def _nbgrader(course: Path, *args: str) -> subprocess.CompletedProcess:
    result = subprocess.run(
        [sys.executable, "-m", "nbgrader", *args],
        cwd=course,
        env={**os.environ, "PATH": PATH},
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, f"nbgrader {' '.join(args)}:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
    return result


def _cells(path: Path) -> dict[str, dict]:
    """The nbgrader cells of a notebook, by grade_id."""
    notebook = json.loads(path.read_text())
    return {c["metadata"]["nbgrader"]["grade_id"]: c for c in notebook["cells"] if "nbgrader" in c["metadata"]}


def _source(cell: dict) -> str:
    return "".join(cell["source"])


def _submit(course: Path, student: str, answers: dict[str, str]) -> None:
    """The released notebook with each answer cell's code replaced, as the student saves it."""
    released = course / "release" / LESSON / f"{LESSON}.ipynb"
    notebook = json.loads(released.read_text())
    for cell in notebook["cells"]:
        grade_id = cell["metadata"].get("nbgrader", {}).get("grade_id")
        if grade_id in answers:
            cell["source"] = answers[grade_id]
    folder = course / "submitted" / student / LESSON
    folder.mkdir(parents=True)
    (folder / f"{LESSON}.ipynb").write_text(json.dumps(notebook))


@pytest.fixture(scope="module")
def course(tmp_path_factory) -> Path:
    course = tmp_path_factory.mktemp("course")
    built = subprocess.run(
        [sys.executable, "notebooks/build_lessons.py", "--nbgrader", str(course), "03"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert built.returncode == 0, built.stderr
    with (course / "nbgrader_config.py").open("a") as config:
        config.write(f"c.CourseDirectory.root = {str(course)!r}\n")
        config.write(f"c.CourseDirectory.db_url = 'sqlite:///{course / 'gradebook.db'}'\n")
    _nbgrader(course, "generate_assignment", LESSON, "--force")
    return course


def test_the_source_has_a_solution_region_and_an_autograded_check_per_exercise(course: Path) -> None:
    cells = _cells(course / "source" / LESSON / f"{LESSON}.ipynb")
    assert sorted(cells) == ["answer_3_1", "answer_3_2", "answer_3_3", "check_3_1", "check_3_2", "check_3_3"]
    for key in ("3_1", "3_2", "3_3"):
        answer, test = cells[f"answer_{key}"], cells[f"check_{key}"]
        assert answer["metadata"]["nbgrader"] == {
            "grade": False,
            "grade_id": f"answer_{key}",
            "locked": False,
            "schema_version": 3,
            "solution": True,
            "task": False,
        }
        assert test["metadata"]["nbgrader"]["grade"] and test["metadata"]["nbgrader"]["locked"]
        assert test["metadata"]["nbgrader"]["points"] == 1
        assert BEGIN in _source(answer) and END in _source(answer)
        assert f'check("{key.replace("_", ".")}", answer' in _source(answer)
        assert f'assert_correct("{key.replace("_", ".")}", answer' in _source(test)
    assert (course / "source" / LESSON / "lesson_tools" / "grading.py").is_file()
    assert not any("solution_3_" in _source(c) for c in cells.values()), "the lesson's hidden solutions are left out"


def test_the_released_lesson_keeps_the_exercise_and_drops_the_solution(course: Path) -> None:
    released = course / "release" / LESSON / f"{LESSON}.ipynb"
    answer = _source(_cells(released)["answer_3_1"])
    assert "tape = y = answer = ...  # your code here" in answer and 'check("3.1", answer' in answer
    assert "tape.watch(x)" not in answer and BEGIN not in answer
    assert (course / "release" / LESSON / "lesson_tools" / "checking.py").is_file()


def test_nbgrader_autogrades_a_right_and_a_wrong_submission(course: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    source = _cells(course / "source" / LESSON / f"{LESSON}.ipynb")
    right = {
        grade_id: _source(cell).replace(BEGIN + "\n", "").replace(END + "\n", "")
        for grade_id, cell in source.items()
        if grade_id.startswith("answer_")
    }
    assert "tape.watch(x)\n" in right["answer_3_1"]
    wrong = {**right, "answer_3_1": right["answer_3_1"].replace("    tape.watch(x)\n", "")}  # the classic slip
    _submit(course, "right", right)
    _submit(course, "wrong", wrong)
    _nbgrader(course, "autograde", LESSON)
    monkeypatch.setenv("PATH", PATH)
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        scores = {
            student: (
                gradebook.find_submission(LESSON, student).score,
                gradebook.find_submission(LESSON, student).max_score,
            )
            for student in ("right", "wrong")
        }
        grades = {g.name: g.score for g in gradebook.find_submission_notebook(LESSON, LESSON, "wrong").grades}
    assert scores == {"right": (3.0, 3.0), "wrong": (2.0, 3.0)}
    assert grades == {"check_3_1": 0.0, "check_3_2": 1.0, "check_3_3": 1.0}
    graded = _cells(course / "autograded" / "wrong" / LESSON / f"{LESSON}.ipynb")["check_3_1"]
    error = next(o for o in graded["outputs"] if o["output_type"] == "error")
    assert error["ename"] == "AssertionError" and "Exercise 3.1: not yet" in error["evalue"]
    assert "watch" in error["evalue"], "the feedback names the slip, as check does in the lesson"


def _released(source: str) -> str:
    """What nbgrader's ClearSolutions leaves of an answer cell with the starting config's empty stub."""
    return re.sub(rf"(?m)^( *){BEGIN}\n(.*\n)*?\1{END}$", r"\1", source)


def test_every_exercise_of_the_course_exports_as_valid_code_before_and_after_release(tmp_path: Path) -> None:
    subprocess.run(
        [sys.executable, "notebooks/build_lessons.py", "--nbgrader", str(tmp_path)], cwd=ROOT, check=True, timeout=300
    )
    lessons = sorted((tmp_path / "source").glob("*/*.ipynb"))
    assert len(lessons) == len(list((ROOT / "notebooks" / "lesson_sources").glob("l[0-9][0-9]_*.py")))
    answers = {key: cell for lesson in lessons for key, cell in _cells(lesson).items() if key.startswith("answer_")}
    assert len(answers) >= 26
    for key, cell in answers.items():
        source = _source(cell)
        released = _released(source)
        ast.parse(source)  # the teacher's version runs the solution
        ast.parse(released)  # the student's version runs too, with the lesson's placeholder
        assert BEGIN not in released and f'check("{key[7:].replace("_", ".")}"' in released, key
    assert "    # x = x + 1.0  # fix this line\n" in _source(answers["answer_6_1"]), "a line to fix stays, commented"
    assert "x.assign_add(1.0)" not in _released(_source(answers["answer_6_1"]))
