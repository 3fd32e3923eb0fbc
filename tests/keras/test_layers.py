"""mt.keras layers and models: naming, lazy building, weight tracking, name scopes, gradients, input errors."""

from __future__ import annotations

import numpy as np
import pytest

import minitape as mt
from minitape.aids.check_gradients import check_gradients

keras = mt.keras
layers = mt.keras.layers


pytestmark = pytest.mark.usefixtures("keras_session")


class Blocks(keras.Model):
    """A subclassed model that keeps layers in a list and a dict and one bare variable."""

    def __init__(self):
        super().__init__()
        self.stack = [layers.Dense(4, activation="relu"), layers.Dense(3)]
        self.heads = {"out": layers.Dense(2)}
        self.scale = mt.Variable(1.0, name="scale")
        self.offset = mt.Variable(0.0, trainable=False, name="offset")

    def call(self, x):
        for layer in self.stack:
            x = layer(x)
        return self.heads["out"](x) * self.scale + self.offset


def test_layers_are_named_as_keras_names_them_and_clear_session_restarts():
    names = [layers.Dense(1).name, layers.Dense(1).name, layers.Conv2D(1, 3).name, layers.MaxPool2D().name]
    names += [layers.ReLU().name, layers.Flatten().name, Blocks().name, keras.Sequential().name]
    assert names == ["dense", "dense_1", "conv2d", "max_pooling2d", "re_lu", "flatten", "blocks", "sequential"]
    keras.backend.clear_session()
    assert layers.Dense(1).name == "dense"
    assert layers.Dense(1, name="mine").name == "mine"


def test_weights_are_built_on_the_first_call_with_keras_variable_names():
    dense = layers.Dense(3)
    assert not dense.built and dense.variables == []
    y = dense(np.ones((2, 5), np.float32))
    assert dense.built and tuple(y.shape) == (2, 3)
    assert [v.name for v in dense.variables] == ["dense/kernel:0", "dense/bias:0"]
    assert [tuple(v.shape) for v in dense.variables] == [(5, 3), (3,)]
    second = layers.Dense(2)
    second(y)
    assert second.bias.name == "dense_1/bias:0"


def test_model_tracks_layers_and_variables_in_attributes_lists_and_dicts():
    model = Blocks()
    model(np.ones((2, 5)))
    # Keras 3's order (checked with keras.Variable): the model's own variables first, then each sublayer's
    dense = [f"dense{s}/{w}:0" for s in ("", "_1", "_2") for w in ("kernel", "bias")]
    assert [v.name for v in model.trainable_variables] == ["scale:0", *dense]
    assert [v.name for v in model.non_trainable_variables] == ["offset:0"]
    assert [v.name for v in model.variables] == ["scale:0", "offset:0", *dense]
    assert [layer.name for layer in model.layers] == ["dense", "dense_1", "dense_2"]
    model.stack[0].trainable = False  # freezing a layer moves its weights to non_trainable_variables
    assert [v.name for v in model.non_trainable_variables] == ["offset:0", "dense/kernel:0", "dense/bias:0"]
    assert [v.name for v in model.variables] == ["scale:0", "offset:0", *dense]  # but not in `variables`
    assert model.count_params() == (5 * 4 + 4) + (4 * 3 + 3) + (3 * 2 + 2) + 2


class Scaled(keras.layers.Layer):
    """A user layer with its own build: a trainable weight, a non-trainable one, another trainable one."""

    def build(self, input_shape):
        self.w = self.add_weight(shape=(input_shape[-1],), initializer="ones", name="w")
        self.count = self.add_weight(shape=(), initializer="zeros", name="count", trainable=False)
        self.b = self.add_weight(shape=(input_shape[-1],), initializer="zeros", name="b")

    def call(self, x):
        return x * self.w + self.b


