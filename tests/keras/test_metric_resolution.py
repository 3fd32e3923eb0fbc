"""'accuracy' and per-output metrics as Keras 3 resolves them: from the shapes of the first batch, not the loss.

The logged names and metric kinds are what TensorFlow 2.21 (Keras 3.15.1) gave for the same models and data,
run side by side (2026-11-28).
"""

import numpy as np
import pytest

import minitape as tf

keras = tf.keras
pytestmark = pytest.mark.usefixtures("keras_session")

rng = np.random.default_rng(0)
x = rng.normal(size=(8, 3)).astype("float32")
labels = np.array([0, 1, 2, 3, 0, 1, 2, 3])
y_onehot = np.eye(4, dtype="float32")[labels]


def _kinds(model):
    return [(m.name, type(m.kind).__name__) for m in model.metrics[1].metrics]


def test_accuracy_for_one_hot_targets_in_a_dict_is_categorical_accuracy():
    inputs = keras.Input((3,))
    outputs = keras.layers.Dense(4, activation="softmax", name="out", kernel_initializer="ones")(inputs)
    model = keras.Model(inputs, outputs)
    model.compile("sgd", loss="categorical_crossentropy", metrics={"out": ["accuracy"]})
    history = model.fit(x, y_onehot, epochs=1, verbose=0)
    # TensorFlow: (['accuracy', 'loss'], [('accuracy', 'CategoricalAccuracy')]): one output, no name prefix
    assert sorted(history.history) == ["accuracy", "loss"]
    assert _kinds(model) == [("accuracy", "CategoricalAccuracy")]
    predicted = model.predict(x, verbose=0).argmax(-1)
    logs = model.evaluate(x, y_onehot, verbose=0, return_dict=True)
    assert logs["accuracy"] == pytest.approx(np.mean(predicted == labels))


def test_accuracy_follows_the_shapes_even_with_another_loss():
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(4, activation="softmax")])
    model.compile("sgd", loss="mse", metrics=["accuracy"])
    model.fit(x, y_onehot, epochs=1, verbose=0)
    assert _kinds(model) == [("accuracy", "CategoricalAccuracy")]  # TensorFlow: the same
    binary = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1, activation="sigmoid")])
    binary.compile("sgd", loss="binary_crossentropy", metrics=["accuracy"])
    binary.fit(x, (x[:, 0] > 0).astype("float32")[:, None], epochs=1, verbose=0)
    assert _kinds(binary) == [("accuracy", "BinaryAccuracy")]
    sparse = keras.Sequential([keras.Input((3,)), keras.layers.Dense(4, activation="softmax")])
    sparse.compile("sgd", loss="sparse_categorical_crossentropy", metrics=["acc"])
    history = sparse.fit(x, labels, epochs=1, verbose=0)
    assert sorted(history.history) == ["acc", "loss"] and _kinds(sparse) == [("acc", "SparseCategoricalAccuracy")]


def test_two_named_outputs_prefix_their_metrics():
    inputs = keras.Input((3,))
    cls = keras.layers.Dense(4, activation="softmax", name="cls")(inputs)
    reg = keras.layers.Dense(1, name="reg")(inputs)
    model = keras.Model(inputs, [cls, reg])
    model.compile(
        "sgd",
        loss={"cls": "categorical_crossentropy", "reg": "mse"},
        metrics={"cls": ["accuracy"], "reg": ["mae"]},
    )
    history = model.fit(x, {"cls": y_onehot, "reg": x[:, :1]}, epochs=1, verbose=0)
    # TensorFlow: ['cls_accuracy', 'cls_loss', 'loss', 'reg_loss', 'reg_mae'], accuracy resolved as categorical
    assert sorted(history.history) == ["cls_accuracy", "cls_loss", "loss", "reg_loss", "reg_mae"]
    assert type(model.metrics[1].metrics[0].kind).__name__ == "CategoricalAccuracy"


class _TwoOutputs(keras.Model):
    def __init__(self):
        super().__init__()
        self.a = keras.layers.Dense(4, activation="softmax")
        self.b = keras.layers.Dense(1)

    def call(self, inputs):
        return self.a(inputs), self.b(inputs)


def test_a_subclassed_model_returning_a_tuple_takes_one_metric_list_per_output():
    model = _TwoOutputs()
    model.compile(
        "sgd",
        loss=[keras.losses.CategoricalCrossentropy(), keras.losses.MeanSquaredError()],
        metrics=[["accuracy"], ["mae", "mse"]],
    )
    history = model.fit(x, (y_onehot, x[:, :1]), epochs=1, verbose=0)
    # TensorFlow: the outputs' losses are named after the losses, the metrics keep their own names
    assert sorted(history.history) == [
        "accuracy",
        "categorical_crossentropy_loss",
        "loss",
        "mae",
        "mean_squared_error_loss",
        "mse",
    ]
    logs = model.evaluate(x, (y_onehot, x[:, :1]), verbose=0, return_dict=True)
    first, second = model.predict(x, verbose=0)
    assert logs["accuracy"] == pytest.approx(np.mean(first.argmax(-1) == labels))
    assert logs["mae"] == pytest.approx(np.mean(np.abs(second - x[:, :1])), rel=1e-5)


def test_string_losses_name_a_subclassed_models_outputs_and_none_skips_one():
    model = _TwoOutputs()
    model.compile("sgd", loss=["categorical_crossentropy", "mse"], metrics=[["accuracy"], None])
    history = model.fit(x, (y_onehot, x[:, :1]), epochs=1, verbose=0)
    # TensorFlow: ['accuracy', 'categorical_crossentropy_loss', 'loss', 'mse_loss']
    assert sorted(history.history) == ["accuracy", "categorical_crossentropy_loss", "loss", "mse_loss"]


def test_a_flat_metric_list_for_several_unnamed_outputs_is_refused():
    # TensorFlow: "tuple arity mismatch; expected: 2, got: 1 ... Invalid `metrics`"
    model = _TwoOutputs()
    with pytest.raises(ValueError, match=r"does not say which output each metric is for.*list of lists"):
        model.compile("sgd", loss=["categorical_crossentropy", "mse"], metrics=["mae"])
