"""Sequential and functional models round-trip through get_config / from_config, in Keras 3's layout.

The layouts asserted (keys, class names, keras_history triples, input and output layers) are those TensorFlow
2.21's Keras 3.15.1 printed for the same models (2026-11-28).
"""

import numpy as np
import pytest

import minitape as tf

keras = tf.keras
layers = keras.layers
pytestmark = pytest.mark.usefixtures("keras_session")
x = np.random.default_rng(0).random((5, 4)).astype("float32")


def _two_outputs():
    inputs = keras.Input((4,), name="x")
    hidden = layers.Dense(3, activation="relu", name="dense")(inputs)
    a = layers.Dense(2, name="a")(hidden)
    b = layers.Dense(2, name="b")(hidden)
    return keras.Model(inputs, [layers.Add(name="add")([a, b]), a], name="two")


def test_a_functional_config_has_keras_3s_layout():
    config = _two_outputs().get_config()
    # TensorFlow: ['input_layers', 'layers', 'name', 'output_layers', 'trainable'], ['x', 0, 0],
    # [['add', 0, 0], ['a', 0, 0]]
    assert sorted(config) == ["input_layers", "layers", "name", "output_layers", "trainable"]
    assert config["input_layers"] == ["x", 0, 0] and config["output_layers"] == [["add", 0, 0], ["a", 0, 0]]
    described = [(entry["name"], entry["class_name"], len(entry["inbound_nodes"])) for entry in config["layers"]]
    assert described == [("x", "InputLayer", 0), ("dense", "Dense", 1), ("a", "Dense", 1), ("b", "Dense", 1),
                         ("add", "Add", 1)]  # fmt: skip
    (call,) = config["layers"][4]["inbound_nodes"]
    histories = [kt["config"]["keras_history"] for kt in call["args"][0]]
    assert histories == [["a", 0, 0], ["b", 0, 0]] and call["kwargs"] == {}
    assert call["args"][0][0] == {
        "class_name": "__keras_tensor__",
        "config": {"shape": (None, 2), "dtype": "float32", "keras_history": ["a", 0, 0]},
    }
    assert config["layers"][1]["config"]["units"] == 3 and config["layers"][1]["config"]["activation"] == "relu"


def test_a_functional_model_round_trips_and_computes_the_same_with_the_same_weights():
    model = _two_outputs()
    copy = keras.Model.from_config(model.get_config())
    assert [layer.name for layer in copy.layers] == ["x", "dense", "a", "b", "add"] and copy.name == "two"
    assert all(v.shape == w.shape for v, w in zip(copy.weights, model.weights))
    assert not np.allclose(copy.layers[1].kernel.numpy(), model.layers[1].kernel.numpy())  # new weights
    copy.set_weights(model.get_weights())
    for mine, theirs in zip(copy(x), model(x)):
        np.testing.assert_allclose(mine.numpy(), theirs.numpy())


def test_a_layer_called_twice_keeps_both_calls():
    shared = layers.Dense(4, name="shared")
    inputs = keras.Input((4,))
    model = keras.Model(inputs, shared(shared(inputs)))
    config = model.get_config()
    assert [len(entry["inbound_nodes"]) for entry in config["layers"]] == [0, 2]
    second_call = config["layers"][1]["inbound_nodes"][1]
    assert second_call["args"][0]["config"]["keras_history"] == ["shared", 0, 0]
    copy = keras.models.clone_model(model)
    copy.set_weights(model.get_weights())
    np.testing.assert_allclose(copy(x).numpy(), model(x).numpy())


def test_a_sequential_config_lists_its_input_layer_first_and_round_trips():
    model = keras.Sequential(
        [keras.Input((4,)), layers.Dense(3, activation="tanh"), layers.Dropout(0.2), layers.Dense(1)], name="seq"
    )
    config = model.get_config()
    # TensorFlow: ['build_input_shape', 'dtype', 'layers', 'name', 'trainable'], InputLayer first, (None, 4)
    assert sorted(config) == ["build_input_shape", "dtype", "layers", "name", "trainable"]
    assert [entry["class_name"] for entry in config["layers"]] == ["InputLayer", "Dense", "Dropout", "Dense"]
    assert config["build_input_shape"] == (None, 4)
    assert config["layers"][0]["config"] == {
        "batch_shape": (None, 4),
        "dtype": "float32",
        "sparse": False,
        "name": config["layers"][0]["config"]["name"],
    }
    copy = keras.Sequential.from_config(config)
    assert copy.output_shape == (None, 1) and copy.name == "seq"
    copy.set_weights(model.get_weights())
    np.testing.assert_allclose(copy(x).numpy(), model(x).numpy())


def test_your_own_layer_comes_back_through_custom_objects():
    class Doubling(layers.Layer):
        def call(self, inputs):
            return 2 * inputs

    inputs = keras.Input((4,))
    model = keras.Model(inputs, Doubling(name="twice")(inputs))
    config = model.get_config()
    with pytest.raises(ValueError, match=r"Unknown layer class 'Doubling'.*custom_objects=\{'Doubling': Doubling\}"):
        keras.Model.from_config(config)
    copy = keras.Model.from_config(config, custom_objects={"Doubling": Doubling})
    np.testing.assert_allclose(copy(x).numpy(), 2 * x)


def test_every_built_in_layer_config_holds_its_arguments():
    conv = layers.Conv2D(4, 3, padding="same", kernel_initializer="he_normal")
    config = conv.get_config()
    assert (config["filters"], config["kernel_size"], config["padding"], config["kernel_initializer"]) == (
        4,
        3,
        "same",
        "he_normal",
    )
    again = layers.Conv2D.from_config(config)
    assert again.filters == 4 and again.padding == conv.padding