@pytest.mark.parametrize(
    "make, shape, x",
    [
        (lambda: layers.Dense(2), (None, 3), np.ones((1, 3))),
        (lambda: layers.Conv2D(2, 3), (None, 5, 5, 1), np.ones((1, 5, 5, 1))),
        (lambda: layers.BatchNormalization(), (None, 3), np.ones((1, 3))),
        (lambda: layers.Embedding(5, 2), (None,), np.array([1, 3])),
        (lambda: layers.LayerNormalization(), (None, 3), np.ones((1, 3))),
        (Scaled, (None, 3), np.ones((1, 3))),
    ],
)
def test_a_manual_build_marks_the_layer_built_so_set_weights_survives_the_first_call(make, shape, x):
    layer = make()
    layer.build(shape)
    assert layer.built
    count = len(layer.weights)
    values = [np.full(v.shape, 0.5, v.dtype.as_numpy_dtype) for v in layer.weights]
    layer.set_weights(values)
    layer(x)  # must not build again with new random weights
    assert len(layer.weights) == count
    for got in layer.get_weights():
        np.testing.assert_array_equal(got, 0.5)


def test_weights_are_ordered_layer_by_layer_as_keras_3_orders_them():
    model = keras.Sequential([keras.Input((4,)), layers.Dense(3), layers.BatchNormalization(), layers.Dense(2)])
    names = [v.name.split("/")[-1].split(":")[0] for v in model.weights]
    # Keras 3 (keras.Sequential([...]).weights): each layer's weights together, trainable first within a layer
    expected = ["kernel", "bias", "gamma", "beta", "moving_mean", "moving_variance", "kernel", "bias"]
    assert names == expected
    assert [v.name for v in model.variables] == [v.name for v in model.weights]
    assert [w.shape for w in model.get_weights()] == [(4, 3), (3,), (3,), (3,), (3,), (3,), (3, 2), (2,)]
    assert [v.name.split("/")[-1][:-2] for v in model.trainable_weights] == [
        "kernel",
        "bias",
        "gamma",
        "beta",
        "kernel",
        "bias",
    ]
    assert [v.name.split("/")[-1][:-2] for v in model.non_trainable_weights] == ["moving_mean", "moving_variance"]
    # set_weights takes the same order: the moving statistics land in BatchNormalization, not in the last Dense
    new = [np.full(w.shape, float(i), np.float32) for i, w in enumerate(model.get_weights())]
    model.set_weights(new)
    batch_norm = model.layers[1]
    np.testing.assert_array_equal(batch_norm.moving_mean.numpy(), 4.0)
    np.testing.assert_array_equal(batch_norm.moving_variance.numpy(), 5.0)
    np.testing.assert_array_equal(model.layers[2].kernel.numpy(), 6.0)
    model.layers[0].trainable = False  # freezing moves nothing in `weights`
    assert [v.name for v in model.weights] == [v.name for v in model.variables]
    assert [v.name.split("/")[-1].split(":")[0] for v in model.weights] == expected


def test_a_user_layer_lists_its_own_weights_before_its_sublayers_trainable_first():
    class Outer(keras.layers.Layer):
        def __init__(self):
            super().__init__()
            self.inner = Scaled()

        def build(self, input_shape):
            self.gain = self.add_weight(shape=(), initializer="ones", name="gain")

        def call(self, x):
            return self.inner(x) * self.gain

    outer = Outer()
    outer(np.ones((1, 3)))
    # Keras 3 gives gain, then the sublayer's w, b (trainable) and count
    assert [v.name.split("/")[-1][:-2] for v in outer.weights] == ["gain", "w", "b", "count"]


def test_model_gradients_reach_every_trainable_variable():
    model = Blocks()
    x = np.random.default_rng(0).normal(size=(4, 5)).astype(np.float32)
    with mt.GradientTape() as tape:
        loss = mt.reduce_sum(model(x) ** 2)
    grads = tape.gradient(loss, model.trainable_variables)
    assert all(g is not None for g in grads)
    assert [tuple(g.shape) for g in grads] == [tuple(v.shape) for v in model.trainable_variables]


def test_each_call_runs_inside_name_scopes_of_model_and_layer():
    model = Blocks()
    model(np.ones((1, 5)))  # build outside the tape
    with mt.GradientTape() as tape:
        model(np.ones((1, 5)))
    scopes = [op.scope for op in tape.records]
    assert "blocks/dense" in scopes and "blocks/dense_1" in scopes and "blocks/dense_2" in scopes
    assert all(s.startswith("blocks") for s in scopes)
    matmul_scopes = [op.scope for op in tape.records if op.type == "MatMul"]
    assert matmul_scopes == ["blocks/dense", "blocks/dense_1", "blocks/dense_2"]


