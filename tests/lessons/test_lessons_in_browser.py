"""The lessons' first run in a real browser: README's `bash scripts/lessons.sh`, JupyterLab's Notebook button, and a
plain `jupyter notebook` started in the repository.

Each server runs on 127.0.0.1 in a fresh copy of the repository (tracked and new files), with every Jupyter
directory private to the test, and is stopped by it. The server's Python is this test run's (.venv, set up by
scripts/venv.sh: lesson_tools on its path, the save guard and the news setting in its Jupyter configuration).
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "widgets"))  # the browser helpers of the viewer's tests
from test_viewer_in_browser import (  # noqa: E402, F401 - pytestmark: skipped without Chromium, as they are
    close_dialogs,
    free_port,
    playwright,
    pytestmark,
    shot,
    wait_idle,
)

LESSON = "00_start_here.ipynb"
# typed at the end of the lesson's first code cell (which imports lesson_tools): new output, from this kernel
PROBE = 'print("checked by", check.__module__)'
PROBED = "checked by lesson_tools.checking"


def private_jupyter(tmp_path: Path) -> dict:
    """The environment of a server under test: no PYTHONPATH, no token of ours, Jupyter's own folders in tmp_path."""
    env = {k: v for k, v in os.environ.items() if k not in {"PYTHONPATH", "JUPYTER_TOKEN"}}
    for var, sub in (
        ("JUPYTER_CONFIG_DIR", "config"),
        ("JUPYTER_RUNTIME_DIR", "runtime"),
        ("JUPYTER_DATA_DIR", "data"),
        ("IPYTHONDIR", "ipython"),
        ("JUPYTERLAB_SETTINGS_DIR", "settings"),
        ("JUPYTERLAB_WORKSPACES_DIR", "workspaces"),
    ):
        env[var] = str(tmp_path / sub)
    return env


def stop(server: subprocess.Popen) -> None:
    """The server and its kernels (their own process group)."""
    if server.poll() is None:
        os.killpg(server.pid, signal.SIGTERM)
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait()


def wait_for_line(log: Path, server: subprocess.Popen, pattern: str, timeout: float = 240) -> re.Match:
    deadline = time.monotonic() + timeout
    while (found := re.search(pattern, log.read_text(errors="replace"), re.M)) is None:
        assert server.poll() is None, f"the server stopped:\n{log.read_text()}"
        assert time.monotonic() < deadline, f"no line matching {pattern!r} within {timeout} s:\n{log.read_text()}"
        time.sleep(0.5)
    return found


def run_probe(page) -> None:
    """Run the lesson's first code cell with PROBE added, and wait for what it prints.

    A run sent while the kernel still connects is dropped (as in test_widgets_browser.run_view): it is sent again.
    """
    wait_idle(page)
    close_dialogs(page)
    cell = ".jp-Notebook .jp-CodeCell .cm-content"
    page.click(cell)
    page.keyboard.press("Control+End")
    page.keyboard.press("Enter")
    page.keyboard.type(PROBE)
    printed = (
        "(text) => [...document.querySelectorAll('.jp-CodeCell .jp-OutputArea-output')]"
        ".some((o) => o.textContent.includes(text))"
    )
    for attempt in range(3):
        close_dialogs(page)
        page.click(cell)
        page.keyboard.press("Shift+Enter")
        try:
            page.wait_for_function(printed, arg=PROBED, timeout=40_000)
            break
        except playwright.TimeoutError:
            if attempt == 2:
                shot(page, "lesson_probe_failed.png")
                raise AssertionError(f"the cell did not print {PROBED!r}: {page.inner_text(cell)}") from None
    assert "Error" not in page.inner_text(".jp-Notebook .jp-CodeCell .jp-OutputArea")


