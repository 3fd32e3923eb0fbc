"""The lessons are saved the way nbval and students need them: executed in order, clean, and linked."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from jupyter_client.kernelspec import KernelSpecManager

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"
ENGLISH = sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))
KOREAN = sorted((NOTEBOOKS / "ko").glob("[0-9][0-9]_*.ipynb"))  # the Korean edition, built from the same sources
LESSONS = ENGLISH + KOREAN
ALLOWED_NOTEBOOK_METADATA = {"kernelspec", "language_info"}
ALLOWED_CELL_METADATA = {"tags", "jupyter"}  # nbval's tags; "jupyter" only to collapse solutions
# Traces of a machine or a person: home folders, the kernel's temp folder, editor and execution bookkeeping.
PERSONAL = re.compile(r"/home/|/Users/|/root/|C:\\\\Users|/tmp/ipykernel_|ExecuteTime|\"execution\":")


def _load(path: Path) -> nbformat.NotebookNode:
    return nbformat.read(str(path), as_version=4)


def _id(path: Path) -> str:
    return str(path.relative_to(NOTEBOOKS))


def test_every_lesson_is_there() -> None:
    numbers = [p.name[:2] for p in ENGLISH]
    assert numbers == [f"{i:02d}" for i in range(12)], f"expected lessons 00..11, found {numbers}"


def test_every_korean_lesson_is_an_english_one() -> None:
    """The Korean edition has the English lessons' file names (so links between lessons work in both)."""
    assert KOREAN, "notebooks/ko/ has no lesson: run python notebooks/build_lessons.py"
    assert {p.name for p in KOREAN} <= {p.name for p in ENGLISH}
    tools = NOTEBOOKS / "ko" / "lesson_tools" / "checking.py"
    assert tools.is_file(), "a kernel started in notebooks/ko imports lesson_tools there (a link to ../lesson_tools)"


HANGUL = re.compile(r"[\uac00-\ud7a3]")
# English prose left in a Korean cell: three English words in a row outside code, maths and links.
ENGLISH_RUN = re.compile(r"\b[A-Za-z]{2,}(?:[ ,]+[A-Za-z]{2,}){3,}\b")


def _prose(markdown: str) -> str:
    """A Markdown cell without its code (fenced or inline), maths, links' targets and HTML tags."""
    for pattern in (r"```.*?```", r"`[^`]*`", r"\$\$.*?\$\$", r"\$[^$]*\$", r"\]\([^)]*\)", r"<[^>]+>"):
        markdown = re.sub(pattern, " ", markdown, flags=re.S)
    return markdown


@pytest.mark.parametrize("path", KOREAN, ids=_id)
def test_korean_lesson_is_the_english_one_in_korean(path: Path) -> None:
    """Same code cells as the English lesson, and every Markdown cell in Korean, with no English sentence left."""
    korean, english = _load(path).cells, _load(NOTEBOOKS / path.name).cells
    assert [c.source for c in korean if c.cell_type == "code"] == [c.source for c in english if c.cell_type == "code"]
    assert [c.cell_type for c in korean] == [c.cell_type for c in english]
    for cell in (c for c in korean if c.cell_type == "markdown"):
        assert HANGUL.search(cell.source), f"{_id(path)} {cell.id} has no Korean: {cell.source[:80]!r}"
        left = ENGLISH_RUN.search(_prose(cell.source))
        assert left is None, f"{_id(path)} {cell.id} has English prose: {left.group(0)!r}"


@pytest.mark.parametrize("path", LESSONS, ids=_id)
def test_saved_executed_top_to_bottom(path: Path) -> None:
    counts = [c.execution_count for c in _load(path).cells if c.cell_type == "code"]
    assert counts == list(range(1, len(counts) + 1)), (
        f"{_id(path)}: execution counts {counts}; run `python notebooks/build_lessons.py {path.name[:2]}`"
    )


@pytest.mark.parametrize("path", LESSONS, ids=_id)
def test_errors_only_where_they_are_the_point(path: Path) -> None:
    for number, cell in enumerate(c for c in _load(path).cells if c.cell_type == "code"):
        expected = "raises-exception" in cell.metadata.get("tags", [])
        errors = [o for o in cell.outputs if o.output_type == "error"]
        if expected:
            assert errors, f"{_id(path)} code cell {number} is tagged raises-exception but saved no error"
        else:
            assert not errors, f"{_id(path)} code cell {number} saved an error: {errors[0].ename}: {errors[0].evalue}"


@pytest.mark.parametrize("path", LESSONS, ids=_id)
def test_no_personal_metadata(path: Path) -> None:
    notebook = _load(path)
    assert set(notebook.metadata) <= ALLOWED_NOTEBOOK_METADATA, set(notebook.metadata) - ALLOWED_NOTEBOOK_METADATA
    for cell in notebook.cells:
        assert set(cell.metadata) <= ALLOWED_CELL_METADATA, f"{_id(path)}: cell metadata {dict(cell.metadata)}"
    found = PERSONAL.search(path.read_text(encoding="utf-8"))
    assert found is None, f"{_id(path)} contains {found.group(0)!r}: regenerate it with notebooks/build_lessons.py"


