"""mt.function as TensorFlow's tf.function: tracing once per signature, replaying the graph, TensorFlow's rules.

Expected values and messages are TensorFlow 2.21's, from running the same code (written in as data).
"""

import warnings

import numpy as np
import pytest

import minitape as mt
from minitape import keras


def test_python_print_runs_at_tracing_and_mt_print_at_every_call(capsys):
    @mt.function
    def f(x):
        print("Tracing with", x)
        mt.print("Executing with", x)
        return x * 2

    results = [f(mt.constant(1.0)), f(mt.constant(2.0)), f(mt.constant([1.0, 2.0])), f(1), f(2), f(1.0), f(1)]
    out, err = capsys.readouterr()
    # TensorFlow 2.21 prints exactly these lines (stdout: tracing; stderr: tf.print), and counts 4 traces
    assert out.splitlines() == [
        'Tracing with Tensor("x:0", shape=(), dtype=float32)',
        'Tracing with Tensor("x:0", shape=(2,), dtype=float32)',
        "Tracing with 1",
        "Tracing with 2",
    ]
    assert err.splitlines() == ["Executing with " + s for s in ["1", "2", "[1 2]", "1", "2", "1", "1"]]
    assert f.experimental_get_tracing_count() == 4
    assert [r.numpy().tolist() for r in results] == [2.0, 4.0, [2.0, 4.0], 2, 4, 2, 2]


def test_a_new_dtype_retraces():
    f = mt.function(lambda x: x + x)
    f(mt.constant(1.0))
    f(mt.constant(1.0, dtype=mt.float64))
    f(mt.constant(3.0, dtype=mt.float64))
    assert f.experimental_get_tracing_count() == 2


def test_replay_follows_new_input_values_and_variables():
    v = mt.Variable([1.0, 2.0])

    @mt.function
    def f(x):
        return mt.reduce_sum(mt.sin(x) * v) + mt.exp(x[0])

    for values in ([0.1, 0.2], [1.5, -3.0], [2.0, 7.0]):
        v.assign(np.array(values[::-1], np.float32))
        x = mt.constant(values)
        expected = np.sum(np.sin(np.float32(values)) * np.float32(values[::-1])) + np.exp(np.float32(values[0]))
        assert f(x).numpy() == pytest.approx(expected, rel=1e-6)
    assert f.experimental_get_tracing_count() == 1


def test_input_signature_is_enforced_with_tensorflows_message():
    f = mt.function(lambda x: x + 1, input_signature=[mt.TensorSpec(shape=[None], dtype=mt.float32)])
    assert f(mt.constant([1.0])).numpy().tolist() == [2.0]
    assert f([1.0, 2.0]).numpy().tolist() == [2.0, 3.0]  # converted to the signature's dtype, as in TensorFlow
    # TensorFlow 2.21: TypeError: Binding inputs to tf.function failed due to `Can not cast TensorSpec(shape=(2,),
    # dtype=tf.int32, name=None) to TensorSpec(shape=(None,), dtype=tf.float32, name=None)`. Received args: ...
    with pytest.raises(TypeError, match=r"Binding inputs to tf.function failed due to `Can not cast TensorSpec\("):
        f(mt.constant([1, 2]))
    with pytest.raises(TypeError, match="Can not cast TensorSpec.shape=.1, 1."):
        f(mt.constant([[1.0]]))
    with pytest.raises(TypeError, match="failed due to `too many positional arguments`"):
        f(mt.constant([1.0]), mt.constant([1.0]))


