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


def to_svg(scene: dict, step: int) -> str:
    """The graph as it looks at `step` (negative counts from the end), as a standalone SVG string."""
    events = scene["events"]
    if not -len(events) <= step < len(events):
        raise IndexError(f"to_svg: step {step} is out of range: this view has steps 0 to {len(events) - 1}")
    step %= len(events)
    root = ET.fromstring(scene["svg"])
    by_id = {e.get("id"): e for e in root.iter() if e.get("id")}
    shown: dict[tuple[str, str], str] = {}
    nan = set()
    backward_done = set()
    for event in events[: step + 1]:
        for node, slot, text in event["set"]:
            shown[(node, slot)] = text
        if event["nonfinite"] and event["node"]:
            nan.add(event["node"])
        if event["kind"] == "backward":
            backward_done.add(event["node"])
    for node in scene["nodes"]:
        g = by_id.get(f"n-{node}")
        if g is None:
            continue
        texts = g.findall(f"{{{_SVG}}}text")
        for index, slot in ((2, "value"), (3, "grad")):
            if len(texts) > index:
                texts[index].text = shown.get((node, slot), "")
        if (node, "value") in shown:
            _add_class(g, "fwd-done")
        grad = shown.get((node, "grad"))
        if grad is not None:
            _add_class(g, "grad-none" if grad == "grad None" else "has-grad")
        if node in nan:
            _add_class(g, "nan")
        if node in backward_done:
            _add_class(g, "bwd-done")
    event = events[step]
    if event["node"] and f"n-{event['node']}" in by_id:
        _add_class(by_id[f"n-{event['node']}"], "active")
    for edge in event["edges"]:
        if f"e-{edge}" in by_id:
            _add_class(by_id[f"e-{edge}"], "active-bwd" if event["kind"] == "backward" else "active-fwd")
    graph = next((e for e in root.iter(f"{{{_SVG}}}g") if e.get("class") == "graph"), root)
    for edge, text, cls in event["labels"]:
        if not text or edge not in scene["anchors"]:
            continue
        if cls == "none" and f"e-{edge}" in by_id:
            _add_class(by_id[f"e-{edge}"], "none")
        x, y = scene["anchors"][edge]
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
    _add_class(root, "tv")
    css = ET.Element(f"{{{_SVG}}}style")
    css.text = "\n".join(line for line in style().splitlines() if line.startswith(".tv ") or "edge-label" in line)
    root.insert(0, css)
    return ET.tostring(root, encoding="unicode")


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
