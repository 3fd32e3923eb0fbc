"""README's two commands: scripts/lessons.sh (students' copies in my-lessons/, JupyterLab at lesson 00) and the
system-package step that lessons.sh and scripts/test.sh share (scripts/system_packages.sh).

lessons.sh runs in a copy of the repository (its tracked and new files, committed in a fresh git repository), with
this test run's Python (MINITAPE_PYTHON: no venv is made) and without installing system packages.
The system-package step runs against stub apt-get, sudo and brew programs: no test installs anything.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LESSONS = sorted(p.name for p in (ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, text=True).stdout


def _lessons_sh(repo: Path, *args: str, **env: str) -> subprocess.CompletedProcess:
    environment = {**os.environ, "MINITAPE_SKIP_SYSTEM_PACKAGES": "1", "MINITAPE_PYTHON": sys.executable, **env}
    environment.pop("JUPYTER_TOKEN", None)
    return subprocess.run(
        ["bash", "scripts/lessons.sh", *args], cwd=repo, env=environment, capture_output=True, text=True, timeout=120
    )


def test_lessons_sh_makes_my_lessons_keeps_the_students_copies_and_resets_one(repo_copy: Path) -> None:
    assert len(LESSONS) >= 9
    first = _lessons_sh(repo_copy, "--setup-only", MINITAPE_PORT="8899")
    assert first.returncode == 0, first.stderr
    my_lessons = repo_copy / "my-lessons"
    assert sorted(p.name for p in my_lessons.glob("*.ipynb")) == LESSONS
    for name in LESSONS:
        assert (my_lessons / name).read_bytes() == (repo_copy / "notebooks" / name).read_bytes()
    # the token is Jupyter's own, made when it starts (tests/test_lessons_browser.py reads it in the last line)
    assert "JupyterLab would open http://127.0.0.1:8899/lab/tree/my-lessons/00_start_here.ipynb\n" in first.stdout
    assert [line[:5] for line in first.stdout.splitlines()[:4]] == ["[1/4]", "     ", "[2/4]", "     "]
    assert f"--ServerApp.root_dir={repo_copy}" in first.stdout  # the repository is browsable, minitape/ included
    assert "--LabApp.default_url=/lab/tree/my-lessons/00_start_here.ipynb" in first.stdout

    lesson = my_lessons / LESSONS[3]
    assert lesson.name.startswith("03_")
    lesson.write_text('{"the student": "was here"}')
    second = _lessons_sh(repo_copy, "--setup-only")
    assert second.returncode == 0, second.stderr
    assert lesson.read_text() == '{"the student": "was here"}', "a second run overwrote the student's copy"

    reset = _lessons_sh(repo_copy, "--setup-only", "--reset", "03")
    assert reset.returncode == 0, reset.stderr
    assert lesson.read_bytes() == (repo_copy / "notebooks" / lesson.name).read_bytes()
    backups = list((my_lessons / "backups").glob("03_*.ipynb"))
    assert [b.read_text() for b in backups] == ['{"the student": "was here"}'], "the student's work is kept"
    assert f"/lab/tree/my-lessons/{lesson.name}\n" in reset.stdout  # it opens the lesson just reset

    assert _git(repo_copy, "status", "--porcelain", "--untracked-files=all") == ""


def test_lessons_sh_refuses_an_unknown_lesson_and_names_the_lessons(repo_copy: Path) -> None:
    result = _lessons_sh(repo_copy, "--setup-only", "--reset", "99")
    assert result.returncode == 2
    assert "no lesson notebooks/99_*.ipynb" in result.stderr and LESSONS[0] in result.stderr
    result = _lessons_sh(repo_copy, "--setup-only", "--reset", "../x")
    assert result.returncode == 2 and "lesson number such as 03" in result.stderr


def test_with_a_python_of_ones_own_a_kernel_in_my_lessons_imports_lesson_tools(repo_copy: Path) -> None:
    """MINITAPE_PYTHON: nothing is installed into that Python, so lessons.sh exports PYTHONPATH for its kernels."""
    result = _lessons_sh(repo_copy, "--setup-only")
    pythonpath = re.search(r"PYTHONPATH=(\S+)", result.stdout)
    assert pythonpath, result.stdout
    env = {**os.environ, "PYTHONPATH": pythonpath[1]}
    code = "import lesson_tools, pathlib; print(pathlib.Path(lesson_tools.__file__).parent.parent)"
    imported = subprocess.run(
        [sys.executable, "-c", code], cwd=repo_copy / "my-lessons", env=env, capture_output=True, text=True
    )
    assert imported.returncode == 0, imported.stderr
    assert Path(imported.stdout.strip()) == repo_copy / "notebooks"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _request(url: str, method: str = "GET", body: dict | None = None) -> tuple[int, bytes]:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method=method, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as response:
        return response.status, response.read()


def test_jupyterlab_serves_lesson_00_from_the_repository_root_and_saving_a_copy_leaves_git_clean(
    repo_copy: Path,
) -> None:
    port = _free_port()
    env = {**os.environ, "MINITAPE_SKIP_SYSTEM_PACKAGES": "1", "MINITAPE_PYTHON": sys.executable}
    env.update(MINITAPE_PORT=str(port), JUPYTER_TOKEN="test-token", JUPYTER_CONFIG_DIR=str(repo_copy.parent / "cfg"))
    log = repo_copy.parent / "lessons.log"  # a file, not a pipe: nobody reads a pipe while the server runs
    with log.open("wb") as out:
        server = subprocess.Popen(
            ["bash", "scripts/lessons.sh", "--no-browser"], cwd=repo_copy, env=env, stdout=out, stderr=subprocess.STDOUT
        )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 90
        while True:
            try:
                status, _ = _request(f"{base}/api/status?token=test-token")
                break
            except OSError:
                assert server.poll() is None, log.read_text()
                assert time.monotonic() < deadline, "JupyterLab did not start within 90 s"
                time.sleep(0.5)
        status, page = _request(f"{base}/lab/tree/my-lessons/00_start_here.ipynb?token=test-token")
        assert status == 200 and b"JupyterLab" in page
        _, listing = _request(f"{base}/api/contents?token=test-token&content=1")
        assert {"minitape", "my-lessons", "notebooks"} <= {item["name"] for item in json.loads(listing)["content"]}
        # what autosave does: write the open notebook back, with outputs and metadata changed
        _, raw = _request(f"{base}/api/contents/my-lessons/00_start_here.ipynb?token=test-token")
        notebook = json.loads(raw)["content"]
        notebook["metadata"]["saved_by"] = "a student"
        notebook["cells"][0]["source"] = "edited by a student"
        status, _ = _request(
            f"{base}/api/contents/my-lessons/00_start_here.ipynb?token=test-token",
            method="PUT",
            body={"type": "notebook", "format": "json", "content": notebook},
        )
        assert status == 200
        assert "edited by a student" in (repo_copy / "my-lessons" / "00_start_here.ipynb").read_text()
        # the same save aimed at the repository's lesson is refused, with the way to the student's copy
        lesson = repo_copy / "notebooks" / "00_start_here.ipynb"
        before = lesson.read_bytes()
        with pytest.raises(urllib.error.HTTPError) as refused:
            _request(
                f"{base}/api/contents/notebooks/00_start_here.ipynb?token=test-token",
                method="PUT",
                body={"type": "notebook", "format": "json", "content": notebook},
            )
        assert refused.value.code == 403
        assert "Work on your own copy, my-lessons/00_start_here.ipynb" in json.loads(refused.value.read())["message"]
        assert lesson.read_bytes() == before
        assert _git(repo_copy, "status", "--porcelain", "--untracked-files=all") == ""
    finally:
        server.terminate()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


# --- the system-package step, against stub programs -----------------------------------------------------------

TOOLS = ["bash", "cat", "env", "mktemp", "rm", "tail", "uname", "chmod", "true", "dirname", "mkdir", "cp", "cmp", "mv"]


@pytest.fixture
def stub_bin(tmp_path: Path) -> Path:
    """A PATH of its own: the few real tools the step uses, and nothing else (no dot, chromium, apt-get, sudo)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in TOOLS:
        (bin_dir / tool).symlink_to(shutil.which(tool))
    return bin_dir