def test_variables_may_be_created_on_the_first_trace_only():
    class Scale:
        def __init__(self):
            self.v = None

        @mt.function
        def __call__(self, x):
            if self.v is None:
                self.v = mt.Variable(2.0)
            return self.v * x

    s = Scale()
    assert s(mt.constant(3.0)).numpy() == 6.0
    assert s(mt.constant([1.0])).numpy().tolist() == [2.0]  # a second trace creates nothing: allowed

    class Always:
        @mt.function
        def __call__(self, x):
            self.v = mt.Variable(1.0)
            return self.v * x

    a = Always()
    a(mt.constant(1.0))
    # TensorFlow 2.21 raises this ValueError (at the first call already: it traces twice)
    with pytest.raises(ValueError, match="tf.function only supports singleton tf.Variables created on the first call"):
        a(mt.constant([1.0]))


def test_numpy_inside_raises_as_in_graph_mode():
    with pytest.raises(AttributeError, match="'SymbolicTensor' object has no attribute 'numpy'"):  # TensorFlow 2.21
        mt.function(lambda x: x.numpy())(mt.constant(1.0))
    with pytest.raises(NotImplementedError, match=r"Cannot convert a symbolic tf.Tensor \(x:0\) to a numpy array"):
        mt.function(lambda x: np.asarray(x))(mt.constant(1.0))
    with pytest.raises(TypeError, match="unsupported format string passed to SymbolicTensor.__format__"):
        mt.function(lambda x: f"{x:.2f}")(mt.constant(1.0))


def test_an_if_on_a_tensor_is_guarded_and_both_branches_replay():
    traces = []

    @mt.function
    def f(x):
        traces.append(x)  # a Python side effect: once per trace
        if mt.reduce_sum(x) > 0:
            return x * 2.0
        return -x

    assert f(mt.constant([1.0, 2.0])).numpy().tolist() == [2.0, 4.0]
    assert f(mt.constant([-1.0, -2.0])).numpy().tolist() == [1.0, 2.0]  # the guard failed: the other branch traced
    assert f(mt.constant([3.0, 1.0])).numpy().tolist() == [6.0, 2.0]
    assert f(mt.constant([-3.0, 1.0])).numpy().tolist() == [3.0, -1.0]
    assert len(traces) == 2 and f.experimental_get_tracing_count() == 2  # TensorFlow: 1 (a tf.cond of both)


def test_a_while_on_a_tensor_replays_only_for_the_same_number_of_turns():
    @mt.function
    def halvings(x):
        n = mt.constant(0)
        while x > 1.0:
            x = x / 2.0
            n = n + 1
        return n

    # TensorFlow 2.21 gives [3, 3, 7, 3, 0] too, from one trace (AutoGraph makes a tf.while_loop)
    assert [int(halvings(mt.constant(v))) for v in (8.0, 5.0, 100.0, 6.0, 1.0)] == [3, 3, 7, 3, 0]
    assert halvings.experimental_get_tracing_count() == 3  # minitape: one graph per number of turns (3, 7, 0)


def test_a_guard_undoes_the_assigns_of_a_run_that_took_the_other_way():
    v = mt.Variable(0.0)

    @mt.function
    def f(x):
        v.assign_add(1.0)
        if x > 0:
            v.assign_add(10.0)
        return v.read_value()

    assert [float(f(mt.constant(c))) for c in (1.0, -1.0, 2.0, -2.0)] == [11.0, 12.0, 23.0, 24.0]


def test_retracing_warning_as_tensorflow_words_it():
    many = mt.function(lambda x: x)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for i in range(7):
            many(i)
    texts = [str(w.message) for w in caught]
    # TensorFlow 2.21 logs two warnings, at the 5th and the 6th call
    assert len(texts) == 2 and texts[0].startswith("5 out of the last 5 calls to <function test_retracing")
    assert texts[1].startswith("6 out of the last 6 calls") and "reduce_retracing=True" in texts[1]


def _finite_difference(f, x, eps=1e-6):
    grads = np.zeros_like(x)
    for i in range(x.size):
        d = np.zeros_like(x)
        d.flat[i] = eps
        grads.flat[i] = (f(x + d) - f(x - d)) / (2 * eps)
    return grads


