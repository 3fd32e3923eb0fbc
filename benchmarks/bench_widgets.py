"""Tape viewer benchmarks: how long until a teacher sees the graph.

For two tapes, a 300-op chain (350 nodes, 600 steps) and one grouped training step of a small MLP,
it times each stage in the kernel: the step model (values and every backward step), Graphviz's
layout (`dot`), the static SVG of the last step; then the first render in headless Chromium of the
saved page (the same script the widget runs), measured with performance.now() inside the page.
Targets: 300-node tape under 2 s, the MLP step under 3 s (kernel stages plus first render).

    python benchmarks/bench_widgets.py
"""

from __future__ import annotations

import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from minitape.widgets import examples, export, steps  # noqa: E402
from minitape.widgets.scene import scene  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run"]


def best_of(repeats: int, fn):
    best, result = float("inf"), None
    for _ in range(repeats):
        t0 = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - t0)
    return best, result


def browser_render_ms(pages: list) -> list:
    """First-render milliseconds of each saved page in headless Chromium, or None without a browser."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        return [None] * len(pages)
    if not Path(CHROMIUM).exists():
        return [None] * len(pages)
    out = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        for path in pages:
            times = []
            for _ in range(3):
                page = browser.new_page(viewport={"width": 1400, "height": 900})
                page.goto(path.as_uri())
                page.wait_for_function("() => window.tapeviewRenderMs !== undefined")
                times.append(page.evaluate("() => window.tapeviewRenderMs"))
                page.close()
            out.append(min(times))
        browser.close()
    return out


def main() -> None:
    if shutil.which("dot") is None:
        sys.exit("Graphviz's `dot` is needed: apt-get install graphviz")
    cases = [
        ("300-op chain", examples.chain, 2.0),
        ("MLP training step (grouped)", examples.mlp_step, 3.0),
        ("keras Sequential MLP step", examples.keras_mlp_step, 3.0),
    ]
    rows, pages = [], []
    tmp = Path(tempfile.mkdtemp())
    for name, make, target in cases:
        tape, y, sources = make()
        model_s, model = best_of(3, lambda t=tape, y=y, s=sources: steps.build(t, y, s))
        scene_s, data = best_of(3, lambda m=model: scene(m))
        svg_s, _ = best_of(3, lambda d=data: export.to_svg(d, -1))
        path = export.save_html(data, tmp / f"{len(pages)}.html", title=name)
        pages.append(path)
        rows.append((name, len(model.nodes), len(model.events), model_s, scene_s, svg_s, target))
    rendered = browser_render_ms(pages)
    print(
        f"{'tape':<30}{'nodes':>6}{'steps':>7}{'model':>9}{'layout':>9}{'to_svg':>9}{'browser':>10}{'total':>9}{'target':>8}"
    )
    for (name, nodes, n_steps, model_s, scene_s, svg_s, target), ms in zip(rows, rendered):
        browser_s = (ms or 0) / 1000
        total = model_s + scene_s + browser_s
        shown = f"{browser_s:.3f}s" if ms is not None else "n/a"
        print(
            f"{name:<30}{nodes:>6}{n_steps:>7}{model_s:>8.3f}s{scene_s:>8.3f}s{svg_s:>8.3f}s{shown:>10}"
            f"{total:>8.3f}s{target:>7.1f}s  {'ok' if total < target else 'SLOW'}  ({total / target:.0%} of target)"
        )
    print(
        "model = step model (replay + backward steps); layout = DOT + Graphviz + scene data; "
        "browser = first render of the saved page; total = model + layout + browser"
    )
    shutil.rmtree(tmp)


if __name__ == "__main__":
    main()