def _stub(bin_dir: Path, name: str, script: str) -> None:
    (bin_dir / name).write_text("#!/bin/bash\n" + script)
    (bin_dir / name).chmod(0o755)


def _stub_apt_get(bin_dir: Path, log: Path) -> None:
    """apt-get that logs its arguments and, on install, puts the programs of the packages on PATH."""
    _stub(
        bin_dir,
        "apt-get",
        f'echo "apt-get $*" >> {log}\n'
        f'[ "$1" = install ] || exit 0\n'
        f'for p in "$@"; do case $p in graphviz) n=dot;; chromium) n=chromium;; *) continue;; esac\n'
        f'printf "#!/bin/bash\\n" > {bin_dir}/$n; chmod +x {bin_dir}/$n; done\n',
    )


def _ensure(bin_dir: Path, *programs: str, uid: int = 0, **env: str) -> subprocess.CompletedProcess:
    _stub(bin_dir, "id", f"echo {uid}\n")
    script = (
        f"source {ROOT / 'scripts' / 'system_packages.sh'}; ensure_programs 'needed for the test' {' '.join(programs)}"
    )
    environment = {"PATH": str(bin_dir), "HOME": str(bin_dir.parent), **env}
    return subprocess.run([str(bin_dir / "bash"), "-c", script], env=environment, capture_output=True, text=True)