def test_a_function_inside_a_tape_is_differentiable_to_the_second_order():
    @mt.function
    def f(x):
        return mt.reduce_sum(mt.sin(x) * x * x)

    x0 = np.array([0.3, -1.2, 2.0])
    f(mt.constant(x0))  # traced once already: the calls below replay
    x = mt.constant(x0)
    with mt.GradientTape() as outer:
        outer.watch(x)
        with mt.GradientTape() as inner:
            inner.watch(x)
            y = f(x)
        g = inner.gradient(y, x)
    h = outer.gradient(g, x)

    def numpy_f(v):
        return np.sum(np.sin(v) * v * v)

    def numpy_g(v):
        return np.cos(v) * v * v + 2 * v * np.sin(v)

    np.testing.assert_allclose(g.numpy(), _finite_difference(numpy_f, x0), rtol=1e-6)
    np.testing.assert_allclose(h.numpy(), _finite_difference(lambda v: np.sum(numpy_g(v)), x0), rtol=1e-5)
    assert f.experimental_get_tracing_count() == 1


def test_a_gradient_taken_inside_the_function_replays():
    w = mt.Variable(np.array([0.5, -0.25]))

    @mt.function
    def grad(x):
        with mt.GradientTape() as tape:
            y = mt.reduce_sum(mt.tanh(x * w))
        return tape.gradient(y, w)

    for x0 in ([1.0, 2.0], [-0.5, 3.0]):
        x = np.array(x0)
        expected = _finite_difference(lambda v, x=x: np.sum(np.tanh(x * v)), w.numpy())
        np.testing.assert_allclose(grad(mt.constant(x)).numpy(), expected, rtol=1e-6)
    assert grad.experimental_get_tracing_count() == 1


def test_nested_functions_trace_once_each():
    inner = mt.function(lambda x: mt.square(x) + 1.0)

    @mt.function
    def outer(x):
        return inner(x) * inner(x + 1.0)

    assert float(outer(mt.constant(1.0))) == 2.0 * 5.0
    assert float(outer(mt.constant(2.0))) == 5.0 * 10.0
    assert inner.experimental_get_tracing_count() == 1 and outer.experimental_get_tracing_count() == 1


def test_random_numbers_and_dropout_are_drawn_at_every_call():
    f = mt.function(lambda x: mt.nn.dropout(x, 0.5) + mt.random.normal([64]))
    a, b = f(mt.ones([64])), f(mt.ones([64]))
    assert not np.array_equal(a.numpy(), b.numpy())


def test_get_concrete_function_traces_without_changing_variables():
    v = mt.Variable(1.0)

    @mt.function
    def bump(x):
        v.assign_add(x)
        return v.read_value()

    concrete = bump.get_concrete_function(mt.TensorSpec([], mt.float32))
    assert float(v) == 1.0 and bump.experimental_get_tracing_count() == 1
    assert float(concrete(mt.constant(2.0))) == 3.0 and float(bump(mt.constant(1.0))) == 4.0
    assert str(concrete).startswith(
        "ConcreteFunction Input Parameters:\n  x (POSITIONAL_OR_KEYWORD): TensorSpec(shape=(), dtype=mt.float32"
    )


def lesson08_train_step(model, optimizer, loss_fn):
    """Lesson 08's hand-written train step for `model`, returning the loss tensor."""

    def train_step(x, y):
        with mt.GradientTape() as tape:
            loss = loss_fn(y, model(x, training=True))
        gradients = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(gradients, model.trainable_variables))
        return loss

    return train_step


def _lesson08_style_training(wrap):
    keras.utils.set_random_seed(0)
    model = keras.Sequential([keras.Input((20,)), keras.layers.Dense(16, activation="relu"), keras.layers.Dense(10)])
    optimizer = keras.optimizers.Adam(0.01)
    loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    step = wrap(lesson08_train_step(model, optimizer, loss_fn))
    rng = np.random.default_rng(0)
    x, y = rng.normal(size=(96, 20)).astype("float32"), rng.integers(0, 10, 96)
    losses = [step(x[s : s + 32], y[s : s + 32]).numpy() for _ in range(3) for s in range(0, 96, 32)]
    return np.array(losses), [w.numpy() for w in model.weights], step


