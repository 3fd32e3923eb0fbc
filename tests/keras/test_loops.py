"""fit, evaluate and predict as Keras 3 runs them: callback hooks and their logs, keyword arguments, x-only data,
steps_per_epoch on arrays. Expected values come from Keras 3 (TF 2.21), written in by hand."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minitape as mt

keras = mt.keras
layers = keras.layers

pytestmark = pytest.mark.usefixtures("keras_session")


class Recorder(keras.callbacks.Callback):
    """Records (hook, batch or epoch, sorted log keys) for every hook, checking each gets a dict."""

    def __init__(self):
        super().__init__()
        self.calls = []

    def __getattribute__(self, name):
        if not name.startswith("on_"):
            return object.__getattribute__(self, name)
        calls = object.__getattribute__(self, "calls")

        def hook(*args, logs=None):
            logs = args[-1] if args and isinstance(args[-1], dict) else logs
            assert isinstance(logs, dict), f"{name} got logs={logs!r}"
            index = args[0] if args and isinstance(args[0], int) else None
            calls.append((name, index, sorted(logs)))

        return hook


def small_model():
    inputs = keras.Input((3,))
    model = keras.Model(inputs, keras.layers.Dense(1)(inputs))
    model.compile("sgd", "mse", metrics=["mae"])
    return model


X = np.ones((10, 3), "float32")
Y = np.ones((10, 1), "float32")
METRICS = ["loss", "mae"]
TEST_HOOKS = [
    ("on_test_begin", None, []),
    ("on_test_batch_begin", 0, []),
    ("on_test_batch_end", 0, METRICS),
    ("on_test_batch_begin", 1, []),
    ("on_test_batch_end", 1, METRICS),
    ("on_test_end", None, METRICS),
]


def test_fit_calls_the_train_hooks_and_the_test_hooks_of_its_validation_as_keras_3():
    record = Recorder()
    small_model().fit(X, Y, batch_size=5, validation_data=(X, Y), callbacks=[record], verbose=0)
    everything = [*METRICS, "val_loss", "val_mae"]
    assert record.calls == [  # Keras 3 calls exactly these, in this order, with these log keys
        ("on_train_begin", None, []),
        ("on_epoch_begin", 0, []),
        ("on_train_batch_begin", 0, []),
        ("on_train_batch_end", 0, METRICS),
        ("on_train_batch_begin", 1, []),
        ("on_train_batch_end", 1, METRICS),
        *TEST_HOOKS,
        ("on_epoch_end", 0, everything),
        ("on_train_end", None, everything),
    ]


def test_evaluate_and_predict_call_their_hooks_as_keras_3():
    model = small_model()
    record = Recorder()
    model.evaluate(X, Y, batch_size=5, callbacks=[record], verbose=0)
    assert record.calls == TEST_HOOKS
    record = Recorder()
    outputs = []
    model.predict(X, batch_size=5, callbacks=[record, keras.callbacks.LambdaCallback(
        on_predict_batch_end=lambda batch, logs: outputs.append(logs["outputs"]))], verbose=0)  # fmt: skip
    assert record.calls == [
        ("on_predict_begin", None, []),
        ("on_predict_batch_begin", 0, []),
        ("on_predict_batch_end", 0, ["outputs"]),
        ("on_predict_batch_begin", 1, []),
        ("on_predict_batch_end", 1, ["outputs"]),
        ("on_predict_end", None, []),
    ]
    assert [o.shape for o in outputs] == [(5, 1), (5, 1)]


def test_the_callback_base_class_has_every_keras_3_hook_and_batch_hooks_fall_back_as_in_keras():
    hooks = {name for name in dir(keras.callbacks.Callback) if name.startswith("on_")}
    assert hooks == {  # dir(keras.callbacks.Callback) in Keras 3
        *(f"on_{stage}_{when}" for stage in ("train", "test", "predict") for when in ("begin", "end")),
        *(f"on_{stage}_batch_{when}" for stage in ("train", "test", "predict") for when in ("begin", "end")),
        "on_epoch_begin", "on_epoch_end", "on_batch_begin", "on_batch_end",
    }  # fmt: skip
    seen = []

    class OldStyle(keras.callbacks.Callback):
        def on_batch_end(self, batch, logs=None):
            seen.append((batch, sorted(logs)))

    small_model().fit(X, Y, batch_size=5, callbacks=[OldStyle()], verbose=0)
    assert seen == [(0, METRICS), (1, METRICS)]
    with pytest.raises(TypeError, match="Callback instances.*LambdaCallback"):
        small_model().fit(X, Y, callbacks=[print], verbose=0)


def test_validation_freq_steps_and_batch_size():
    record = Recorder()
    history = small_model().fit(
        X, Y, batch_size=5, epochs=4, validation_data=(X, Y), validation_freq=2, validation_batch_size=2,
        validation_steps=3, callbacks=[record], verbose=0,
    )  # fmt: skip
    assert len(history.history["loss"]) == 4 and len(history.history["val_loss"]) == 2
    assert sum(1 for name, *_ in record.calls if name == "on_test_batch_end") == 2 * 3


def test_unknown_keywords_are_refused_by_name():
    model = small_model()
    with pytest.raises(TypeError, match="validation_step"):
        model.fit(X, Y, validation_step=2, verbose=0)
    with pytest.raises(ValueError, match=r"not recognized: \['callback'\].*callbacks"):
        model.evaluate(X, Y, callback=[], verbose=0)
    with pytest.raises(TypeError, match="use_multiprocessing"):
        model.predict(X, use_multiprocessing=True)
    # the keywords Keras 3 has are accepted
    assert len(model.predict(X, batch_size=4, steps=2, callbacks=[], verbose=0)) == 8
    assert np.isfinite(model.evaluate(X, Y, steps=1, callbacks=[], verbose=0, return_dict=True)["loss"])


class GAN(keras.Model):
    """The GAN guide's shape: train_step takes a batch of x only."""

    def __init__(self):
        super().__init__()
        self.dense = keras.layers.Dense(1)

    def call(self, x):
        return self.dense(x)

    def train_step(self, data):
        assert isinstance(data, mt.Tensor) and data.shape[1:] == (3,)
        with mt.GradientTape() as tape:
            loss = mt.reduce_mean(self(data) ** 2)
        grads = tape.gradient(loss, self.trainable_variables)
        self.optimizer.apply_gradients(zip(grads, self.trainable_variables))
        return {"d_loss": loss}