def test_sequential_with_input_builds_at_once_and_summarises():
    model = keras.Sequential([keras.Input(shape=(8, 8, 1)), layers.Conv2D(4, 3, activation="relu"), layers.Flatten()])
    model.add(layers.Dense(10))
    assert model.built and len(model.layers) == 3
    lines = []
    model.summary(print_fn=lines.append)
    text = lines[0]
    assert 'Model: "sequential"' in text
    assert "conv2d (Conv2D)" in text and "(None, 6, 6, 4)" in text and "(None, 144)" in text
    assert "Total params: 1,490" in text and "Non-trainable params: 0" in text


def test_summary_before_build_shows_unbuilt_layers_as_keras_3():
    lines = []
    keras.Sequential([layers.Embedding(10, 4, name="embed"), layers.Dense(2, name="out")]).summary(
        print_fn=lines.append
    )
    rows = lines[0].splitlines()
    assert [row.split()[:3] for row in rows if row.startswith((" embed", " out"))] == [
        ["embed", "(Embedding)", "?"],
        ["out", "(Dense)", "?"],
    ]
    assert all(row.rstrip().endswith("0 (unbuilt)") for row in rows if row.startswith((" embed", " out")))
    assert "Total params: 0" in lines[0]  # Keras 3 prints the same: no weights before the first call


def test_subclass_must_call_super_init():
    class Broken(keras.Model):
        def __init__(self):
            self.dense = layers.Dense(1)

        def call(self, x):
            return self.dense(x)

    with pytest.raises(RuntimeError, match="super\\(\\).__init__"):
        Broken()(np.ones((1, 2)))


def test_dropout_is_active_only_when_training_and_training_reaches_inner_layers():
    class Net(keras.Model):
        def __init__(self):
            super().__init__()
            self.drop = layers.Dropout(0.5)

        def call(self, x):
            return self.drop(x)

    x = np.ones((200, 10), np.float32)
    net = Net()
    np.testing.assert_array_equal(net(x).numpy(), x)
    np.testing.assert_array_equal(net(x, training=False).numpy(), x)
    dropped = net(x, training=True).numpy()
    assert set(np.unique(dropped)) == {0.0, 2.0}  # kept values are scaled by 1 / (1 - rate)
    assert 0.4 < np.mean(dropped == 0) < 0.6


def test_float_inputs_are_cast_to_the_layer_dtype():
    dense = layers.Dense(2)
    assert dense(np.ones((1, 3))).dtype == mt.float32  # float64 numpy in, float32 weights and output
    wide = layers.Dense(2, dtype="float64")
    assert wide(np.ones((1, 3), np.float32)).dtype == mt.float64
    assert wide.kernel.dtype == mt.float64


# ---- gradients of every layer, in float64 ------------------------------------------------------------
def _check_layer(layer, x, training=False):
    """Check d layer(x) / d x and / d each weight: the weights are swapped for the checker's tensors."""
    layer(x)  # build first
    owners = [(owner, name) for owner in [layer, *layer.layers] for name, value in vars(owner).items()]
    slots = [(o, n) for o, n in owners if isinstance(getattr(o, n), mt.Variable) and getattr(o, n).trainable]
    assert len(slots) == len(layer.trainable_variables)  # every weight is checked

    def f(inp, *weights):
        saved = [getattr(o, n) for o, n in slots]
        for (o, n), w in zip(slots, weights):
            setattr(o, n, w)
        try:
            return layer(inp, training=training)
        finally:
            for (o, n), v in zip(slots, saved):
                setattr(o, n, v)

    check_gradients(f, [x, *[getattr(o, n).numpy() for o, n in slots]], order=1)


def _image(shape=(2, 6, 7, 3)):
    return np.random.default_rng(1).normal(size=shape)


