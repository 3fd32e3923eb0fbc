"""TensorFlow's scope rules for what a trace makes: a tensor kept from inside a traced function (a leak) has no
value outside it, and an optimizer's first update (which builds its state) may happen only in a function's first
trace. The messages are TensorFlow 2.21's."""

import re

import pytest

import minitape as mt

OUT_OF_SCOPE = (
    r"<tf\.Tensor '\w+:0' shape=\(\) dtype=int32> is out of scope and cannot be used here\. Use return values, "
    r"explicit Python locals or TensorFlow collections to access it\.\nPlease see "
    + re.escape("https://www.tensorflow.org/guide/function#all_outputs_of_a_tffunction_must_be_return_values")
)


def test_a_tensor_leaked_from_a_trace_has_no_value_even_when_it_was_also_returned():
    leaked = []

    @mt.function
    def leaky(a):
        b = a + 1
        leaked.append(b)
        return b

    assert leaky(mt.constant(1)).numpy() == 2  # the returned copy has its value
    assert leaky(mt.constant(5)).numpy() == 6
    with pytest.raises(AttributeError, match="^'SymbolicTensor' object has no attribute 'numpy'$"):
        leaked[0].numpy()

    @mt.function
    def uses_leak(c):
        return c + leaked[0]

    with pytest.raises(TypeError, match=OUT_OF_SCOPE):
        uses_leak(mt.constant(2))


def test_a_tape_around_the_tracing_call_still_differentiates_its_result():
    x = mt.Variable(3.0)

    @mt.function
    def square(v):
        return v * v

    with mt.GradientTape() as tape:
        y = square(x)
    assert tape.gradient(y, x).numpy() == 6.0
    with mt.GradientTape() as tape:
        y = square(x)
    assert tape.gradient(y, x).numpy() == 6.0


def _train_step():
    @mt.function
    def train_step(w, x, y, optimizer):
        with mt.GradientTape() as tape:
            loss = mt.reduce_sum(mt.square(w * x - y))
        gradients = tape.gradient(loss, [w])
        optimizer.apply_gradients(zip(gradients, [w]))

    return train_step


def test_an_optimizer_first_used_in_a_later_trace_is_refused_as_tensorflow_refuses_it():
    w, x, y = mt.Variable(2.0), mt.constant([-1.0]), mt.constant([2.0])
    train_step = _train_step()
    train_step(w, x, y, mt.keras.optimizers.Adam(learning_rate=1e-2))
    # TF 2.21: its Adam creates its slot variables in the second trace
    with pytest.raises(ValueError, match="^tf.function only supports singleton tf.Variables created on the first"):
        train_step(w, x, y, mt.keras.optimizers.Adam(learning_rate=1e-3))
    built = mt.keras.optimizers.Adam(learning_rate=1e-3)
    built.apply_gradients([(mt.constant(0.0), w)])
    train_step(w, x, y, built)  # an optimizer built already makes no state: a later trace may use it


def test_a_variable_only_the_graph_would_hold_is_refused_at_the_first_call():
    @mt.function
    def local(x):
        v = mt.Variable(x)
        return v * 2

    # TF 2.21 raises this at the first call: such a function would need a new variable at every call
    with pytest.raises(ValueError, match="^tf.function only supports singleton tf.Variables created on the first"):
        local(mt.constant(3.0))

    kept = {}

    @mt.function
    def keeps(x):
        if "v" not in kept:
            kept["v"] = mt.Variable(x)
        return kept["v"] * 2

    assert keeps(mt.constant(3.0)).numpy() == 6.0  # a dict outside holds it: allowed
    kept["v"].assign(5.0)
    assert keeps(mt.constant(3.0)).numpy() == 10.0  # and the graph reads it