def test_the_first_run_ends_with_a_working_url_and_the_notebook_button_runs_a_lesson(browser, repo_copy, tmp_path):  # noqa: F811
    port = free_port()
    env = private_jupyter(tmp_path)
    env.update(MINITAPE_SKIP_SYSTEM_PACKAGES="1", MINITAPE_PYTHON=sys.executable, MINITAPE_PORT=str(port))
    log = tmp_path / "lessons.log"
    with log.open("wb") as out:
        server = subprocess.Popen(
            ["bash", "scripts/lessons.sh", "--no-browser"],
            cwd=repo_copy,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        wait_for_line(log, server, r"^Your lessons: ")
        time.sleep(3)  # anything the server prints once it answers would come now
        lines = [line for line in log.read_text().splitlines() if line.strip()]
        url = re.fullmatch(r"Your lessons: (\S+)", lines[-1])
        assert url, f"the working URL is not the last line:\n{log.read_text()}"
        assert re.fullmatch(rf"http://127\.0\.0\.1:{port}/lab/tree/my-lessons/{LESSON}\?token=[0-9a-f]{{48}}", url[1])
        assert "?token=..." not in log.read_text(), "Jupyter's own lines show the real token too"

        page = browser.new_page(viewport={"width": 1300, "height": 900})
        page.goto(url[1])
        page.wait_for_selector(".jp-Notebook .jp-CodeCell .cm-content", timeout=90_000)  # the lesson, not a login
        page.wait_for_timeout(3000)  # JupyterLab asks about news a moment after it has started
        assert "Jupyter news" not in page.inner_text("body"), "the news pop-up is off (scripts/jupyter/overrides.json)"

        with page.context.expect_page(timeout=30_000) as opened:
            page.click(".jp-nb-interface-switcher-button")  # JupyterLab's "Notebook" button: Notebook 7
        notebook = opened.value
        notebook.wait_for_selector(".jp-Notebook .jp-CodeCell .cm-content", timeout=90_000)
        assert f"/notebooks/my-lessons/{LESSON}" in notebook.url
        run_probe(notebook)
    finally:
        stop(server)


def test_plain_jupyter_notebook_in_the_repository_runs_a_copy_and_refuses_a_lessons_save(browser, repo_copy, tmp_path):  # noqa: F811
    """`jupyter notebook` from .venv, started in the repository: no PYTHONPATH, no lessons.sh options."""
    (repo_copy / "my-lessons").mkdir()
    (repo_copy / "my-lessons" / LESSON).write_bytes((repo_copy / "notebooks" / LESSON).read_bytes())
    port = free_port()
    command = [
        sys.executable, "-m", "jupyter", "notebook", "--no-browser", "--IdentityProvider.token=test-token",
        "--ServerApp.ip=127.0.0.1", f"--ServerApp.port={port}", "--ServerApp.port_retries=0", "--allow-root",
    ]  # fmt: skip
    log = tmp_path / "notebook.log"
    with log.open("wb") as out:
        server = subprocess.Popen(
            command, cwd=repo_copy, env=private_jupyter(tmp_path), stdout=out, stderr=subprocess.STDOUT,
            start_new_session=True,
        )  # fmt: skip
    base = f"http://127.0.0.1:{port}"
    try:
        wait_for_line(log, server, rf"http://127\.0\.0\.1:{port}/")
        page = browser.new_page(viewport={"width": 1300, "height": 900})
        page.goto(f"{base}/notebooks/my-lessons/{LESSON}?token=test-token")
        page.wait_for_selector(".jp-Notebook .jp-CodeCell .cm-content", timeout=90_000)
        run_probe(page)  # the kernel runs in my-lessons/, where there is no lesson_tools: .venv has it

        lesson = repo_copy / "notebooks" / LESSON
        before = lesson.read_bytes()
        notebook = json.loads(before)
        for cell in notebook["cells"]:
            if cell["cell_type"] == "code":
                cell["outputs"] = []
        request = urllib.request.Request(
            f"{base}/api/contents/notebooks/{LESSON}?token=test-token",
            data=json.dumps({"type": "notebook", "format": "json", "content": notebook}).encode(),
            method="PUT",
            headers={"Content-Type": "application/json"},
        )
        with pytest.raises(urllib.error.HTTPError) as refused:  # what autosave sends: the lesson, outputs wiped
            urllib.request.urlopen(request, timeout=30)
        assert refused.value.code == 403
        assert f"Work on your own copy, my-lessons/{LESSON}" in json.loads(refused.value.read())["message"]
        assert lesson.read_bytes() == before

        page.goto(f"{base}/notebooks/notebooks/{LESSON}")  # and what a student sees on saving it by hand
        page.wait_for_selector(".jp-Notebook .jp-CodeCell .cm-content", timeout=90_000)
        wait_idle(page)
        page.click(".jp-Notebook .jp-CodeCell .cm-content")
        page.keyboard.press("Control+s")
        page.wait_for_selector(".jp-Dialog", timeout=30_000)
        assert "my-lessons/" in page.inner_text(".jp-Dialog"), page.inner_text(".jp-Dialog")
        assert lesson.read_bytes() == before
    finally:
        stop(server)
