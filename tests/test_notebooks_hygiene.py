"""The lessons are saved the way nbval and students need them: executed in order, clean, and linked."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from jupyter_client.kernelspec import KernelSpecManager

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"
LESSONS = sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))
ALLOWED_NOTEBOOK_METADATA = {"kernelspec", "language_info"}
ALLOWED_CELL_METADATA = {"tags", "jupyter"}  # nbval's tags; "jupyter" only to collapse solutions
# Traces of a machine or a person: home folders, the kernel's temp folder, editor and execution bookkeeping.
PERSONAL = re.compile(r"/home/|/Users/|/root/|C:\\\\Users|/tmp/ipykernel_|ExecuteTime|\"execution\":")


def _load(path: Path) -> nbformat.NotebookNode:
    return nbformat.read(str(path), as_version=4)


def test_every_lesson_is_there() -> None:
    numbers = [p.name[:2] for p in LESSONS]
    assert numbers == [f"{i:02d}" for i in range(12)], f"expected lessons 00..11, found {numbers}"


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.name)
def test_saved_executed_top_to_bottom(path: Path) -> None:
    counts = [c.execution_count for c in _load(path).cells if c.cell_type == "code"]
    assert counts == list(range(1, len(counts) + 1)), (
        f"{path.name}: execution counts {counts}; run `python notebooks/build_lessons.py {path.name[:2]}`"
    )


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.name)
def test_errors_only_where_they_are_the_point(path: Path) -> None:
    for number, cell in enumerate(c for c in _load(path).cells if c.cell_type == "code"):
        expected = "raises-exception" in cell.metadata.get("tags", [])
        errors = [o for o in cell.outputs if o.output_type == "error"]
        if expected:
            assert errors, f"{path.name} code cell {number} is tagged raises-exception but saved no error"
        else:
            assert not errors, f"{path.name} code cell {number} saved an error: {errors[0].ename}: {errors[0].evalue}"


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.name)
def test_no_personal_metadata(path: Path) -> None:
    notebook = _load(path)
    assert set(notebook.metadata) <= ALLOWED_NOTEBOOK_METADATA, set(notebook.metadata) - ALLOWED_NOTEBOOK_METADATA
    for cell in notebook.cells:
        assert set(cell.metadata) <= ALLOWED_CELL_METADATA, f"{path.name}: cell metadata {dict(cell.metadata)}"
    found = PERSONAL.search(path.read_text(encoding="utf-8"))
    assert found is None, f"{path.name} contains {found.group(0)!r}: regenerate it with notebooks/build_lessons.py"


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.name)
def test_kernel_exists_after_install(path: Path) -> None:
    kernelspec = _load(path).metadata["kernelspec"]
    assert kernelspec["name"] == "python3"
    assert KernelSpecManager().get_kernel_spec("python3").language == "python"


def _links(path: Path) -> list[str]:
    text = "\n".join(c.source for c in _load(path).cells if c.cell_type == "markdown")
    return re.findall(r"\]\(([^)#\s]+\.(?:ipynb|md|py|txt))\)", text)


def test_start_here_links_every_lesson_and_only_existing_files() -> None:
    start = NOTEBOOKS / "00_start_here.ipynb"
    links = _links(start)
    missing = [link for link in links if not (NOTEBOOKS / link).resolve().is_file()]
    assert not missing, f"00_start_here.ipynb links to missing files: {missing}"
    assert {p.name for p in LESSONS[1:]} <= set(links), "00_start_here.ipynb should link every lesson"


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.name)
def test_local_links_exist(path: Path) -> None:
    missing = [link for link in _links(path) if not (NOTEBOOKS / link).resolve().is_file()]
    assert not missing, f"{path.name} links to missing files: {missing}"


@pytest.mark.parametrize("path", LESSONS[1:], ids=lambda p: p.name)
def test_lesson_shape(path: Path) -> None:
    """Learning goals first, a summary last, and 2-3 exercises each with a check and a collapsed solution."""
    cells = _load(path).cells
    assert "Learning goals" in cells[0].source, f"{path.name} should open with its learning goals"
    assert "## Summary" in cells[-1].source, f"{path.name} should end with a summary"
    solutions = [c for c in cells if "solution" in c.metadata.get("tags", [])]
    checks = [c for c in cells if c.cell_type == "code" and "check(" in c.source and c not in solutions]
    assert 2 <= len(checks) <= 3 and len(solutions) == len(checks), f"{path.name}: {len(checks)} exercises"
    assert all(c.metadata["jupyter"]["source_hidden"] for c in solutions)


def _solutions(path: Path) -> list[nbformat.NotebookNode]:
    return [c for c in _load(path).cells if "solution" in c.metadata.get("tags", [])]


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.name)
def test_solutions_are_saved_without_outputs(path: Path) -> None:
    """A saved output would show the answer under the exercise; nbval runs the cell but must not compare it."""
    solutions = _solutions(path)
    assert solutions, f"{path.name} has no solution cell"
    for cell in solutions:
        assert cell.outputs == [], f"{path.name} {cell.id}: a solution cell was saved with its output"
        assert "nbval-ignore-output" in cell.metadata["tags"], f"{path.name} {cell.id}: nbval would compare it"
        assert cell.execution_count is not None, f"{path.name} {cell.id}: the build ran it (and check said correct)"


def test_student_edition_has_every_lesson_and_no_solution(tmp_path: Path) -> None:
    build = NOTEBOOKS / "build_lessons.py"
    subprocess.run([sys.executable, str(build), "--student-edition", str(tmp_path)], check=True, capture_output=True)
    written = sorted(tmp_path.glob("[0-9][0-9]_*.ipynb"))
    assert [p.name for p in written] == [p.name for p in LESSONS]
    assert (tmp_path / "lesson_tools" / "__init__.py").is_file(), "the lessons import check from lesson_tools"
    for student, teacher in zip(written, LESSONS):
        cells = _load(student).cells
        text = "\n".join(c.source for c in cells)
        for answer in _solutions(teacher):
            assert answer.source not in text, f"{student.name} contains a solution"
        assert "<b>Solution</b>" not in text
        assert not any("solution" in c.metadata.get("tags", []) for c in cells)
        assert all(not c.outputs for c in cells if c.cell_type == "code"), f"{student.name} was executed"
        exercises = [c for c in _load(teacher).cells if c.cell_type == "code" and "check(" in c.source]
        assert len(exercises) - len(_solutions(teacher)) == sum(
            c.cell_type == "code" and "check(" in c.source for c in cells
        )