def test_programs_already_there_install_nothing(stub_bin: Path, tmp_path: Path) -> None:
    log = tmp_path / "calls.log"
    _stub_apt_get(stub_bin, log)
    _stub(stub_bin, "dot", "")
    result = _ensure(stub_bin, "dot")
    assert result.returncode == 0, result.stderr
    assert not log.exists() and result.stderr == ""


def test_as_root_apt_get_updates_then_installs_the_packages(stub_bin: Path, tmp_path: Path) -> None:
    log = tmp_path / "calls.log"
    _stub_apt_get(stub_bin, log)
    result = _ensure(stub_bin, "dot", "chromium")
    assert result.returncode == 0, result.stderr
    assert log.read_text().splitlines() == [
        "apt-get update -qq",
        "apt-get install -y -qq --no-install-recommends graphviz chromium fonts-dejavu-core",
    ]


def test_as_a_user_apt_get_runs_through_sudo_when_it_needs_no_password(stub_bin: Path, tmp_path: Path) -> None:
    log = tmp_path / "calls.log"
    _stub_apt_get(stub_bin, log)
    _stub(stub_bin, "sudo", f'echo "sudo $*" >> {log}\n[ "$1" = -n ] && shift\nexec "$@"\n')
    result = _ensure(stub_bin, "dot", uid=1000)
    assert result.returncode == 0, result.stderr
    calls = log.read_text().splitlines()
    assert calls[0] == "sudo -n true"
    assert [c for c in calls if c.startswith("apt-get")] == [
        "apt-get update -qq",
        "apt-get install -y -qq --no-install-recommends graphviz",
    ]
    assert all(c.startswith("sudo -n env DEBIAN_FRONTEND=noninteractive apt-get") for c in calls[1::2])


@pytest.mark.parametrize("sudo", ["absent", "asks for a password"])
def test_without_root_or_usable_sudo_it_says_what_to_install(stub_bin: Path, tmp_path: Path, sudo: str) -> None:
    log = tmp_path / "calls.log"
    _stub_apt_get(stub_bin, log)
    if sudo != "absent":
        _stub(stub_bin, "sudo", f'echo "sudo $*" >> {log}\nexit 1\n')
    result = _ensure(stub_bin, "dot", "chromium", uid=1000)
    assert result.returncode == 1
    assert "apt-get" not in (log.read_text() if log.exists() else "")
    assert "Missing program(s): dot chromium (needed for the test)" in result.stderr
    assert "sudo apt-get update && sudo apt-get install graphviz chromium fonts-dejavu-core" in result.stderr
    assert "brew install graphviz" in result.stderr