def test_a_traced_keras_train_step_replays_bit_for_bit_the_eager_steps():
    eager_losses, eager_weights, _ = _lesson08_style_training(lambda f: f)
    losses, weights, step = _lesson08_style_training(mt.function)
    assert step.experimental_get_tracing_count() == 1
    assert np.array_equal(losses, eager_losses) and eager_losses[-1] < eager_losses[0]
    assert all(np.array_equal(a, b) for a, b in zip(weights, eager_weights))


def test_keras_metrics_in_a_traced_step_count_every_call():
    results = {}
    for name, wrap in (("eager", lambda f: f), ("traced", mt.function)):
        mean, accuracy = keras.metrics.Mean(), keras.metrics.SparseCategoricalAccuracy()

        def step(y, logits, mean=mean, accuracy=accuracy):
            mean.update_state(mt.reduce_sum(logits))
            accuracy.update_state(y, logits)
            return mean.result(), accuracy.result()

        step = wrap(step)
        rng = np.random.default_rng(0)
        for _ in range(4):
            out = step(rng.integers(0, 3, 8), rng.normal(size=(8, 3)).astype(np.float32))
        results[name] = [float(t) for t in out]
    assert results["traced"] == results["eager"]


def test_values_computed_from_the_data_are_computed_again_at_every_call():
    v = mt.Variable([1.0, 2.0, 3.0])

    @mt.function
    def f(x):
        kept = mt.boolean_mask(x, x > 0)  # its length depends on the values: a new length traces again
        return mt.reduce_mean(kept), mt.sort(x), mt.where(x > 0), mt.constant(x) + mt.constant(v)

    for values in ([1.0, -1.0, 2.0], [-1.0, -2.0, 5.0], [3.0, -4.0, 1.0]):
        x = np.array(values, np.float32)
        mean, ordered, where, copies = f(mt.constant(x))
        assert float(mean) == np.mean(x[x > 0]) and ordered.numpy().tolist() == sorted(values)
        assert where.numpy().ravel().tolist() == np.flatnonzero(x > 0).tolist()
        assert copies.numpy().tolist() == (x + v.numpy()).tolist()
        v.assign_add([1.0, 1.0, 1.0])
    assert f.experimental_get_tracing_count() == 2  # two positive entries, then one, then two again


def test_a_custom_gradient_inside_replays_its_values_and_its_gradient():
    @mt.custom_gradient
    def halved_gradient(y):
        return y * 1.0, lambda dy: dy * 0.5

    @mt.function
    def f(x):
        with mt.GradientTape() as tape:
            tape.watch(x)
            y = halved_gradient(x * x)
        return y, tape.gradient(y, x)

    for value in (2.0, 3.0, -1.5):
        y, dy_dx = f(mt.constant(value))
        assert (float(y), float(dy_dx)) == (value * value, value)  # 2x, halved
    assert f.experimental_get_tracing_count() == 1


