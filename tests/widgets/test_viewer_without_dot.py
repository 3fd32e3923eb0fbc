"""`pip install "minitape[widgets]"` alone gives a working viewer: a fresh virtual environment, no `dot` on PATH.

The wheel is built from this checkout and installed with its widgets extra into a new venv (no system site
packages; pip's cache makes the install quick after the first time). A script there builds a TapeView of one
Keras MLP training step and writes its SVG, its PNG and a saved page; the browser then steps that page offline.
"""

from __future__ import annotations

import json
import os
import struct
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = "/usr/bin/chromium"
SVG = "{http://www.w3.org/2000/svg}"

pytestmark = pytest.mark.slow

SCRIPT = """\
import json, shutil, sys
from pathlib import Path

import numpy as np
import minitape as mt
from minitape import widgets

out = Path(sys.argv[1])
assert shutil.which("dot") is None, "this environment must have no Graphviz program"
keras = mt.keras
keras.utils.set_random_seed(0)
model = keras.Sequential([keras.layers.Dense(8, activation="relu"), keras.layers.Dense(3)])
rng = np.random.default_rng(0)
x = rng.normal(size=(6, 4)).astype("float32")
labels = rng.integers(0, 3, size=6)
loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
with mt.GradientTape() as tape:
    loss = loss_fn(labels, model(x))
view = widgets.TapeView(tape, loss, model.trainable_variables)
(out / "mlp.svg").write_text(view.to_svg(-1))
(out / "mlp.png").write_bytes(view.to_png())
view.save_html(out / "mlp.html")
bundle, _ = view._repr_mimebundle_()
print(json.dumps({
    "backend": widgets.layout_backend(),
    "nodes": len(view.model.nodes),
    "steps": view.n_steps,
    "bundle": sorted(bundle),
}))
"""


def _run(command: list, env: dict, timeout: int = 600) -> subprocess.CompletedProcess:
    done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=timeout, check=False)
    assert done.returncode == 0, f"{' '.join(map(str, command))} failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done


@pytest.fixture(scope="module")
def fresh(tmp_path_factory) -> tuple[Path, dict]:
    """(folder with mlp.svg, mlp.png and mlp.html, what the script printed), made in a venv without `dot`."""
    base = tmp_path_factory.mktemp("no_dot")
    env = {k: v for k, v in os.environ.items() if k not in {"PYTHONPATH", "VIRTUAL_ENV", "PIP_NO_CACHE_DIR"}}
    _run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(base), str(ROOT)],
        env,
    )
    wheel = next(base.glob("minitape-*.whl"))
    venv = base / "venv"
    _run([sys.executable, "-m", "venv", str(venv)], env)
    python = venv / ("Scripts" if os.name == "nt" else "bin") / "python"
    pip = [str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check", "--prefer-binary"]
    _run([*pip, f"{wheel}[widgets]"], env)
    out = base / "out"
    out.mkdir()
    script = base / "view.py"
    script.write_text(SCRIPT)
    # only the venv's own programs on PATH, and a cache folder of its own: a cold start, as on a new machine
    run_env = env | {"PATH": str(python.parent), "MINITAPE_CACHE_DIR": str(base / "cache")}
    run_env.pop("MINITAPE_GRAPHVIZ", None)  # chosen by itself
    done = _run([str(python), str(script), str(out)], run_env)
    return out, json.loads(done.stdout.strip().splitlines()[-1])


def test_a_fresh_environment_without_dot_lays_out_draws_and_saves_a_keras_step(fresh):
    out, report = fresh
    assert report["backend"].startswith("graphviz 16.") and "(wasm," in report["backend"]
    root = ET.fromstring((out / "mlp.svg").read_text())
    drawn = [g for g in root.iter(f"{SVG}g") if "node" in (g.get("class") or "").split()]
    assert len(drawn) == report["nodes"] >= 10  # x, labels, 4 variables, 2 MatMul, 2 AddV2, Relu, loss ops
    png = (out / "mlp.png").read_bytes()
    assert png.startswith(b"\x89PNG\r\n\x1a\n")
    width, height = struct.unpack(">II", png[16:24])
    assert 300 < width <= 1536 and 150 < height
    page = (out / "mlp.html").read_text()
    assert "renderTapeView" in page  # the widget script, inlined with its data (the browser test opens it)
    assert {"image/png", "image/svg+xml", "text/plain"} <= set(report["bundle"])
    assert (Path(out).parent / "cache").is_dir()  # the compiled WebAssembly was kept for the next kernel


@pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="needs Debian's chromium (apt-get install chromium)")
def test_the_page_saved_without_dot_steps_in_the_browser(fresh):
    sync_api = pytest.importorskip("playwright.sync_api", reason="the browser part needs `pip install playwright`")
    out, report = fresh
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--headless", "--no-sandbox", "--disable-gpu"])
        try:
            context = browser.new_context(offline=True)
            page = context.new_page()
            errors: list = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto((out / "mlp.html").as_uri())
            page.wait_for_selector(".tv-graph svg g.node")
            assert page.locator(".tv-graph svg g.node").count() == report["nodes"]
            page.focus(".tv")
            for _ in range(3):
                page.keyboard.press("ArrowRight")
            assert page.inner_text(".tv-counter").startswith("step 3 ")
            assert page.evaluate("() => document.querySelector('.tv g.node.active')?.id ?? null") is not None
            page.keyboard.press("End")
            last = report["steps"] - 1
            assert page.inner_text(".tv-counter").startswith(f"step {last} / {last}")
            assert not errors, errors
        finally:
            browser.close()