def test_the_skip_variable_installs_nothing(stub_bin: Path, tmp_path: Path) -> None:
    log = tmp_path / "calls.log"
    _stub_apt_get(stub_bin, log)
    result = _ensure(stub_bin, "dot", MINITAPE_SKIP_SYSTEM_PACKAGES="1")
    assert result.returncode == 1 and not log.exists()
    assert "sudo apt-get install graphviz" in result.stderr


def test_a_failing_apt_get_shows_its_error_and_what_to_install(stub_bin: Path) -> None:
    _stub(stub_bin, "apt-get", 'echo "E: Unable to locate package graphviz" >&2\nexit 100\n')
    result = _ensure(stub_bin, "dot")
    assert result.returncode == 1
    assert "E: Unable to locate package graphviz" in result.stderr
    assert "sudo apt-get update && sudo apt-get install graphviz" in result.stderr


def test_on_macos_brew_installs_graphviz(stub_bin: Path, tmp_path: Path) -> None:
    log = tmp_path / "calls.log"
    (stub_bin / "uname").unlink()
    _stub(stub_bin, "uname", "echo Darwin\n")
    _stub(
        stub_bin,
        "brew",
        f'echo "brew $*" >> {log}\nprintf "#!/bin/bash\\n" > {stub_bin}/dot; chmod +x {stub_bin}/dot\n',
    )
    result = _ensure(stub_bin, "dot", uid=501)
    assert result.returncode == 0, result.stderr
    assert log.read_text().splitlines() == ["brew install --quiet graphviz"]


def test_test_sh_stops_and_says_what_to_install_when_a_program_is_missing(stub_bin: Path) -> None:
    environment = {"PATH": str(stub_bin), "HOME": str(stub_bin.parent), "MINITAPE_SKIP_SYSTEM_PACKAGES": "1"}
    _stub(stub_bin, "id", "echo 0\n")
    _stub(stub_bin, "python3", "echo python3 ran >&2; exit 3\n")  # it must stop before making the venv
    result = subprocess.run(
        ["bash", str(ROOT / "scripts" / "test.sh")], env=environment, capture_output=True, text=True
    )
    assert result.returncode == 1
    assert "Missing program(s): dot chromium" in result.stderr and "python3 ran" not in result.stderr
    assert "sudo apt-get install graphviz chromium fonts-dejavu-core" in result.stderr


def test_lessons_sh_goes_on_without_graphviz(stub_bin: Path, repo_copy: Path) -> None:
    _stub(stub_bin, "id", "echo 0\n")
    result = _lessons_sh(repo_copy, "--setup-only", PATH=str(stub_bin))
    assert result.returncode == 0, result.stderr
    assert "Missing program(s): dot" in result.stderr and "would open http://127.0.0.1:" in result.stdout
    assert (
        "[1/4] Graphviz" in result.stdout
        and "missing: the tape pictures use the WebAssembly build instead" in result.stdout
    )
    assert sorted(p.name for p in (repo_copy / "my-lessons").glob("*.ipynb")) == LESSONS


# --- the venv step, against a stub python ---------------------------------------------------------------------


