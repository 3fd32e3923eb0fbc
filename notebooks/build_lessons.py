"""Generate the lessons' notebooks from notebooks/lesson_sources/l*.py, and run them so their outputs are committed.

python notebooks/build_lessons.py            # write and execute every lesson, in English and in Korean (notebooks/ko/)
python notebooks/build_lessons.py --lang ko  # only one edition: en (notebooks/) or ko (notebooks/ko/)
python notebooks/build_lessons.py 01 05      # only lessons whose file name starts with these numbers
python notebooks/build_lessons.py --no-run   # write without executing (outputs empty)
python notebooks/build_lessons.py --student-edition OUT_DIR   # every lesson without solution cells, not run
python notebooks/build_lessons.py --student-edition OUT_DIR --lang ko   # the same in Korean, into OUT_DIR/ko/
python notebooks/build_lessons.py --nbgrader OUT_DIR   # the course in nbgrader's source layout (nbgrader_export.py)
"""

from __future__ import annotations

import argparse
import importlib
import os
import shutil
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "lesson_sources"))

import nb  # noqa: E402

# The kernels import this working tree's packages (minitape, minitape.widgets), whatever an older install maps.
os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(HERE.parent), os.environ.get("PYTHONPATH")]))


def lesson_modules() -> list:
    return [importlib.import_module(p.stem) for p in sorted((HERE / "lesson_sources").glob("l[0-9][0-9]_*.py"))]


def student_edition(out_dir: Path, only: list[str], lang: str = "en") -> list[Path]:
    """Write the lessons without their solutions (nor outputs) into `out_dir`, with the checks they import.

    The Korean edition goes into `out_dir/ko/`: a kernel started in a folder named ko gives Korean feedback.
    """
    if lang == "ko":
        out_dir = out_dir / "ko"
    out_dir.mkdir(parents=True, exist_ok=True)
    shutil.copytree(
        HERE / "lesson_tools",
        out_dir / "lesson_tools",
        dirs_exist_ok=True,
        ignore=shutil.ignore_patterns("__pycache__"),
    )
    written = []
    for module in lesson_modules():
        if only and not any(module.NAME.startswith(n) for n in only) or lang == "ko" and not translated(module):
            continue
        written.append(nb.write(nb.notebook(module.CELLS, solutions=False, lang=lang), module.NAME, folder=out_dir))
    return written


def translated(module: object) -> bool:
    """Whether every Markdown cell of a lesson has its Korean text (only such a lesson has a Korean edition)."""
    cells = [c for group in module.CELLS for c in (group if isinstance(group, list) else [group])]
    return all(nb.KOREAN in c.metadata for c in cells if c.cell_type == "markdown")


def build(module: object, lang: str, run: bool) -> None:
    notebook = nb.notebook(module.CELLS, lang=lang)
    folder = nb.FOLDERS[lang]
    start = time.perf_counter()
    if run:
        notebook = nb.execute(notebook, folder=folder)
    path = nb.write(notebook, module.NAME, folder=folder)
    print(f"{path.relative_to(HERE)}: {len(notebook.cells)} cells, {time.perf_counter() - start:.1f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("only", nargs="*", help="lesson numbers to build, e.g. 01 05")
    parser.add_argument("--no-run", action="store_true", help="write the notebooks without executing them")
    parser.add_argument("--lang", choices=["en", "ko"], help="build one edition only (default: both)")
    parser.add_argument(
        "--student-edition", metavar="OUT_DIR", type=Path, help="write the lessons without solutions into OUT_DIR"
    )
    parser.add_argument(
        "--nbgrader", metavar="OUT_DIR", type=Path, help="write the course in nbgrader's layout: OUT_DIR/source/..."
    )
    args = parser.parse_args()
    if args.nbgrader:
        import nbgrader_export

        chosen = [m for m in lesson_modules() if not args.only or any(m.NAME.startswith(n) for n in args.only)]
        for path in nbgrader_export.export(args.nbgrader, chosen, HERE / "lesson_tools"):
            print(f"{path}: nbgrader source, with solution regions and autograded tests")
        return
    if args.student_edition:
        for path in student_edition(args.student_edition, args.only, args.lang or "en"):
            print(f"{path}: student edition, no solutions")
        return
    for module in lesson_modules():
        if args.only and not any(module.NAME.startswith(n) for n in args.only):
            continue
        for lang in [args.lang] if args.lang else ["en", "ko"]:
            if lang == "ko" and not translated(module):
                print(f"ko/{module.NAME}: not translated yet, no Korean edition")
                continue
            build(module, lang, not args.no_run)


if __name__ == "__main__":
    main()
