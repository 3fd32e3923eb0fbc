"""A tensor a traced function made and kept past its call (a side effect appended it to a list; `model.losses`
read after a traced train step) holds only the value of that one trace: turning it into a Python value raises
TensorFlow 2.21's error, as its graph tensor has no value (before, minitape gave the trace's stale value)."""

import numpy as np
import pytest

import minitape as mt
from minitape import keras

pytestmark = pytest.mark.usefixtures("keras_session")


def _leak():
    kept = []

    @mt.function
    def f(x):
        y = x * 2.0
        kept.append(y)
        return y

    assert float(f(mt.constant(1.0))) == 2.0  # the returned copy has its value
    return kept[0]


def test_python_values_of_a_leaked_tensor_raise_tensorflows_errors():
    # TensorFlow 2.21's errors, for a tensor kept by `kept.append(y)` inside a tf.function
    leaked = _leak()
    with pytest.raises(TypeError, match=r"^float\(\) argument must be a string or a real number, not 'SymbolicTensor'"):
        float(leaked)
    with pytest.raises(TypeError, match=r"^int\(\) argument must be a string, a bytes-like object or a real number"):
        int(leaked)
    with pytest.raises(TypeError, match=r"^unsupported format string passed to SymbolicTensor.__format__$"):
        f"{leaked:.2f}"
    with pytest.raises(TypeError, match=r"^Using a symbolic `tf.Tensor` as a Python `bool` is not allowed"):
        bool(leaked)
    with pytest.raises(NotImplementedError, match=r"^Cannot convert a symbolic tf.Tensor \(\w+:0\) to a numpy array"):
        np.asarray(leaked)


def test_model_losses_read_after_a_traced_step_are_graph_tensors_not_the_traces_values():
    class ActivityRegularizationLayer(keras.layers.Layer):
        def call(self, inputs):
            self.add_loss(1e-2 * mt.reduce_sum(inputs))
            return inputs

    inputs = keras.Input(shape=(3,))
    model = keras.Model(inputs, ActivityRegularizationLayer()(keras.layers.Dense(2)(inputs)))

    @mt.function
    def step(x):
        model(x)
        return sum(model.losses)

    first = step(mt.ones((2, 3)))
    second = step(2 * mt.ones((2, 3)))
    assert float(second) == pytest.approx(2 * float(first))  # the replay computes each call's loss
    # TensorFlow 2.21: TypeError "float() argument must be ... not 'SymbolicTensor'"; minitape held the trace's value
    with pytest.raises(TypeError, match="not 'SymbolicTensor'"):
        [float(loss) for loss in model.losses]
    model(mt.ones((2, 3)))  # an eager call's losses are values again
    assert float(model.losses[0]) == pytest.approx(float(first))