def _fit_with_a_custom_step(traced: bool):
    class Net(keras.Model):
        def __init__(self):
            super().__init__()
            self.conv = keras.layers.Conv2D(4, 3, padding="same", activation="relu")
            self.flat, self.drop = keras.layers.Flatten(), keras.layers.Dropout(0.2)
            self.out = keras.layers.Dense(10)

        def call(self, x, training=False):
            return self.out(self.drop(self.flat(self.conv(x)), training=training))

        def train_step(self, data):  # lesson 08's, section 6: clipped gradients, the metrics updated by hand
            x, y = data
            with mt.GradientTape() as tape:
                logits = self(x, training=True)
                loss = self.compute_loss(x, y, logits)
            gradients = [mt.clip_by_norm(g, 1.0) for g in tape.gradient(loss, self.trainable_variables)]
            self.optimizer.apply_gradients(zip(gradients, self.trainable_variables))
            for metric in self.metrics:
                metric.update_state(loss) if metric.name == "loss" else metric.update_state(y, logits)
            return {metric.name: metric.result() for metric in self.metrics}

    if traced:
        Net.train_step = mt.function(Net.train_step)
    keras.utils.set_random_seed(0)
    rng = np.random.default_rng(0)
    x, y = rng.random((72, 8, 8, 1)).astype(np.float32), rng.integers(0, 10, 72)
    model = Net()
    model.compile(
        optimizer=keras.optimizers.Adam(0.01), loss="sparse_categorical_crossentropy", metrics=["accuracy"],
        run_eagerly=True,  # fit's own step function runs eagerly: only the train_step traced here is a graph
    )  # fmt: skip
    history = model.fit(x, y, batch_size=32, epochs=2, shuffle=False, verbose=0)
    return history.history, [w.numpy() for w in model.weights], model


def test_fit_with_a_traced_train_step_gives_the_eager_results_bit_for_bit():
    eager_history, eager_weights, _ = _fit_with_a_custom_step(traced=False)
    history, weights, model = _fit_with_a_custom_step(traced=True)
    assert history == eager_history and all(np.array_equal(a, b) for a, b in zip(weights, eager_weights))
    assert model.train_step.experimental_get_tracing_count() == 2  # batches of 32, then the last one of 8


def test_a_traced_method_has_one_function_per_instance_and_lets_it_go():
    import gc
    import weakref

    class Scale(mt.Module):
        def __init__(self, factor):
            super().__init__()
            self.factor = mt.Variable(factor)

        @mt.function
        def __call__(self, x):
            return self.factor * x  # each instance creates nothing here, but traces its own graph

    two, three = Scale(2.0), Scale(3.0)
    assert (float(two(mt.constant(1.0))), float(three(mt.constant(1.0)))) == (2.0, 3.0)
    assert two.__call__.experimental_get_tracing_count() == 1 and three.__call__.experimental_get_tracing_count() == 1
    gone = weakref.ref(two)
    del two
    gc.collect()
    assert gone() is None


def test_a_branch_that_turns_after_an_optimizer_update_is_refused_not_updated_twice():
    w = mt.Variable(1.0)
    optimizer = keras.optimizers.SGD(0.25)

    @mt.function
    def step(x):
        with mt.GradientTape() as tape:
            loss = w * x
        optimizer.apply_gradients([(tape.gradient(loss, w), w)])
        return loss if w > 0.4 else -loss  # decided after the update: tracing the other way would update again

    assert [float(step(mt.constant(1.0))) for _ in range(2)] == [1.0, 0.75]
    with pytest.raises(RuntimeError, match="went another way .* after Optimizer.apply_gradients had run"):
        step(mt.constant(1.0))
    assert float(w) == 0.25  # three updates, one per call: none made twice


def test_mt_print_prints_once_per_call_even_when_a_guard_sends_the_call_to_another_graph(capsys):
    import sys

    @mt.function
    def f(x):
        mt.print("value", x, output_stream=sys.stdout)
        return x if x > 0 else -x

    for value in (1.0, -2.0, 3.0, -4.0):
        f(mt.constant(value))
    assert capsys.readouterr().out.splitlines() == ["value 1", "value -2", "value 3", "value -4"]


def test_a_nested_function_with_a_branch_and_an_assign_replays_right_inside_another():
    count = mt.Variable(0.0)
    inner = mt.function(lambda x: (count.assign_add(1.0), x if x > 0 else -x)[1])

    @mt.function
    def outer(x):
        return inner(x) + inner(-x)

    assert [float(outer(mt.constant(v))) for v in (2.0, 3.0, -1.0)] == [4.0, 6.0, 2.0]
    assert float(count) == 6.0  # two per call, none repeated
