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


class GraphvizNotFoundError(RuntimeError):
    """`dot` is not installed."""


def layout(dot_source: str, timeout: float = 60.0) -> str:
    """Lay out `dot_source` with `dot -Tsvg`; return the SVG element alone (no XML prolog), ready to inline."""
    program = shutil.which("dot")
    if program is None:
        raise GraphvizNotFoundError(INSTALL_HINT)
    done = subprocess.run(
        [program, "-Tsvg"], input=dot_source.encode(), capture_output=True, timeout=timeout, check=False
    )
    if done.returncode != 0:
        raise RuntimeError(f"Graphviz `dot` failed (exit {done.returncode}): {done.stderr.decode(errors='replace')}")
    svg = done.stdout.decode()
    svg = svg[svg.index("<svg") :]
    return re.sub(r"<!--.*?-->\n?", "", svg, flags=re.S)
