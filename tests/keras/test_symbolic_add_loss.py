"""add_loss in a layer's call when the layer is called on keras.Input: those losses are not kept."""

from __future__ import annotations

import numpy as np
import pytest

import minitape as mt

keras = mt.keras

pytestmark = pytest.mark.usefixtures("keras_session")


class ActivityRegularizationLayer(keras.layers.Layer):
    def call(self, inputs):
        self.add_loss(1e-2 * mt.reduce_sum(inputs))
        return inputs


def test_a_model_built_from_keras_input_has_only_its_weight_regularizers_losses_until_called():
    layer = ActivityRegularizationLayer()
    inputs = keras.Input(shape=(3,))
    x = layer(inputs)
    dense = keras.layers.Dense(2, kernel_regularizer="l2", activity_regularizer="l1")
    model = keras.Model(inputs, dense(x))
    # TensorFlow 2.21 (Keras 3.15.1): layer.losses == [], and the model has one loss, the kernel's L2 penalty
    assert layer.losses == []
    assert len(model.losses) == 1
    kernel = dense.kernel.numpy()
    np.testing.assert_allclose(float(model.losses[0]), 0.01 * np.sum(kernel**2), rtol=1e-6)
    model(mt.ones((2, 3)))
    # after a call, as in TensorFlow: the add_loss loss, the kernel penalty, the activity penalty
    assert (len(model.losses), len(layer.losses), len(dense.losses)) == (3, 1, 2)
    assert float(layer.losses[0]) == pytest.approx(0.06)


def test_a_subclassed_model_called_on_keras_input_keeps_no_add_loss_loss():
    class WithLoss(keras.Model):
        def __init__(self):
            super().__init__()
            self.regularize = ActivityRegularizationLayer()

        def call(self, x):
            self.add_loss(mt.reduce_mean(x))
            return self.regularize(x)

    model = WithLoss()
    model(keras.Input(shape=(4,)))
    assert model.losses == []
    model(mt.ones((2, 4)))
    assert sorted(float(loss) for loss in model.losses) == pytest.approx([0.08, 1.0])
