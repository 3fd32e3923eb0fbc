"""Static pictures and offline pages of a tape view: `to_svg(step)` and `save_html(path)`.

`to_svg` replays the same per-step updates the browser replays, so a picture of step k
shows what the animation shows at frame k. `save_html` inlines the widget's own script,
style and data into one file that animates with no server and no network.
"""

from __future__ import annotations

import html
import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

from .formatting import WORDS, clean
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

    It applies the frame the scene computed (the same the browser applies): node texts and classes,
    the active node and edges, and the step's edge labels. `fit_width` is for a notebook's output:
    JupyterLab and Notebook 7 show an SVG output as an <img> that their style never narrows (its
    max-width rule is for inline <svg>), so a wide graph ran off the cell's right edge. A graph wider
    than FIT_ABOVE_PT gets the width 100% and no height: the picture takes the output's width and the
    height its viewBox gives. Smaller graphs keep their size, so none is blown up.
    """
    events = scene["events"]
    if not -len(events) <= step < len(events):
        raise IndexError(f"to_svg: step {step} is out of range: this view has steps 0 to {len(events) - 1}")
    step %= len(events)
    root = ET.fromstring(scene["svg"])
    by_id = {e.get("id"): e for e in root.iter() if e.get("id")}
    shown = frame(events, step)
    for node in scene["nodes"]:  # a node no step has reached yet shows blank lines, as in the browser
        value, grad, classes, _ = shown.get(node, ("", "", "", ""))
        _show_node(by_id.get(f"n-{node}"), value, grad, classes)
    event = events[step]
    if event["node"] and f"n-{event['node']}" in by_id:
        _add_class(by_id[f"n-{event['node']}"], "active")
    for edge in event["edges"]:
        if f"e-{edge}" in by_id:
            _add_class(by_id[f"e-{edge}"], "active-bwd" if event["kind"] == "backward" else "active-fwd")
    _draw_labels(root, scene, event, by_id)
    _add_class(root, "tv")
    if fit_width and float(root.get("width", "0").removesuffix("pt")) > FIT_ABOVE_PT:
        root.set("width", "100%")
        root.attrib.pop("height", None)
    css = ET.Element(f"{{{_SVG}}}style")
    css.text = style()
    root.insert(0, css)
    return ET.tostring(root, encoding="unicode")


def frame(events: list, step: int) -> dict[str, list]:
    """Node -> [value line, gradient line, classes, card text] at `step`: the changes of events 0..step folded."""
    shown: dict[str, list] = {}
    for event in events[: step + 1]:
        shown.update({node: rest for node, *rest in event["set"]})
    return shown


def _show_node(g: ET.Element | None, value: str, grad: str, classes: str) -> None:
    if g is None:
        return
    texts = g.findall(f"{{{_SVG}}}text")
    for index, text in ((2, value), (3, grad)):
        if len(texts) > index:
            texts[index].text = text
    for cls in classes.split():
        _add_class(g, cls)


def _draw_labels(root: ET.Element, scene: dict, event: dict, by_id: dict) -> None:
    """The step's edge labels and the cut edges' labels, under the nodes (as in the browser)."""
    graph = next((e for e in root.iter(f"{{{_SVG}}}g") if e.get("class") == "graph"), root)
    node_groups = [e for e in list(graph) if "node" in e.get("class", "").split()]
    for g in node_groups:
        graph.remove(g)
    labelled = {edge for edge, _, _ in event["labels"]}
    labels = list(event["labels"])
    for edge, (reason, text) in scene.get("cuts", {}).items():
        _mark_cut(by_id.get(f"e-{edge}"), scene["words"]["cut_tip"], reason)
        if edge not in labelled:  # the step's own label takes the slot while it shows
            labels.append([edge, text, "cut"])
    for edge, text, cls in labels:
        if cls == "none" and f"e-{edge}" in by_id:
            _add_class(by_id[f"e-{edge}"], "none")
        if text and edge in scene["anchors"]:
            _label(graph, scene["anchors"][edge], text, cls)
    graph.extend(node_groups)


def _mark_cut(g: ET.Element | None, tip_words: str, reason: str) -> None:
    """A cut edge: dashed by its class, the whole reason in its tooltip."""
    if g is None:
        return
    _add_class(g, "cut")
    tip = g.find(f"{{{_SVG}}}title")
    if tip is not None and "->" in (tip.text or ""):
        src, dst = tip.text.split("->", 1)
        tip.text = tip_words.format(src=src, dst=dst, reason=reason)


def _label(graph: ET.Element, at: list, text: str, cls: str) -> None:
    x, y = at[0], at[1]
    width = 7 * len(text) + 6
    box = {"x": f"{x - width / 2:.1f}", "y": f"{y - 17:.1f}", "width": str(width), "height": "16", "rx": "3"}
    attrib = {"class": f"tv-edge-label-bg {cls}"}
    ET.SubElement(graph, f"{{{_SVG}}}rect", box | attrib)
    label = ET.SubElement(graph, f"{{{_SVG}}}text", x=f"{x:.1f}", y=f"{y - 5:.1f}")
    label.set("class", f"tv-edge-label {cls}")
    label.set("text-anchor", "middle")
    label.text = text  # ElementTree escapes it on output


def _json_for_script(data: dict) -> str:
    """JSON that cannot close the <script> element it sits in, whatever the labels say."""
    text = json.dumps(data, separators=(",", ":"), sort_keys=True)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def html_page(scene: dict, title: str | None = None) -> str:
    """One self-contained HTML page: style, script and data inlined; no network, no kernel."""
    # the default title in the view's language; a lone surrogate or control character must not break the file
    title = clean(title if title is not None else WORDS[scene.get("lang", "en")]["page_title"])
    js = script().split("\nfunction render({ model, el })")[0] + "\n"  # without the notebook glue
    return f"""<!DOCTYPE html>
<html lang="{scene.get("lang", "en")}">
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


def save_html(scene: dict, path: str | Path, title: str | None = None) -> Path:
    path = Path(path)
    path.write_text(html_page(scene, title), encoding="utf-8")
    return path


def to_png(model: StepModel, scene: dict, collapse: Any = None, timeout: float = 60.0) -> bytes:
    """The graph as it looks after the last step, as PNG bytes, drawn by Graphviz (`layout.png`).

    JupyterLab and Notebook 7 do not render SVG in an untrusted notebook (a fresh clone is untrusted),
    but they do render PNG: this is the picture a student sees before running anything.
    """
    from .scene import dot_source

    final = [[node, *rest] for node, rest in frame(scene["events"], len(scene["events"]) - 1).items()]
    source = dot_source(model, [final], scene.get("rankdir", "LR"), collapse, lang=scene.get("lang", "en"))
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