def test_fit_on_a_dataset_of_x_only_runs_an_overridden_train_step():
    gan = GAN()
    gan.compile(optimizer="sgd")
    history = gan.fit(mt.data.Dataset.from_tensor_slices(X).batch(4), epochs=2, verbose=0)
    assert len(history.history["d_loss"]) == 2
    model = small_model()
    with pytest.raises(ValueError, match="needs targets y, but the data gives x only.*override train_step"):
        model.fit(mt.data.Dataset.from_tensor_slices(X).batch(4), verbose=0)


class FirstValues(keras.Model):
    def __init__(self):
        super().__init__()
        self.dense = keras.layers.Dense(1)
        self.firsts = []

    def call(self, x):
        return self.dense(x)

    def train_step(self, data):
        x, _ = data
        self.firsts.append(float(np.asarray(x)[0, 0]))
        return {"loss": 0.0}


def test_arrays_with_steps_per_epoch_go_on_and_restart_when_they_run_out_as_keras_3():
    x = np.arange(10, dtype="float32").reshape(10, 1)
    model = FirstValues()
    model.compile("sgd", "mse", run_eagerly=True)  # its train_step reads each batch's values in numpy
    # two batches of 5; Keras 3 gives the batches starting at [0, 5, 0, 5, 0, 5] over 3 epochs, warning each time
    with pytest.warns(UserWarning, match="ran out of data after 2 of the 3 steps") as caught:
        history = model.fit(x, x, batch_size=5, epochs=3, steps_per_epoch=3, shuffle=False, verbose=0)
    assert [f"of epoch {n};" in str(w.message) for n, w in zip((1, 2, 3), caught)] == [True, True, True]
    assert model.firsts == [0, 5, 0, 5, 0, 5] and len(history.history["loss"]) == 3
    model.firsts.clear()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model.fit(x, x, batch_size=5, epochs=3, steps_per_epoch=1, shuffle=False, verbose=0)
    assert model.firsts == [0, 5, 0]  # Keras 3: each epoch goes on where the last stopped


