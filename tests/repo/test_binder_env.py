"""Binder's environment, rebuilt here: a fresh venv, built the way repo2docker builds it, runs every lesson under nbval.

repo2docker's image comes with Jupyter already installed (REPO2DOCKER_IMAGE), and mybinder.org runs
`pip install -r binder/requirements.txt` on top of it from the repository's root. The test installs the same way, then
checks that pip sees no conflict, that the image's Jupyter was kept, and that every lesson runs, so that a lesson link
cannot silently break. It is slow (a few minutes of pip, then the notebooks), so it carries the `binder`
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

ROOT = Path(__file__).resolve().parents[2]
BINDER = ROOT / "binder"
# What repo2docker's Python image installs before the repository's own requirements (its conda environment:
# jupyterlab 4, notebook 7, which is 7.4 in the image, ipywidgets 8, jupyter_server 2); pip resolves these the way
# conda did for the image, notebook 7.4 bringing the jupyterlab it allows.
REPO2DOCKER_IMAGE = ["notebook==7.4.*", "jupyterlab>=4,<5", "ipywidgets==8.*", "jupyter_server==2.*"]


def _pins() -> dict[str, str]:
    lines = (BINDER / "requirements.txt").read_text().splitlines()
    return dict(line.split("==") for line in lines if "==" in line and not line.startswith("#"))


def _jupyter_versions(python: str) -> dict[str, str]:
    freeze = _run([python, "-m", "pip", "list", "--format=freeze"], timeout=300).stdout.lower().splitlines()
    versions = dict(line.replace("-", "_").split("==") for line in freeze if "==" in line)
    return {name: versions[name] for name in ("notebook", "jupyterlab", "jupyter_server")}


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
    # the viewer runs without it (WebAssembly Graphviz), but the system's dot starts faster
    assert "graphviz" in (BINDER / "apt.txt").read_text().split(), "the lessons lay out with Graphviz's dot"
    # the image's notebook 7.4 requires jupyterlab<4.5: pins outside that make pip replace the image's Jupyter
    pins = _pins()
    assert pins["notebook"].startswith("7.4."), f"pin the notebook that repo2docker's image has (7.4), not {pins}"
    lab = tuple(int(part) for part in pins["jupyterlab"].split(".")[:2])
    assert (4, 4) <= lab < (4, 5), f"notebook 7.4 needs jupyterlab>=4.4,<4.5, the pin is {pins['jupyterlab']}"
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
    _run([venv_python, "-m", "pip", "install", "--quiet", *REPO2DOCKER_IMAGE], timeout=1800)
    image_jupyter = _jupyter_versions(venv_python)
    _run([venv_python, "-m", "pip", "install", "--quiet", "-r", "binder/requirements.txt"], timeout=1800)
    _run([venv_python, "-m", "pip", "check"], timeout=300)  # fails, naming the conflict, if the pins fight the image
    assert _jupyter_versions(venv_python) == image_jupyter, "binder/requirements.txt replaced the image's Jupyter"
    lessons = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
    sources = list((ROOT / "notebooks" / "lesson_sources").glob("l[0-9][0-9]_*.py"))
    assert len(lessons) == len(sources) >= 11, "every lesson source has its notebook"
    lessons += sorted(str(p.relative_to(ROOT)) for p in (ROOT / "notebooks" / "ko").glob("[0-9][0-9]_*.ipynb"))
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
