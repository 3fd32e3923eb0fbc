"""The viewer's frame model and its words: computed once in Python, applied by the browser and `to_svg` alike."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest

import minitape as mt
from minitape import widgets
from minitape.widgets import examples, export, formatting, scene, steps

SVG = "{http://www.w3.org/2000/svg}"


def texts_of(svg: str, node_id: str) -> list:
    g = next(e for e in ET.fromstring(svg).iter(f"{SVG}g") if e.get("id") == f"n-{node_id}")
    return [t.text or "" for t in g.findall(f"{SVG}text")]


def walk(events: list, path: list) -> dict:
    """What the browser does: from frame 0, apply `set` stepping forwards and `undo` stepping back."""
    shown: dict = {}
    current = -1
    for k in path:
        while current < k:
            current += 1
            shown.update({row[0]: row[1:] for row in events[current]["set"]})
        while current > k:
            shown.update({row[0]: row[1:] for row in events[current]["undo"]})
            current -= 1
    return {node: row for node, row in shown.items() if any(row[:3])}


@pytest.mark.parametrize("make", [examples.fan_out, examples.mlp_step])
def test_stepping_either_way_by_changes_gives_the_frame_to_svg_draws(make):
    tape, y, sources = make()
    data = scene.scene(steps.build(tape, y, sources))
    events = data["events"]
    last = len(events) - 1
    rng = np.random.default_rng(0)
    path = [int(k) for k in rng.integers(0, last + 1, size=25)] + [last, 0, last // 2]
    for k in path:  # every frame reached by jumps back and forth equals the frame folded from the start
        reached = walk(events, path[: path.index(k) + 1])
        folded = {node: row for node, row in export.frame(events, k).items() if any(row[:3])}
        assert reached == folded, k
    # and that is what the static picture shows
    k = last // 2
    svg = export.to_svg(data, k)
    for node, (value, grad, classes, _) in export.frame(events, k).items():
        if node in data["nodes"]:
            assert texts_of(svg, node)[2:4] == [value, grad]
            g = next(e for e in ET.fromstring(svg).iter(f"{SVG}g") if e.get("id") == f"n-{node}")
            assert set(classes.split()) <= set(g.get("class").split())


def test_each_event_changes_only_the_nodes_it_touches():
    tape, y, sources = examples.mlp_step()
    data = scene.scene(steps.build(tape, y, sources))
    forward = [e for e in data["events"] if e["kind"] == "forward"]
    assert all([row[0] for row in e["set"]] == [e["node"]] for e in forward)
    assert max(len(e["set"]) for e in data["events"][1:]) <= 4  # no event rewrites the whole graph


def test_the_targets_card_shows_its_seed_gradient():
    tape, f, _ = examples.fan_out()
    model = steps.build(tape, f)
    data = scene.scene(model)
    target = model.target[0]
    assert data["info"][target]["grad"] == "1"  # the seed: d f / d f = 1, as the node itself says
    assert texts_of(export.to_svg(data, -1), target)[3] == "grad 1"


def test_a_constant_whose_value_is_gone_shows_its_shape_and_dtype_never_value_none():
    Y = mt.constant(np.arange(10.0, dtype="float32"))
    w = mt.Variable([2.0, 1.0, 3.0, 4.0], name="w")
    with mt.GradientTape(persistent=True) as tape:
        y = mt.reduce_sum(w + Y[:4] * 2)  # the inline constant Y[:4] * 2 is neither kept nor alive
    model = steps.build(tape, y)
    data = scene.scene(model)
    constant = next(n for n in model.nodes if n.kind == "constant")
    assert constant.value is None
    card = data["info"][constant.id]["value"]
    assert "[4]" in card and "float32" in card and "None" not in card
    shown = texts_of(export.to_svg(data, 0), constant.id)[2]
    assert shown == "value ?" and "None" not in shown
    # a constant whose value is known shows its numbers
    tape2, f, _ = examples.fan_out()
    data2 = scene.scene(steps.build(tape2, f))
    assert texts_of(export.to_svg(data2, 0), "in0")[2] == "value 2"  # the exponent of w1**2, the first constant


def test_sources_given_as_one_tensor_or_variable_work_as_in_tape_gradient():
    x = mt.Variable([1.0, 2.0, 3.0], name="x")
    with mt.GradientTape(persistent=True) as tape:
        y = mt.reduce_sum(x * x)
    model = steps.build(tape, y, x)  # one vector Variable, not a list: was "truth value ... is ambiguous"
    assert len(model.sources) == 1
    np.testing.assert_allclose(model.gradients[model.sources[0]], tape.gradient(y, x).numpy())
    c = mt.constant([1.0, 2.0])
    with mt.GradientTape(persistent=True) as tape:
        tape.watch(c)
        z = mt.reduce_sum(mt.sin(c))
    one = steps.build(tape, z, c)
    np.testing.assert_allclose(one.gradients[one.sources[0]], np.cos([1.0, 2.0]))
    empty = steps.build(tape, z, [])  # an empty list asks for no source, as in tape.gradient
    assert empty.sources == []


def test_a_none_gradient_is_explained_by_tape_explain():
    x = mt.Variable(2.0, name="x")
    with mt.GradientTape(persistent=True) as tape:
        y = mt.stop_gradient(x * 3.0) + 1.0
    model = steps.build(tape, y, [x])
    reason = model.reasons[model.sources[0]]
    assert reason == tape.explain(y, [x]).reasons[0]  # the engine's own explanation, not a second one
    assert reason.kind == "stop_gradient"
    data = scene.scene(model)
    assert formatting.reason_text(reason, "en") in " ".join(data["events"][-1]["text"])


def test_no_dead_fields_and_no_private_reach():
    assert "final" not in steps.Contribution.__dataclass_fields__  # was computed and never read
    from minitape.widgets import forward_steps

    text = Path(forward_steps.__file__).read_text(encoding="utf-8")
    assert not re.findall(r"\b(?:builder|steps)\._\w", text) and "_Builder" not in text


# ---- the words: one table per language ------------------------------------------------------------------
ENGLISH = {word.lower() for text in formatting.WORDS["en"].values() for word in re.findall(r"[A-Za-z]{3,}", str(text))}
# code a Korean reader types as it is: API names, dtypes, keys, NaN and inf, and the user's own names
CODE = {
    "tape",
    "watch",
    "gradient",
    "stop_gradient",
    "lookuperror",
    "numpy",
    "assign",
    "trainable",
    "false",
    "none",
    "nan",
    "inf",
    "jvp",
    "tab",
    "enter",
    "use",
    "relu",
    "sum",
    "mean",
    "sin",
    "cos",
    "tanh",
    "exp",
    "log",
    "stop",
    "recording",
}


def english_left(texts: list, names: set) -> set:
    words = {w for t in texts for w in re.findall(r"[A-Za-z_]{3,}", re.sub(r"\{\w+\}", "", t))}  # not the blanks
    return {w for w in words if w.lower() in ENGLISH and w.lower() not in CODE and w not in names}


def ui_strings(data: dict) -> list:
    out = list(data["words"].values())
    for event in data["events"]:
        out += event["text"] + [event["where"]] + [row[1] for row in event["set"]] + [row[2] for row in event["set"]]
        out += [row[4] for row in event["set"]] + [text for _, text, _ in event["labels"]]
    for info in data["info"].values():
        out += [info[k] for k in ("kind", "shape", "value", "grad", "backward_of", "uses", "cuts")]
    out += [text for pair in data["cuts"].values() for text in pair]
    out += [t.text or "" for t in ET.fromstring(data["svg"]).iter(f"{SVG}text")]
    return out


def none_paths():
    """Every kind of None: stop_gradient, an unwatched constant, an integer source, a value left through numpy."""
    x = mt.Variable(2.0, name="x")
    k = mt.constant(3)
    c = mt.constant(4.0)
    with mt.GradientTape(persistent=True) as tape:
        y = mt.stop_gradient(x * 3.0) * x + c * x + mt.cast(k, mt.float32) * x
        z = mt.constant(np.sin(y.numpy()))
    return tape, z, [x, k, c]


@pytest.mark.parametrize("make", [examples.fan_out, examples.mlp_step, none_paths])
def test_a_korean_view_has_no_english_words_left(make):
    tape, y, sources = make()
    model = steps.build(tape, y, sources)
    # the user's names and the engine's op types and dtypes stay as they are (a constant's "label" is a word)
    own = [f"{n.label if n.kind in ('variable', 'op', 'gradop') else ''} {n.scope} {n.dtype}" for n in model.nodes]
    names = {w for text in own for w in re.findall(r"[A-Za-z_]{3,}", text)} | {"tensor_"}
    korean = scene.scene(model, lang="ko")
    english = scene.scene(model, lang="en")
    assert english_left(ui_strings(english), names)  # the check finds English where there is English
    assert english_left(ui_strings(korean), names) == set()
    assert "그래디언트" in korean["words"]["flows"]
    assert set(korean["words"]) == set(english["words"])  # the browser gets every word it writes


def test_every_word_exists_in_every_language():
    keys = {lang: set(table) for lang, table in formatting.WORDS.items()}
    assert all(k >= keys["en"] - {k for k in keys["en"] if k.startswith("rule_")} for k in keys.values())
    for key, text in formatting.WORDS["en"].items():  # the same blanks to fill in each language
        for lang in formatting.LANGUAGES:
            other = formatting.WORDS[lang].get(key, text)
            assert set(re.findall(r"\{(\w+)\}", str(other))) <= set(re.findall(r"\{(\w+)\}", str(text))), (lang, key)


def test_the_language_is_chosen_per_view_or_for_all():
    tape, f, _ = examples.fan_out()
    model = steps.build(tape, f)
    try:
        widgets.set_language("ko")
        assert widgets.get_language() == "ko" and scene.scene(model)["lang"] == "ko"
        assert scene.scene(model, lang="en")["lang"] == "en"  # a view's own choice wins
    finally:
        widgets.set_language("en")
    with pytest.raises(ValueError, match=r"lang must be one of \['en', 'ko'\]"):
        widgets.set_language("fr")
    assert scene.scene(model)["words"]["play"] == "play"


def test_the_browser_gets_every_word_it_writes():
    script = export.script()
    used = set(re.findall(r"\bW\.(\w+)", script))
    tape, f, _ = examples.fan_out()
    words = scene.scene(steps.build(tape, f), lang="ko")["words"]
    assert used and used <= set(words), used - set(words)
    assert all(words[k] for k in used)


def test_warning_lines_are_marked_by_a_field_not_by_their_first_character():
    x = mt.Variable(1000.0, name="x")
    with mt.GradientTape(persistent=True) as tape:
        y = mt.exp(x) * 2.0  # overflows: the first non-finite op
    for lang in formatting.LANGUAGES:
        data = scene.scene(steps.build(tape, y), lang=lang)
        warned = [(e["node"], e["text"][i]) for e in data["events"] for i in e["warn"]]
        assert [node for node, _ in warned][:1] == [data["first_nan"]]
        assert all(line.startswith("⚠") for _, line in warned)
