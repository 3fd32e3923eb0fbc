"""Static pictures and offline pages of a tape view: `to_svg(step)` and `save_html(path)`.

`to_svg` replays the same per-step updates the browser replays, so a picture of step k
shows what the animation shows at frame k. `save_html` inlines the widget's own script,
style and data into one file that animates with no server and no network.
"""

from __future__ import annotations

import html
import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

from .layout import png
from .steps import StepModel

_HERE = Path(__file__).parent
_SVG = "http://www.w3.org/2000/svg"
ET.register_namespace("", _SVG)
ET.register_namespace("xlink", "http://www.w3.org/1999/xlink")


def script() -> str:
    return (_HERE / "tapeview.js").read_text()


def style() -> str:
    return (_HERE / "tapeview.css").read_text()


def _add_class(element: ET.Element, cls: str) -> None:
    element.set("class", (element.get("class", "") + " " + cls).strip())


# wider than this (800 px), a notebook's output picture takes the output's width instead of its own
FIT_ABOVE_PT = 600.0


def to_svg(scene: dict, step: int, fit_width: bool = False) -> str:
    """The graph as it looks at `step` (negative counts from the end), as a standalone SVG string.

    `fit_width` is for a notebook's output: JupyterLab and Notebook 7 show an SVG output as an <img> that
    their style never narrows (its max-width rule is for inline <svg>), so a wide graph ran off the cell's
    right edge. A graph wider than FIT_ABOVE_PT gets the width 100% and no height: the picture takes the
    output's width and the height its viewBox gives. Smaller graphs keep their size, so none is blown up.
    """
    events = scene["events"]
    if not -len(events) <= step < len(events):
        raise IndexError(f"to_svg: step {step} is out of range: this view has steps 0 to {len(events) - 1}")
    step %= len(events)
    root = ET.fromstring(scene["svg"])
    by_id = {e.get("id"): e for e in root.iter() if e.get("id")}
    shown = final_texts(events[: step + 1])
    nan = set()
    backward_done = set()
    last_grad = {
        node: index
        for index, event in enumerate(events)
        for node, slot, text in event["set"]
        if slot == "grad" and text != "grad None"
    }
    first_nan = next((e["node"] for e in events if e["nonfinite"] and e["node"]), None)
    for event in events[: step + 1]:
        if event["nonfinite"] and event["node"]:
            nan.add(event["node"])
        if event["kind"] == "backward":
            backward_done.add(event["node"])
    for node in scene["nodes"]:
        g = by_id.get(f"n-{node}")
        if g is None:
            continue
        texts = g.findall(f"{{{_SVG}}}text")
        partial = (node, "grad") in shown and shown[(node, "grad")] != "grad None" and last_grad.get(node, -1) > step
        for index, slot in ((2, "value"), (3, "grad")):
            if len(texts) > index:
                texts[index].text = shown.get((node, slot), "") + (" …" if slot == "grad" and partial else "")
        if partial:
            _add_class(g, "grad-partial")
        if (node, "value") in shown:
            _add_class(g, "fwd-done")
        grad = shown.get((node, "grad"))
        if grad is not None:
            _add_class(g, "grad-none" if grad == "grad None" else "has-grad")
        if node in nan:
            _add_class(g, "nan")
            if node == first_nan:
                _add_class(g, "nan-first")
        if node in backward_done:
            _add_class(g, "bwd-done")
    event = events[step]
    if event["node"] and f"n-{event['node']}" in by_id:
        _add_class(by_id[f"n-{event['node']}"], "active")
    for edge in event["edges"]:
        if f"e-{edge}" in by_id:
            _add_class(by_id[f"e-{edge}"], "active-bwd" if event["kind"] == "backward" else "active-fwd")
    graph = next((e for e in root.iter(f"{{{_SVG}}}g") if e.get("class") == "graph"), root)
    # labels go under the nodes (as in the browser): a label never hides a node's text
    node_groups = [e for e in list(graph) if "node" in e.get("class", "").split()]
    for g in node_groups:
        graph.remove(g)
    labels = [[edge, text, cls, -4] for edge, text, cls in event["labels"]]
    for edge, reason in scene.get("cuts", {}).items():
        if f"e-{edge}" in by_id:
            _add_class(by_id[f"e-{edge}"], "cut")
            tip = by_id[f"e-{edge}"].find(f"{{{_SVG}}}title")
            if tip is not None:
                tip.text = f"{tip.text}: gradient path cut: {reason}"
            labels.append([edge, "cut: " + (reason if len(reason) <= 40 else reason[:39] + "…"), "cut", 14])
    for edge, text, cls, dy in labels:
        if not text or edge not in scene["anchors"]:
            continue
        if cls == "none" and f"e-{edge}" in by_id:
            _add_class(by_id[f"e-{edge}"], "none")
        x, y = scene["anchors"][edge]
        y += dy + 4
        width = 7 * len(text) + 6
        ET.SubElement(
            graph,
            f"{{{_SVG}}}rect",
            x=f"{x - width / 2:.1f}",
            y=f"{y - 17:.1f}",
            width=str(width),
            height="16",
            rx="3",
            attrib={"class": f"tv-edge-label-bg {cls}"},
        )
        label = ET.SubElement(
            graph, f"{{{_SVG}}}text", x=f"{x:.1f}", y=f"{y - 5:.1f}", attrib={"class": f"tv-edge-label {cls}"}
        )
        label.set("text-anchor", "middle")
        label.text = text  # ElementTree escapes it on output
    graph.extend(node_groups)
    _add_class(root, "tv")
    if fit_width and float(root.get("width", "0").removesuffix("pt")) > FIT_ABOVE_PT:
        root.set("width", "100%")
        root.attrib.pop("height", None)
    css = ET.Element(f"{{{_SVG}}}style")
    css.text = style()
    root.insert(0, css)
    return ET.tostring(root, encoding="unicode")


