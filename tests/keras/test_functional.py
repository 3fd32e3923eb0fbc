"""The functional API: keras.Input, layers called on symbolic tensors, Model(inputs, outputs), summary, training."""

from __future__ import annotations

import numpy as np
import pytest

import minitape as mt

keras = mt.keras
layers = mt.keras.layers

pytestmark = pytest.mark.usefixtures("keras_session")


def test_input_is_a_symbolic_tensor_with_the_batch_axis_unknown():
    x = keras.Input(shape=(784,), name="pixels")
    assert x.shape == (None, 784) and x.dtype == mt.float32 and x.name == "pixels"
    assert keras.Input(shape=(3,), batch_size=8).shape == (8, 3)
    assert keras.Input(shape=(None,), dtype="int32").dtype == mt.int32
    assert keras.Input(batch_shape=(4, 2)).shape == (4, 2)
    with pytest.raises(TypeError, match="symbolic: it has a shape and a dtype but no value"):
        np.asarray(x)


def test_calling_layers_on_symbolic_inputs_gives_symbolic_outputs_with_shapes():
    inputs = keras.Input(shape=(8, 8, 1))
    h = layers.Conv2D(4, 3, padding="same")(inputs)
    h = layers.MaxPooling2D()(h)
    h = layers.Flatten()(h)
    assert h.shape == (None, 64)
    tokens = keras.Input(shape=(None,), dtype="int32")
    assert layers.Embedding(20, 5)(tokens).shape == (None, None, 5)  # the sequence length stays unknown


def test_a_functional_model_computes_what_its_layers_compute():
    inputs = keras.Input(shape=(3,))
    hidden = layers.Dense(4, activation="relu")(inputs)
    outputs = layers.Dense(2)(hidden)
    model = keras.Model(inputs=inputs, outputs=outputs, name="mlp")
    x = np.random.default_rng(0).normal(size=(5, 3)).astype("float32")
    first, second = model.layers[1], model.layers[2]
    expected = np.maximum(x @ first.kernel.numpy() + first.bias.numpy(), 0) @ second.kernel.numpy()
    np.testing.assert_allclose(model(x).numpy(), expected + second.bias.numpy(), rtol=1e-5, atol=1e-6)
    assert [type(layer).__name__ for layer in model.layers] == ["InputLayer", "Dense", "Dense"]
    assert len(model.trainable_variables) == 4 and model.count_params() == 3 * 4 + 4 + 4 * 2 + 2


def test_summary_lists_input_layers_output_shapes_and_params_as_keras():
    inputs = keras.Input(shape=(784,), name="digits")
    x = layers.Dense(64, activation="relu", name="dense_1")(inputs)
    x = layers.Dense(64, activation="relu", name="dense_2")(x)
    outputs = layers.Dense(10, name="predictions")(x)
    model = keras.Model(inputs=inputs, outputs=outputs, name="3_layer_mlp")
    lines = []
    model.summary(print_fn=lines.append)
    text = "\n".join(lines)
    assert 'Model: "3_layer_mlp"' in text
    rows = [
        line.split() for line in text.splitlines() if "(" in line and not line.startswith(("Model", " Layer (type)"))
    ]
    assert rows == [
        ["digits", "(InputLayer)", "(None,", "784)", "0"],
        ["dense_1", "(Dense)", "(None,", "64)", "50240"],
        ["dense_2", "(Dense)", "(None,", "64)", "4160"],
        ["predictions", "(Dense)", "(None,", "10)", "650"],
    ]
    assert "Total params: 55,050" in text and "Trainable params: 55,050" in text


def two_in_two_out():
    a = keras.Input(shape=(3,), name="a")
    b = keras.Input(shape=(2,), name="b")
    joined = layers.Concatenate()([a, b])
    score = layers.Dense(1, name="score")(joined)
    klass = layers.Dense(3, activation="softmax", name="klass")(joined)
    return keras.Model(inputs=[a, b], outputs=[score, klass])


def data(n=40):
    rng = np.random.default_rng(1)
    xa, xb = rng.normal(size=(n, 3)).astype("float32"), rng.normal(size=(n, 2)).astype("float32")
    return xa, xb, xa.sum(1, keepdims=True), (xa[:, 0] > 0).astype("int64") + (xb[:, 0] > 0)


def test_several_inputs_and_outputs_train_with_a_loss_per_output():
    model = two_in_two_out()
    model.compile(
        optimizer=keras.optimizers.Adam(0.05),
        loss={"score": "mse", "klass": "sparse_categorical_crossentropy"},
        loss_weights={"score": 1.0, "klass": 0.5},
        metrics={"klass": ["accuracy"]},
    )
    xa, xb, y_score, y_class = data()
    history = model.fit([xa, xb], [y_score, y_class], batch_size=8, epochs=15, verbose=0)
    assert list(history.history) == ["klass_accuracy", "klass_loss", "loss", "score_loss"]  # Keras 3's names, sorted
    assert history.history["loss"][-1] < history.history["loss"][0] / 2
    score, probs = model.predict({"a": xa, "b": xb}, verbose=0)  # inputs by name, too
    assert score.shape == (40, 1) and probs.shape == (40, 3)
    np.testing.assert_allclose(probs.sum(axis=1), 1.0, rtol=1e-5)


