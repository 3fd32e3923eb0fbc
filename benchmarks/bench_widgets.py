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
    python benchmarks/bench_widgets.py --backends  # Graphviz backends: cold start, and per layout on 3 tape sizes

With --backends it compares the two Graphviz backends (widgets/graphviz_backends.py), the system's `dot` and
Graphviz 16 in WebAssembly: the cold start (a fresh Python process importing minitape.widgets and laying out a
small graph; the WebAssembly module compiled from scratch, then loaded from its cache) and the seconds per
layout of the DOT that `scene` writes for a small, a medium and a large tape, the backends taking turns.
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from minitape.widgets import examples, export, graphviz_backends, layout, plan, steps  # noqa: E402
from minitape.widgets import scene as scene_module  # noqa: E402
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


COLD = """\
import time
t0 = time.perf_counter()
from minitape.widgets import layout
t1 = time.perf_counter()
layout.layout("digraph { a -> b -> c; a -> c }")
t2 = time.perf_counter()
print(t1 - t0, t2 - t1)
"""
BACKEND_TAPES = [  # name, tape maker, collapse, rounds (each round lays the tape out once per backend)
    ("small: keras MLP step", examples.keras_mlp_step, None, 15),
    ("medium: 300-op chain", lambda: examples.chain(300), None, 5),
    ("large: 1,000-op chain, every node drawn", lambda: examples.chain(1000), False, 3),
]


def cold_start(backend: str, cache: Path, runs: int = 3) -> tuple:
    """Median (import s, first layout s) over `runs` fresh processes with MINITAPE_GRAPHVIZ=backend."""
    env = os.environ | {graphviz_backends.ENV: backend, "MINITAPE_CACHE_DIR": str(cache)}
    env["PYTHONPATH"] = str(Path(__file__).resolve().parent.parent)
    seen = []
    for _ in range(runs):
        if backend == "wasm-compile":
            shutil.rmtree(cache, ignore_errors=True)  # nothing cached: the module is compiled
        env[graphviz_backends.ENV] = backend.split("-")[0]
        out = subprocess.run([sys.executable, "-c", COLD], env=env, capture_output=True, text=True, check=True)
        seen.append([float(v) for v in out.stdout.split()])
    return statistics.median(v[0] for v in seen), statistics.median(v[1] for v in seen)


def backends() -> None:
    """Cold start and per-layout seconds of each Graphviz backend available here."""
    available = ["wasm"] + (["system"] if shutil.which("dot") else [])
    if graphviz_backends.wasm_backend() is None:
        sys.exit('Graphviz\'s WebAssembly build is needed: pip install "minitape[widgets]" (Python 3.11+)')
    described = {}
    for name in available:
        os.environ[graphviz_backends.ENV] = name
        described[name] = graphviz_backends.choose().describe()
    print("backends: " + "; ".join(f"{k} = {v}" for k, v in described.items()))
    cache = Path(tempfile.mkdtemp())
    print(f"\ncold start, fresh process (median of 3): {'import':>8}{'first layout':>14}")
    for name in (["system"] if "system" in available else []) + ["wasm-compile", "wasm"]:
        imported, first = cold_start(name, cache)
        label = {"wasm-compile": "wasm, nothing cached", "wasm": "wasm, compiled module cached"}.get(name, name)
        print(f"  {label:<38}{imported:>7.3f}s{first:>13.3f}s")
    shutil.rmtree(cache, ignore_errors=True)
    print(f"\nseconds per layout (median over rounds, backends taking turns): {'nodes':>6}", end="")
    print("".join(f"{name:>10}" for name in available) + ("  wasm/system" if len(available) == 2 else ""))
    for title, make, collapse, rounds in BACKEND_TAPES:
        tape, y, sources = make()
        model = steps.build(tape, y, sources)
        drawing = plan.make_plan(model, collapse)
        rankdir = scene(model, collapse=collapse)["rankdir"]
        source = scene_module.dot_source(model, scene_module.node_updates(model), rankdir, drawing=drawing)
        times: dict = {name: [] for name in available}
        for _ in range(rounds):
            for name in available:
                os.environ[graphviz_backends.ENV] = name
                t0 = time.perf_counter()
                layout.layout(source)
                times[name].append(time.perf_counter() - t0)
        medians = {name: statistics.median(v) for name, v in times.items()}
        nodes, _ = layout.graph_size(source)
        row = f"  {title:<62}{nodes:>6}" + "".join(f"{medians[name]:>9.3f}s" for name in available)
        if len(available) == 2:
            row += f"{medians['wasm'] / medians['system']:>12.2f}x"
        print(row)
    os.environ.pop(graphviz_backends.ENV, None)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--small", action="store_true", help="only the tapes up to 1,000 ops")
    parser.add_argument("--profile", action="store_true", help="cProfile the 1,000-op chain instead")
    parser.add_argument("--backends", action="store_true", help="compare the Graphviz backends instead")
    args = parser.parse_args()
    if args.backends:
        backends()
        return
    print(f"Graphviz: {layout.layout_backend()}")
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
