"""Softmax cross-entropy trains as TensorFlow's fused kernel does, also when labels are not distributions.

TensorFlow's SoftmaxCrossEntropyWithLogits gives the logits the gradient softmax(logits) - labels, which is the
derivative only when each row of labels sums to 1; Keras 3 on TensorFlow routes the crossentropies of a Keras
softmax's (and sigmoid's) output through its logits. Every number below is what TensorFlow 2.21 (Keras 3.15.1)
printed for the same snippet (2026-11-28).
"""

import warnings

import numpy as np
import pytest

import minitape as tf

keras = tf.keras
pytestmark = pytest.mark.usefixtures("keras_session")

logits = tf.constant([[1.0, 2.0, 0.5], [0.3, -1.0, 2.0]])
multi_hot = tf.constant([[1.0, 1.0, 0.0], [0.2, 0.2, 0.2]])  # rows summing to 2 and to 0.6
TF_LOSS = [1.9287376403808594, 1.0654125213623047]
TF_P_MINUS_Y = [
    [-0.7687761187553406, -0.37146830558776855, 0.14024437963962555],
    [-0.05177454650402069, -0.15960384905338287, 0.6113784313201904],
]


def test_the_nn_op_gives_tensorflows_loss_and_gradients():
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(logits)
        tape.watch(multi_hot)
        loss = tf.nn.softmax_cross_entropy_with_logits(labels=multi_hot, logits=logits)
    np.testing.assert_allclose(loss.numpy(), TF_LOSS, rtol=1e-6)
    np.testing.assert_allclose(tape.gradient(loss, logits).numpy(), TF_P_MINUS_Y, rtol=1e-6, atol=1e-7)
    p = tf.nn.softmax(logits).numpy()
    exact = multi_hot.numpy().sum(-1, keepdims=True) * p - multi_hot.numpy()  # the formula's own derivative
    assert not np.allclose(tape.gradient(loss, logits).numpy(), exact, atol=1e-3)
    labels_gradient = [
        [1.4643688201904297, 0.4643687903881073, 1.9643688201904297],
        [1.9090207815170288, 3.2090206146240234, 0.2090207040309906],
    ]
    np.testing.assert_allclose(tape.gradient(loss, multi_hot).numpy(), labels_gradient, rtol=1e-6)


def test_its_second_derivative_is_tensorflows():
    direction = tf.constant([[1.0, 2.0, 3.0], [0.5, -1.0, 2.0]])
    with tf.GradientTape() as outer:
        outer.watch(logits)
        with tf.GradientTape() as inner:
            inner.watch(logits)
            loss = tf.reduce_sum(tf.nn.softmax_cross_entropy_with_logits(labels=multi_hot, logits=logits))
        along = tf.reduce_sum(inner.gradient(loss, logits) * direction)
    tf_hvp = [
        [-0.21018725633621216, 0.05718354880809784, 0.1530037522315979],
        [-0.17141881585121155, -0.10731130093336105, 0.2787300646305084],
    ]
    np.testing.assert_allclose(outer.gradient(along, logits).numpy(), tf_hvp, rtol=1e-5, atol=1e-7)


def test_another_class_axis_moves_the_classes_last():
    loss = tf.nn.softmax_cross_entropy_with_logits(labels=tf.transpose(multi_hot), logits=tf.transpose(logits), axis=0)
    np.testing.assert_allclose(loss.numpy(), TF_LOSS, rtol=1e-6)


@pytest.mark.parametrize("how", ["from_logits", "keras_softmax"])
def test_keras_categorical_crossentropy_uses_the_fused_gradient(how):
    with tf.GradientTape() as tape:
        tape.watch(logits)
        if how == "from_logits":
            loss = keras.losses.CategoricalCrossentropy(from_logits=True)(multi_hot, logits)
        else:  # probabilities from a Keras softmax: Keras 3 computes the loss from their logits
            loss = keras.losses.CategoricalCrossentropy()(multi_hot, keras.activations.softmax(logits))
    assert float(loss) == pytest.approx(1.497075080871582, rel=1e-6)
    np.testing.assert_allclose(tape.gradient(loss, logits).numpy(), np.array(TF_P_MINUS_Y) / 2, rtol=1e-6, atol=1e-7)


def test_probabilities_from_tf_nn_softmax_keep_the_formulas_gradient():
    with tf.GradientTape() as tape:
        tape.watch(logits)
        loss = keras.losses.CategoricalCrossentropy()(multi_hot, tf.nn.softmax(logits))
    tf_gradient = [
        [-0.2687761187553406, 0.12853172421455383, 0.14024437963962555],
        [-0.055532362312078476, -0.0878811627626419, 0.14341352880001068],
    ]
    np.testing.assert_allclose(tape.gradient(loss, logits).numpy(), tf_gradient, rtol=1e-5, atol=1e-7)


def test_a_keras_softmax_or_sigmoid_is_not_clipped_as_in_keras_3():
    saturated = keras.activations.softmax(tf.constant([[30.0, 0.0, -30.0]]))
    assert float(keras.losses.CategoricalCrossentropy()(tf.constant([[0.0, 0.0, 1.0]]), saturated)) == 60.0
    assert float(keras.losses.SparseCategoricalCrossentropy()(tf.constant([2]), saturated)) == 60.0
    clipped = tf.nn.softmax(tf.constant([[30.0, 0.0, -30.0]]))  # no logits to find: clipped at 1e-7, as TensorFlow
    assert float(keras.losses.CategoricalCrossentropy()(tf.constant([[0.0, 0.0, 1.0]]), clipped)) == pytest.approx(
        16.11809539794922
    )
    sigmoid = keras.activations.sigmoid(tf.constant([[20.0, -20.0]]))
    assert float(keras.losses.BinaryCrossentropy()(tf.constant([[0.0, 1.0]]), sigmoid)) == pytest.approx(20.0)


def test_from_logits_on_softmax_output_warns_as_keras_3_does():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        keras.losses.CategoricalCrossentropy(from_logits=True)(multi_hot, keras.activations.softmax(logits))
    assert any(
        "received `from_logits=True`, but the `output` argument was produced by a Softmax" in str(w.message)
        for w in caught
    )


@pytest.mark.parametrize("activation, from_logits", [("softmax", False), (None, True)])
def test_fit_on_multi_hot_targets_follows_tensorflow_step_for_step(activation, from_logits):
    rng = np.random.default_rng(1)
    x = rng.normal(size=(6, 4)).astype("float32")
    y = np.array([[1, 1, 0], [0, 1, 1], [1, 0, 0], [1, 1, 1], [0, 0, 1], [0.5, 0.5, 0.5]], "float32")
    kernel = rng.normal(size=(4, 3)).astype("float32") * 0.5
    model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3, activation=activation)])
    model.set_weights([kernel, np.zeros(3, "float32")])
    model.compile(keras.optimizers.SGD(0.5), loss=keras.losses.CategoricalCrossentropy(from_logits=from_logits))
    history = model.fit(x, y, batch_size=6, epochs=3, shuffle=False, verbose=0)
    np.testing.assert_allclose(
        history.history["loss"], [2.176664113998413, 2.0817999839782715, 2.006178140640259], rtol=1e-6
    )
    tf_kernel = [
        [-1.364434003829956, -0.877610981464386, -0.1999029964208603],
        [0.00036299999919719994, 0.2690599858760834, -0.06394200026988983],
        [0.9849870204925537, -0.43464499711990356, -0.36716601252555847],
        [0.8452950119972229, 0.4118010103702545, 0.6639260053634644],
    ]
    np.testing.assert_allclose(model.get_weights()[0], tf_kernel, atol=2e-6)
