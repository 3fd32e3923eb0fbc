"""Layout, the drawn scene, escaping, and the static exports of the tape viewer (no browser)."""

from __future__ import annotations

import base64
import json
import re
import struct
import xml.etree.ElementTree as ET

import numpy as np
import pytest

import minitape as mt
from minitape import widgets
from minitape.widgets import examples, export, layout, plan, scene, steps, summary

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
    # w1, w2, the constants 3, 2 and 2 (a constant is drawn once per use), 5 ops
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
    # the picture GitHub, nbviewer and a trusted notebook show: the last step, as wide as the output (a graph
    # wider than FIT_ABOVE_PT would run off a cell's right edge), its height from the viewBox; a standalone SVG
    # keeps its own size, whatever size the layout gives it
    standalone = view.to_svg(-1)
    size = re.search(r'<svg[^>]* (width="([\d.]+)pt" height="[\d.]+pt")', standalone)
    assert size and float(size.group(2)) > export.FIT_ABOVE_PT, "this graph is wide enough to be fitted"
    assert bundle["image/svg+xml"] == standalone.replace(size.group(1), 'width="100%"', 1)
    x = mt.Variable(3.0)
    with mt.GradientTape() as small_tape:
        y = x * x
    small, _ = widgets.TapeView(small_tape, y)._repr_mimebundle_()
    width = re.search(r'<svg[^>]* width="([\d.]+)pt"', small["image/svg+xml"])  # a small graph: never blown up
    assert width and float(width.group(1)) < export.FIT_ABOVE_PT
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


def classes_of(svg: str, element_id: str) -> list:
    root = ET.fromstring(svg)
    return next(e for e in root.iter() if e.get("id") == element_id).get("class", "").split()


def test_large_tensors_are_summarised_in_a_nodes_details():
    tape, loss, sources = examples.mlp_step()
    info = scene.scene(steps.build(tape, loss, sources))["info"]
    big = [i for i in info.values() if i["shape"] not in ("scalar", "[]") and "entries" in i["value"]]
    assert big, "the MLP step has no tensor large enough to summarise"
    for i in info.values():
        assert len(i["value"]) < 400 and len(i["grad"]) < 400, i
    first = big[0]
    assert first["value"].startswith(f"shape {first['shape']}, dtype {first['dtype']}")
    assert "min " in first["value"] and "mean " in first["value"] and "first entries: " in first["value"]
    # few entries: every number; non-finite entries counted
    assert summary.describe(mt.constant([1.5, 2.0]).numpy()) == "[1.5, 2]"
    text = summary.describe([float("nan"), float("inf")] + [1.0] * 20)
    assert "non-finite: 1 NaN, 1 inf" in text and "min 1, max 1, mean 1" in text


def test_a_running_sum_is_marked_partial_until_its_last_contribution():
    tape, f, _ = examples.fan_out()
    data = scene.scene(steps.build(tape, f))
    w1 = "var0"
    grads = [i for i, e in enumerate(data["events"]) for node, slot, _ in e["set"] if node == w1 and slot == "grad"]
    first, last = grads[0], grads[-1]
    assert first < last  # w1 fans out: two contributions
    partial = export.to_svg(data, first)
    assert "grad-partial" in classes_of(partial, f"n-{w1}") and texts_of(partial, w1)[3].endswith(" …")
    done = export.to_svg(data, last)
    assert "grad-partial" not in classes_of(done, f"n-{w1}") and texts_of(done, w1)[3] == "grad 36"


def test_the_first_nonfinite_op_is_drawn_apart_from_the_later_ones():
    x = mt.Variable([1.0, 800.0], name="x")
    with mt.GradientTape(persistent=True) as tape:
        e = mt.exp(x)  # overflows to inf: the first non-finite op
        y = mt.reduce_sum(1.0 / e * e)  # inf / inf: NaN downstream
    data = scene.scene(steps.build(tape, y))
    svg = export.to_svg(data, -1)
    exp_node = next(n for n, i in data["info"].items() if i["op"] == "Exp")
    assert {"nan", "nan-first"} <= set(classes_of(svg, f"n-{exp_node}"))
    later = [n for n in data["nodes"] if n != exp_node and "nan" in classes_of(svg, f"n-{n}")]
    assert later and all("nan-first" not in classes_of(svg, f"n-{n}") for n in later)


