"""The tape viewer in a real browser: JupyterLab with a live kernel, and a saved HTML file with no server.

Headless Chromium (Debian's /usr/bin/chromium) driven by Python playwright. Screenshots go to
test-artifacts/ (their paths are printed), and so do the measured frame times (`pytest -s` shows them).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

playwright = pytest.importorskip("playwright.sync_api", reason="the browser tests need `pip install playwright`")

ROOT = Path(__file__).resolve().parent.parent
ARTIFACTS = ROOT / "test-artifacts"
CHROMIUM = "/usr/bin/chromium"
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
]

pytestmark = pytest.mark.skipif(
    not Path(CHROMIUM).exists() or shutil.which("dot") is None,
    reason="needs Debian's chromium and graphviz (`apt-get install chromium graphviz`)",
)

NOTEBOOK_CODE = """\
from minitape.widgets import TapeView, examples
tape, f, sources = examples.fan_out()
view = TapeView(tape, f)
view"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def browser():
    with playwright.sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            yield chromium
        finally:
            chromium.close()


@pytest.fixture
def jupyter_lab(tmp_path):
    """A JupyterLab server on 127.0.0.1 with the token disabled; always stopped afterwards."""
    port = free_port()
    notebook = {
        "cells": [
            {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [], "source": NOTEBOOK_CODE}
        ],
        "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"}},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    (tmp_path / "view.ipynb").write_text(json.dumps(notebook))
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    for var, sub in (("JUPYTER_CONFIG_DIR", "config"), ("JUPYTER_RUNTIME_DIR", "runtime"), ("IPYTHONDIR", "ipython")):
        env[var] = str(tmp_path / sub)
    # no "get Jupyter news?" toast over the widget, and no attempt to fetch news
    settings = tmp_path / "settings" / "@jupyterlab" / "apputils-extension"
    settings.mkdir(parents=True)
    (settings / "notification.jupyterlab-settings").write_text('{"fetchNews": "false"}')
    env["JUPYTERLAB_SETTINGS_DIR"] = str(tmp_path / "settings")
    command = [
        sys.executable, "-m", "jupyter", "lab", "--no-browser", "--ServerApp.token=", "--ServerApp.password=",
        f"--port={port}", "--ServerApp.ip=127.0.0.1", f"--ServerApp.root_dir={tmp_path}",
        f"--LabApp.workspaces_dir={tmp_path / 'workspaces'}", "--ServerApp.port_retries=0",
        "--allow-root",  # CI containers run as root
    ]  # fmt: skip
    log = open(tmp_path / "jupyter.log", "wb")
    server = subprocess.Popen(command, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                urllib.request.urlopen(f"{url}/api/status", timeout=2).read()
                break
            except OSError:
                if server.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError("JupyterLab did not start:\n" + (tmp_path / "jupyter.log").read_text()) from None
                time.sleep(0.3)
        yield url
    finally:
        if server.poll() is None:
            os.killpg(server.pid, signal.SIGTERM)  # the server and its kernels: their own process group
            try:
                server.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(server.pid, signal.SIGKILL)
                server.wait()
        log.close()


def frame_times(page, count: int) -> list:
    """Milliseconds per step change, measured in the page: the frame's script plus the layout it forces."""
    return page.evaluate(
        """(count) => {
            const next = [...document.querySelectorAll('.tv-btn')].find((b) => b.textContent === 'step ▶');
            const svg = document.querySelector('.tv-graph svg');
            const times = [];
            for (let i = 0; i < count; i++) {
                const t0 = performance.now();
                next.click();
                svg.getBoundingClientRect();
                document.body.offsetHeight;
                times.push(performance.now() - t0);
            }
            return times;
        }""",
        count,
    )


def summary(times: list) -> str:
    ordered = sorted(times)
    median, p90 = ordered[len(ordered) // 2], ordered[int(len(ordered) * 0.9)]
    return f"median {median:.2f} ms, 90th percentile {p90:.2f} ms, max {ordered[-1]:.2f} ms over {len(times)} steps"


def slide_to(page, where: str) -> None:
    """Move the timeline slider as a user drags it (`where` is JavaScript over the slider `s`)."""
    page.evaluate(
        f"() => {{ const s = document.querySelector('.tv-slider'); s.value = {where}; "
        "s.dispatchEvent(new Event('input')); }"
    )


def panel_text(page) -> str:
    return page.inner_text(".tv-panel-text")


def active_node(page) -> str | None:
    return page.evaluate("() => document.querySelector('.tv g.node.active')?.id ?? null")


def test_tapeview_in_jupyterlab(browser, jupyter_lab):
    page = browser.new_page(viewport={"width": 1400, "height": 1150})
    errors: list = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"{jupyter_lab}/lab/tree/view.ipynb")
    page.wait_for_selector(".jp-Notebook .jp-Cell .cm-content", timeout=60_000)
    # run only once the kernel is up: a cell run before that is silently dropped
    page.wait_for_function(
        "() => /\\| Idle/.test(document.querySelector('.jp-StatusBar-Widget, #jp-main-statusbar')?.textContent ?? '')",
        timeout=60_000,
    )
    page.click(".jp-Notebook .jp-Cell .cm-content")
    page.keyboard.press("Shift+Enter")
    try:
        page.wait_for_selector(".tv .tv-graph svg g.node", timeout=60_000)
    except playwright.TimeoutError:
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "tapeview_jupyterlab_failed.png"))
        raise
    # the anywidget front end came from the pip package's labextension, and rendered the whole DAG
    assert page.locator(".tv-graph svg g.node").count() == 10
    assert page.locator(".tv-graph svg g.edge").count() == 10
    before_text, before_node = panel_text(page), active_node(page)
    assert before_node is None and "The tape recorded 5 ops" in before_text
    page.click("button:has-text('step ▶')")
    first_text, first_node = panel_text(page), active_node(page)
    assert first_node == "n-op1" and first_text != before_text and "Forward, record 1: Pow" in first_text
    page.click("button:has-text('play')")
    page.wait_for_function("() => document.querySelector('.tv-counter').textContent.startsWith('step 4')")
    page.click("button:has-text('pause')")
    assert active_node(page) != first_node and panel_text(page) != first_text
    # the end of the backward pass: the fan-out sum at w1 and w2's gradient, as the engine gives them
    slide_to(page, "s.max")
    assert "d target / d w1:0 = 36" in panel_text(page) and "d target / d w2:0 = 10" in panel_text(page)
    page.click(".tv g.node#n-var0")
    assert "36" in page.inner_text(".tv-details")
    page.click("button:has-text('reset')")
    times = frame_times(page, 12)
    body = page.inner_text("body")
    assert "Error displaying widget" not in body and "Loading widget..." not in body
    assert not errors, errors
    ARTIFACTS.mkdir(exist_ok=True)
    slide_to(page, "s.max - 1")
    assert "sum at w1:0 so far: 6 + 30 = 36" in panel_text(page)  # the Pow step: the fan-out sum, on screen
    shot = ARTIFACTS / "tapeview_jupyterlab.png"
    page.screenshot(path=str(shot))
    print(f"\nscreenshot: {shot}")
    print(f"JupyterLab, 10-node tape, frame change: {summary(times)}")