def _ensure_venv(project: Path, bin_dir: Path, **env: str) -> subprocess.CompletedProcess:
    scripts = ROOT / "scripts"
    script = f"source {scripts / 'system_packages.sh'}; source {scripts / 'venv.sh'}; ensure_venv test"
    environment = {"PATH": f"{bin_dir}:/usr/bin:/bin", "HOME": str(project), **env}
    return subprocess.run(["bash", "-c", script], cwd=project, env=environment, capture_output=True, text=True)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A folder with pyproject.toml, the lessons' Jupyter set-up, and a python3 whose venv is a python that logs what
    pip is asked (and answers sysconfig's question with a site-packages folder of its own)."""
    folder = tmp_path / "project"
    folder.mkdir()
    (folder / "pyproject.toml").write_text('[project]\nname = "x"\n')
    shutil.copytree(ROOT / "scripts" / "jupyter", folder / "scripts" / "jupyter")
    (folder / "notebooks" / "lesson_tools").mkdir(parents=True)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    venv_python = (
        '#!/bin/bash\n[ "$1" = -c ] && { mkdir -p "$PWD/.venv/site"; echo "$PWD/.venv/site"; exit 0; }\n'
        'echo "pip $*" >> "$PWD/pip.log"\n'
        '[ -f "$PWD/pip-fails" ] && { echo "pip broke"; exit 1; }\nexit 0\n'
    )
    _stub(
        bin_dir,
        "python3",
        'echo "python3 $*" >> "$PWD/python3.log"\n[ -f "$PWD/no-venv" ] && exit 1\n'
        f"mkdir -p .venv/bin && printf '%s' '{venv_python}' > .venv/bin/python && chmod +x .venv/bin/python\n",
    )
    return folder


def test_pip_runs_again_only_when_pyproject_changes(project: Path, tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"
    first = _ensure_venv(project, bin_dir)
    assert first.returncode == 0, first.stderr
    assert (project / "python3.log").read_text() == "python3 -m venv .venv\n"
    install = ["pip -m pip install --upgrade pip", "pip -m pip install -e .[test]"]
    assert "Installing minitape[test]" in first.stderr
    assert (project / ".venv" / "site" / "minitape-lessons.pth").read_text() == f"{project}/.venv/minitape-lessons\n"
    assert (project / ".venv" / "minitape-lessons" / "lesson_tools").resolve() == project / "notebooks" / "lesson_tools"
    assert (project / "pip.log").read_text().splitlines() == install
    assert _ensure_venv(project, bin_dir).returncode == 0
    assert (project / "pip.log").read_text().splitlines() == install, "nothing changed, so pip did not run"
    with (project / "pyproject.toml").open("a") as f:
        f.write('dependencies = ["numpy"]\n')
    assert _ensure_venv(project, bin_dir).returncode == 0
    assert (project / "pip.log").read_text().splitlines() == install * 2
    assert (project / "python3.log").read_text() == "python3 -m venv .venv\n", "the venv is made once"


def test_a_failing_pip_shows_its_output_and_stops(project: Path, tmp_path: Path) -> None:
    (project / "pip-fails").touch()
    result = _ensure_venv(project, tmp_path / "bin")
    assert result.returncode == 1
    assert "pip broke" in result.stderr and "pip could not install minitape[test]" in result.stderr
    (project / "pip-fails").unlink()
    assert _ensure_venv(project, tmp_path / "bin").returncode == 0, "a failed install is retried on the next run"


def test_without_venv_it_says_to_install_python3_venv(project: Path, tmp_path: Path) -> None:
    (project / "no-venv").touch()
    result = _ensure_venv(project, tmp_path / "bin", MINITAPE_SKIP_SYSTEM_PACKAGES="1")
    assert result.returncode == 1 and not (project / ".venv").exists()
    assert "sudo apt-get install python3-venv" in result.stderr


def test_pip_says_every_10_s_what_it_is_doing(project: Path, tmp_path: Path) -> None:
    slow_pip = (
        '#!/bin/bash\n[ "$1" = -c ] && { mkdir -p "$PWD/.venv/site"; echo "$PWD/.venv/site"; exit 0; }\n'
        'echo "Collecting jupyterlab>=4.1"; echo "Installing collected packages: jupyterlab, notebook, nbgrader"\n'
        'sleep 12; echo "Successfully installed jupyterlab notebook nbgrader"\n'
    )
    assert _ensure_venv(project, tmp_path / "bin").returncode == 0
    (project / ".venv" / "bin" / "python").write_text(slow_pip)
    (project / "pyproject.toml").write_text('[project]\nname = "y"\n')
    result = _ensure_venv(project, tmp_path / "bin")
    assert result.returncode == 0, result.stderr
    assert "    pip, 10 s: installing the 3 packages it collected" in result.stderr.splitlines()


def test_the_venv_finds_lesson_tools_anywhere_and_has_the_jupyter_set_up(repo_copy: Path, tmp_path: Path) -> None:
    """install_lesson_workspace, in a real venv: no PYTHONPATH, no working directory beside lesson_tools."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", ".venv"], cwd=repo_copy, check=True)
    server_config = repo_copy / ".venv/etc/jupyter/jupyter_server_config.json"
    server_config.parent.mkdir(parents=True)
    server_config.write_text('{"ServerApp": {"shutdown_no_activity_timeout": 600}}')  # someone's own setting
    scripts = repo_copy / "scripts"
    script = f"source {scripts / 'system_packages.sh'}; source {scripts / 'venv.sh'}; install_lesson_workspace"
    subprocess.run(["bash", "-c", script], cwd=repo_copy, check=True)
    env = {k: v for k, v in os.environ.items() if k not in {"PYTHONPATH", "VIRTUAL_ENV"}}
    code = "import importlib.util; print(importlib.util.find_spec('lesson_tools').origin)"
    found = subprocess.run(
        [str(repo_copy / ".venv" / "bin" / "python"), "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True
    )
    assert found.returncode == 0, found.stderr
    assert Path(found.stdout.strip()).resolve() == repo_copy / "notebooks" / "lesson_tools" / "__init__.py"
    config = json.loads(server_config.read_text())
    assert config["ContentsManager"]["pre_save_hook"] == "lesson_tools.workspace.pre_save_hook"
    assert config["ServerApp"] == {"shutdown_no_activity_timeout": 600}, "a setting already there stays"
    overrides = json.loads((repo_copy / ".venv/share/jupyter/lab/settings/overrides.json").read_text())
    assert overrides["@jupyterlab/apputils-extension:notification"]["fetchNews"] == "false"
    assert _git(repo_copy, "status", "--porcelain", "--untracked-files=all") == "", "all of it stays in .venv"


def test_stopping_the_script_stops_pip(project: Path, tmp_path: Path) -> None:
    """pip runs in the background while the script reports on it: stopped with the script, it writes no further."""
    assert _ensure_venv(project, tmp_path / "bin").returncode == 0
    (project / ".venv" / "bin" / "python").write_text(
        '#!/bin/bash\n[ "$1" = -c ] && { mkdir -p "$PWD/.venv/site"; echo "$PWD/.venv/site"; exit 0; }\n'
        'echo $$ > "$PWD/pip.pid"; exec sleep 60\n'
    )
    (project / "pyproject.toml").write_text('[project]\nname = "z"\n')
    scripts = ROOT / "scripts"
    script = f"source {scripts / 'system_packages.sh'}; source {scripts / 'venv.sh'}; ensure_venv test"
    environment = {"PATH": f"{tmp_path / 'bin'}:/usr/bin:/bin", "HOME": str(project)}
    pid_file = project / "pip.pid"
    # the block closes the pipe and waits for the shell, whatever happens inside it
    with subprocess.Popen(["bash", "-c", script], cwd=project, env=environment, stderr=subprocess.PIPE) as shell:
        deadline = time.monotonic() + 30
        while not pid_file.exists() or not pid_file.read_text().strip():
            assert time.monotonic() < deadline and shell.poll() is None, "pip did not start"
            time.sleep(0.1)
        pip = int(pid_file.read_text())
        shell.terminate()
        assert shell.wait(timeout=10) == 130
    deadline = time.monotonic() + 10
    while Path(f"/proc/{pip}").exists() and "zombie" not in _state(pip):
        assert time.monotonic() < deadline, "pip goes on after the script stopped"
        time.sleep(0.1)


def _state(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/status").read_text().lower()
    except OSError:
        return "zombie"