def test_cut_edges_are_dashed_with_their_reason():
    tape, f, _ = examples.fan_out()
    model = steps.build(tape, f)
    reason = "numpy escape: .numpy() left the tape, so no gradient flows back"
    model.edges[0].cut = reason  # the field the step model gives cut paths
    data = scene.scene(model)
    edge = model.edges[0].id
    assert data["cuts"] == {edge: reason}
    svg = export.to_svg(data, 0)
    assert "cut" in classes_of(svg, f"e-{edge}")
    root = ET.fromstring(svg)
    g = next(e for e in root.iter() if e.get("id") == f"e-{edge}")
    assert g.find(f"{SVG}title").text.endswith(f"gradient path cut: {reason}")
    drawn = re.search(rf'<g id="e&#45;{edge}" class="edge">.*?</g>', data["svg"], flags=re.S).group(0)
    assert "stroke-dasharray" in drawn  # dashed by Graphviz too: the static pictures show the cut
    labels = [t.text for t in root.iter(f"{SVG}text") if "cut" in (t.get("class") or "")]
    assert labels == ["cut: " + reason[:39] + "…"]
    assert scene.scene(steps.build(tape, f))["cuts"] == {}  # no cut, no dashes


def test_the_notebook_output_carries_a_png_that_graphviz_drew():
    tape, f, _ = examples.fan_out()
    view = widgets.TapeView(tape, f)
    data, _ = view._repr_mimebundle_()
    png = base64.b64decode(data["image/png"])
    assert png.startswith(b"\x89PNG\r\n\x1a\n")
    width, height = struct.unpack(">II", png[16:24])
    assert 300 < width < 2000 and 150 < height < 2000
    assert {"image/svg+xml", "text/plain", export.WIDGET_VIEW} <= set(data)


def test_dead_widget_views_are_dropped_from_saved_notebooks():
    def output(model_id, *others):
        data = {export.WIDGET_VIEW: {"model_id": model_id, "version_major": 2, "version_minor": 1}}
        data.update({mime: "x" for mime in others})
        return {"output_type": "display_data", "data": data, "metadata": {}}

    notebook = {
        "cells": [{"cell_type": "code", "outputs": [output("saved", "image/png"), output("gone", "image/png")]}],
        "metadata": {"widgets": {export.WIDGET_STATE: {"state": {"saved": {}}}}},
    }
    notebook["cells"].append({"cell_type": "code", "outputs": [output("alone")]})
    assert export.drop_dead_widget_views(notebook) == 1
    kept, dropped = notebook["cells"][0]["outputs"]
    assert export.WIDGET_VIEW in kept["data"]  # its model is saved: it renders without a kernel
    assert set(dropped["data"]) == {"image/png"}  # the picture stays
    assert export.WIDGET_VIEW in notebook["cells"][1]["outputs"][0]["data"]  # nothing else to show: kept
    model = {"type": "notebook", "content": {"cells": [{"cell_type": "code", "outputs": [output("x", "text/plain")]}]}}
    export.pre_save_hook(model=model, path="lesson.ipynb", contents_manager=None)
    assert set(model["content"]["cells"][0]["outputs"][0]["data"]) == {"text/plain"}


def test_a_large_view_skips_the_png_and_says_so(monkeypatch):
    from minitape.widgets import tapeview

    tape, f, _ = examples.fan_out()
    view = widgets.TapeView(tape, f)
    monkeypatch.setattr(tapeview, "PNG_MAX_NODES", len(view.model.nodes) - 1)
    data, _ = view._repr_mimebundle_()
    assert "image/png" not in data and "image/svg+xml" in data
    assert f"no PNG picture above {len(view.model.nodes) - 1} nodes" in data["text/plain"]


# ---- the viewer at scale: per-use copies, folding by itself, the layout time limit, label placement ----


def svg_ids(svg: str) -> list:
    return [g.get("id") for g in ET.fromstring(svg).iter(f"{SVG}g") if g.get("id")]


def edge_ends(svg: str) -> list:
    """(src, dst) of each drawn edge, from the titles Graphviz writes ("a->b")."""
    root = ET.fromstring(svg)
    ends = []
    for g in root.iter(f"{SVG}g"):
        if g.get("class") == "edge":
            src, dst = g.find(f"{SVG}title").text.split("->")
            ends.append((src, dst))
    return ends


