"""The course in nbgrader's source layout: `python notebooks/build_lessons.py --nbgrader OUT`.

Each lesson becomes an assignment, OUT/source/NN_name/NN_name.ipynb, with the lesson_tools it imports beside it
(nbgrader releases the folder's files with the notebook, and copies them again when it autogrades). Each exercise
becomes two nbgrader cells:

- an autograded answer cell: the exercise cell as the lesson gives it, with the lesson's solution between
  `### BEGIN SOLUTION` and `### END SOLUTION` where the student's code goes (nbgrader replaces that region with
  its code stub in the released notebook); the cell still ends with `check(...)`, so students get the same feedback;
- a locked, autograded test cell worth POINTS (or the lesson's own POINTS[key]), which calls the same check with the
  same arguments and fails with check's sentence unless it says "correct!" (lesson_tools.grading.assert_correct).

The collapsed solution cells and their pointers are left out; every other cell stays as it is, without outputs.
"""

from __future__ import annotations

import ast
import difflib
import shutil
import textwrap
from pathlib import Path

import nbformat

import nb

POINTS = 1  # per exercise, unless the lesson module has POINTS = {"N.M": points}
SCHEMA_VERSION = 3  # nbgrader's cell metadata format (nbgrader 0.6 and later)
BEGIN, END = "### BEGIN SOLUTION", "### END SOLUTION"

CONFIG = '''\
# nbgrader's configuration for this course folder (written by build_lessons.py --nbgrader; yours to edit).
c = get_config()  # noqa: F821
c.CourseDirectory.course_id = "minitape"
# The released answer cells keep the lesson's own placeholder (`answer = ...  # your code here: ...`), so the
# solution needs no stub: an unanswered exercise runs, and its check says what is missing.
c.ClearSolutions.code_stub = {"python": ""}
c.Execute.timeout = 300  # seconds per cell: a lesson's training loop on a slow grading machine
'''


def _solution_body(cell: nbformat.NotebookNode) -> str:
    """The code of a solution cell as the lesson wrote it: the body of its `def solution_N_M():`."""
    lines = cell.source.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("def solution_")) + 1
    end = next(i for i, line in enumerate(lines) if line.startswith("run_solution("))
    return textwrap.dedent("\n".join(lines[start:end])).strip("\n")


def _check_call(code: str) -> tuple[str, str]:
    """The exercise key and the source of the `check("N.M", ...)` call in `code`."""
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "check":
            return node.args[0].value, ast.get_source_segment(code, node)
    raise ValueError(f"no check(...) call in:\n{code}")


def _placeholder(line: str) -> bool:
    """`answer = ...  # your code here`, `    ...`: a line whose code holds the Ellipsis the student replaces."""
    return "..." in line.split("#", 1)[0]


def _commented(line: str) -> str:
    body = line.lstrip()
    return line[: len(line) - len(body)] + "# " + body if body else line


def answer_source(template: str, solution: str) -> str:
    """The exercise cell, with each run of lines that only the solution has in a solution region.

    Lines the exercise and its solution share (the set-up, the check) stay outside the regions, and so do the
    exercise's placeholder lines (`answer = ...  # your code here`), in front of the region that replaces them: the
    released cell reads as the lesson's exercise does. A line the exercise asks to fix, which the solution
    replaces, stays as a comment in front of the region.
    """
    given, solved = template.splitlines(), solution.splitlines()
    lines: list[str] = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, given, solved, autojunk=False).get_opcodes():
        if op == "replace":  # a placeholder stays; a line to fix stays as a comment, or the solution would run it
            lines.extend(line if _placeholder(line) else _commented(line) for line in given[i1:i2])
        else:
            lines.extend(given[i1:i2])
        if op in ("replace", "insert"):
            region = solved[j1:j2]
            first = next((line for line in region if line.strip()), "")
            indent = first[: len(first) - len(first.lstrip())]
            lines.extend([indent + BEGIN, *region, indent + END])
    return "\n".join(lines)


def _graded(cell: nbformat.NotebookNode, grade_id: str, points: float | None = None) -> nbformat.NotebookNode:
    answer = points is None
    cell.metadata["nbgrader"] = {
        "grade": not answer,
        "grade_id": grade_id,
        "locked": not answer,
        "schema_version": SCHEMA_VERSION,
        "solution": answer,
        "task": False,
        **({} if answer else {"points": points}),
    }
    return cell


def exercise_cells(template: nbformat.NotebookNode, solution: nbformat.NotebookNode, points: dict) -> list:
    """The answer cell and the test cell of one exercise."""
    body = _solution_body(solution)
    key, call = _check_call(body)
    ident = key.replace(".", "_")
    answer = _graded(nb.code(answer_source(template.source, body)), f"answer_{ident}")
    worth = points.get(key, POINTS)
    test = nb.code(
        f"# Autograded: exercise {key} passes the check of the cell above ({worth} point{'s' * (worth != 1)}).\n"
        "from lesson_tools.grading import assert_correct\n\n"
        f"assert_correct{call.removeprefix('check')}"
    )
    return [answer, _graded(test, f"check_{ident}", worth)]


def nbgrader_notebook(cells: list, points: dict) -> nbformat.NotebookNode:
    """A lesson's cells with each exercise as an nbgrader answer cell and test cell."""
    out: list = []
    for group in cells:
        group = group if isinstance(group, list) else [group]
        solution = next((cell for cell in group if nb.is_solution(cell)), None)
        if solution is None:
            out.extend(group)
            continue
        key, _ = _check_call(_solution_body(solution))
        # the exercise is the last code cell before its solution that checks the same key
        at = next(
            (i for i in reversed(range(len(out))) if out[i].cell_type == "code" and f'check("{key}"' in out[i].source),
            None,
        )
        if at is None:
            raise ValueError(f"the solution of exercise {key} follows no cell that calls check({key!r}, ...)")
        out[at : at + 1] = exercise_cells(out[at], solution, points)
    return nb.notebook(out)


def export(out_dir: Path, modules: list, lesson_tools: Path) -> list[Path]:
    """Write each lesson module as an assignment in out_dir/source/, and a starting nbgrader_config.py."""
    written = []
    for module in modules:
        assignment = module.NAME.removesuffix(".ipynb")
        folder = out_dir / "source" / assignment
        folder.mkdir(parents=True, exist_ok=True)
        shutil.copytree(
            lesson_tools, folder / "lesson_tools", dirs_exist_ok=True, ignore=shutil.ignore_patterns("__pycache__")
        )
        notebook = nbgrader_notebook(module.CELLS, getattr(module, "POINTS", {}))
        written.append(nb.write(notebook, module.NAME, folder=folder))
    config = out_dir / "nbgrader_config.py"
    if not config.exists():  # a teacher's own configuration stays
        config.write_text(CONFIG)
    return written
