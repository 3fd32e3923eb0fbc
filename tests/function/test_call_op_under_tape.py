"""A traced function called under a GradientTape is one op on the tape, differentiable to any order."""

from __future__ import annotations

import numpy as np
import pytest

import minitape as mt
from minitape.aids.check_gradients import check_gradients


def _recorded(fn, *args):
    """The op types a tape holds after one call of `fn` on `args` (each watched)."""
    with mt.GradientTape() as tape:
        tape.watch(list(args))
        fn(*args)
    return [op.type for op in tape.records]


def _central(f, x: float, eps: float = 1e-6) -> float:
    return (f(x + eps) - f(x - eps)) / (2 * eps)


def test_a_call_of_a_function_of_tensors_is_one_partitioned_call_with_gradients_of_any_order():
    @mt.function
    def f(x, y):
        return mt.reduce_sum(mt.sin(x) * y + x * x * y)

    x = mt.constant(np.linspace(-1.0, 1.0, 4))
    y = mt.constant(np.linspace(0.5, 2.0, 4))
    f(x, y)  # traced here; the calls below replay the graph
    # TensorFlow 2.21 names the call of a function that touches no variable PartitionedCall
    assert _recorded(f, x, y) == ["PartitionedCall"]
    check_gradients(f, [x, y])
    check_gradients(f, [x, y], order=2)


def test_a_function_reading_variables_is_a_stateful_call_whose_inputs_include_them():
    w = mt.Variable(np.array([0.3, -0.8], np.float64))
    b = mt.Variable(np.float64(0.25))

    @mt.function
    def f(x):
        return mt.reduce_sum(mt.tanh(x * w + b) ** 2)

    x = mt.constant(np.array([0.7, 1.1]))
    f(x)
    with mt.GradientTape() as tape:
        tape.watch(x)
        loss = f(x)
    (op,) = tape.records
    assert op.type == "StatefulPartitionedCall"  # TensorFlow 2.21's name when the function touches a variable
    assert len(op.input_ids) == 3  # x, w and b
    assert tape.watched_variables() == (w, b)  # read by the replay, watched as an eager read would have them
    dx, dw, db = tape.gradient(loss, [x, w, b])
    for k in range(2):

        def along_w(t, k=k):
            saved = w.numpy()
            w.assign(np.where(np.arange(2) == k, t, saved))
            value = float(f(x))
            w.assign(saved)
            return value

        assert dw.numpy()[k] == pytest.approx(_central(along_w, float(w.numpy()[k])), rel=1e-6)

    def along_b(t):
        saved = b.numpy()
        b.assign(t)
        value = float(f(x))
        b.assign(saved)
        return value

    assert float(db) == pytest.approx(_central(along_b, 0.25), rel=1e-6)
    check_gradients(f, [x])
    check_gradients(f, [x], order=2)


def test_nested_functions_are_one_op_and_differentiate_twice():
    @mt.function
    def inner(x):
        return mt.exp(-x * x)

    @mt.function
    def outer(x):
        return mt.reduce_sum(inner(x) * mt.cos(x))

    x = mt.constant(np.array([0.2, -0.6, 1.3]))
    outer(x)
    assert _recorded(outer, x) == ["PartitionedCall"]
    check_gradients(outer, [x])
    check_gradients(outer, [x], order=2)
    check_gradients(lambda x: outer(x) * outer(x), [x], order=2)  # two calls, each one op, on the same tapes


def test_a_persistent_tape_asked_twice_gives_the_same_gradients():
    v = mt.Variable(np.float64(1.5))

    @mt.function
    def f(x):
        return x**3 * v

    x = mt.constant(np.float64(0.8))
    f(x)
    with mt.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = f(x)
    first = [g.numpy() for g in tape.gradient(y, [x, v])]
    second = [g.numpy() for g in tape.gradient(y, [x, v])]
    assert first == second
    assert first[0] == pytest.approx(3 * 0.8**2 * 1.5) and first[1] == pytest.approx(0.8**3)
    assert len(tape.records) == 1


def test_a_python_call_in_the_graph_runs_once_per_call_not_again_for_the_gradient(capsys):
    @mt.function
    def f(x):
        mt.print("called with", x)
        return x * x

    x = mt.constant(3.0)
    f(x)
    capsys.readouterr()
    with mt.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    assert capsys.readouterr().err.count("called with") == 1
    assert float(tape.gradient(y, x)) == 6.0
    assert capsys.readouterr().err.count("called with") == 0  # the gradient's replay skips it
    assert [op.type for op in tape.records] == ["PartitionedCall"]


