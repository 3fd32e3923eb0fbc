"""A traced function called under a GradientTape is one op on the tape, differentiable to any order."""

from __future__ import annotations

import numpy as np
import pytest

import minitape as mt
from minitape.aids.check_gradients import check_gradients
from minitape.function import call_op, traced_vjp


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
    assert len(_concrete(f).program.vjps) == 0  # two values of w: the op-by-op rule, no traced backward graph


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


# ---- the traced backward pass: when nothing records the backward pass, the call op's rule replays its VJP graph


def _concrete(fn):
    (concrete,) = [c for cs in fn._cache.values() for c in cs]
    return concrete


def _count_traces(monkeypatch) -> list:
    traced = []
    trace = traced_vjp._trace
    monkeypatch.setattr(traced_vjp, "_trace", lambda *a: traced.append(1) or trace(*a))
    return traced


def test_the_gradient_of_an_unobserved_call_is_traced_once_then_replayed_without_the_op_by_op_rule(monkeypatch):
    w = mt.Variable(np.array([0.3, -0.8]))

    @mt.function
    def f(x):
        return mt.reduce_sum(mt.tanh(x * w) ** 2)

    f(mt.constant(np.array([0.7, 1.1])))
    traced = _count_traces(monkeypatch)

    def grads(values: list) -> list:
        x = mt.constant(np.array(values))
        with mt.GradientTape() as tape:
            tape.watch(x)
            y = f(x)
        return [g.numpy() for g in tape.gradient(y, [x, w])]

    def expected(values: list) -> list:
        x, v = np.array(values), np.array([0.3, -0.8])
        t = np.tanh(x * v)
        return [2 * t * (1 - t**2) * v, 2 * t * (1 - t**2) * x]

    first = grads([0.7, 1.1])
    assert len(traced) == 1 and len(_concrete(f).program.vjps) == 1
    monkeypatch.setattr(call_op, "replay_for_gradient", _refuse)  # the op-by-op rule may not run now
    second = grads([-0.4, 2.5])  # other values: the traced graph computes from its inputs, no value baked in
    assert len(traced) == 1  # the second gradient replayed the graph traced by the first
    for got, want in zip([*first, *second], [*expected([0.7, 1.1]), *expected([-0.4, 2.5])], strict=True):
        assert np.allclose(got, want, rtol=1e-12)


def _refuse(*args):
    raise AssertionError("the op-by-op gradient ran")


def test_a_keras_mlp_loss_gives_bit_for_bit_the_op_by_op_rule_s_gradients(monkeypatch):
    mt.keras.utils.set_random_seed(5)
    model = mt.keras.Sequential(
        [mt.keras.Input((6,)), mt.keras.layers.Dense(16, activation="relu"), mt.keras.layers.Dense(4)]
    )
    rng = np.random.default_rng(1)
    xs = mt.constant(rng.normal(size=(12, 6)).astype(np.float32))
    onehot = mt.constant(np.eye(4, dtype=np.float32)[np.arange(12) % 4])
    loss_object = mt.keras.losses.CategoricalCrossentropy(from_logits=True)

    @mt.function
    def loss_fn(xs, onehot):
        return loss_object(onehot, model(xs))

    loss_fn(xs, onehot)

    def grads():
        with mt.GradientTape() as tape:
            tape.watch(xs)
            loss = loss_fn(xs, onehot)
        assert [op.type for op in tape.records] == ["StatefulPartitionedCall"]
        return [g.numpy() for g in tape.gradient(loss, [xs, *model.trainable_variables])]

    fast = grads()
    assert len(_concrete(loss_fn).program.vjps) == 1
    monkeypatch.setattr(traced_vjp, "backward_watched", lambda: True)  # as if a tape heard it: the op-by-op rule
    slow = grads()
    for a, b in zip(fast, slow, strict=True):
        assert a.dtype == b.dtype and np.array_equal(a, b)


def test_a_second_derivative_takes_the_op_by_op_rule_and_matches_finite_differences_of_the_traced_first():
    @mt.function
    def f(x):
        return mt.reduce_sum(mt.sin(x) * x * x)

    x0 = np.array([0.4, -1.2, 2.0])
    f(mt.constant(x0))

    def first(values: np.ndarray) -> np.ndarray:  # unobserved: the traced backward graph
        x = mt.constant(values)
        with mt.GradientTape() as tape:
            tape.watch(x)
            y = f(x)
        return tape.gradient(y, x).numpy()

    x = mt.constant(x0)
    with mt.GradientTape() as outer:
        outer.watch(x)
        with mt.GradientTape() as inner:
            inner.watch(x)
            y = f(x)
        dy = inner.gradient(y, x)  # inside the outer tape's block: it records the backward pass
    assert len(_concrete(f).program.vjps) == 0  # the first derivative was taken op by op
    d2y = outer.gradient(dy, x).numpy()
    assert np.array_equal(dy.numpy(), first(x0))  # and equals the traced one bit for bit
    assert len(_concrete(f).program.vjps) == 1
    eps = 1e-6
    for k in range(3):
        step = np.where(np.arange(3) == k, eps, 0.0)
        column = (first(x0 + step) - first(x0 - step)) / (2 * eps)
        assert d2y[k] == pytest.approx(column.sum(), rel=1e-6)  # d2y is the Hessian's row sums (y's gradient summed)


def test_the_traced_backward_repeats_no_print_and_no_assign(capsys):
    w = mt.Variable(np.float64(2.0))
    count = mt.Variable(0, trainable=False)

    @mt.function
    def f(x):
        mt.print("called with", x)
        count.assign_add(1)
        return x * x * w

    x = mt.constant(np.float64(3.0))
    f(x)
    capsys.readouterr()
    for _ in range(2):
        with mt.GradientTape() as tape:
            tape.watch(x)
            y = f(x)
        dx, dw = tape.gradient(y, [x, w])
        assert float(dx) == 12.0 and float(dw) == 9.0
    assert capsys.readouterr().err.count("called with") == 2  # one per call, none for either gradient
    assert int(count) == 3  # the trace's and the two calls'
    assert len(_concrete(f).program.vjps) == 1
