"""Layout, the drawn scene, escaping, and the static exports of the tape viewer (no browser)."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET

import pytest

import minitape as mt
from minitape import widgets
from minitape.widgets import examples, export, layout, scene, steps

SVG = "{http://www.w3.org/2000/svg}"
EVIL = "<img src=x onerror=alert(1)>"


def texts_of(svg: str, node_id: str) -> list:
    root = ET.fromstring(svg)
    g = next(e for e in root.iter(f"{SVG}g") if e.get("id") == f"n-{node_id}")
    return [t.text or "" for t in g.findall(f"{SVG}text")]


def test_scene_has_one_svg_node_per_model_node_and_one_edge_per_edge():
    tape, f, _ = examples.fan_out()
    model = steps.build(tape, f)
    data = scene.scene(model)
    assert data["svg"].startswith("<svg")
    assert len(re.findall(r'class="node ', data["svg"])) == len(model.nodes) == 10
    assert len(re.findall(r'class="edge"', data["svg"])) == len(model.edges) == 10
    assert set(data["anchors"]) == {e.id for e in model.edges}
    assert len(data["events"]) == len(model.events)
    assert json.loads(json.dumps(data)) == data  # plain JSON: the browser gets it as is


def test_to_svg_shows_the_state_of_each_step():
    tape, f, _ = examples.fan_out()
    view_scene = scene.scene(steps.build(tape, f))
    start = export.to_svg(view_scene, 0)
    end = export.to_svg(view_scene, -1)
    assert texts_of(start, "op7")[2:] == ["", ""]  # the sum's value appears only when the forward pass gets there
    assert texts_of(end, "op7")[2:] == ["value 105", "grad 1"]
    assert texts_of(end, "var0")[2:] == ["value 5", "grad 36"]
    assert texts_of(end, "in0")[3] == "grad None"
    pow_back = next(k for k, e in enumerate(view_scene["events"]) if e["kind"] == "backward" and e["node"] == "op1")
    frame = export.to_svg(view_scene, pow_back)
    active = re.search(r'<g id="n-op1" class="([^"]*)"', frame)
    assert "active" in active.group(1).split() and "3 × 10 = 30" in frame
    with pytest.raises(IndexError, match="steps 0 to 12"):
        export.to_svg(view_scene, 13)


def test_labels_are_escaped_in_dot_svg_panel_and_html(tmp_path):
    evil = mt.Variable(2.0, name=EVIL)
    quoted = mt.Variable(1.0, name='a "quoted" \\ name & more')
    with mt.GradientTape(persistent=True) as tape:
        y = evil * quoted
    model = steps.build(tape, y)
    data = scene.scene(model)
    assert "<img" not in data["svg"] and "&lt;img src=x onerror=alert(1)&gt;:0" in data["svg"]
    assert texts_of(data["svg"], "var0")[0] == EVIL + ":0"
    assert texts_of(data["svg"], "var1")[0] == 'a "quoted" \\ name & more:0'
    assert "<img" not in export.to_svg(data, -1)
    page = export.html_page(data, title=EVIL)
    assert "<img" not in page
    data_text = re.search(r'id="tapeview-data">(.*?)</script>', page, flags=re.S).group(1)
    assert json.loads(data_text) == json.loads(json.dumps(data))
    assert scene.dot_escape('x"\\\n&') == 'x\\"\\\\ &amp;'


def test_missing_graphviz_names_the_install_command(monkeypatch):
    monkeypatch.setattr(layout.shutil, "which", lambda name: None)
    with pytest.raises(widgets.GraphvizNotFoundError, match="apt-get install graphviz"):
        layout.layout("digraph { a -> b }")


def test_layout_reports_dot_errors():
    with pytest.raises(RuntimeError, match="Graphviz `dot` failed"):
        layout.layout("digraph { a -> }")


def test_clusters_follow_name_scopes():
    tape, loss, variables = examples.mlp_step()
    model = steps.build(tape, loss, variables)
    data = scene.scene(model)
    paths = [path for _, path, _ in data["clusters"]]
    assert paths == ["dense", "dense_1", "loss"]
    for cid, path, members in data["clusters"]:
        assert f'id="{cid.replace("-", "&#45;")}" class="cluster"' in data["svg"]
        assert all(model.node(m).scope.startswith(path) for m in members)


def test_tapeview_widget_exports(tmp_path):
    tape, f, _ = examples.fan_out()
    view = widgets.TapeView(tape, f)
    assert view.n_steps == 13 and repr(view) == "<TapeView: 10 nodes, 13 steps>"
    bundle, _ = view._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in bundle
    assert bundle["image/svg+xml"] == view.to_svg(-1)  # the picture GitHub and nbviewer show
    path = view.save_html(tmp_path / "tape.html")
    page = path.read_text()
    assert "renderTapeView" in page and "export default" not in page
    assert re.search(r"<(script|link|img)[^>]*(src|href)=", page) is None  # nothing fetched: works offline
    with pytest.raises(ValueError, match="rankdir"):
        widgets.TapeView(tape, f, rankdir="up")


def test_collapse_draws_a_scope_as_one_box_that_lights_up_for_its_steps():
    tape, loss, variables = examples.mlp_step()
    model = steps.build(tape, loss, variables)
    data = scene.scene(model, collapse=["dense"])
    dense = [n.id for n in model.nodes if n.scope == "dense"]
    assert "group0" in data["nodes"] and not set(dense) & set(data["nodes"])
    assert len(re.findall(r'class="node ', data["svg"])) == len(model.nodes) - len(dense) + 1
    relu = next(n.id for n in model.nodes if n.label == "Relu")
    steps_in_dense = [e for e, m in zip(data["events"], model.events) if m.node == relu]
    assert steps_in_dense and all(e["node"] == "group0" for e in steps_in_dense)
    assert [path for _, path, _ in data["clusters"]] == ["dense_1", "loss"]
    everything = scene.scene(model, collapse=True)
    assert len(re.findall(r'class="node ', everything["svg"])) == 3
    with pytest.raises(ValueError, match="unknown scope"):
        scene.scene(model, collapse=["dense_7"])