def test_a_function_that_assigns_a_variable_assigns_it_once_and_differentiates_the_values_it_read():
    w = mt.Variable(np.float64(2.0))
    count = mt.Variable(0, trainable=False)

    @mt.function
    def f(x):
        y = x * w  # reads w = w0
        w.assign(w * 3.0)  # reads w again
        count.assign_add(1)
        return y * w  # reads w = 3 w0: y = 3 x w0^2

    x = mt.constant(np.float64(0.5))
    f(x)
    w.assign(2.0)
    with mt.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    assert [op.type for op in tape.records] == ["StatefulPartitionedCall"]
    assert float(w) == 6.0 and int(count) == 2  # one assign per call: the trace's, and this one
    assert float(y) == pytest.approx(3 * 0.5 * 4.0)
    dx, dw = tape.gradient(y, [x, w])
    assert float(w) == 6.0 and int(count) == 2  # the gradient's replay assigned nothing
    # TensorFlow 2.21 gives dx = 12.0 and dw = 4.0 (the gradient at the values the call read, w0 = 2 and 6):
    # the assign cuts the path, so w reaches y through its first read and its last, x * 6 + x * 2
    assert float(dx) == 12.0 and float(dw) == 4.0


def test_unconnected_gradients_of_the_call_op():
    @mt.function
    def f(x, z):
        return x * 2.0 + mt.stop_gradient(z)

    x, z = mt.constant([1.0, 2.0]), mt.constant([3.0, 4.0])
    f(x, z)
    with mt.GradientTape(persistent=True) as tape:
        tape.watch([x, z])
        y = f(x, z)
    assert [op.type for op in tape.records] == ["PartitionedCall"]
    dx, dz = tape.gradient(y, [x, z])
    assert dx.numpy().tolist() == [2.0, 2.0] and dz is None
    dz = tape.gradient(y, z, unconnected_gradients="zero")
    assert dz.numpy().tolist() == [0.0, 0.0]


def test_a_keras_mlp_loss_gives_bit_for_bit_the_op_by_op_gradients():
    mt.keras.utils.set_random_seed(3)
    model = mt.keras.Sequential(
        [mt.keras.Input((5,)), mt.keras.layers.Dense(8, activation="relu"), mt.keras.layers.Dense(3)]
    )
    xs = mt.constant(np.random.default_rng(0).normal(size=(16, 5)).astype(np.float32))
    labels = mt.constant(np.arange(16) % 3)

    @mt.function
    def loss_fn(xs, labels):
        logits = model(xs)
        return mt.reduce_mean(mt.nn.sparse_softmax_cross_entropy_with_logits(labels, logits))

    concrete = loss_fn.get_concrete_function(xs, labels)

    def grads():
        with mt.GradientTape() as tape:
            loss = loss_fn(xs, labels)
        return [op.type for op in tape.records], tape.gradient(loss, model.trainable_variables)

    types, one_op = grads()
    assert types == ["StatefulPartitionedCall"]
    concrete._one_op = False  # the op-by-op replay: every op of the graph on the tape
    types, op_by_op = grads()
    assert len(types) > 5
    for a, b in zip(one_op, op_by_op, strict=True):
        assert np.array_equal(a.numpy(), b.numpy())


def test_explain_and_the_viewer_take_a_tape_holding_a_call_op():
    pytest.importorskip("anywidget")
    from minitape import widgets

    @mt.function
    def f(x):
        return mt.reduce_sum(x * x)

    x = mt.Variable([1.0, 2.0])
    f(x.read_value())
    with mt.GradientTape() as tape:
        y = f(x.read_value())
    text = str(tape.explain(y, x))
    assert "PartitionedCall" in text
    view = widgets.TapeView(tape, y, [x])
    assert view.n_steps > 0
    assert tape.gradient(y, x).numpy().tolist() == [2.0, 4.0]


def test_a_graph_drawing_random_numbers_still_replays_op_by_op_so_its_gradient_sees_the_same_draw():
    @mt.function
    def f(x):
        return x * mt.random.uniform([3], dtype=mt.float64)

    x = mt.constant(np.array([1.0, 2.0, 4.0]))
    f(x)
    with mt.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    types = [op.type for op in tape.records]
    assert "PartitionedCall" not in types and "Mul" in types  # a call op's gradient would draw again
    assert np.allclose(tape.gradient(y, x).numpy(), y.numpy() / x.numpy())
