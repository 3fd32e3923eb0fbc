"""Tape viewer benchmarks: how long until a teacher sees the graph, from small tapes to 5,000 ops.

Per tape it times each stage in the kernel: the step model (`steps.build`: values and every backward
step), the scene (`scene.scene`: the drawing plan, DOT, Graphviz's layout, the step data) and the static
SVG of the last step (`export.to_svg`); then the first render in headless Chromium of the saved page
(the same script the widget runs), measured with performance.now() inside the page. The kernel total
(model + scene + to_svg) is compared with the targets of issue 10: a 1,000-op tape under 2 s, a 3,000-op
tape under 10 s, a 5,000-op tape well under the 45 s it used to block for; a 300-op chain under 2 s and
an MLP step under 3 s. Big tapes fold by themselves (the notice column says how).

    python benchmarks/bench_widgets.py             # every tape (a few minutes while steps.build is quadratic)
    python benchmarks/bench_widgets.py --small     # the tapes up to 1,000 ops
    python benchmarks/bench_widgets.py --profile   # cProfile of the 1,000-op chain: steps.build, then the rest
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
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


CASES = [  # name, tape maker, target in seconds (kernel: model + scene + to_svg), runs to take the best of
    ("300-op chain", lambda: examples.chain(300), 2.0, 3),
    ("MLP training step (grouped)", examples.mlp_step, 3.0, 3),
    ("keras Sequential MLP step", examples.keras_mlp_step, 3.0, 3),
    ("1 variable feeding 500 ops", lambda: examples.shared_variable(500), 2.0, 1),
    ("1,000-op chain", lambda: examples.chain(1000), 2.0, 1),
    ("3,000-op chain", lambda: examples.chain(3000), 10.0, 1),
    ("5,000-op chain", lambda: examples.chain(5000), 45.0, 1),
]


def _profiled(title: str, work):
    profiler = cProfile.Profile()
    profiler.enable()
    result = work()
    profiler.disable()
    print(f"--- {title} (cProfile, by internal time) ---")
    pstats.Stats(profiler, stream=sys.stdout).sort_stats("tottime").print_stats(10)
    return result


def profile(n_ops: int = 1000) -> None:
    """Where the time goes for an `n_ops` chain: the step model (the engine side) apart from the drawing."""
    tape, y, sources = examples.chain(n_ops)
    model = _profiled(f"steps.build, {n_ops}-op chain", lambda: steps.build(tape, y, sources))
    _profiled(f"scene + to_svg, {n_ops}-op chain", lambda: export.to_svg(scene(model), -1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--small", action="store_true", help="only the tapes up to 1,000 ops")
    parser.add_argument("--profile", action="store_true", help="cProfile the 1,000-op chain instead")
    args = parser.parse_args()
    if shutil.which("dot") is None:
        sys.exit("Graphviz's `dot` is needed: apt-get install graphviz")
    if args.profile:
        profile()
        return
    rows, pages = [], []
    tmp = Path(tempfile.mkdtemp())
    for name, make, target, repeats in CASES:
        if args.small and target >= 10:
            continue
        tape, y, sources = make()
        model_s, model = best_of(repeats, lambda t=tape, y=y, s=sources: steps.build(t, y, s))
        scene_s, data = best_of(repeats, lambda m=model: scene(m))
        svg_s, _ = best_of(repeats, lambda d=data: export.to_svg(d, -1))
        pages.append(export.save_html(data, tmp / f"{len(pages)}.html", title=name))
        drawn = data["svg"].count('class="node ')
        rows.append((name, len(model.nodes), drawn, len(model.events), model_s, scene_s, svg_s, target, data["notice"]))
        print(f"  measured {name}", file=sys.stderr, flush=True)
    rendered = browser_render_ms(pages)
    print(
        f"{'tape':<28}{'nodes':>6}{'drawn':>6}{'steps':>7}{'model':>9}{'scene':>8}{'to_svg':>8}{'kernel':>9}"
        f"{'target':>8}  {'verdict':<30}{'browser':>9}"
    )
    notes = []
    for (name, nodes, drawn, n_steps, model_s, scene_s, svg_s, target, notice), ms in zip(rows, rendered):
        kernel = model_s + scene_s + svg_s
        ours = scene_s + svg_s
        verdict = f"{'ok' if kernel < target else 'SLOW'} {kernel / target:.0%} (drawing {ours / target:.0%})"
        shown = f"{ms / 1000:.3f}s" if ms is not None else "n/a"
        print(
            f"{name:<28}{nodes:>6}{drawn:>6}{n_steps:>7}{model_s:>8.3f}s{scene_s:>7.3f}s{svg_s:>7.3f}s{kernel:>8.3f}s"
            f"{target:>7.1f}s  {verdict:<30}{shown:>9}"
        )
        if notice:
            notes.append(f"  {name}: {notice}")
    print(
        "model = steps.build (the step model); scene = drawing plan + DOT + Graphviz + step data; "
        "to_svg = static picture of the last step; kernel = model + scene + to_svg, as a share of the target "
        "(drawing = scene + to_svg alone); drawn = boxes Graphviz laid out; browser = first render of the saved page"
    )
    if notes:
        print("folded by themselves:")
        print("\n".join(notes))
    shutil.rmtree(tmp)


if __name__ == "__main__":
    main()
