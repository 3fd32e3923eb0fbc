"""The wheel installs one top-level package, `minitape`; the visualizer comes along as `minitape.widgets`."""

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
import tomllib

ROOT = Path(__file__).resolve().parents[2]


def test_every_package_folder_is_listed_in_pyproject():
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    on_disk = {".".join(p.parent.relative_to(ROOT).parts) for p in (ROOT / "minitape").rglob("__init__.py")}
    on_disk.add("minitape.widgets")  # the top-level folder widgets/, mapped by package-dir
    assert on_disk == listed, "update [tool.setuptools] packages in pyproject.toml"


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """Built from a copy of the sources: setuptools writes build/ and minitape.egg-info beside them, and the Binder
    test installs the repository at the same time (scripts/test.sh runs them in parallel)."""
    out = tmp_path_factory.mktemp("wheel")
    source = tmp_path_factory.mktemp("source")
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy2(ROOT / name, source / name)
    for folder in ("minitape", "widgets"):
        shutil.copytree(ROOT / folder, source / folder, ignore=shutil.ignore_patterns("__pycache__"))
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(out), str(source)],
        check=True,
    )
    return next(out.glob("minitape-*.whl"))


def test_wheel_installs_only_minitape(wheel):
    with zipfile.ZipFile(wheel) as z:
        names = z.namelist()
        top_level = next(n for n in names if n.endswith(".dist-info/top_level.txt"))
        assert z.read(top_level).decode().split() == ["minitape"]
    tops = {n.split("/")[0] for n in names if not n.split("/")[0].endswith(".dist-info")}
    assert tops == {"minitape"}
    assert {"minitape/widgets/__init__.py", "minitape/widgets/tapeview.js", "minitape/widgets/tapeview.css"} <= set(
        names
    )


def test_a_users_own_widgets_folder_does_not_shadow_the_visualizer(tmp_path):
    (tmp_path / "widgets").mkdir()
    (tmp_path / "widgets" / "__init__.py").write_text("raise ImportError('the user widgets package')\n")
    code = "from minitape.widgets import TapeView, build; print('imported', TapeView.__module__); import widgets"
    result = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True)
    assert result.stdout.strip() == "imported minitape.widgets.tapeview", result.stderr
    assert "the user widgets package" in result.stderr  # and the user's own `widgets` is still theirs