@pytest.mark.parametrize(
    "make, shape",
    [
        (lambda: layers.Dense(3, activation="tanh", dtype="float64"), (4, 5)),
        (lambda: layers.Dense(3, activation="softmax", dtype="float64"), (2, 3, 5)),
        (lambda: layers.Conv2D(4, 3, padding="valid", activation="sigmoid", dtype="float64"), (2, 6, 7, 3)),
        (lambda: layers.Conv2D(4, (3, 2), padding="same", dtype="float64"), (2, 6, 7, 3)),
        (lambda: layers.Conv2D(2, 3, strides=2, padding="same", dtype="float64"), (2, 6, 7, 3)),
        (lambda: layers.Conv2D(2, 2, strides=(2, 3), padding="valid", dtype="float64"), (2, 6, 7, 3)),
        (lambda: layers.MaxPool2D(dtype="float64"), (2, 6, 7, 3)),
        (lambda: layers.MaxPool2D(3, strides=2, padding="same", dtype="float64"), (2, 6, 7, 3)),
        (lambda: layers.Flatten(dtype="float64"), (2, 3, 4)),
        (lambda: layers.ReLU(dtype="float64"), (3, 4)),
        (lambda: layers.Activation("tanh", dtype="float64"), (3, 4)),
        (lambda: layers.Dropout(0.5, dtype="float64"), (3, 4)),
        (lambda: layers.Conv2DTranspose(2, 3, strides=2, padding="same", dtype="float64"), (2, 3, 4, 3)),
        (lambda: layers.Conv2DTranspose(2, (2, 3), strides=(1, 2), activation="tanh", dtype="float64"), (2, 3, 4, 3)),
        (lambda: layers.Softmax(axis=1, dtype="float64"), (2, 3, 4)),
        (lambda: layers.LeakyReLU(0.2, dtype="float64"), (3, 4)),
        (lambda: layers.ELU(1.5, dtype="float64"), (3, 4)),
        (lambda: layers.GlobalMaxPooling2D(dtype="float64"), (2, 6, 7, 3)),
        (lambda: layers.UpSampling2D((2, 3), dtype="float64"), (2, 3, 2, 2)),
        (lambda: layers.ZeroPadding2D(((1, 0), (2, 1)), dtype="float64"), (2, 3, 2, 2)),
        (lambda: layers.Cropping2D(((1, 0), (0, 2)), dtype="float64"), (2, 6, 7, 3)),
        (lambda: layers.Permute((3, 1, 2), dtype="float64"), (2, 3, 4, 2)),
        (lambda: layers.RepeatVector(3, dtype="float64"), (2, 4)),
        (lambda: layers.Rescaling(0.5, offset=-1.0, dtype="float64"), (3, 4)),
        (
            lambda: layers.Normalization(mean=[1.0, 2.0, 0.0, -1.0], variance=[4.0, 1.0, 0.25, 9.0], dtype="float64"),
            (3, 4),
        ),
    ],
)
def test_layer_gradients_match_finite_differences(make, shape):
    _check_layer(make(), _image(shape))


def test_batch_normalization_gradients_in_training_and_inference():
    _check_layer(layers.BatchNormalization(dtype="float64"), _image((6, 3)), training=True)
    _check_layer(layers.BatchNormalization(dtype="float64"), _image((2, 3, 3, 4)), training=True)
    _check_layer(layers.BatchNormalization(dtype="float64"), _image((6, 3)), training=False)


def test_batch_normalization_keeps_running_statistics_as_non_trainable_variables():
    bn = layers.BatchNormalization(momentum=0.5)
    x = np.random.default_rng(2).normal(3.0, 2.0, size=(256, 4)).astype(np.float32)
    y = bn(x, training=True).numpy()
    np.testing.assert_allclose(y.mean(axis=0), 0, atol=1e-5)
    np.testing.assert_allclose(y.std(axis=0), 1, atol=1e-3)
    np.testing.assert_allclose(bn.moving_mean.numpy(), 0.5 * x.mean(axis=0), rtol=1e-5)
    assert [v.name for v in bn.non_trainable_variables] == [
        "batch_normalization/moving_mean:0",
        "batch_normalization/moving_variance:0",
    ]
    before = bn.moving_mean.numpy()
    bn(x)  # inference: uses, and leaves alone, the running statistics
    np.testing.assert_array_equal(bn.moving_mean.numpy(), before)
    lines = []
    model = keras.Sequential([keras.Input(shape=(4,)), bn, layers.Dense(2)])
    model.summary(print_fn=lines.append)
    assert "Trainable params: 18" in lines[0] and "Non-trainable params: 8" in lines[0]


