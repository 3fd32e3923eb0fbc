"""Conv1D, MaxPooling1D, AveragePooling1D, UpSampling1D, ZeroPadding1D, Cropping1D and mt.nn.conv1d: values
against a loop-by-loop numpy definition and against numbers Keras 3 printed, gradients against finite
differences (float64), their input errors, and a small sequence model that learns with fit."""

from __future__ import annotations

import numpy as np
import pytest

import minitape as mt
from minitape.aids.check_gradients import check_gradients

keras = mt.keras
layers = mt.keras.layers

pytestmark = pytest.mark.usefixtures("keras_session")
RNG = np.random.default_rng(0)


def conv1d_by_loops(x, w, b, stride: int, dilation: int, padding: str) -> np.ndarray:
    """The definition: out[n, t, f] = b[f] + sum_{j, c} x_padded[n, t * stride + j * dilation, c] w[j, c, f]."""
    k, steps = w.shape[0], x.shape[1]
    span = (k - 1) * dilation + 1
    if padding == "causal":
        before, after = span - 1, 0
    elif padding == "same":  # TensorFlow's: the output has ceil(steps / stride) steps, the extra pad at the end
        total = max((-(-steps // stride) - 1) * stride + span - steps, 0)
        before, after = total // 2, total - total // 2
    else:
        before = after = 0
    xp = np.pad(x, [(0, 0), (before, after), (0, 0)])
    out_steps = (xp.shape[1] - span) // stride + 1
    out = np.zeros((x.shape[0], out_steps, w.shape[2]))
    for t in range(out_steps):
        for j in range(k):
            out[:, t] += xp[:, t * stride + j * dilation] @ w[j]
    return out + b


@pytest.mark.parametrize("padding", ["valid", "same", "causal"])
@pytest.mark.parametrize("strides, dilation", [(1, 1), (2, 1), (3, 1), (1, 2)])
@pytest.mark.parametrize("steps", [7, 8])
def test_conv1d_matches_the_definition(padding, strides, dilation, steps):
    x, w, b = RNG.normal(size=(2, steps, 3)), RNG.normal(size=(3, 3, 4)), RNG.normal(size=4)
    layer = layers.Conv1D(4, 3, strides=strides, padding=padding, dilation_rate=dilation, dtype="float64")
    layer.build(x.shape)
    layer.set_weights([w, b])  # Keras 3's layout: kernel (kernel_size, in_channels, filters), then bias
    want = conv1d_by_loops(x, w, b, strides, dilation, padding)
    np.testing.assert_allclose(layer(x).numpy(), want, rtol=1e-12, atol=1e-12)


def test_conv1d_gives_the_numbers_keras_3_gives():
    x = np.arange(10.0).reshape(1, 5, 2) / 10
    w = np.arange(12.0).reshape(3, 2, 2) / 10 - 0.5
    b = np.array([0.1, -0.2])
    # printed by Keras 3.15 (TensorFlow 2.21) for the same x, kernel and bias
    keras_3 = {
        ("causal", 1, 2): [[0.15, -0.14], [0.31, 0.06], [0.48, 0.28], [0.64, 0.52], [0.77, 0.74]],
        ("same", 2, 1): [[0.32, 0.08], [0.45, 0.42], [-0.4, -0.4]],
        ("valid", 1, 1): [[0.45, 0.30], [0.45, 0.42], [0.45, 0.54]],
    }
    for (padding, strides, dilation), want in keras_3.items():
        layer = layers.Conv1D(2, 3, strides=strides, padding=padding, dilation_rate=dilation)
        layer.build((1, 5, 2))
        layer.set_weights([w, b])
        np.testing.assert_allclose(layer(x).numpy()[0], want, atol=1e-6)


def test_causal_output_never_sees_later_steps():
    layer = layers.Conv1D(2, 3, padding="causal", dilation_rate=2)
    x = RNG.normal(size=(1, 9, 1))
    changed = x.copy()
    changed[0, 6:] += 10.0  # only steps 6, 7, 8 change
    a, b = layer(x).numpy(), layer(changed).numpy()
    np.testing.assert_array_equal(a[0, :6], b[0, :6])
    assert np.abs(a[0, 6:] - b[0, 6:]).min() > 0


def test_nn_conv1d_takes_tensorflows_arguments_and_has_gradients_of_two_orders():
    x, w = RNG.normal(size=(2, 9, 2)), RNG.normal(size=(3, 2, 3))
    for stride, dilations, padding in [(2, None, "VALID"), ([1, 2, 1], 1, "SAME"), (1, 2, "SAME")]:
        s = stride if isinstance(stride, int) else stride[1]
        got = mt.nn.conv1d(x, w, stride=stride, padding=padding, dilations=dilations)
        want = conv1d_by_loops(x, w, 0.0, s, dilations or 1, padding.lower())
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-12, atol=1e-12)
    check_gradients(lambda a, f: mt.nn.conv1d(a, f, 1, "SAME", dilations=2), [x, w], order=2)
    with pytest.raises(mt.errors.InvalidArgumentError, match=r"conv1d needs a 3-D input.*got input \[9, 2\]"):
        mt.nn.conv1d(x[0], w, 1, "VALID")


def test_conv1d_layer_gradients_reach_input_kernel_and_bias():
    x = RNG.normal(size=(2, 6, 2))
    layer = layers.Conv1D(3, 2, padding="causal", dilation_rate=2, activation="tanh", dtype="float64")
    layer.build(x.shape)
    kernel, bias = layer.get_weights()

    check_gradients(lambda a: layer(a), [x], order=2)
    with mt.GradientTape() as tape:
        y = mt.reduce_sum(layer(x) ** 2)
    dk, db = tape.gradient(y, [layer.kernel, layer.bias])
    assert dk.shape == kernel.shape and db.shape == bias.shape
    eps, k2 = 1e-6, kernel.copy()
    k2[1, 0, 2] += eps
    layer.kernel.assign(k2)
    up = float(mt.reduce_sum(layer(x) ** 2))
    layer.kernel.assign(kernel)
    np.testing.assert_allclose((up - float(y)) / eps, dk.numpy()[1, 0, 2], rtol=1e-4)


def test_conv2d_dilation_matches_a_spread_out_kernel():
    x, w = RNG.normal(size=(1, 7, 8, 2)), RNG.normal(size=(2, 2, 2, 3))
    spread = np.zeros((3, 3, 2, 3))
    spread[::2, ::2] = w  # dilation 2: the taps two apart
    layer = layers.Conv2D(3, 2, dilation_rate=2, use_bias=False, dtype="float64")
    layer.build(x.shape)
    layer.set_weights([w])
    want = mt.nn.conv2d(x, spread, 1, "VALID").numpy()
    np.testing.assert_allclose(layer(x).numpy(), want, rtol=1e-12)
    assert layer(x).shape == (1, 5, 6, 3)


def pool_by_loops(x, size: int, stride: int, padding: str, reduce) -> np.ndarray:
    steps = x.shape[1]
    if padding == "same":
        total = max((-(-steps // stride) - 1) * stride + size - steps, 0)
        before = total // 2
        starts = range(-before, steps - size + total - before + 1, stride)
    else:
        starts = range(0, steps - size + 1, stride)
    return np.stack([reduce(x[:, max(s, 0) : s + size], axis=1) for s in starts], axis=1)


@pytest.mark.parametrize(
    "size, stride, padding", [(2, None, "valid"), (3, 2, "same"), (3, None, "same"), (2, 1, "valid")]
)
def test_1d_pooling_matches_the_definition(size, stride, padding):
    x = RNG.normal(size=(2, 7, 3))
    for layer_class, reduce in [(layers.MaxPooling1D, np.max), (layers.AveragePooling1D, np.mean)]:
        got = layer_class(size, strides=stride, padding=padding, dtype="float64")(x).numpy()
        np.testing.assert_allclose(got, pool_by_loops(x, size, stride or size, padding, reduce), rtol=1e-12)
    assert layers.MaxPool1D is layers.MaxPooling1D and layers.AvgPool1D is layers.AveragePooling1D
    assert layers.MaxPooling1D().pool_size == (2,) and layers.MaxPooling1D().strides == (2,)


def test_1d_pooling_gives_the_numbers_keras_3_gives_and_has_gradients():
    x = np.array([3.0, 1.0, 4.0, 1.0, 5.0])[None, :, None]
    # Keras 3.15: a window at the end averages only the steps it covers
    assert layers.AveragePooling1D(2, strides=2, padding="same")(x).numpy().ravel().tolist() == [2.0, 2.5, 5.0]
    assert layers.MaxPooling1D(3, strides=2, padding="same")(x).numpy().ravel().tolist() == [3.0, 4.0, 5.0]
    x = RNG.normal(size=(2, 7, 2))
    check_gradients(layers.AveragePooling1D(3, strides=2, padding="same", dtype="float64"), [x], order=2)
    check_gradients(layers.MaxPooling1D(2, dtype="float64"), [x], order=2)


def test_upsampling_zero_padding_and_cropping_along_the_steps():
    x = RNG.normal(size=(2, 4, 3))
    np.testing.assert_array_equal(layers.UpSampling1D(3)(x).numpy(), np.repeat(x, 3, axis=1).astype(np.float32))
    padded = layers.ZeroPadding1D((1, 2))(x).numpy()
    np.testing.assert_array_equal(padded, np.pad(x, [(0, 0), (1, 2), (0, 0)]).astype(np.float32))
    assert layers.ZeroPadding1D()(x).shape == (2, 6, 3)
    np.testing.assert_array_equal(layers.Cropping1D((1, 2))(x).numpy(), x[:, 1:2].astype(np.float32))
    assert layers.Cropping1D()(x).shape == (2, 2, 3)
    check_gradients(layers.Cropping1D(1, dtype="float64"), [x])
    with pytest.raises(ValueError, match=r"Cropping1D.*sequences longer than the crop \(2, 2\)"):
        layers.Cropping1D(2)(x)
    with pytest.raises(ValueError, match="ZeroPadding1D: padding must be an int or a"):
        layers.ZeroPadding1D((1, 2, 3))


def test_bad_inputs_and_arguments_name_the_layer_the_shape_and_the_fix():
    with pytest.raises(
        ValueError,
        match=r'"conv1d\w*" \(Conv1D\).*expected a 3-D input \(batch, steps, channels\).*shape \(4, 10\)\. '
        r"For a single channel add the channels axis: x\[\.\.\., None\]",
    ):
        layers.Conv1D(2, 3)(np.zeros((4, 10)))
    with pytest.raises(ValueError, match=r"\(Conv1D\).*at least 5 steps for padding='valid'.*shape \(1, 4, 1\).*"):
        layers.Conv1D(2, 3, dilation_rate=2)(np.zeros((1, 4, 1)))
    assert layers.Conv1D(2, 3, padding="causal", dilation_rate=2)(np.zeros((1, 1, 1))).shape == (1, 1, 2)
    with pytest.raises(ValueError, match=r"\(MaxPooling1D\).*at least 3 steps.*Use padding='same'"):
        layers.MaxPooling1D(3)(np.zeros((1, 2, 1)))
    with pytest.raises(ValueError, match=r"\(AveragePooling1D\).*3-D input"):
        layers.AveragePooling1D(2)(np.zeros((1, 4, 4, 1)))
    with pytest.raises(ValueError, match=r"Conv2D: padding must be 'valid' or 'same', got 'causal'"):
        layers.Conv2D(2, 3, padding="causal")
    with pytest.raises(ValueError, match=r"Conv1D: kernel_size must be a positive int or a sequence of 1"):
        layers.Conv1D(2, (3, 3))
    with pytest.raises(ValueError, match=r"Conv1D: strides > 1 together with dilation_rate > 1"):
        layers.Conv1D(2, 3, strides=2, dilation_rate=2)
    layer = layers.Conv1D(2, 3)
    layer(np.zeros((1, 5, 3)))
    with pytest.raises(ValueError, match=r"axis -1 \(channels\) of the input to have size 3"):
        layer(np.zeros((1, 5, 4)))
    with pytest.raises(AttributeError, match="Conv3D.*no 3-D convolution"):
        layers.Conv3D  # noqa: B018


def test_summary_counts_the_parameters_keras_3_counts(capsys):
    model = keras.Sequential(
        [
            keras.Input((100, 8)),
            layers.Conv1D(16, 5, activation="relu"),
            layers.MaxPooling1D(),
            layers.Conv1D(32, 3, padding="causal", dilation_rate=2),
            layers.AveragePooling1D(2, padding="same"),
            layers.UpSampling1D(),
            layers.ZeroPadding1D(2),
            layers.Cropping1D((1, 0)),
            layers.GlobalMaxPooling1D(),
            layers.Dense(1),
        ]
    )
    model.summary()
    printed = capsys.readouterr().out
    # Keras 3.15's summary of the same model: these output shapes and 656 + 1,568 + 33 = 2,257 parameters
    for shape in ["(None, 96, 16)", "(None, 48, 16)", "(None, 48, 32)", "(None, 24, 32)", "(None, 52, 32)"]:
        assert shape in printed
    assert "656" in printed and "1568" in printed and "Total params: 2,257" in printed
    assert [w.shape for w in model.get_weights()] == [(5, 8, 16), (16,), (3, 16, 32), (32,), (32, 1), (1,)]


def test_a_functional_model_over_sequences_of_any_length():
    # the text classification guide's shape: token ids of unknown length -> Embedding -> strided valid Conv1D
    tokens = keras.Input((None,), dtype="int64")
    h = layers.Embedding(50, 8)(tokens)
    h = layers.Conv1D(4, 7, strides=3, activation="relu")(h)
    h = layers.Conv1D(4, 7, strides=3, activation="relu")(h)
    assert h.shape == (None, None, 4)
    model = keras.Model(tokens, layers.Dense(1)(layers.GlobalMaxPooling1D()(h)))
    for steps in (25, 80):
        assert model(np.zeros((2, steps), dtype=np.int64)).shape == (2, 1)


def pattern_data(rng, n: int, steps: int = 24) -> tuple[np.ndarray, np.ndarray]:
    """Noise; in the positives (y = 1) the pattern (2, -2, 2) is hidden at a random place."""
    x = rng.normal(scale=0.3, size=(n, steps, 1))
    y = rng.integers(0, 2, size=n).astype(np.float32)
    for i in np.flatnonzero(y):
        start = rng.integers(0, steps - 3)
        x[i, start : start + 3, 0] += [2.0, -2.0, 2.0]
    return x, y


def test_conv1d_global_max_pooling_dense_learns_to_find_a_pattern_with_fit():
    rng = np.random.default_rng(1)
    x, y = pattern_data(rng, 256)
    keras.utils.set_random_seed(0)
    model = keras.Sequential(
        [
            keras.Input((24, 1)),
            layers.Conv1D(8, 3, activation="relu"),
            layers.GlobalMaxPooling1D(),
            layers.Dense(1, activation="sigmoid"),
        ]
    )
    model.compile(optimizer=keras.optimizers.Adam(0.02), loss="binary_crossentropy", metrics=["accuracy"])
    history = model.fit(x, y, epochs=15, batch_size=32, verbose=0).history
    assert history["loss"][-1] < 0.2 * history["loss"][0]
    x_new, y_new = pattern_data(rng, 200)  # sequences it never saw: it learned the pattern, not the examples
    _, accuracy = model.evaluate(x_new, y_new, verbose=0)
    assert accuracy > 0.9
