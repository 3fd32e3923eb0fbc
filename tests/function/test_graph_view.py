"""GraphView: a traced function's graph drawn, its forward ops, the tape's gradient ops and the assigns."""

import re
import shutil

import pytest

import minitape as mt
from minitape import keras
from minitape.function.view import GraphView


def _traced_train_step():
    keras.backend.clear_session()  # layer names from "dense", whatever ran before
    keras.utils.set_random_seed(0)
    model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(8, activation="relu"), keras.layers.Dense(3)])

    @mt.function
    def train_step(x, y):
        with mt.GradientTape() as tape:
            loss = mt.reduce_mean(mt.square(model(x) - y))
        grads = tape.gradient(loss, model.trainable_variables)
        for v, g in zip(model.trainable_variables, grads):
            v.assign_sub(0.1 * g)
        return loss

    train_step(mt.ones([2, 4]), mt.zeros([2, 3]))
    return train_step


def test_the_view_counts_forward_and_gradient_ops_reads_and_assigns():
    view = GraphView(_traced_train_step())
    # forward: 2 x (MatMul, AddV2), Relu, Sub, Square, Mean; 4 reads and 4 assigns; each update is a Mul by 0.1
    counts = view.counts()
    assert counts["variable"] == 8 and counts["gradient"] >= 7 and counts["forward"] == 8 + 4
    source = view.dot_source()
    assert source.count("read dense") == 4 and source.count("AssignSub dense") == 4
    assert source.count("(gradient of MatMul)") == 3  # dx of the second layer, dw of both (the input needs none)
    assert re.search(r'label="sequential".*label="dense"', source, re.S)  # name scopes as nested frames


def test_the_view_draws_guards_and_calls():
    @mt.function
    def f(x):
        mt.print(x)
        return x * 2.0 if x > 0 else -x

    f(mt.constant(1.0))
    source = GraphView(f).dot_source()
    assert "guard: true" in source and "call print" in source


def test_a_function_never_called_has_no_graph_to_draw():
    with pytest.raises(ValueError, match="has no graph yet"):
        GraphView(mt.function(lambda x: x))


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz's dot lays the graph out")
def test_the_view_lays_out_as_svg():
    svg = GraphView(_traced_train_step()).to_svg()
    assert svg.startswith("<svg") and svg.count("AssignSub") == 4


def test_the_view_speaks_the_viewers_language():
    """The Korean edition's lesson 11 draws the graph in Korean: the words, not the op or variable names."""
    traced = _traced_train_step()
    english, korean = GraphView(traced, lang="en"), GraphView(traced, lang="ko")
    assert korean.summary() == "train_step의 그래프: " + ", ".join(
        f"{word} {korean.counts().get(kind, 0)}개"
        for kind, word in [
            ("forward", "순전파 연산"),
            ("gradient", "그래디언트 연산"),
            ("variable", "변수 읽기와 할당"),
            ("call", "Python 호출"),
            ("guard", "가드"),
        ]
    )
    source = korean.dot_source()
    assert source.count("(MatMul의 그래디언트)") == 3 and source.count("읽기 dense") == 4 and "출력 0" in source
    assert "gradient of" not in source and "read " not in source
    assert english.summary().startswith("graph of train_step: 12 forward ops, ")
    with pytest.raises(ValueError, match=r"GraphView: lang must be one of \['en', 'ko'\], not 'kr'"):
        GraphView(traced, lang="kr")


def test_the_view_follows_set_language():
    pytest.importorskip("minitape.widgets")
    from minitape import widgets

    traced = _traced_train_step()
    try:
        widgets.set_language("ko")
        assert GraphView(traced).summary().startswith("train_step의 그래프: 순전파 연산 12개")
    finally:
        widgets.set_language("en")
    assert GraphView(traced).summary().startswith("graph of train_step: ")