def test_dropout_gradient_while_training_matches_finite_differences():
    x = _image((3, 4))

    def f(inp):
        mt.random.set_seed(7)  # the same mask at every evaluation
        return layers.Dropout(0.5, dtype="float64")(inp, training=True)

    check_gradients(f, [x])


def test_whole_cnn_gradients_in_float64():
    keras.backend.set_floatx("float64")
    try:
        model = keras.Sequential(
            [
                layers.Conv2D(3, 3, padding="same", activation="relu"),
                layers.MaxPool2D(),
                layers.Flatten(),
                layers.Dense(4, activation="softmax"),
            ]
        )
        _check_layer(model, _image((2, 4, 4, 1)))
    finally:
        keras.backend.set_floatx("float32")


# ---- clear errors for bad input -----------------------------------------------------------------------
def test_wrong_input_rank_names_layer_and_shape():
    with pytest.raises(ValueError, match=r'layer "dense".*rank >= 2.*\(5,\)'):
        layers.Dense(2)(np.ones(5))
    with pytest.raises(ValueError, match=r'layer "conv2d".*4-D input.*\(2, 8, 8\).*x\[\.\.\., None\]'):
        layers.Conv2D(2, 3)(np.ones((2, 8, 8)))
    with pytest.raises(ValueError, match=r'layer "max_pooling2d".*4-D input.*\(8, 8\)'):
        layers.MaxPool2D()(np.ones((8, 8)))


def test_different_feature_size_after_build_names_layer_and_sizes():
    dense = layers.Dense(2)
    dense(np.ones((1, 4)))
    with pytest.raises(ValueError, match=r'layer "dense".*size 4.*\(1, 3\)'):
        dense(np.ones((1, 3)))
    conv = layers.Conv2D(2, 3)
    conv(np.ones((1, 5, 5, 1)))
    with pytest.raises(ValueError, match=r'layer "conv2d".*channels.*size 1.*\(1, 5, 5, 3\)'):
        conv(np.ones((1, 5, 5, 3)))


def test_too_small_image_for_valid_padding():
    with pytest.raises(ValueError, match=r"conv2d.*at least 3x3.*padding='same'"):
        layers.Conv2D(2, 3)(np.ones((1, 2, 2, 1)))


def test_unknown_activation_and_bad_arguments():
    with pytest.raises(ValueError, match="Unknown activation function: 'relux'.*relu"):
        layers.Dense(2, activation="relux")
    with pytest.raises(ValueError, match="padding must be 'valid' or 'same'"):
        layers.Conv2D(2, 3, padding="full")
    with pytest.raises(TypeError, match="unexpected keyword"):
        layers.Dense(2, unit=3)


def test_an_initializer_may_be_any_function_of_shape_and_dtype_keyword():
    # TensorFlow's basics guide passes mt.random.normal, whose second positional parameter is `mean`
    mt.random.set_seed(3)
    dense = layers.Dense(units=2, kernel_initializer=mt.random.normal)
    dense(np.ones((1, 3), np.float32))
    kernel = dense.kernel.numpy()
    assert kernel.dtype == np.float32 and kernel.shape == (3, 2) and np.unique(kernel).size == 6


