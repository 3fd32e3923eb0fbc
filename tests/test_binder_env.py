"""Binder's environment, rebuilt here: a fresh venv from binder/requirements.txt alone runs every lesson under nbval.

This is what mybinder.org does (`pip install -r binder/requirements.txt` from the repository's root), so a lesson
link cannot silently break. It is slow (a few minutes of pip, then the notebooks), so it carries the `binder`
marker (`pytest -m "not binder"` leaves it out); the full suite runs it. pip's own cache is reused.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BINDER = ROOT / "binder"


def _runtime_version() -> str:
    """ "python-3.11" in binder/runtime.txt -> "3.11"."""
    text = (BINDER / "runtime.txt").read_text().strip()
    match = re.fullmatch(r"python-(3\.\d+)", text)
    assert match, f"binder/runtime.txt should read like python-3.11, not {text!r}"
    return match.group(1)


def _interpreter(version: str) -> str | None:
    if f"{sys.version_info.major}.{sys.version_info.minor}" == version:
        return sys.executable
    return shutil.which(f"python{version}")


def _run(command: list[str], timeout: int) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in {"PYTHONPATH", "VIRTUAL_ENV", "PIP_NO_CACHE_DIR"}}
    result = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout)
    assert result.returncode == 0, f"{' '.join(command)} failed:\n{result.stdout[-4000:]}\n{result.stderr[-4000:]}"
    return result


def test_binder_files_are_consistent() -> None:
    requirements = (BINDER / "requirements.txt").read_text().splitlines()
    pins = [line for line in requirements if line and not line.startswith(("#", "-e"))]
    assert pins and all("==" in line for line in pins), f"every requirement is pinned: {pins}"
    assert any(line.startswith("-e .") for line in requirements), "the project installs from the repository"
    assert "graphviz" in (BINDER / "apt.txt").read_text().split(), "the visualizer needs Graphviz's dot"
    postbuild = BINDER / "postBuild"
    if postbuild.exists():
        assert "set -e" in postbuild.read_text()


@pytest.mark.binder
def test_lessons_run_in_a_fresh_binder_environment(tmp_path: Path) -> None:
    version = _runtime_version()
    python = _interpreter(version)
    if python is None:
        pytest.skip(f"Binder runs Python {version} (binder/runtime.txt) and this machine has no python{version}")
    venv = tmp_path / "binder-venv"
    _run([python, "-m", "venv", str(venv)], timeout=300)
    venv_python = str(venv / "bin" / "python")
    _run([venv_python, "-m", "pip", "install", "--quiet", "-r", "binder/requirements.txt"], timeout=1800)
    lessons = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
    assert len(lessons) == 10
    result = _run(
        [
            venv_python,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "--nbval",
            "--nbval-current-env",  # the kernel must run in the Binder venv, not in whatever python3 is installed
            "--nbval-sanitize-with",
            "notebooks/sanitize.cfg",
            *lessons,
        ],
        timeout=900,
    )
    assert " passed" in result.stdout and "failed" not in result.stdout, result.stdout[-2000:]
