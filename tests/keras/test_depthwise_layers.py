"""DepthwiseConv2D, SeparableConv2D, DepthwiseConv1D and SeparableConv1D: Keras 3.15's weights (names, shapes,
order, parameter counts), the numbers Keras 3.15 on TensorFlow 2.21 gives, Keras' refusals, regularizers and
constraints, get_config, and a small MobileNet-like model that learns the digits with fit, traced and eagerly."""

from __future__ import annotations

import numpy as np
import pytest

import minitape as mt

keras = mt.keras
layers = mt.keras.layers

pytestmark = pytest.mark.usefixtures("keras_session")

X = np.arange(1 * 7 * 7 * 2, dtype=np.float32).reshape(1, 7, 7, 2) / 10
X1 = np.arange(1 * 6 * 2, dtype=np.float32).reshape(1, 6, 2) / 5


def _weights(layer):
    return [(w.name, tuple(w.shape)) for w in layer.weights]


def test_the_weights_are_keras_3s_in_name_shape_and_order():
    depthwise = layers.DepthwiseConv2D(3, depth_multiplier=2)
    assert depthwise(np.zeros((1, 5, 5, 3), np.float32)).shape == (1, 3, 3, 6)
    assert _weights(depthwise) == [("depthwise_conv2d/kernel:0", (3, 3, 3, 2)), ("depthwise_conv2d/bias:0", (6,))]
    separable = layers.SeparableConv2D(4, 3, depth_multiplier=2)
    assert separable(np.zeros((1, 5, 5, 3), np.float32)).shape == (1, 3, 3, 4)
    assert _weights(separable) == [
        ("separable_conv2d/depthwise_kernel:0", (3, 3, 3, 2)),
        ("separable_conv2d/pointwise_kernel:0", (1, 1, 6, 4)),
        ("separable_conv2d/bias:0", (4,)),
    ]
    depthwise1 = layers.DepthwiseConv1D(3, depth_multiplier=2)
    assert depthwise1(np.zeros((1, 5, 3), np.float32)).shape == (1, 3, 6)
    assert _weights(depthwise1) == [("depthwise_conv1d/kernel:0", (3, 3, 2)), ("depthwise_conv1d/bias:0", (6,))]
    separable1 = layers.SeparableConv1D(4, 3, depth_multiplier=2)
    assert separable1(np.zeros((1, 5, 3), np.float32)).shape == (1, 3, 4)
    assert _weights(separable1) == [
        ("separable_conv1d/depthwise_kernel:0", (3, 3, 2)),
        ("separable_conv1d/pointwise_kernel:0", (1, 6, 4)),
        ("separable_conv1d/bias:0", (4,)),
    ]
    assert separable.depthwise_kernel is separable.weights[0] and depthwise.kernel is depthwise.weights[0]
    assert layers.SeparableConvolution2D is layers.SeparableConv2D
    assert layers.SeparableConvolution1D is layers.SeparableConv1D
    assert not hasattr(separable, "kernel")  # Keras 3's SeparableConv2D has none either


def test_parameter_counts_are_keras_3s(capsys):
    model = keras.Sequential(
        [
            keras.Input((8, 8, 1)),
            layers.Conv2D(8, 3, padding="same"),
            layers.DepthwiseConv2D(3, padding="same"),
            layers.SeparableConv2D(16, 3, strides=2, padding="same", depth_multiplier=2),
            layers.DepthwiseConv2D(3, use_bias=False),
        ]
    )
    # Keras 3.15's summary: 80, 80, 416 and 144 parameters, 720 in all; output shapes as below
    assert [layer.count_params() for layer in model.layers] == [80, 80, 416, 144]
    assert [tuple(layer.output.shape) for layer in model.layers] == [
        (None, 8, 8, 8),
        (None, 8, 8, 8),
        (None, 4, 4, 16),
        (None, 2, 2, 16),
    ]
    model.summary()
    assert "Total params: 720" in capsys.readouterr().out
    sequence = keras.Sequential(
        [
            keras.Input((10, 3)),
            layers.DepthwiseConv1D(3, depth_multiplier=2),
            layers.SeparableConv1D(5, 3, depth_multiplier=2, use_bias=False),
        ]
    )
    assert [layer.count_params() for layer in sequence.layers] == [24, 96]  # Keras 3.15's