def test_the_trained_loss_is_the_weighted_sum_of_the_output_losses():
    model = two_in_two_out()
    model.compile("sgd", loss=["mse", "sparse_categorical_crossentropy"], loss_weights=[2.0, 0.5])
    xa, xb, y_score, y_class = data(8)
    score, probs = model([xa, xb])
    want = 2.0 * np.mean((score.numpy() - y_score) ** 2) + 0.5 * np.mean(-np.log(probs.numpy()[np.arange(8), y_class]))
    got, *per_output = model.evaluate([xa, xb], [y_score, y_class], batch_size=8, verbose=0)
    assert np.isclose(got, want, rtol=1e-5)
    assert np.isclose(2.0 * per_output[0] + 0.5 * per_output[1], want, rtol=1e-5)  # logged unweighted, as Keras 3


def test_a_single_loss_applies_to_every_output():
    model = two_in_two_out()
    model.compile("sgd", loss="mse")
    xa, xb, y_score, _ = data(8)
    targets = [y_score, np.zeros((8, 3), "float32")]
    score, probs = model([xa, xb])
    want = np.mean((score.numpy() - y_score) ** 2) + np.mean(probs.numpy() ** 2)
    assert np.isclose(model.evaluate([xa, xb], targets, batch_size=8, verbose=0)[0], want, rtol=1e-5)


def test_dict_inputs_and_outputs():
    a = keras.Input(shape=(2,), name="left")
    b = keras.Input(shape=(2,), name="right")
    total = layers.Add()([a, b])
    model = keras.Model(
        inputs={"left": a, "right": b}, outputs={"sum": total, "double": layers.Lambda(lambda t: 2 * t)(a)}
    )
    out = model({"left": np.ones((1, 2)), "right": np.full((1, 2), 3.0)})
    assert set(out) == {"sum", "double"}
    np.testing.assert_allclose(out["sum"].numpy(), [[4.0, 4.0]])
    np.testing.assert_allclose(out["double"].numpy(), [[2.0, 2.0]])


def test_arithmetic_on_symbolic_tensors_becomes_a_layer():
    x = keras.Input(shape=(2,))
    y = (x * 3.0 + 1.0) - x
    model = keras.Model(x, y)
    np.testing.assert_allclose(model(np.array([[1.0, 2.0]])).numpy(), [[3.0, 5.0]])


def test_shared_layers_and_nested_models():
    encoder_in = keras.Input(shape=(4,))
    encoder = keras.Model(encoder_in, layers.Dense(2, name="code")(encoder_in), name="encoder")
    a, b = keras.Input(shape=(4,)), keras.Input(shape=(4,))
    distance = layers.Subtract()([encoder(a), encoder(b)])  # one encoder, called twice
    siamese = keras.Model([a, b], distance)
    assert len(siamese.trainable_variables) == 2  # the shared weights count once
    x = np.random.default_rng(0).normal(size=(3, 4)).astype("float32")
    np.testing.assert_allclose(siamese([x, x]).numpy(), np.zeros((3, 2)), atol=1e-6)


def test_a_subclass_can_be_built_functionally():
    class Functional(keras.Model):
        def __init__(self):
            inputs = keras.Input(shape=(3,))
            super().__init__(inputs, layers.Dense(1)(inputs))

    model = Functional()
    assert model(np.ones((2, 3))).shape == (2, 1)


def test_graph_errors_are_clear():
    a, b = keras.Input(shape=(2,), name="first"), keras.Input(shape=(2,), name="second")
    out = layers.Add()([a, b])
    with pytest.raises(ValueError, match=r"Graph disconnected.*Input 'second'"):
        keras.Model(a, out)
    with pytest.raises(TypeError, match="must be a KerasTensor"):
        keras.Model(a, np.ones(2))
    with pytest.raises(ValueError, match="expects 2 input"):
        keras.Model([a, b], out)(np.ones((1, 2)))
    with pytest.raises(
        ValueError, match=r"(?s)axis -1 of the input to have size 2.*symbolic inputs of shape \(None, 3\)"
    ):
        dense = layers.Dense(1)
        dense(keras.Input(shape=(2,)))
        dense(keras.Input(shape=(3,)))


def test_sequential_accepts_an_input_first():
    model = keras.Sequential([keras.Input(shape=(5,)), layers.Dense(2)])
    assert model.built and model.layers[0].kernel.shape == (5, 2)
    with pytest.raises(ValueError, match="keras.Input can only come first"):
        keras.Sequential([layers.Dense(2), keras.Input(shape=(5,))])


