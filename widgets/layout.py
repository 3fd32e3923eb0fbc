"""Graph layout: DOT source in, positioned SVG out, and the positions read back from that SVG.

Graphviz itself comes from `graphviz_backends` (the system's `dot`, else its WebAssembly build). Its SVG is
read as XML, never as text: Graphviz 2.43 and 16 write the same elements with different attributes and
spacing (16 adds `xml:space="preserve"` to every <text>), and both must give the same picture.
"""

from __future__ import annotations

import importlib.util
import xml.etree.ElementTree as ET
from pathlib import Path

from . import graphviz_backends as backends
from .graphviz_backends import INSTALL_HINT, GraphvizNotFoundError, LayoutTimeoutError, layout_backend

__all__ = [
    "INSTALL_HINT",
    "GraphvizNotFoundError",
    "LayoutTimeoutError",
    "layout",
    "render",
    "layout_backend",
    "edge_anchors",
    "label_slots",
    "without_slot_text",
    "aspect",
]

TIMEOUT = 60.0  # seconds: past this a notebook looks hung, so Graphviz is stopped and the error says what to do
SLOT_BASELINE = 5.0  # anchor y below the slot's text baseline: both front ends draw the box 1 to 17 px above it
SVG_NS = "http://www.w3.org/2000/svg"
_G, _TEXT, _PATH = f"{{{SVG_NS}}}g", f"{{{SVG_NS}}}text", f"{{{SVG_NS}}}path"
ET.register_namespace("", SVG_NS)
ET.register_namespace("xlink", "http://www.w3.org/1999/xlink")


def graph_size(dot_source: str) -> tuple[int, int]:
    """(nodes, edges) of a DOT source written by `scene.dot_source` (each carries an id "n-…" or "e-…")."""
    return dot_source.count(' [id="n-'), dot_source.count(' [id="e-')


def render(dot_source: str, fmt: str, timeout: float | None = None) -> bytes:
    """Graphviz's output in format `fmt` ("svg", "png" with the system's `dot`), with errors that say what to do."""
    timeout = TIMEOUT if timeout is None else timeout
    backend = backends.choose()
    try:
        out = backend.render(dot_source, fmt, timeout)
    except LayoutTimeoutError:
        nodes, edges = graph_size(dot_source)
        raise LayoutTimeoutError(
            f"TapeView: Graphviz `dot` did not finish laying out the graph ({nodes:,} nodes, {edges:,} edges) "
            f"within {timeout:g} s, so it was stopped. Draw less: TapeView(tape, target, collapse=True) draws each "
            "top-level name scope as one box, collapse=None (the default) folds big tapes by itself, or record "
            "fewer ops (a shorter loop, a smaller batch of layers)."
        ) from None
    except backends.GraphvizError as failed:
        nodes, edges = graph_size(dot_source)
        raise RuntimeError(
            f"Graphviz `dot` failed ({backend.name}) on a graph of {nodes:,} nodes and {edges:,} edges: "
            f"{failed.detail}. If the graph is big, draw less with collapse=True or record fewer ops."
        ) from None
    backends.remember(backend)
    return out


def layout(dot_source: str, timeout: float | None = None) -> str:
    """Lay out `dot_source`; return the SVG element alone (no XML prolog), ready to inline.

    Past `timeout` seconds (default `TIMEOUT`) Graphviz is stopped and `LayoutTimeoutError` says what to draw instead.
    """
    svg = render(dot_source, "svg", timeout).decode()
    return svg[svg.index("<svg") :]  # the root element: the prolog and DOCTYPE before it name no "<svg"


_trees: dict[str, ET.Element] = {}  # the last SVG parsed: `scene` reads one layout three times, then lets it go


def _tree(svg: str) -> ET.Element:
    """`svg` parsed (comments dropped), shared by the readers below; `without_slot_text` takes it for good."""
    root = _trees.get(svg)
    if root is None:
        root = ET.fromstring(svg)
        _trees.clear()  # one at a time: a big layout's tree is tens of megabytes
        _trees[svg] = root
    return root


PNG_DPI = 96  # a notebook column, not a poster: at most PNG_SIZE inches (16 wide) at 96 pixels an inch
PNG_SIZE = "16,60"