def two_outputs(loss, **compile_args):
    inputs = keras.Input((2,), name="a")
    priority = keras.layers.Dense(1, name="priority", kernel_initializer="ones")(inputs)
    department = keras.layers.Dense(2, activation="softmax", name="department", kernel_initializer="ones")(inputs)
    model = keras.Model(inputs, [priority, department])
    model.compile("sgd", loss=loss, **compile_args)
    return model


XS = np.array([[1.0, 2.0], [0.0, 1.0], [3.0, -1.0]], "float32")
TARGETS = {"priority": np.array([[1.0], [0.0], [2.0]], "float32"), "department": np.array([0, 1, 1])}
LOSSES = {"priority": "mse", "department": "sparse_categorical_crossentropy"}


def test_each_output_loss_is_logged_unweighted_as_keras_3():
    model = two_outputs(LOSSES, loss_weights={"priority": 1.0, "department": 0.2})
    logs = model.evaluate(XS, TARGETS, verbose=0, return_dict=True)
    # Keras 3: {'department_loss': 0.69315, 'loss': 1.8053, 'priority_loss': 1.66667}
    assert logs == pytest.approx({"loss": 1.8053, "priority_loss": 1.66667, "department_loss": 0.69315}, abs=1e-4)


@pytest.mark.parametrize(
    ("compile_args", "keys"),
    [  # the History keys of Keras 3 (without the val_ copies), for each way to compile
        ({"loss": ["mse", "sparse_categorical_crossentropy"]}, ["department_loss", "loss", "priority_loss"]),
        (
            {"loss": ["mse", "sparse_categorical_crossentropy"], "metrics": [["mae"], ["accuracy"]]},
            ["department_accuracy", "department_loss", "loss", "priority_loss", "priority_mae"],
        ),
        (
            {
                "loss": LOSSES,
                "metrics": {"priority": ["mae"], "department": ["accuracy", "sparse_categorical_accuracy"]},
            },
            ["department_accuracy", "department_loss", "department_sparse_categorical_accuracy", "loss"]
            + ["priority_loss", "priority_mae"],
        ),
        (
            {"loss": LOSSES, "metrics": {"department": "accuracy"}},
            ["department_accuracy", "department_loss", "loss", "priority_loss"],
        ),  # fmt: skip
        ({"loss": ["mse", None]}, ["loss"]),  # one output with a loss: no per-output loss
    ],
)
def test_multi_output_history_keys_are_named_as_keras_3(compile_args, keys):
    model = two_outputs(**compile_args)
    if compile_args["loss"] == ["mse", None]:  # the output without a loss trains nothing, and fit says so, as Keras 3
        with pytest.warns(UserWarning, match="Gradients do not exist for variables .'department/kernel:0'"):
            history = model.fit(XS, TARGETS, validation_data=(XS, TARGETS), verbose=0)
    else:
        history = model.fit(XS, TARGETS, validation_data=(XS, TARGETS), verbose=0)
    assert sorted(history.history) == sorted(keys + [f"val_{k}" for k in keys])