def test_depthwise_conv2d_with_strides_and_dilation_gives_keras_3s_numbers():
    layer = layers.DepthwiseConv2D(3, strides=2, dilation_rate=2, padding="same", depth_multiplier=2)
    layer.build(X.shape)
    layer.set_weights([np.arange(36, dtype=np.float32).reshape(3, 3, 2, 2) / 10 - 1, np.array([0.5, -0.5, 1, 2])])
    keras_3 = [  # Keras 3.15 on TensorFlow 2.21, rounded to 4 digits
        [[12.98, 12.62, 15.4, 17.08], [19.14, 19.22, 22.64, 24.78], [22.02, 22.34, 26.0, 28.38]]
        + [[13.62, 13.58, 16.52, 18.52]],
        [[28.58, 29.38, 33.28, 36.14], [38.9, 40.78, 45.88, 49.85], [41.06, 43.3, 48.76, 53.09]]
        + [[23.3, 24.58, 28.72, 32.06]],
        [[42.02, 44.5, 50.08, 54.62], [54.02, 58.42, 66.04, 72.53], [56.18, 60.94, 68.92, 75.77]]
        + [[30.02, 32.98, 38.8, 43.82]],
        [[9.78, 11.66, 16.2, 20.12], [6.18, 9.62, 15.68, 21.18], [6.18, 9.86, 16.16, 21.9]]
        + [[-2.38, -0.18, 4.52, 8.76]],
    ]
    np.testing.assert_allclose(layer(X).numpy()[0], keras_3, atol=1e-4)


def test_unequal_strides_give_keras_3s_numbers():
    layer = layers.DepthwiseConv2D((3, 2), strides=(2, 1), use_bias=False)
    layer.build(X.shape)
    layer.set_weights([np.arange(12, dtype=np.float32).reshape(3, 2, 2, 1) / 10 - 0.5])
    y = layer(X).numpy()[0]
    assert y.shape == (3, 6, 2)
    np.testing.assert_allclose(y[..., 0], np.full((3, 6), 2.3), atol=1e-5)  # Keras 3.15
    np.testing.assert_allclose(y[:, 0, 1], [3.26, 4.94, 6.62], atol=1e-5)
    np.testing.assert_allclose(y[0, :, 1], [3.26, 3.38, 3.5, 3.62, 3.74, 3.86], atol=1e-5)


def test_separable_conv2d_gives_keras_3s_numbers():
    layer = layers.SeparableConv2D(3, 2, strides=2, padding="same", depth_multiplier=2, activation="relu")
    layer.build(X.shape)
    depthwise = np.arange(16, dtype=np.float32).reshape(2, 2, 2, 2) / 10 - 0.7
    pointwise = np.arange(12, dtype=np.float32).reshape(1, 1, 4, 3) / 6 - 1
    layer.set_weights([depthwise, pointwise, np.array([0.1, 0.2, -0.3])])
    keras_3 = [  # Keras 3.15 on TensorFlow 2.21, rounded to 4 digits
        [[0.0, 0.6067, 1.0333], [0.0, 0.98, 1.46], [0.22, 1.3533, 1.8867], [1.06, 1.15, 0.64]],
        [[1.82, 3.22, 4.02], [2.14, 3.5933, 4.4467], [2.46, 3.9667, 4.8733], [3.3, 2.83, 1.76]],
        [[4.06, 5.8333, 7.0067], [4.38, 6.2067, 7.4333], [4.7, 6.58, 7.86], [5.54, 4.51, 2.88]],
        [[10.24, 6.3833, 1.9267], [10.72, 6.6767, 2.0333], [11.2, 6.97, 2.14], [7.76, 4.325, 0.29]],
    ]
    np.testing.assert_allclose(layer(X).numpy()[0], keras_3, atol=1e-4)


def test_the_1d_layers_give_keras_3s_numbers():
    depthwise = layers.DepthwiseConv1D(3, padding="same", depth_multiplier=2, use_bias=False)
    depthwise.build(X1.shape)
    depthwise.set_weights([np.arange(12, dtype=np.float32).reshape(3, 2, 2) / 10 - 0.5])
    keras_3 = [  # Keras 3.15 on TensorFlow 2.21
        [0.12, 0.16, 0.32, 0.4],
        [0.2, 0.32, 0.5, 0.68],
        [0.08, 0.32, 0.62, 0.92],
        [-0.04, 0.32, 0.74, 1.16],
        [-0.16, 0.32, 0.86, 1.4],
        [-1.0, -0.64, -0.32, 0.08],
    ]
    np.testing.assert_allclose(depthwise(X1).numpy()[0], keras_3, atol=1e-5)
    separable = layers.SeparableConv1D(2, 2, strides=2)
    separable.build(X1.shape)
    separable.set_weights(
        [np.array([[1.0, 2.0], [3.0, -1.0]]).reshape(2, 2, 1), np.array([[[1.0, -1.0], [0.5, 2.0]]]), [1.0, 0.0]]
    )
    np.testing.assert_allclose(separable(X1).numpy()[0], [[2.1, -1.6], [5.7, -3.2], [9.3, -4.8]], atol=1e-5)