def png(dot_source: str, timeout: float | None = None) -> bytes:
    """`dot_source` drawn as a PNG on white. The system's `dot` draws it (`-Tpng`); Graphviz's WebAssembly build
    has no PNG, so its SVG is rasterized by resvg (the `resvg-py` wheel) at the same size."""
    system = backends.choose().name == "system"
    dpi = f"dpi={PNG_DPI} " if system else ""  # the SVG stays in points: resvg turns them into pixels at PNG_DPI
    settings = f'{dpi}size="{PNG_SIZE}" bgcolor=white'
    source = f"{dot_source[: dot_source.rindex('}')]}  graph [{settings}];\n}}"  # in DOT the last setting wins
    return render(source, "png", timeout) if system else rasterize(render(source, "svg", timeout).decode())


# resvg finds fonts by family name only, without the system's aliases ("Courier" to a monospace font that is
# installed): these cover Windows, macOS and Linux, all 0.6 em a character as Graphviz sized the boxes for
RASTER_FONTS = "Courier, 'Courier New', 'DejaVu Sans Mono', 'Liberation Mono', Menlo, Consolas, monospace"


def rasterize(svg: str) -> bytes:
    """An SVG drawn by Graphviz (its size in points) as PNG bytes at PNG_DPI."""
    try:
        import resvg_py
    except ImportError:
        raise GraphvizNotFoundError(
            "TapeView's PNG picture needs resvg-py to rasterize the SVG that Graphviz's WebAssembly build draws: "
            'pip install "minitape[widgets]", or install Graphviz\'s `dot` (see README).'
        ) from None
    root = ET.fromstring(svg)
    for text in root.iter(_TEXT):
        text.set("font-family", RASTER_FONTS)
    # dpi converts the SVG's size in points to pixels (resvg's default, 0, makes a size in points zero)
    return bytes(
        resvg_py.svg_to_bytes(
            svg_string=ET.tostring(root, encoding="unicode"), background="white", dpi=PNG_DPI, font_dirs=_font_dirs()
        )
    )


def _font_dirs() -> list:
    """matplotlib's DejaVu fonts when it is installed: a container without system fonts still gets text."""
    spec = importlib.util.find_spec("matplotlib")
    fonts = Path(spec.origin).parent / "mpl-data" / "fonts" / "ttf" if spec and spec.origin else None
    return [str(fonts)] if fonts and fonts.is_dir() else []


def _edges(root: ET.Element) -> list:
    """(edge id as `scene` named it, its <g>) for every edge Graphviz drew."""
    return [
        (g.get("id", "")[2:], g) for g in root.iter(_G) if g.get("class") == "edge" and g.get("id", "").startswith("e-")
    ]


def label_slots(svg: str) -> dict:
    """Edge id -> [x, y] of the label slot Graphviz reserved beside it (the placeholder text's anchor point)."""
    slots = {}
    for edge_id, g in _edges(_tree(svg)):
        text = g.find(_TEXT)
        if text is not None:
            slots[edge_id] = [float(text.get("x")), round(float(text.get("y")) + SLOT_BASELINE, 2)]
    return slots


def _path_points(d: str) -> list:
    """The points of a Graphviz edge path "Mx,yCx,y x,y x,y ...", which uses only absolute M and C commands."""
    numbers = [float(v) for v in d.replace("M", " ").replace("C", " ").replace(",", " ").split()]
    return list(zip(numbers[0::2], numbers[1::2]))


def edge_anchors(svg: str) -> dict:
    """Where each edge's step label is drawn: [x, y] with the label's box centred on x and just above y.

    An edge with a reserved Graphviz label slot is anchored in that slot (clear of every node);
    any other edge at the middle point of its path.
    """
    slots = label_slots(svg)
    anchors = {}
    for edge_id, g in _edges(_tree(svg)):
        if edge_id in slots:
            anchors[edge_id] = slots[edge_id]
            continue
        path = g.find(_PATH)
        points = _path_points(path.get("d", "")) if path is not None else []
        anchors[edge_id] = list(points[len(points) // 2]) if points else [0.0, 0.0]
    return anchors


def without_slot_text(svg: str) -> str:
    """The SVG without the placeholder texts of the label slots (the steps draw the real labels there)
    and without Graphviz's comments. The last reading of a layout: its parsed tree is dropped here."""
    root = _trees.pop(svg, None)
    root = ET.fromstring(svg) if root is None else root
    for _, g in _edges(root):
        for text in g.findall(_TEXT):
            g.remove(text)
    return ET.tostring(root, encoding="unicode")


def aspect(svg: str) -> float:
    """Width over height of a laid-out SVG (from its viewBox)."""
    box = (_tree(svg).get("viewBox") or "").split()
    return float(box[2]) / max(float(box[3]), 1.0) if len(box) == 4 else 1.0