def final_texts(events: list) -> dict[tuple[str, str], str]:
    """(node, "value" | "grad") -> the text shown after replaying `events`."""
    shown: dict[tuple[str, str], str] = {}
    for event in events:
        for node, slot, text in event["set"]:
            shown[(node, slot)] = text
    return shown


def _json_for_script(data: dict) -> str:
    """JSON that cannot close the <script> element it sits in, whatever the labels say."""
    text = json.dumps(data, separators=(",", ":"), sort_keys=True)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def html_page(scene: dict, title: str = "minitape tape view") -> str:
    """One self-contained HTML page: style, script and data inlined; no network, no kernel."""
    js = re.sub(r"\nfunction render\(\{ model, el \}\).*", "\n", script(), flags=re.S)  # the notebook glue only
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>{html.escape(title)}</title>
<style>
body {{ margin: 16px; }}
{style()}
</style>
</head>
<body>
<h2 style="font-family: Helvetica, Arial, sans-serif">{html.escape(title)}</h2>
<div id="tapeview"></div>
<script type="application/json" id="tapeview-data">{_json_for_script(scene)}</script>
<script type="module">
{js}
const data = JSON.parse(document.getElementById("tapeview-data").textContent);
const start = performance.now();
window.tapeview = renderTapeView(document.getElementById("tapeview"), data, null);
document.body.getBoundingClientRect();
window.tapeviewRenderMs = performance.now() - start;
</script>
</body>
</html>
"""


def save_html(scene: dict, path: str | Path, title: str = "minitape tape view") -> Path:
    path = Path(path)
    path.write_text(html_page(scene, title), encoding="utf-8")
    return path


def to_png(model: StepModel, scene: dict, collapse: Any = None, timeout: float = 60.0) -> bytes:
    """The graph as it looks after the last step, as PNG bytes, drawn by Graphviz (`layout.png`).

    JupyterLab and Notebook 7 do not render SVG in an untrusted notebook (a fresh clone is untrusted),
    but they do render PNG: this is the picture a student sees before running anything.
    """
    from .scene import dot_source

    shown = final_texts(scene["events"])
    final = [[node, slot, text] for (node, slot), text in shown.items()]
    source = dot_source(model, [final], scene.get("rankdir", "LR"), collapse)
    return png(source, timeout)


WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"


def drop_dead_widget_views(notebook: dict) -> int:
    """Remove widget views whose model the notebook does not save; return how many were removed.

    A saved widget view whose model is gone (no kernel, no saved widget state) shows
    "Error displaying widget: model not found" in JupyterLab and Notebook 7. Without it, the same
    output shows its picture (PNG or SVG) instead; running the cell again brings the live widget back.
    """
    saved = notebook.get("metadata", {}).get("widgets", {}).get(WIDGET_STATE, {}).get("state", {})
    removed = 0
    for cell in notebook.get("cells", []):
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            view = data.get(WIDGET_VIEW)
            if view is not None and view.get("model_id") not in saved and len(data) > 1:
                del data[WIDGET_VIEW]
                removed += 1
    return removed


def pre_save_hook(model: dict, **kwargs: Any) -> None:
    """A Jupyter server `ContentsManager.pre_save_hook`: every notebook saves with no dead widget views.

    Start JupyterLab with `--ContentsManager.pre_save_hook=minitape.widgets.export.pre_save_hook`
    and a notebook saved, closed and reopened (kernel gone) shows its pictures, never "model not found".
    """
    if model.get("type") == "notebook" and isinstance(model.get("content"), dict):
        drop_dead_widget_views(model["content"])
