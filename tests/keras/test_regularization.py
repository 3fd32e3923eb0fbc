"""Initializers, regularizers, constraints, add_weight's TF signature, add_loss and model.losses in training."""

from __future__ import annotations

import numpy as np
import pytest

import minitape as mt
from minitape.aids.check_gradients import check_gradients

keras = mt.keras
layers = mt.keras.layers

pytestmark = pytest.mark.usefixtures("keras_session")


def test_tensorflows_top_level_initializers_give_tensors_with_tfs_defaults():
    mt.random.set_seed(1)
    normal = mt.random_normal_initializer()(shape=(200, 200))
    assert isinstance(normal, mt.Tensor) and normal.dtype == mt.float32
    assert abs(float(np.std(normal.numpy())) - 1.0) < 0.02  # TF's stddev is 1.0 (Keras' RandomNormal: 0.05)
    uniform = mt.random_uniform_initializer()(shape=(1000,)).numpy()
    assert uniform.min() >= -0.05 and uniform.max() < 0.05
    assert mt.zeros_initializer()(shape=(2,)).numpy().tolist() == [0.0, 0.0]
    assert mt.ones_initializer()(shape=(2,), dtype=mt.float64).dtype == mt.float64
    np.testing.assert_array_equal(mt.constant_initializer([1, 2, 3, 4])(shape=(2, 2)).numpy(), [[1, 2], [3, 4]])
    with pytest.raises(TypeError, match="cannot fill shape"):
        mt.constant_initializer([1, 2, 3])(shape=(2, 2))


def test_a_tf_guide_layer_with_initializer_objects():
    class Linear(layers.Layer):
        def __init__(self, units=32, input_dim=32):
            super().__init__()
            w_init = mt.random_normal_initializer()
            self.w = mt.Variable(initial_value=w_init(shape=(input_dim, units), dtype="float32"), trainable=True)
            b_init = mt.zeros_initializer()
            self.b = mt.Variable(initial_value=b_init(shape=(units,), dtype="float32"), trainable=True)

        def call(self, inputs):
            return mt.matmul(inputs, self.w) + self.b

    linear = Linear(4, 2)
    assert linear(mt.ones((2, 2))).shape == (2, 4) and len(linear.trainable_weights) == 2


def test_add_weight_takes_tfs_keywords_with_an_optional_name():
    class Scale(layers.Layer):
        def build(self, input_shape):
            self.w = self.add_weight(shape=(input_shape[-1],), initializer="random_normal", trainable=True)
            self.b = self.add_weight(shape=(1,), initializer="zeros", trainable=False)
            self.k = self.add_weight("kernel", shape=[2], initializer=keras.initializers.Constant(3.0))

        def call(self, x):
            return x * self.w + self.b

    layer = Scale()
    layer(np.ones((1, 2)))
    assert [v.name for v in layer.weights] == ["scale/variable:0", "scale/kernel:0", "scale/variable_1:0"]
    assert [v.trainable for v in (layer.w, layer.b)] == [True, False]
    np.testing.assert_array_equal(layer.k.numpy(), [3.0, 3.0])
    assert layer.add_weight(shape=(2, 2)).dtype == mt.float32  # default initializer: glorot_uniform


def test_regularizer_values():
    w = np.array([[1.0, -2.0], [0.5, 0.0]])
    assert float(keras.regularizers.L1(0.1)(mt.constant(w))) == pytest.approx(0.35)
    assert float(keras.regularizers.L2(0.1)(mt.constant(w))) == pytest.approx(0.525)
    assert float(keras.regularizers.L1L2(l1=0.1, l2=0.1)(mt.constant(w))) == pytest.approx(0.875)
    assert float(keras.regularizers.get("l2")(mt.constant(w))) == pytest.approx(0.0525)  # Keras' default 0.01
    assert float(keras.regularizers.get("l1")(mt.constant(w))) == pytest.approx(0.035)
    check_gradients(lambda x: keras.regularizers.L1L2(0.1, 0.2)(x), [w + 0.1], order=1)


def test_kernel_bias_and_activity_regularizers_make_up_layer_losses():
    dense = layers.Dense(
        2,
        kernel_initializer="ones",
        bias_initializer="ones",
        kernel_regularizer=keras.regularizers.L2(0.1),
        bias_regularizer="l1",
        activity_regularizer=keras.regularizers.L1(0.5),
    )
    x = np.array([[1.0, 2.0, 3.0]])
    out = dense(x)  # every output is 1 + 2 + 3 + 1 = 7
    np.testing.assert_allclose(out.numpy(), [[7.0, 7.0]])
    values = sorted(float(v) for v in dense.losses)
    assert values == pytest.approx(sorted([0.5 * 14.0, 0.1 * 6.0, 0.01 * 2.0]))