def box(element: ET.Element) -> tuple:
    """Bounding box (x0, y0, x1, y1) of a node or cluster group from its outline's coordinates."""
    xs, ys = [], []
    for shape in element:
        if shape.tag == f"{SVG}ellipse":
            cx, cy, rx, ry = (float(shape.get(k)) for k in ("cx", "cy", "rx", "ry"))
            xs += [cx - rx, cx + rx]
            ys += [cy - ry, cy + ry]
        numbers = [float(v) for v in re.findall(r"-?\d+(?:\.\d+)?", shape.get("points") or shape.get("d") or "")]
        xs += numbers[0::2]
        ys += numbers[1::2]
    return min(xs), min(ys), max(xs), max(ys)


def overlaps(a: tuple, b: tuple) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def drawn_edges_are_the_animated_ones(data: dict) -> None:
    for event in data["events"]:
        assert set(event["edges"]) <= set(data["anchors"])
        assert {edge for edge, _, _ in event["labels"]} <= set(data["anchors"])
        assert event["node"] is None or event["node"] in data["nodes"]


def test_a_variable_feeding_many_ops_is_drawn_once_per_use_and_sums_on_its_canonical_node():
    tape, y, (w, x) = examples.shared_variable(uses=40)
    model = steps.build(tape, y, [w, x])
    data = scene.scene(model)
    ids = svg_ids(data["svg"])
    copies = [i for i in ids if i.startswith("n-var0-use")]
    assert ids.count("n-var0") == 1 and len(copies) == 40  # the canonical node and one copy per op it feeds
    assert not [i for i in ids if i.startswith("n-var1-")]  # x feeds one op: drawn once, no copies
    ends = edge_ends(data["svg"])
    assert not [e for e in ends if e[0] == "var0"]  # no edge reaches across the picture from the canonical node
    assert sorted(src for src, _ in ends if src.startswith("var0-use")) == sorted(c[2:] for c in copies)
    classes = {g.get("id"): g.get("class") for g in ET.fromstring(data["svg"]).iter(f"{SVG}g")}
    assert all(classes[c] == "node variable use-copy" for c in copies)
    assert "40 copies" in data["info"]["var0"]["uses"] and data["info"]["var1"]["uses"] == ""
    # the running sum lands on the canonical node, once per use, and ends at the engine's gradient
    sums = [text for event in data["events"] for node, slot, text in event["set"] if (node, slot) == ("var0", "grad")]
    assert len(sums) == 40
    assert (
        sums[-1] == texts_of(export.to_svg(data, -1), "var0")[3] == "grad " + scene.short(tape.gradient(y, w).numpy())
    )
    drawn_edges_are_the_animated_ones(data)


def test_a_big_tape_folds_its_name_scopes_by_itself_and_says_so(monkeypatch):
    tape, y, sources = examples.chain(120)  # 12 name scopes of 10 ops
    model = steps.build(tape, y, sources)
    assert scene.scene(model)["notice"] == ""  # small enough: every node drawn
    monkeypatch.setattr(plan, "AUTO_FOLD_NODES", 60)
    data = scene.scene(model)
    assert "name scope is drawn as one box (12 boxes" in data["notice"] and "collapse=False" in data["notice"]
    assert len(re.findall(r'class="node ', data["svg"])) <= 60
    assert len(re.findall(r'class="node group"', data["svg"])) == 12
    drawn_edges_are_the_animated_ones(data)
    everything = scene.scene(model, collapse=False)  # asked for every node: no fold, no notice
    assert everything["notice"] == "" and len(re.findall(r'class="node group"', everything["svg"])) == 0


def test_a_big_tape_without_scopes_folds_runs_of_ops_into_counted_boxes(monkeypatch):
    tape, y, sources = examples.shared_variable(uses=60)  # 121 ops, no name scope
    model = steps.build(tape, y, sources)
    monkeypatch.setattr(plan, "AUTO_FOLD_NODES", 80)
    data = scene.scene(model)
    assert re.search(r"runs of 7 consecutive ops are drawn as one box each \(18 boxes", data["notice"]), data["notice"]
    assert len(re.findall(r'class="node ', data["svg"])) <= 80 and data["clusters"] == []
    groups = [n for n in data["nodes"] if n.startswith("group")]
    assert len(groups) == 18 and data["info"]["group0"]["kind"] == "folded run of ops"
    folded = [m for g in groups for m in plan.make_plan(model).groups[g][1]]
    assert sorted(folded) == sorted(n.id for n in model.nodes if n.record is not None)  # every op in one box
    assert texts_of(export.to_svg(data, -1), "group0") == ["▸ 7 nodes folded: Mul, Sin", "records 2–11"]
    drawn_edges_are_the_animated_ones(data)
    assert texts_of(export.to_svg(data, -1), "var0")[3] == "grad " + scene.short(model.gradients["var0"])