def test_the_reshaping_layers_move_values_as_keras_does():
    image = np.arange(8.0).reshape(1, 2, 2, 2)
    up = layers.UpSampling2D()(image).numpy()
    np.testing.assert_array_equal(up[0, :, :, 0], [[0, 0, 2, 2], [0, 0, 2, 2], [4, 4, 6, 6], [4, 4, 6, 6]])
    padded = layers.ZeroPadding2D(((1, 0), (0, 2)))(image).numpy()
    assert padded.shape == (1, 3, 4, 2) and padded[0, 0].sum() == 0 and padded[0, 1, 0, 1] == 1.0
    np.testing.assert_array_equal(layers.Cropping2D(((1, 0), (0, 1)))(up).numpy(), up[:, 1:, :3])
    x = np.arange(24.0).reshape(2, 3, 4)
    np.testing.assert_array_equal(layers.Permute((2, 1))(x).numpy(), x.transpose(0, 2, 1))
    np.testing.assert_array_equal(layers.RepeatVector(2)(x[0]).numpy()[:, 1], x[0])
    np.testing.assert_array_equal(layers.GlobalMaxPooling2D(keepdims=True)(image).numpy(), [[[[6.0, 7.0]]]])
    for bad in (lambda: layers.Permute((1, 3)), lambda: layers.ZeroPadding2D((1, -1))):
        with pytest.raises(ValueError):
            bad()
    with pytest.raises(NotImplementedError, match="interpolation='nearest'"):
        layers.UpSampling2D(interpolation="bilinear")


def test_activation_layers_and_names_match_the_functions():
    x = mt.constant([[-2.0, -0.5, 0.0, 1.5]])
    np.testing.assert_allclose(layers.Softmax()(x).numpy(), mt.nn.softmax(x).numpy())
    np.testing.assert_allclose(layers.LeakyReLU()(x).numpy(), [[-0.6, -0.15, 0.0, 1.5]], rtol=1e-6)
    np.testing.assert_allclose(layers.LeakyReLU(alpha=0.1)(x).numpy(), [[-0.2, -0.05, 0.0, 1.5]], rtol=1e-6)
    np.testing.assert_allclose(layers.ELU(2.0)(x).numpy(), [[2 * np.expm1(-2), 2 * np.expm1(-0.5), 0, 1.5]], rtol=1e-6)
    assert layers.Identity()(x) is x
    for name in (
        "elu",
        "selu",
        "gelu",
        "swish",
        "silu",
        "relu6",
        "softsign",
        "leaky_relu",
        "log_softmax",
        "exponential",
    ):
        dense = layers.Dense(2, activation=name)
        assert dense(np.ones((1, 3), np.float32)).shape == (1, 2)
    np.testing.assert_allclose(keras.activations.get("exponential")(x).numpy(), np.exp(x.numpy()))


def test_rescaling_turns_pixels_into_floats():
    pixels = np.array([[0, 51, 255]], np.uint8)
    out = layers.Rescaling(1.0 / 255)(pixels)
    assert out.dtype == mt.float32
    np.testing.assert_allclose(out.numpy(), [[0.0, 0.2, 1.0]], rtol=1e-6)
    np.testing.assert_allclose(layers.Rescaling(1.0 / 127.5, offset=-1)(pixels).numpy(), [[-1.0, -0.6, 1.0]], rtol=1e-6)