def test_activity_penalty_is_divided_by_the_batch_size_as_keras_3_does():
    dense = layers.Dense(2, kernel_initializer="ones", activity_regularizer=keras.regularizers.L1(0.1))
    x = np.ones((4, 3), np.float32)
    with mt.GradientTape() as tape:
        out = dense(x)  # every output is 3
        (penalty,) = dense.losses
    # Keras 3 gives 0.6: 0.1 * sum(|out|) = 0.1 * 4 * 2 * 3 = 2.4, over a batch of 4
    assert float(penalty) == pytest.approx(0.1 * np.abs(out.numpy()).sum() / 4) == pytest.approx(0.6)
    # d penalty / d kernel[i, j] = 0.1 * sum over the batch of x[b, i] / 4 = 0.1
    np.testing.assert_allclose(tape.gradient(penalty, dense.kernel).numpy(), np.full((3, 2), 0.1), rtol=1e-6)
    dense(np.ones((8, 3), np.float32))  # a bigger batch gives the same penalty per example
    assert float(dense.losses[0]) == pytest.approx(0.6)


def test_add_loss_is_cleared_at_each_outer_call_and_collected_from_sublayers():
    class Penalised(layers.Layer):
        def call(self, x):
            self.add_loss(mt.reduce_sum(x))
            return x

    class Outer(keras.Model):
        def __init__(self):
            super().__init__()
            self.inner = Penalised()

        def call(self, x):
            return self.inner(x)

    model = Outer()
    model(np.array([[1.0, 2.0]]))
    assert [float(v) for v in model.losses] == [3.0]
    model(np.array([[5.0]]))  # the previous call's loss is gone
    assert [float(v) for v in model.losses] == [5.0]


def test_fit_adds_model_losses_to_the_compiled_loss():
    model = keras.Sequential(
        [
            layers.Dense(
                1,
                kernel_initializer="ones",
                bias_initializer="zeros",
                kernel_regularizer=keras.regularizers.L2(0.5),
            )
        ]
    )
    model.compile(keras.optimizers.SGD(0.0), loss="mse")
    x, y = np.array([[1.0, 1.0]]), np.array([[0.0]])
    loss = model.evaluate(x, y, verbose=0)
    assert loss == pytest.approx((2.0 - 0.0) ** 2 + 0.5 * 2.0)  # mse + l2 * sum(w^2), as Keras reports it

    trained = keras.Sequential(
        [layers.Dense(1, kernel_initializer="ones", kernel_regularizer=keras.regularizers.L2(1.0))]
    )
    trained.compile(keras.optimizers.SGD(0.1), loss="mse")
    trained.fit(np.zeros((4, 2)), np.zeros((4, 1)), epochs=1, batch_size=4, verbose=0)
    # the data gives no gradient; the penalty's gradient 2 * 1.0 * w shrinks the kernel: 1 - 0.1 * 2 = 0.8
    np.testing.assert_allclose(trained.layers[0].kernel.numpy(), [[0.8], [0.8]], rtol=1e-6)


def test_constraint_values():
    w = mt.constant([[3.0, 0.1], [4.0, -0.2]])
    np.testing.assert_allclose(keras.constraints.NonNeg()(w).numpy(), [[3.0, 0.1], [4.0, 0.0]])
    np.testing.assert_allclose(keras.constraints.MaxNorm(1.0)(w).numpy()[:, 0], [0.6, 0.8], rtol=1e-5)
    np.testing.assert_allclose(keras.constraints.MaxNorm(1.0)(w).numpy()[:, 1], [0.1, -0.2], rtol=1e-5)
    norms = np.linalg.norm(keras.constraints.UnitNorm()(w).numpy(), axis=0)
    np.testing.assert_allclose(norms, [1.0, 1.0], rtol=1e-5)
    clipped = keras.constraints.MinMaxNorm(min_value=1.0, max_value=2.0)(w).numpy()
    np.testing.assert_allclose(np.linalg.norm(clipped, axis=0), [2.0, 1.0], rtol=1e-5)


def test_constraints_are_applied_after_each_optimizer_step():
    dense = layers.Dense(2, kernel_constraint="non_neg", bias_constraint=keras.constraints.MaxNorm(0.5))
    model = keras.Sequential([dense])
    model.compile(keras.optimizers.SGD(1.0), loss="mse")
    model.fit(np.ones((8, 3)), np.full((8, 2), -10.0), epochs=2, verbose=0)
    assert dense.kernel.numpy().min() >= 0.0
    assert np.linalg.norm(dense.bias.numpy()) <= 0.5 + 1e-6


def test_a_model_whose_only_loss_is_add_loss_trains_without_targets():
    class Centered(keras.Model):
        """Learns a vector close to the mean of the inputs, with the loss added in call (no y, no compiled loss)."""

        def __init__(self):
            super().__init__()
            self.center = layers.Dense(2, use_bias=False, kernel_initializer="zeros")

        def call(self, x):
            guess = self.center(mt.ones((1, 1)))
            self.add_loss(mt.reduce_mean(mt.reduce_sum(mt.square(x - guess), axis=-1)))
            return guess

    model = Centered()
    model.compile(keras.optimizers.SGD(0.1))
    x = np.array([[1.0, 3.0], [3.0, 5.0]], "float32")
    history = model.fit(x, epochs=60, batch_size=2, verbose=0)
    np.testing.assert_allclose(model.center.kernel.numpy(), [[2.0, 4.0]], atol=1e-3)
    assert history.history["loss"][-1] == pytest.approx(2.0, abs=1e-3)  # the spread left around the mean

    bare = keras.Sequential([layers.Dense(1)])
    bare.compile("sgd")
    with pytest.raises(RuntimeError, match="no loss to train"):
        bare.fit(x, np.ones((2, 1)), verbose=0)