# ---- model.metrics as Keras 3 keeps them: the loss tracker and the compiled metrics as one -------------------
def test_model_metrics_hold_the_loss_tracker_and_the_compiled_metrics_as_one():
    # Keras 3.15: metrics_names ['loss', 'compile_metrics']; metrics[1].metrics the compiled ones; evaluate flat
    x, y = np.arange(8.0).reshape(4, 2), np.ones((4, 1))
    model = keras.Sequential([keras.Input((2,)), layers.Dense(1, kernel_initializer="ones")])
    model.compile(loss="mse", metrics=["mae", keras.metrics.RootMeanSquaredError()])
    assert model.metrics_names == ["loss", "compile_metrics"]
    compiled = model.metrics[1]
    assert compiled.name == "compile_metrics" and [m.name for m in compiled.metrics] == [
        "mae",
        "root_mean_squared_error",
    ]
    loss, mae, rmse = model.evaluate(x, y, verbose=0)
    errors = x.sum(axis=1) - 1  # the prediction x0 + x1 against 1
    np.testing.assert_allclose(
        [loss, mae, rmse], [np.mean(errors**2), np.mean(np.abs(errors)), np.sqrt(np.mean(errors**2))], rtol=1e-6
    )
    assert {k: float(v) for k, v in compiled.result().items()} == pytest.approx(
        {"mae": mae, "root_mean_squared_error": rmse}
    )
    compiled.reset_state()
    assert float(compiled.metrics[0].result()) == 0.0
    with pytest.raises(TypeError):  # as in Keras 3: the container's result is a dict, not a number
        float(compiled.result())
    plain = keras.Sequential([keras.Input((2,)), layers.Dense(1)])
    plain.compile(loss="mse")
    assert plain.metrics_names == ["loss"]


def test_a_model_with_two_outputs_lists_its_metrics_as_keras_3():
    inputs = keras.Input(shape=(3,))
    a, b = layers.Dense(1, name="a")(inputs), layers.Dense(1, name="b")(inputs)
    model = keras.Model(inputs, [a, b])
    model.compile("sgd", loss=["mse", "mse"], metrics=[["mae"], ["mse"]])
    assert model.metrics_names == ["loss", "compile_metrics", "a_loss", "b_loss"]  # Keras 3.15's order
    x, y = np.random.default_rng(1).random((8, 3)), np.random.default_rng(2).random((8, 1))
    logs = model.evaluate(x, [y, y], verbose=0, return_dict=True)
    assert list(logs) == ["a_loss", "a_mae", "b_loss", "b_mse", "loss"]  # Keras 3 sorts the logs' names
    values = model.evaluate(x, [y, y], verbose=0)  # the list: metrics_names' first, then the rest by name
    assert values == [logs[k] for k in ["loss", "a_loss", "b_loss", "a_mae", "b_mse"]]
    assert logs["loss"] == pytest.approx(logs["a_loss"] + logs["b_loss"]) and logs["b_mse"] == pytest.approx(
        logs["b_loss"]
    )


def test_count_params_refuses_an_unbuilt_layer_as_keras_3():
    with pytest.raises(
        ValueError, match="You tried to call `count_params` on layer 'dense_count', but the layer isn't built"
    ):
        layers.Dense(3, name="dense_count").count_params()
    assert keras.Sequential([keras.Input((3,)), layers.Dense(2)]).count_params() == 8


def test_early_stopping_and_model_checkpoint_decide_auto_mode_as_keras_3():
    # Keras 3.15: lower is better for the total loss; a compiled metric says its own way (AUC up, MAE down);
    # anything else (a metric function of your own, a per-output loss, a name not logged) asks for the mode
    def my_metric(y_true, y_pred):
        return mt.reduce_mean(y_pred, axis=-1)

    x = np.random.default_rng(0).random((16, 2))
    y = (np.random.default_rng(1).random((16, 1)) > 0.5).astype("float32")
    model = keras.Sequential([keras.Input((2,)), layers.Dense(1, activation="sigmoid")])
    model.compile("sgd", "mse", metrics=[my_metric, "mae", keras.metrics.AUC()])
    for monitor, mode in [("val_loss", "min"), ("val_mae", "min"), ("val_auc", "max")]:
        callback = keras.callbacks.EarlyStopping(monitor=monitor, patience=5)
        model.fit(x, y, validation_data=(x, y), epochs=1, verbose=0, callbacks=[callback])
        assert callback.mode == mode
    for monitor in ("val_my_metric", "val_nope"):
        with pytest.raises(ValueError, match=f"EarlyStopping callback received monitor={monitor}, but Keras isn't"):
            model.fit(x, y, validation_data=(x, y), epochs=1, verbose=0,
                      callbacks=[keras.callbacks.EarlyStopping(monitor=monitor)])  # fmt: skip
    model.fit(x, y, validation_data=(x, y), epochs=1, verbose=0,
              callbacks=[keras.callbacks.EarlyStopping(monitor="val_my_metric", mode="max")])  # fmt: skip