def test_normalization_adapts_to_arrays_and_datasets_and_learns_in_a_model():
    data = np.random.default_rng(0).normal([3.0, -1.0], [2.0, 0.5], size=(200, 2)).astype(np.float32)
    norm = layers.Normalization(axis=-1)
    norm.adapt(data)
    np.testing.assert_allclose(norm.mean.numpy(), data.mean(axis=0, keepdims=True), rtol=1e-5)
    np.testing.assert_allclose(norm.variance.numpy(), data.var(axis=0, keepdims=True), rtol=1e-5)
    out = norm(data).numpy()
    np.testing.assert_allclose(out.mean(axis=0), 0, atol=1e-5)
    np.testing.assert_allclose(out.std(axis=0), 1, atol=1e-4)
    # Keras 3's weights: mean and variance per feature, and the count of examples adapt saw
    assert [v.name for v in norm.non_trainable_weights] == [
        "normalization/mean:0",
        "normalization/variance:0",
        "normalization/count:0",
    ]
    assert [tuple(v.shape) for v in norm.weights] == [(2,), (2,), ()] and int(norm.count) == 200
    assert norm.count_params() == 5 and norm.count.dtype == mt.int64 and tuple(norm.mean.shape) == (1, 2)
    assert norm.trainable_weights == []
    batches = layers.Normalization()
    batches.adapt(mt.data.Dataset.from_tensor_slices((data, data[:, 0])).batch(32))
    np.testing.assert_allclose(batches.mean.numpy(), norm.mean.numpy(), rtol=1e-5)
    single = layers.Normalization(input_shape=[1], axis=None)
    single.adapt(np.array([1.0, 2.0, 3.0, 4.0]))
    np.testing.assert_allclose(single(np.array([[2.5], [4.0]])).numpy(), [[0.0], [1.5 / np.sqrt(1.25)]], rtol=1e-6)
    back = layers.Normalization(mean=[3.0, -1.0], variance=[4.0, 0.25], invert=True)
    np.testing.assert_allclose(back(np.array([[1.0, 2.0]], np.float32)).numpy(), [[5.0, 0.0]])
    model = keras.Sequential([norm, layers.Dense(1)])  # the regression tutorial's linear model
    model.compile(optimizer=keras.optimizers.Adam(0.1), loss="mean_absolute_error")
    target = data @ np.array([[1.0], [2.0]], np.float32)
    losses = model.fit(data, target, epochs=20, verbose=0).history["loss"]
    assert losses[-1] < 0.2 * losses[0]
    assert len(model.trainable_weights) == 2 and norm.mean.numpy()[0, 0] == pytest.approx(data[:, 0].mean())


def test_normalization_before_adapt_and_missing_layers_say_what_to_do():
    with pytest.raises(RuntimeError, match=r"call adapt\(data\) before using it"):
        layers.Normalization()(np.ones((2, 2)))
    with pytest.raises(ValueError, match="give both mean and variance"):
        layers.Normalization(mean=[0.0])
    with pytest.raises(AttributeError, match="no tf.keras.layers.GroupQueryAttention: use MultiHeadAttention"):
        layers.GroupQueryAttention(4, 2, 8)
    with pytest.raises(AttributeError, match="no tf.keras.layers.TextVectorization: tensors hold numbers only"):
        layers.TextVectorization()
    assert layers.RandomFlip("horizontal").mode == "horizontal"  # no longer missing: test_image_augmentation.py
    with pytest.raises(AttributeError, match="no keras.layers.GaussianNoise: use keras.layers.Dropout"):
        layers.GaussianNoise(0.1)
    with pytest.raises(AttributeError, match=r"no keras.layers.ThresholdedReLU: use keras.layers.ReLU\(threshold"):
        layers.ThresholdedReLU()


def test_conv2d_transpose_is_the_adjoint_of_conv2d_and_grows_images_as_keras_does():
    rng = np.random.default_rng(4)
    x, w = rng.normal(size=(2, 7, 6, 3)), rng.normal(size=(3, 3, 3, 5))
    for strides, padding in ((1, "VALID"), (2, "SAME"), (2, "VALID")):
        y = mt.nn.conv2d(x, w, strides=strides, padding=padding)
        u = rng.normal(size=tuple(y.shape))
        back = mt.nn.conv2d_transpose(u, w, output_shape=x.shape, strides=strides, padding=padding)
        assert np.sum(y.numpy() * u) == pytest.approx(np.sum(x * back.numpy()))  # <conv x, u> = <x, conv^T u>
    image = np.ones((1, 4, 5, 2), np.float32)
    assert layers.Conv2DTranspose(3, 3, strides=2, padding="same")(image).shape == (1, 8, 10, 3)
    assert layers.Conv2DTranspose(3, 3, strides=2)(image).shape == (1, 9, 11, 3)
    assert layers.Conv2DTranspose(3, 2, strides=3)(image).shape == (1, 12, 15, 3)
    up = layers.Conv2DTranspose(3, 3, name="up")
    up(image)
    assert [tuple(v.shape) for v in up.weights] == [(3, 3, 3, 2), (3,)]
    with pytest.raises(ValueError, match=r"axis -1 \(channels\) of the input to have size 2"):
        up(np.ones((1, 4, 5, 4), np.float32))