def test_get_layer_and_layer_outputs_make_a_feature_extractor():
    inputs = keras.Input(shape=(4,), name="features")
    hidden = layers.Dense(3, activation="relu", name="hidden")(inputs)
    outputs = layers.Dense(1, name="head")(hidden)
    model = keras.Model(inputs, outputs)
    assert model.get_layer("hidden") is model.layers[1] and model.get_layer(index=-1).name == "head"
    assert model.input is inputs and model.output is outputs
    assert model.get_layer("hidden").input is inputs and model.get_layer("features").output is inputs
    extractor = keras.Model(inputs=model.inputs, outputs=[layer.output for layer in model.layers[1:]])
    x = np.random.default_rng(2).normal(size=(5, 4)).astype("float32")
    features, prediction = extractor(x)
    np.testing.assert_allclose(prediction.numpy(), model(x).numpy(), rtol=1e-6)
    assert features.shape == (5, 3)
    with pytest.raises(ValueError, match=r"No such layer: nope. Existing layers are: \['features', 'hidden', 'head'\]"):
        model.get_layer("nope")
    with pytest.raises(AttributeError, match="has not been called on a keras.Input"):
        _ = layers.Dense(1).output


def test_an_mt_op_on_a_symbolic_tensor_says_to_wrap_it_in_a_lambda_layer():
    x = keras.Input(shape=(3,))
    with pytest.raises(TypeError, match=r"is symbolic.*keras.layers.Lambda\(lambda t: mt.nn.relu\(t\)\)\(x\)"):
        mt.nn.relu(x)
    model = keras.Model(x, layers.Lambda(lambda t: mt.nn.relu(t))(x))
    np.testing.assert_allclose(model(np.array([[-1.0, 0.0, 2.0]])).numpy(), [[0.0, 0.0, 2.0]])


def test_metrics_per_output_need_named_outputs():
    class Subclassed(keras.Model):
        def __init__(self):
            super().__init__()
            self.dense = layers.Dense(1)

        def call(self, x):
            return self.dense(x)

    with pytest.raises(ValueError, match="does not say which output each metric is for.*list of lists"):
        Subclassed().compile("sgd", loss="mse", metrics={"dense": ["mae"]})


def test_a_sequential_with_a_known_input_shape_is_a_graph_for_feature_extraction():
    # the Keras 3 sequential guide: keras.Model(inputs=s.inputs, outputs=[layer.output for layer in s.layers])
    s = keras.Sequential([keras.Input((8,)), keras.layers.Dense(4, activation="relu"), keras.layers.Dense(2)])
    assert [tuple(layer.output.shape) for layer in s.layers] == [(None, 4), (None, 2)]
    assert len(s.inputs) == 1 and s.output is s.layers[-1].output
    extractor = keras.Model(inputs=s.inputs, outputs=[layer.output for layer in s.layers])
    x = np.random.default_rng(0).normal(size=(3, 8)).astype(np.float32)
    features = extractor(x)
    assert [tuple(f.shape) for f in features] == [(3, 4), (3, 2)]
    np.testing.assert_allclose(features[-1].numpy(), s(x).numpy(), rtol=1e-6)  # the same layers, the same weights
    assert tuple(keras.Sequential([keras.layers.Dense(3, input_shape=(5,))]).output.shape) == (None, 3)
    s.pop()
    assert tuple(s.output.shape) == (None, 4)
    with pytest.raises(AttributeError, match="no output yet: start it with keras.Input"):
        _ = keras.Sequential([keras.layers.Dense(3)]).output


def test_a_functional_model_is_named_and_lists_its_layers_as_keras_3():
    # "Working with RNNs": Keras 3.15 names the model 'functional' and lists embedding_a before embedding_b
    # (layers farthest from the output first; equally far, in the order a walk back from the output meets them)
    encoder_input, decoder_input = keras.Input(shape=(None,)), keras.Input(shape=(None,))
    encoded = layers.Embedding(1000, 8, name="embedding_a")(encoder_input)
    _, state_h, state_c = layers.LSTM(4, return_state=True, name="encoder")(encoded)
    decoded = layers.Embedding(2000, 8, name="embedding_b")(decoder_input)
    decoder_output = layers.LSTM(4, name="decoder")(decoded, initial_state=[state_h, state_c])
    model = keras.Model([encoder_input, decoder_input], layers.Dense(10, name="head")(decoder_output))
    assert model.name.startswith("functional")
    assert [layer.name for layer in model.layers][2:] == ["embedding_a", "embedding_b", "encoder", "decoder", "head"]
    named = keras.Model(encoder_input, encoded, name="mine")
    assert named.name == "mine"
    assert model.output_shape == (None, 10) and named.output_shape == (None, None, 8)  # known before any call
    assert keras.Model(encoder_input, [encoded, state_h]).output_shape == [(None, None, 8), (None, 4)]