def test_saved_html_animates_offline_and_large_frames_are_fast(browser, tmp_path):
    from minitape.widgets import TapeView, examples

    tape, y, sources = examples.chain(300)
    view = TapeView(tape, y, sources)
    path = view.save_html(tmp_path / "chain.html", title="300-op chain")
    context = browser.new_context(offline=True)  # no server, no network: everything is in the file
    page = context.new_page()
    errors: list = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(path.as_uri())
    page.wait_for_selector(".tv-graph svg g.node")
    assert page.locator(".tv-graph svg g.node:not(.use-copy)").count() == len(view.model.nodes) >= 300
    counter = page.inner_text(".tv-counter")
    page.click("button:has-text('play')")
    page.wait_for_function("() => document.querySelector('.tv-counter').textContent.startsWith('step 3 ')")
    page.click("button:has-text('pause')")
    assert page.inner_text(".tv-counter") != counter and active_node(page) is not None
    # fold a name scope: its nodes hide, the box stands for them and lights up when a step is inside it
    block = page.locator(".tv g.cluster").first
    members = page.evaluate("() => document.querySelectorAll('.tv g.node').length")
    block.click()
    hidden = page.evaluate(
        "() => [...document.querySelectorAll('.tv g.node')].filter(g => g.style.display === 'none').length"
    )
    assert 0 < hidden < members and "▸" in block.text_content()
    block.click()
    assert page.evaluate("() => [...document.querySelectorAll('.tv g.node')].every(g => g.style.display !== 'none')")
    page.click("button:has-text('reset')")
    times = frame_times(page, 60)
    page.evaluate("() => window.tapeview.show(window.tapeview.current + 0)")
    scrub = page.evaluate(
        """() => {
            const t0 = performance.now();
            window.tapeview.show(1e9);
            document.querySelector('.tv-graph svg').getBoundingClientRect();
            return performance.now() - t0;
        }"""
    )
    assert "d target / d a:0" in panel_text(page)
    assert not errors, errors
    ARTIFACTS.mkdir(exist_ok=True)
    shot = ARTIFACTS / "tapeview_saved_html.png"
    page.screenshot(path=str(shot))
    print(f"\nscreenshot: {shot}")
    n = len(view.model.nodes)
    print(f"saved HTML, {n}-node tape, frame change: {summary(times)}; jump to the last step: {scrub:.2f} ms")
    context.close()


def test_hostile_names_show_as_text_in_the_browser(browser, tmp_path):
    import minitape as mt
    from minitape.widgets import TapeView

    evil = "<img src=x onerror=alert(1)>"
    w = mt.Variable(2.0, name=evil)
    with mt.GradientTape(persistent=True) as tape:
        y = w * w
    path = TapeView(tape, y).save_html(tmp_path / "evil.html", title=evil)
    page = browser.new_page()
    dialogs: list = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    page.goto(path.as_uri())
    page.wait_for_selector(".tv-graph svg g.node")
    page.click(".tv g.node#n-var0")
    assert page.evaluate("() => document.querySelectorAll('img').length") == 0
    assert evil + ":0" in page.inner_text(".tv-details") and evil + ":0" in page.inner_text(".tv-panel-text")
    assert evil + ":0" in page.evaluate("() => document.querySelector('#n-var0 text').textContent")
    assert dialogs == []
    # the keyboard drives it too (a presenter's clicker sends arrow keys)
    page.focus(".tv")
    page.keyboard.press("ArrowRight")
    assert page.inner_text(".tv-counter").startswith("step 1 ") and active_node(page) is not None
    page.keyboard.press("End")
    assert "d target / d " in panel_text(page)
