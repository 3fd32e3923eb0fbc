"""Graph layout: DOT source in, positioned SVG out. The one place that runs Graphviz.

Kept this small on purpose: in JupyterLite, where no program can run, Graphviz
compiled to WebAssembly replaces this function and nothing else changes.
"""

from __future__ import annotations

import re
import shutil
import subprocess

INSTALL_HINT = (
    "Graphviz's `dot` program is needed to lay out the tape's graph but was not found on PATH. Install it: "
    "`sudo apt-get install graphviz` (Debian/Ubuntu), `brew install graphviz` (macOS) or "
    "`conda install graphviz`, then restart the kernel."
)
TIMEOUT = 60.0  # seconds: past this a notebook looks hung, so `dot` is stopped and the error says what to do


class GraphvizNotFoundError(RuntimeError):
    """`dot` is not installed."""


class LayoutTimeoutError(RuntimeError):
    """`dot` did not finish in time: the graph is too big to draw node by node."""


def graph_size(dot_source: str) -> tuple[int, int]:
    """(nodes, edges) of a DOT source written by `scene.dot_source` (each carries an id "n-…" or "e-…")."""
    return dot_source.count(' [id="n-'), dot_source.count(' [id="e-')


def layout(dot_source: str, timeout: float | None = None) -> str:
    """Lay out `dot_source` with `dot -Tsvg`; return the SVG element alone (no XML prolog), ready to inline.

    Past `timeout` seconds (default `TIMEOUT`) `dot` is stopped and `LayoutTimeoutError` says what to draw instead.
    """
    timeout = TIMEOUT if timeout is None else timeout
    program = shutil.which("dot")
    if program is None:
        raise GraphvizNotFoundError(INSTALL_HINT)
    try:
        done = subprocess.run(
            [program, "-Tsvg"], input=dot_source.encode(), capture_output=True, timeout=timeout, check=False
        )
    except subprocess.TimeoutExpired:  # run() has already killed `dot`
        nodes, edges = graph_size(dot_source)
        raise LayoutTimeoutError(
            f"TapeView: Graphviz `dot` did not finish laying out the graph ({nodes:,} nodes, {edges:,} edges) "
            f"within {timeout:g} s, so it was stopped. Draw less: TapeView(tape, target, collapse=True) draws each "
            "top-level name scope as one box, collapse=None (the default) folds big tapes by itself, or record "
            "fewer ops (a shorter loop, a smaller batch of layers)."
        ) from None
    if done.returncode != 0:
        nodes, edges = graph_size(dot_source)
        raise RuntimeError(
            f"Graphviz `dot` failed (exit {done.returncode}) on a graph of {nodes:,} nodes and {edges:,} edges: "
            f"{done.stderr.decode(errors='replace').strip() or 'no message (it crashed)'}. "
            "If the graph is big, draw less with collapse=True or record fewer ops."
        )
    svg = done.stdout.decode()
    svg = svg[svg.index("<svg") :]
    return re.sub(r"<!--.*?-->\n?", "", svg, flags=re.S)