def test_a_layout_past_the_time_limit_says_what_to_do_instead_of_timing_out(monkeypatch, capsys):
    tape, y, sources = examples.chain(100)
    model = steps.build(tape, y, sources)
    monkeypatch.setattr(layout, "TIMEOUT", 0.001)
    monkeypatch.setattr(scene, "PROGRESS_NODES", 50)
    with pytest.raises(widgets.LayoutTimeoutError) as error:
        scene.scene(model)
    message = str(error.value)
    assert re.search(r"did not finish laying out the graph \(\d+ nodes, \d+ edges\) within 0.001 s", message)
    assert "collapse=True" in message and "fewer ops" in message
    assert error.value.__suppress_context__  # not a subprocess.TimeoutExpired traceback
    assert re.search(r"TapeView: laying out \d+ nodes with Graphviz…", capsys.readouterr().out)


def test_step_labels_never_cover_a_node():
    """Each label's box (as `to_svg` and the browser draw it) lies in room Graphviz kept free beside its edge."""
    for make in (examples.fan_out, examples.mlp_step, examples.keras_mlp_step, lambda: examples.shared_variable(10)):
        tape, y, sources = make()
        data = scene.scene(steps.build(tape, y, sources))
        assert not re.search(r'class="edge">(?:(?!</g>).)*<text', data["svg"], flags=re.S)  # placeholders removed
        drawn = 0
        for step in range(len(data["events"])):
            root = ET.fromstring(export.to_svg(data, step))
            nodes = [box(g) for g in root.iter(f"{SVG}g") if "node" in (g.get("class") or "").split()]
            for rect in root.iter(f"{SVG}rect"):
                if "tv-edge-label-bg" in (rect.get("class") or ""):
                    x, y0, w, h = (float(rect.get(k)) for k in ("x", "y", "width", "height"))
                    assert not any(overlaps((x, y0, x + w, y0 + h), b) for b in nodes), (make.__name__, step)
                    drawn += 1
        assert drawn >= 10


def test_a_folded_scope_shrinks_to_one_small_box():
    tape, loss, variables = examples.mlp_step()
    model = steps.build(tape, loss, variables)
    unfolded = ET.fromstring(scene.scene(model)["svg"])
    folded = ET.fromstring(scene.scene(model, collapse=["dense"])["svg"])
    cluster = next(g for g in unfolded.iter(f"{SVG}g") if g.get("id") == "c-0")  # "dense"
    group = next(g for g in folded.iter(f"{SVG}g") if g.get("id") == "n-group0")
    (a0, b0, a1, b1), (c0, d0, c1, d1) = box(cluster), box(group)
    assert (c1 - c0) * (d1 - d0) < (a1 - a0) * (b1 - b0) / 3


def test_small_tensors_are_written_as_the_step_model_writes_them():
    rng = np.random.default_rng(0)
    values = [np.float64(1.5), np.array(3), np.array(True), np.array([1e-9, -2.5, np.nan, np.inf]), np.arange(4)]
    values += [rng.normal(size=3).astype(np.float32), np.array([], dtype=float), np.ones((2, 2))]
    for value in values:
        assert scene.short(value) == steps.fmt(value)


def test_a_tape_of_a_great_many_variables_folds_them_into_the_boxes_too(monkeypatch):
    weights = [mt.Variable(float(k), name=f"w{k}") for k in range(60)]
    with mt.GradientTape(persistent=True) as tape:
        total = weights[0] * 1.0
        for w in weights[1:]:
            total = total + w
    model = steps.build(tape, total, weights)
    monkeypatch.setattr(plan, "AUTO_FOLD_NODES", 40)
    data = scene.scene(model)
    assert "consecutive ops, with the inputs they read first, are drawn as one box each" in data["notice"]
    assert len(re.findall(r'class="node ', data["svg"])) <= 40
    drawn_edges_are_the_animated_ones(data)


def test_the_room_kept_for_edge_labels_is_invisible_in_every_picture():
    tape, f, _ = examples.fan_out()
    model = steps.build(tape, f)
    source = scene.dot_source(model, scene.node_updates(model), "LR")
    slots = re.findall(r'label="0+"[^\]]*', source)
    assert slots and all("fontcolor=transparent" in s for s in slots)  # the PNG is drawn from this source too