@pytest.mark.parametrize("path", LESSONS, ids=_id)
def test_kernel_exists_after_install(path: Path) -> None:
    kernelspec = _load(path).metadata["kernelspec"]
    assert kernelspec["name"] == "python3"
    assert KernelSpecManager().get_kernel_spec("python3").language == "python"


def _links(path: Path) -> list[str]:
    text = "\n".join(c.source for c in _load(path).cells if c.cell_type == "markdown")
    return re.findall(r"\]\(([^)#\s]+\.(?:ipynb|md|py|txt))\)", text)


@pytest.mark.parametrize("folder", [NOTEBOOKS, NOTEBOOKS / "ko"], ids=["en", "ko"])
def test_start_here_links_every_lesson_and_only_existing_files(folder: Path) -> None:
    start = folder / "00_start_here.ipynb"
    links = _links(start)
    missing = [link for link in links if not (folder / link).resolve().is_file()]
    assert not missing, f"{_id(start)} links to missing files: {missing}"
    assert {p.name for p in ENGLISH[1:]} <= set(links), f"{_id(start)} should link every lesson"


@pytest.mark.parametrize("path", LESSONS, ids=_id)
def test_local_links_exist(path: Path) -> None:
    missing = [link for link in _links(path) if not (path.parent / link).resolve().is_file()]
    assert not missing, f"{_id(path)} links to missing files: {missing}"


@pytest.mark.parametrize("path", [p for p in LESSONS if p.name[:2] != "00"], ids=_id)
def test_lesson_shape(path: Path) -> None:
    """Learning goals first, a summary last, and 2-3 exercises each with a check and a collapsed solution."""
    cells = _load(path).cells
    goals, summary = ("학습 목표", "## 정리") if path.parent.name == "ko" else ("Learning goals", "## Summary")
    assert goals in cells[0].source, f"{_id(path)} should open with its learning goals"
    assert summary in cells[-1].source, f"{_id(path)} should end with a summary"
    solutions = [c for c in cells if "solution" in c.metadata.get("tags", [])]
    checks = [c for c in cells if c.cell_type == "code" and "check(" in c.source and c not in solutions]
    assert 2 <= len(checks) <= 3 and len(solutions) == len(checks), f"{_id(path)}: {len(checks)} exercises"
    assert all(c.metadata["jupyter"]["source_hidden"] for c in solutions)


def _solutions(path: Path) -> list[nbformat.NotebookNode]:
    return [c for c in _load(path).cells if "solution" in c.metadata.get("tags", [])]


@pytest.mark.parametrize("path", LESSONS, ids=_id)
def test_solutions_are_saved_without_outputs(path: Path) -> None:
    """A saved output would show the answer under the exercise; nbval runs the cell but must not compare it."""
    solutions = _solutions(path)
    assert solutions, f"{_id(path)} has no solution cell"
    for cell in solutions:
        assert cell.outputs == [], f"{_id(path)} {cell.id}: a solution cell was saved with its output"
        assert "nbval-ignore-output" in cell.metadata["tags"], f"{_id(path)} {cell.id}: nbval would compare it"
        assert cell.execution_count is not None, f"{_id(path)} {cell.id}: the build ran it (and check said correct)"


def test_korean_student_edition_speaks_korean(tmp_path: Path) -> None:
    build = NOTEBOOKS / "build_lessons.py"
    command = [sys.executable, str(build), "--student-edition", str(tmp_path), "--lang", "ko", "03"]
    subprocess.run(command, check=True, capture_output=True)
    lesson = _load(tmp_path / "ko" / "03_recording_and_watching.ipynb")
    assert "학습 목표" in lesson.cells[0].source and not any(
        "solution" in c.metadata.get("tags", []) for c in lesson.cells
    )
    assert (tmp_path / "ko" / "lesson_tools" / "language.py").is_file(), "the kernel in ko/ imports lesson_tools there"


def test_student_edition_has_every_lesson_and_no_solution(tmp_path: Path) -> None:
    build = NOTEBOOKS / "build_lessons.py"
    subprocess.run([sys.executable, str(build), "--student-edition", str(tmp_path)], check=True, capture_output=True)
    written = sorted(tmp_path.glob("[0-9][0-9]_*.ipynb"))
    assert [p.name for p in written] == [p.name for p in ENGLISH]
    assert (tmp_path / "lesson_tools" / "__init__.py").is_file(), "the lessons import check from lesson_tools"
    for student, teacher in zip(written, ENGLISH):
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


@pytest.mark.parametrize("path", LESSONS, ids=_id)
def test_plots_draw_every_glyph(path: Path) -> None:
    """matplotlib says so when a font lacks a glyph (Hangul, or a log axis's minus): the plot would show a box."""
    for cell in (c for c in _load(path).cells if c.cell_type == "code"):
        said = "".join(o.get("text", "") for o in cell.outputs if o.output_type == "stream").lower()
        assert "glyph" not in said, f"{_id(path)} {cell.id}: {said[:200]}"
