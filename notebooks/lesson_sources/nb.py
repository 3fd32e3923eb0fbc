"""Small helpers that turn a lesson written as Python (a list of cells) into a clean .ipynb, and run it.

Lessons are generated, then executed top to bottom so that the committed outputs are exactly what
nbval will compare against. Execution records no timings and no personal metadata. A solution cell
defines a function, solution_N_M(), that the cell runs only when the lessons are built or tested (the
environment variable lesson_tools.checking.RUN_SOLUTIONS; nbval's is set by notebooks/conftest.py): a
student's "Run All" keeps their own answers. Solutions keep no output: the saved notebook must not show them.

One source, two languages: a Markdown cell carries its English text and, as `md(en, ko=...)`, its Korean
text; `notebook(cells, lang="ko")` builds the Korean edition (notebooks/ko/) from the same cells, and
refuses a cell without its Korean text, so an edition never mixes languages. Code cells are the same in both.
"""

from __future__ import annotations

import copy
import os
import re
import sys
import textwrap
from pathlib import Path

import nbformat
from nbclient import NotebookClient

from minitape.widgets import export

NOTEBOOKS = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(NOTEBOOKS))  # lesson_tools, beside the lessons
from lesson_tools.checking import RUN_SOLUTIONS  # noqa: E402

KERNELSPEC = {"name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}
KOREAN = "_ko"  # a Markdown cell's Korean text, kept in its metadata until notebook() picks the language
FOLDERS = {"en": NOTEBOOKS, "ko": NOTEBOOKS / "ko"}  # each edition's lessons


def _clean(text: str) -> str:
    return textwrap.dedent(text).strip("\n")


def md(text: str, ko: str | None = None) -> nbformat.NotebookNode:
    """A Markdown cell in English and, with `ko`, in Korean (both dedented: write them indented in the lesson)."""
    cell = nbformat.v4.new_markdown_cell(_clean(text))
    if ko is not None:
        cell.metadata[KOREAN] = _clean(ko)
    return cell


def code(text: str, *tags: str, hidden: bool = False) -> nbformat.NotebookNode:
    """A code cell; `tags` are nbval's cell tags ("nbval-ignore-output", "raises-exception") or our own."""
    cell = nbformat.v4.new_code_cell(_clean(text))
    if tags:
        cell.metadata["tags"] = list(tags)
    if hidden:
        cell.metadata["jupyter"] = {"source_hidden": True}
    return cell


def volatile(text: str) -> nbformat.NotebookNode:
    """A cell whose output legitimately varies (timings, plots, widgets): nbval ignores its output.

    Such a cell must assert the numbers it shows, so that it still tests something.
    """
    return code(text, "nbval-ignore-output")  # NBVAL_IGNORE_OUTPUT, as a cell tag


def raises(text: str) -> nbformat.NotebookNode:
    """A cell whose point is the error it raises."""
    return code(text, "raises-exception")  # nbval's NBVAL_RAISES_EXCEPTION; JupyterLab's "Run all" goes on too


SOLUTION = "solution"  # the tag of a solution cell


def solution(text: str) -> list[nbformat.NotebookNode]:
    """A one-line pointer and the solution cell, collapsed until the student opens it.

    The code becomes the body of solution_N_M() (N.M: the exercise it checks), so its names stay its own;
    the cell runs it only when the lessons are built or tested. It is saved without outputs (they would show
    the answer), so nbval must not compare them.
    """
    key = re.search(r'check\("(\d+)\.(\d+)"', text)
    if key is None:
        raise ValueError(f'a solution calls check("N.M", ...), and this one does not:\n{text}')
    name = f"solution_{key[1]}_{key[2]}"
    body = textwrap.indent(_clean(text), "    ", lambda line: line.strip() != "")
    source = (
        f"from lesson_tools import run_solution\n\n\ndef {name}():\n{body}\n\n\n"
        f"run_solution({name})  # Run All skips it, so your answer stays yours: call {name}() to run it"
    )
    pointer = md(
        "<details><summary><b>Solution</b> (try first!)</summary>\n\n"
        "The solution is the collapsed code cell just below: click the <code>⋯</code> "
        f"(or the blue bar at its left) to show it. To see it checked, run <code>{name}()</code> in a new cell.\n"
        "</details>",
        ko="<details><summary><b>해답</b> (먼저 직접 풀어 보세요!)</summary>\n\n"
        "해답은 바로 아래의 접힌 코드 셀에 있습니다. <code>⋯</code>(또는 셀 왼쪽의 파란 막대)를 누르면 "
        f"펼쳐집니다. 확인 결과를 보려면 새 셀에서 <code>{name}()</code>을 실행하세요.\n"
        "</details>",
    )
    return [pointer, code(source, SOLUTION, "nbval-ignore-output", hidden=True)]


def is_solution(cell: nbformat.NotebookNode) -> bool:
    return SOLUTION in cell.metadata.get("tags", [])


def _in_language(cell: nbformat.NotebookNode, lang: str) -> nbformat.NotebookNode:
    """A copy of `cell` with its text in `lang`; a Markdown cell without Korean text cannot be in the Korean edition."""
    cell = copy.deepcopy(cell)
    korean = cell.metadata.pop(KOREAN, None)
    if lang == "ko" and cell.cell_type == "markdown":
        if korean is None:
            raise ValueError(f"this Markdown cell has no Korean text (md(..., ko=...)):\n{cell.source[:300]}")
        cell.source = korean
    return cell


def notebook(cells: list, solutions: bool = True, lang: str = "en") -> nbformat.NotebookNode:
    """The notebook of a lesson in `lang`; without `solutions` (the student edition), each solution and its pointer go."""
    flat = []
    for c in cells:
        group = c if isinstance(c, list) else [c]
        if solutions or not any(is_solution(cell) for cell in group):
            flat.extend(_in_language(cell, lang) for cell in group)
    nb = nbformat.v4.new_notebook()
    nb.cells = flat
    nb.metadata = {"kernelspec": dict(KERNELSPEC), "language_info": {"name": "python"}}
    for i, cell in enumerate(nb.cells):
        cell.id = f"cell-{i:02d}"  # stable ids: regenerating a lesson gives a small diff
    return nb


def execute(nb: nbformat.NotebookNode, timeout: int = 120, folder: Path = NOTEBOOKS) -> nbformat.NotebookNode:
    """Run every cell in order in a fresh python3 kernel, from the lesson's folder (as Jupyter and nbval do).

    The folder chooses the language of check()'s feedback: a kernel started in notebooks/ko/ speaks Korean.
    """
    client = NotebookClient(
        nb,
        timeout=timeout,
        kernel_name="python3",
        record_timing=False,
        resources={"metadata": {"path": str(folder)}},
    )
    os.environ[RUN_SOLUTIONS] = "1"  # the kernel inherits it: solution cells run, and must be judged correct
    client.execute()
    nb.metadata = {"kernelspec": dict(KERNELSPEC), "language_info": _language_info(nb)}
    export.drop_dead_widget_views(nb)  # no widget state is saved: a view would say "model not found"
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs = [_scrub(output) for output in cell.outputs]
        if is_solution(cell):
            _expect_correct(cell)
            cell.outputs = []  # the answer stays hidden until the student runs the cell
    return nb


def _expect_correct(cell: nbformat.NotebookNode) -> None:
    """A solution that calls check() must be judged correct, or the lesson is not built: its output is not saved."""
    if "check(" not in cell.source:
        return
    printed = "".join(o.get("text", "") for o in cell.outputs if o.output_type == "stream")
    if ": correct!" not in printed and ": 정답입니다!" not in printed:
        raise RuntimeError(f"solution cell {cell.id} is not judged correct by check():\n{printed}")


_KERNEL_DIR = re.compile(r"/tmp/ipykernel_\d+/")


def _scrub(output: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """Drop this machine's paths from an output: the kernel's temp folder, and tracebacks through site-packages.

    A traceback is kept as its last line (the error itself), which is what a student needs to read in the
    saved notebook; nbval does not compare tracebacks, only the error's name and value.
    """
    if output.output_type == "stream":
        output.text = _KERNEL_DIR.sub("", output.text)
    elif output.output_type == "error":
        output.evalue = _KERNEL_DIR.sub("", output.evalue)
        output.traceback = [f"{output.ename}: {output.evalue}"]
    elif "data" in output:
        for mime, value in output.data.items():
            if isinstance(value, str) and mime.startswith("text/"):
                output.data[mime] = _KERNEL_DIR.sub("", value)
    return output


def _language_info(nb: nbformat.NotebookNode) -> dict:
    """What the kernel reported, version included: JupyterLab writes it on opening, and a lesson saved without it
    would show as modified (●) before the student changes anything."""
    return dict(nb.metadata.get("language_info", {}))


def write(nb: nbformat.NotebookNode, name: str, folder: Path = NOTEBOOKS) -> Path:
    path = Path(folder) / name
    nbformat.validate(nb)
    nbformat.write(nb, str(path))
    return path
