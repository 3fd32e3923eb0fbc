"""Lambda, Reshape, LayerNormalization, Embedding, Concatenate/Add/..., AveragePooling2D, GlobalAveragePooling2D:
values against numpy, gradients against finite differences (float64), and their input errors."""

from __future__ import annotations

import numpy as np
import pytest

import minitape as mt
from minitape.aids.check_gradients import check_gradients

keras = mt.keras
layers = mt.keras.layers

pytestmark = pytest.mark.usefixtures("keras_session")
RNG = np.random.default_rng(0)


def test_lambda_applies_its_function_with_arguments():
    layer = layers.Lambda(lambda x, power: x**power, arguments={"power": 3})
    np.testing.assert_allclose(layer(np.array([[1.0, 2.0]])).numpy(), [[1.0, 8.0]])
    assert layer.variables == []
    with pytest.raises(TypeError, match="function must be callable"):
        layers.Lambda(3)


def test_reshape_keeps_the_batch_axis_and_infers_minus_one():
    x = np.arange(24.0).reshape(2, 12)
    assert layers.Reshape((3, 4))(x).shape == (2, 3, 4)
    np.testing.assert_array_equal(layers.Reshape((-1, 2))(x).numpy(), x.reshape(2, 6, 2))
    with pytest.raises(
        ValueError, match=r"expected 10 values per example to fill target_shape \(5, 2\).*Each example has 12 values"
    ):
        layers.Reshape((5, 2))(x)