def test_keras_refusals():
    with pytest.raises(ValueError, match="Invalid value for argument `depth_multiplier`.*Received depth_multiplier=0"):
        layers.DepthwiseConv2D(3, depth_multiplier=0)
    with pytest.raises(ValueError, match="Invalid value for argument `filters`.*Received filters=0"):
        layers.SeparableConv2D(0, 3)
    with pytest.raises(ValueError, match="padding must be 'valid' or 'same', got 'causal'"):
        layers.DepthwiseConv1D(3, padding="causal")
    with pytest.raises(ValueError, match="channels_last"):
        layers.SeparableConv2D(2, 3, data_format="channels_first")
    with pytest.raises(ValueError, match="kernel_size"):
        layers.DepthwiseConv2D(0)
    layer = layers.DepthwiseConv2D(3)
    layer(np.zeros((1, 5, 5, 3), np.float32))
    with pytest.raises(ValueError, match="axis -1 \\(channels\\) of the input to have size 3"):
        layer(np.zeros((1, 5, 5, 4), np.float32))
    with pytest.raises(ValueError, match="at least 3x3 pixels"):
        layers.SeparableConv2D(2, 3)(np.zeros((1, 2, 5, 1), np.float32))
    with pytest.raises(ValueError, match="4-D input"):
        layers.DepthwiseConv2D(3)(np.zeros((5, 5, 3), np.float32))


def test_regularizers_constraints_and_initializers_reach_their_weights():
    layer = layers.SeparableConv2D(
        2,
        3,
        depthwise_initializer="ones",
        pointwise_initializer=keras.initializers.Constant(0.5),
        bias_initializer=keras.initializers.Constant(-1.0),
        depthwise_regularizer=keras.regularizers.L2(0.1),
        pointwise_regularizer=keras.regularizers.L1(0.2),
        pointwise_constraint="non_neg",
    )
    model = keras.Sequential([keras.Input((5, 5, 3)), layer])
    assert layer.depthwise_kernel.numpy().tolist() == np.ones((3, 3, 3, 1)).tolist()
    assert set(layer.pointwise_kernel.numpy().ravel()) == {0.5} and set(layer.bias.numpy()) == {-1.0}
    penalties = sorted(float(loss) for loss in model.losses)
    np.testing.assert_allclose(penalties, sorted([0.1 * 27, 0.2 * 0.5 * 6]), rtol=1e-6)
    model.compile(keras.optimizers.SGD(1.0), loss="mse")
    model.fit(np.ones((4, 5, 5, 3)), np.full((4, 3, 3, 2), -10.0), epochs=2, verbose=0)
    assert layer.pointwise_kernel.numpy().min() >= 0.0  # non_neg, applied after each step
    depthwise = layers.DepthwiseConv2D(2, depthwise_regularizer="l2", depthwise_constraint="non_neg", use_bias=False)
    depthwise.build((1, 4, 4, 2))
    depthwise.set_weights([np.full((2, 2, 2, 1), 2.0)])
    assert [float(loss) for loss in depthwise.losses] == pytest.approx([0.01 * 4 * 8])  # Keras' l2 is 0.01


def test_get_config_rebuilds_the_layer():
    layer = layers.SeparableConv2D(4, (3, 2), strides=2, padding="same", depth_multiplier=3, activation="relu")
    config = layer.get_config()
    assert config["filters"] == 4 and config["depth_multiplier"] == 3 and config["kernel_size"] == (3, 2)
    again = layers.SeparableConv2D.from_config(config)
    out = again(np.zeros((2, 6, 6, 2), np.float32))
    assert out.shape == (2, 3, 3, 4) and _weights(again)[1][1] == (1, 1, 6, 4)
    depthwise = layers.DepthwiseConv1D.from_config(layers.DepthwiseConv1D(5, dilation_rate=2).get_config())
    assert depthwise.dilation_rate == (2,) and not hasattr(depthwise, "filters")


def mobilenet_like():
    return keras.Sequential(
        [
            keras.Input((8, 8, 1)),
            layers.Conv2D(8, 3, padding="same", use_bias=False),
            layers.BatchNormalization(momentum=0.9),
            layers.ReLU(),
            layers.DepthwiseConv2D(3, padding="same", use_bias=False),
            layers.BatchNormalization(momentum=0.9),
            layers.ReLU(),
            layers.SeparableConv2D(16, 3, strides=2, padding="same", depth_multiplier=2, activation="relu"),
            layers.GlobalAveragePooling2D(),
            layers.Dense(10),
        ]
    )


def test_a_mobilenet_like_model_learns_the_digits_with_fit_traced_as_eagerly():
    (x, y), (x_test, y_test) = keras.datasets.digits.load_data()
    x, x_test = (x / 16.0)[..., None].astype(np.float32), (x_test / 16.0)[..., None].astype(np.float32)
    results = []
    for run_eagerly in (False, True):
        keras.utils.set_random_seed(0)
        model = mobilenet_like()
        loss = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
        model.compile(keras.optimizers.Adam(0.01), loss=loss, metrics=["accuracy"], run_eagerly=run_eagerly)
        history = model.fit(x, y, batch_size=32, epochs=5, verbose=0).history
        results.append((history, model.evaluate(x_test, y_test, verbose=0, return_dict=True), model))
    (history, evaluated, traced), (history_eagerly, evaluated_eagerly, _) = results
    assert traced.train_function.experimental_get_tracing_count() >= 1  # it was traced, not run eagerly
    assert history == history_eagerly and evaluated == evaluated_eagerly
    assert history["loss"][-1] < 0.3 * history["loss"][0]
    assert evaluated["accuracy"] > 0.7
