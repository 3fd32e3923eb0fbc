"""Fixtures shared by several test files."""

import shutil
import subprocess
from pathlib import Path

import pytest
from threadpoolctl import threadpool_limits

import minitape as mt


@pytest.fixture
def keras_session():
    """Layer names restart at 'dense', 'conv2d', ...; a fixed seed; one BLAS thread (the CPUs are shared)."""
    mt.keras.backend.clear_session()
    mt.random.set_seed(0)
    with threadpool_limits(limits=1):
        yield


ROOT = Path(__file__).resolve().parent.parent


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, text=True).stdout


@pytest.fixture
def repo_copy(tmp_path: Path) -> Path:
    """This working tree's tracked and new files, committed in a fresh repository (a clone, uncommitted edits too)."""
    copy = tmp_path / "minitape"
    listed = git(ROOT, "ls-files", "-z", "--cached", "--others", "--exclude-standard").split("\0")
    for name in filter(None, listed):
        source = ROOT / name
        if source.is_file():  # a tracked file deleted in the working tree is not copied
            (copy / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, copy / name)
    git(copy, "init", "-q")
    git(copy, "add", "-A")
    git(copy, "-c", "user.name=test", "-c", "user.email=test@example.org", "commit", "-q", "-m", "copy")
    return copy