def layer_norm_numpy(x, gamma, beta, eps=1e-3):
    mean = x.mean(axis=-1, keepdims=True)
    var = x.var(axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * gamma + beta


def test_layer_normalization_normalises_each_example_over_its_features():
    x = RNG.normal(size=(4, 5))
    layer = layers.LayerNormalization(dtype="float64")
    out = layer(x).numpy()
    np.testing.assert_allclose(out, layer_norm_numpy(x, 1.0, 0.0), rtol=1e-12)
    assert [v.name for v in layer.weights] == ["layer_normalization/gamma:0", "layer_normalization/beta:0"]
    assert layer.gamma.shape == (5,)
    np.testing.assert_allclose(layer(x, training=True).numpy(), out)  # no batch statistics: the same


def test_layer_normalization_over_several_axes():
    x = RNG.normal(size=(2, 3, 4))
    out = layers.LayerNormalization(axis=[1, 2], epsilon=1e-5, dtype="float64")(x).numpy()
    flat = x.reshape(2, 12)
    want = ((flat - flat.mean(1, keepdims=True)) / np.sqrt(flat.var(1, keepdims=True) + 1e-5)).reshape(2, 3, 4)
    np.testing.assert_allclose(out, want, rtol=1e-12)


def test_layer_normalization_gradients():
    layer = layers.LayerNormalization(dtype="float64")
    x = RNG.normal(size=(3, 4))
    layer(x)

    def f(x, gamma, beta):
        layer.gamma, layer.beta = gamma, beta  # call() reads its weights from these attributes
        return layer.call(x)

    gamma, beta = RNG.normal(size=4), RNG.normal(size=4)
    check_gradients(f, [x, gamma, beta], order=1)
    check_gradients(f, [x, gamma, beta], order=2)


def test_embedding_looks_up_rows_and_keeps_integer_inputs():
    layer = layers.Embedding(5, 3)
    out = layer(np.array([[0, 4], [2, 2]]))
    table = layer.embeddings.numpy()
    assert out.shape == (2, 2, 3) and out.dtype == mt.float32
    np.testing.assert_array_equal(out.numpy(), table[[[0, 4], [2, 2]]])
    assert np.all(np.abs(table) <= 0.05)  # Keras' default: uniform in [-0.05, 0.05]
    assert layer.embeddings.name == "embedding/embeddings:0"


def test_embedding_index_out_of_range_is_a_clear_error():
    with pytest.raises(ValueError, match=r"index 5 is out of range \[0, 5\)"):
        layers.Embedding(5, 3)(np.array([[1, 5]]))
    with pytest.raises(ValueError, match="integer indices"):
        layers.Embedding(5, 3)(np.array([[1.5]]))


def test_embedding_gradient_reaches_the_rows_used():
    layer = layers.Embedding(4, 2, dtype="float64")
    indices = np.array([1, 1, 3])
    layer(indices)
    with mt.GradientTape() as tape:
        loss = mt.reduce_sum(layer(indices))
    grad = np.asarray(mt.convert_to_tensor(tape.gradient(loss, layer.embeddings)))
    np.testing.assert_array_equal(grad, [[0, 0], [2, 2], [0, 0], [1, 1]])

    def f(table):
        layer.embeddings = table
        return layer.call(mt.constant(indices))

    check_gradients(f, [RNG.normal(size=(4, 2))], order=1)


def test_merge_layers():
    a, b = RNG.normal(size=(2, 3)), RNG.normal(size=(2, 3))
    np.testing.assert_allclose(layers.Concatenate()([a, b]).numpy(), np.concatenate([a, b], -1), rtol=1e-6)
    np.testing.assert_allclose(layers.Concatenate(axis=0)([a, b]).numpy(), np.concatenate([a, b], 0), rtol=1e-6)
    np.testing.assert_allclose(layers.Add()([a, b, a]).numpy(), 2 * a + b, rtol=1e-6)
    np.testing.assert_allclose(layers.Subtract()([a, b]).numpy(), a - b, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(layers.Multiply()([a, b]).numpy(), a * b, rtol=1e-6)
    np.testing.assert_allclose(layers.Average()([a, b]).numpy(), (a + b) / 2, rtol=1e-6)
    c = RNG.normal(size=(2, 3))
    np.testing.assert_allclose(layers.Maximum()([a, b, c]).numpy(), np.maximum(np.maximum(a, b), c), rtol=1e-6)
    np.testing.assert_allclose(layers.Minimum()([a, b, c]).numpy(), np.minimum(np.minimum(a, b), c), rtol=1e-6)
    functional = {
        layers.maximum: np.maximum(a, b),
        layers.minimum: np.minimum(a, b),
        layers.multiply: a * b,
        layers.subtract: a - b,
        layers.average: (a + b) / 2,
    }
    for merge, want in functional.items():
        np.testing.assert_allclose(merge([a, b]).numpy(), want, rtol=1e-6, atol=1e-7)


def test_maximum_and_minimum_send_the_gradient_to_the_chosen_input():
    a, b = RNG.normal(size=(2, 3)), RNG.normal(size=(2, 3))  # no ties
    check_gradients(lambda x, y: layers.Maximum(dtype="float64")([x, y]), [a, b], order=1)
    check_gradients(lambda x, y: layers.Minimum(dtype="float64")([x, y]), [a, b], order=1)
    x, y = mt.Variable(a), mt.Variable(b)
    with mt.GradientTape() as tape:
        total = mt.reduce_sum(layers.Maximum()([x, y]))
    grad_x, grad_y = tape.gradient(total, [x, y])
    np.testing.assert_array_equal(grad_x.numpy(), (a > b).astype(float))
    np.testing.assert_array_equal(grad_y.numpy(), (b > a).astype(float))


X_RELU = np.array([[-3.0, -1.0, -0.5, 0.0, 0.5, 1.0, 2.0, 5.0, 7.0]], np.float32)


@pytest.mark.parametrize(
    ("options", "keras_3"),
    [
        ({"max_value": 6.0}, [0, 0, 0, 0, 0.5, 1, 2, 5, 6]),
        ({"negative_slope": 0.1}, [-0.3, -0.1, -0.05, 0, 0.5, 1, 2, 5, 7]),
        ({"threshold": 1.0}, [0, 0, 0, 0, 0, 0, 2, 5, 7]),
        ({"max_value": 4.0, "negative_slope": 0.2, "threshold": 0.5}, [-0.7, -0.3, -0.2, -0.1, 0, 1, 2, 4, 4]),
        ({"max_value": 6.0, "negative_slope": 0.1}, [-0.3, -0.1, -0.05, 0, 0.5, 1, 2, 5, 6]),
    ],
)
def test_relu_options_give_keras_3_values_and_gradients(options, keras_3):
    max_value, slope, threshold = options.get("max_value", np.inf), options.get("negative_slope", 0.0), 0.0
    threshold = options.get("threshold", 0.0)
    x = X_RELU[0]
    want = np.where(x >= max_value, max_value, np.where(x > threshold, x, slope * (x - threshold)))
    np.testing.assert_allclose(want, keras_3, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(layers.ReLU(**options)(X_RELU).numpy()[0], want, rtol=1e-6, atol=1e-7)
    points = np.array([[-2.3, -0.7, 0.2, 0.8, 1.7, 3.1, 6.6]])  # away from the kinks
    check_gradients(lambda v: layers.ReLU(**options, dtype="float64")(v), [points], order=1)
    activation = keras.activations.relu(mt.constant(X_RELU), **options).numpy()[0]
    np.testing.assert_allclose(activation, want, rtol=1e-6, atol=1e-7)


def test_relu_refuses_options_keras_3_refuses_and_conv2d_says_groups_are_missing():
    for options in ({"threshold": -1.0}, {"max_value": -1.0}, {"negative_slope": -0.1}):
        with pytest.raises(ValueError, match="ReLU: " + next(iter(options))):
            layers.ReLU(**options)
    assert layers.Conv2D(2, 3, dilation_rate=1).dilation_rate == (1, 1)
    assert layers.Conv2D(2, 3, dilation_rate=2).dilation_rate == (2, 2)
    with pytest.raises(NotImplementedError, match=r"Conv2D: groups=2 is not supported.*only groups=1"):
        layers.Conv2D(2, 3, groups=2)
    with pytest.raises(ValueError, match=r"Conv2D: strides > 1 together with dilation_rate > 1"):
        layers.Conv2D(2, 3, strides=2, dilation_rate=2)


def test_merge_layers_refuse_mismatched_shapes_and_single_inputs():
    with pytest.raises(ValueError, match=r"needs inputs with equal shapes; got shapes \[\(2, 3\), \(2, 4\)\]"):
        layers.Add()([np.ones((2, 3)), np.ones((2, 4))])
    with pytest.raises(ValueError, match="shapes equal except along axis -1"):
        layers.Concatenate()([np.ones((2, 3)), np.ones((3, 3))])
    with pytest.raises(ValueError, match="list of at least 2 inputs"):
        layers.Add()([np.ones((2, 3))])


def avg_pool_numpy(x, k, s, padding):
    n, h, w, c = x.shape
    if padding == "valid":
        oh, ow, top, left = (h - k) // s + 1, (w - k) // s + 1, 0, 0
    else:
        oh, ow = -(-h // s), -(-w // s)
        top = max((oh - 1) * s + k - h, 0) // 2
        left = max((ow - 1) * s + k - w, 0) // 2
    out = np.zeros((n, oh, ow, c))
    for i in range(oh):
        for j in range(ow):
            r0, c0 = i * s - top, j * s - left
            window = x[:, max(r0, 0) : min(r0 + k, h), max(c0, 0) : min(c0 + k, w), :]
            out[:, i, j, :] = window.mean(axis=(1, 2))  # only real pixels count, as in TensorFlow
    return out


@pytest.mark.parametrize(("k", "s", "padding"), [(2, 2, "valid"), (3, 1, "valid"), (3, 2, "same"), (2, 1, "same")])
def test_average_pooling_matches_numpy(k, s, padding):
    x = RNG.normal(size=(2, 5, 6, 3))
    out = layers.AveragePooling2D(pool_size=k, strides=s, padding=padding, dtype="float64")(x).numpy()
    np.testing.assert_allclose(out, avg_pool_numpy(x, k, s, padding), rtol=1e-12)


def test_average_pooling_gradients():
    layer = layers.AveragePooling2D(pool_size=3, strides=2, padding="same", dtype="float64")
    check_gradients(lambda x: layer(x), [RNG.normal(size=(1, 5, 5, 2))], order=1)


def test_global_average_pooling():
    x = RNG.normal(size=(2, 3, 4, 5))
    np.testing.assert_allclose(layers.GlobalAveragePooling2D(dtype="float64")(x).numpy(), x.mean(axis=(1, 2)))
    assert layers.GlobalAveragePooling2D(keepdims=True)(x).shape == (2, 1, 1, 5)
    with pytest.raises(ValueError, match="a 4-D input"):
        layers.GlobalAveragePooling2D()(np.ones((2, 3)))


def test_new_layers_work_in_sequential_and_subclassed_models():
    model = keras.Sequential(
        [
            keras.Input(shape=(4, 4, 2)),
            layers.AveragePooling2D(),
            layers.Reshape((8,)),
            layers.LayerNormalization(),
            layers.Lambda(lambda x: x * 2.0),
            layers.Dense(1),
        ]
    )
    assert model(np.ones((3, 4, 4, 2))).shape == (3, 1)
    assert [layer.output_shape for layer in model.layers] == [
        (None, 2, 2, 2),
        (None, 8),
        (None, 8),
        (None, 8),
        (None, 1),
    ]

    class Tagger(keras.Model):
        def __init__(self):
            super().__init__()
            self.embed = layers.Embedding(10, 4)
            self.pool = layers.GlobalAveragePooling2D()
            self.join = layers.Concatenate()
            self.out = layers.Dense(2)

        def call(self, tokens):
            vectors = self.embed(tokens)  # (batch, 3, 4)
            pooled = self.pool(vectors[:, :, :, None])  # (batch, 1)
            return self.out(self.join([mt.reduce_mean(vectors, axis=1), pooled]))

    tagger = Tagger()
    assert tagger(np.array([[1, 2, 3], [4, 5, 6]])).shape == (2, 2)
    assert len(tagger.trainable_variables) == 3
