"""fit, evaluate and predict run their steps through mt.function, as Keras 3 runs them in a tf.function.

The counts of prints and the messages marked "TensorFlow 2.21" are what TensorFlow 2.21 (Keras 3.15) printed for
the same code; where minitape differs (a smaller last batch is traced again), the test says so.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

import minitape as mt
from minitape import keras

X = np.random.default_rng(0).random((10, 4)).astype(np.float32)
Y = np.random.default_rng(1).random((10, 1)).astype(np.float32)


class Printing(keras.layers.Layer):
    """Passes its input on; prints with Python's print (at tracing) and with mt.print (at every run)."""

    def call(self, x):
        print("python print", tuple(x.shape))
        mt.print("mt.print")
        return x


def printing_model(run_eagerly=False):
    model = keras.Sequential([keras.Input((4,)), Printing(), keras.layers.Dense(1)])
    model.compile("sgd", "mse", run_eagerly=run_eagerly)
    return model


def python_prints(captured):
    return re.findall(r"python print \((\d+), 4\)", captured.out)


def test_run_eagerly_is_false_unless_compile_or_an_assignment_says_so():
    model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
    model.compile("sgd", "mse")
    assert model.run_eagerly is False  # TensorFlow 2.21: False
    model.compile("sgd", "mse", run_eagerly=True)
    assert model.run_eagerly is True
    model.run_eagerly = False
    assert model.run_eagerly is False


def test_a_print_in_call_runs_when_fit_traces_and_mt_print_at_every_step(capsys):
    model = printing_model()
    capsys.readouterr()
    model.fit(X[:8], Y[:8], batch_size=4, epochs=2, verbose=0)
    out = capsys.readouterr()
    # TensorFlow 2.21: the print once (at tracing), tf.print 4 times (2 epochs of 2 batches)
    assert python_prints(out) == ["4"] and out.err.count("mt.print") == 4
    model.fit(X[:8], Y[:8], batch_size=4, epochs=1, verbose=0)
    out = capsys.readouterr()
    assert python_prints(out) == [] and out.err.count("mt.print") == 2  # the same train function: no new trace
    model.compile("sgd", "mse")
    assert model.train_function is None  # compile makes the step functions again, at the next fit
    model.fit(X[:8], Y[:8], batch_size=4, epochs=1, verbose=0)
    assert python_prints(capsys.readouterr()) == ["4"]  # TensorFlow 2.21: one print after compile again


def test_evaluate_and_fits_validation_share_one_traced_test_step(capsys):
    model = printing_model()
    capsys.readouterr()
    model.evaluate(X[:8], Y[:8], batch_size=4, verbose=0)
    assert python_prints(capsys.readouterr()) == ["4"]  # TensorFlow 2.21: once
    model.evaluate(X[:8], Y[:8], batch_size=4, verbose=0)
    assert python_prints(capsys.readouterr()) == []  # TensorFlow 2.21: not again
    model.fit(X[:8], Y[:8], batch_size=4, epochs=2, verbose=0, validation_data=(X[:8], Y[:8]))
    assert python_prints(capsys.readouterr()) == ["4"]  # TensorFlow 2.21: the train step's trace alone
    model.predict(X[:8], batch_size=4, verbose=0)
    assert python_prints(capsys.readouterr()) == ["4"]


def test_a_smaller_last_batch_is_traced_too(capsys):
    model = printing_model()
    capsys.readouterr()
    model.fit(X, Y, batch_size=4, epochs=2, verbose=0)
    out = capsys.readouterr()
    # minitape traces on real values, once per batch shape: the last batch of 2 is traced too. TensorFlow 2.21
    # prints once here (its step is traced for a batch axis of None); tf.print runs at all 6 steps in both
    assert python_prints(out) == ["4", "2"] and out.err.count("mt.print") == 6
    assert model.train_function.experimental_get_tracing_count() == 2


def test_train_on_batch_and_predict_on_batch_use_the_step_functions(capsys):
    model = printing_model()
    capsys.readouterr()
    for n in (4, 3, 4):
        model.train_on_batch(X[:n], Y[:n])
    # TensorFlow 2.21 prints twice too: for the batch of 4, then for any batch size (minitape: for the batch of 3)
    assert python_prints(capsys.readouterr()) == ["4", "3"]
    assert model.predict_on_batch(X[:4]).shape == (4, 1) and python_prints(capsys.readouterr()) == ["4"]


def test_run_eagerly_runs_the_python_of_every_step(capsys):
    for model in (printing_model(run_eagerly=True), printing_model()):
        capsys.readouterr()
        if not model.run_eagerly:
            mt.config.run_functions_eagerly(True)
        try:
            model.fit(X, Y, batch_size=4, epochs=1, verbose=0)
        finally:
            mt.config.run_functions_eagerly(False)
        # TensorFlow 2.21 prints the shapes of all three batches, either way
        assert python_prints(capsys.readouterr()) == ["4", "4", "2"]
    assert model.run_eagerly is False  # TensorFlow 2.21: run_functions_eagerly leaves the model's flag False


def test_a_python_counter_in_train_step_counts_traces_and_a_variable_counts_steps():
    steps = mt.Variable(0)

    class Counting(keras.Sequential):
        python_count = 0

        def train_step(self, data):
            self.python_count += 1
            steps.assign_add(1)
            return super().train_step(data)

    model = Counting([keras.Input((4,)), keras.layers.Dense(1)])
    model.compile("sgd", "mse")
    model.fit(X[:8], Y[:8], batch_size=4, epochs=2, verbose=0)
    assert (model.python_count, int(steps)) == (1, 4)  # TensorFlow 2.21: 1 and 4


def test_numpy_in_a_traced_train_step_raises_graph_modes_error():
    class Inspecting(keras.Sequential):
        def train_step(self, data):
            x, _ = data
            print(x.numpy())
            return super().train_step(data)

    model = Inspecting([keras.Input((4,)), keras.layers.Dense(1)])
    model.compile("sgd", "mse")
    # TensorFlow 2.21: AttributeError: 'SymbolicTensor' object has no attribute 'numpy'
    with pytest.raises(AttributeError, match="^'SymbolicTensor' object has no attribute 'numpy'$"):
        model.fit(X, Y, batch_size=4, verbose=0)
    model.compile("sgd", "mse", run_eagerly=True)
    model.fit(X, Y, batch_size=4, verbose=0)  # eagerly, the batch has its values


class Hooks(keras.callbacks.Callback):
    def __init__(self):
        super().__init__()
        self.seen = []

    def on_train_batch_end(self, batch, logs=None):
        self.seen.append(("train_batch", batch, {k: (type(v), v) for k, v in logs.items()}))

    def on_test_batch_end(self, batch, logs=None):
        self.seen.append(("test_batch", batch, sorted(logs)))

    def on_epoch_end(self, epoch, logs=None):
        self.seen.append(("epoch", epoch, {k: (type(v), v) for k, v in logs.items()}))


def _fit_with_callbacks(run_eagerly, capsys):
    keras.utils.set_random_seed(0)
    model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3, activation="relu"), keras.layers.Dense(1)])
    model.compile("adam", "mse", metrics=["mae"], run_eagerly=run_eagerly)
    hooks = Hooks()
    capsys.readouterr()
    history = model.fit(X, Y, batch_size=4, epochs=2, verbose=1, callbacks=[hooks], validation_split=0.2)
    bar = re.sub(r"\d+[mu]?s(/step)?", "T", capsys.readouterr().out)  # the timings differ from run to run
    return hooks.seen, history.history, bar


def test_callbacks_history_and_the_progress_bar_are_the_same_traced_or_eager(capsys):
    eager = _fit_with_callbacks(True, capsys)
    traced = _fit_with_callbacks(False, capsys)
    assert traced == eager
    seen, history, bar = traced
    # TensorFlow 2.21: Python floats in the logs of every batch and epoch, and in the History
    assert all(kind is float for entry in seen if entry[0] != "test_batch" for kind, _ in entry[2].values())
    assert sorted(history) == ["loss", "mae", "val_loss", "val_mae"]
    assert all(type(v) is float for values in history.values() for v in values)
    assert "Epoch 2/2" in bar and "val_mae" in bar


def _same_training(build, x, y, **fit_args):
    """Fit (and evaluate and predict) the model `build` makes, eagerly and traced, from the same seed."""
    results = []
    for run_eagerly in (True, False):
        keras.utils.set_random_seed(0)
        model = build()
        model.run_eagerly = run_eagerly
        history = model.fit(x, y, verbose=0, **fit_args)
        batch_size = fit_args.get("batch_size")
        evaluated = model.evaluate(x, y, batch_size=batch_size, verbose=0, return_dict=True)
        predicted = model.predict(x, batch_size=batch_size, verbose=0)
        results.append((history.history, model.get_weights(), evaluated, predicted, model))
    (history, weights, evaluated, predicted, _), (history2, weights2, evaluated2, predicted2, traced) = results
    assert history2 == history and evaluated2 == evaluated
    assert len(weights2) == len(weights) and all(np.array_equal(a, b) for a, b in zip(weights2, weights))
    assert all(np.array_equal(a, b) for a, b in zip(mt.nest.flatten(predicted2), mt.nest.flatten(predicted)))
    assert traced.train_function.experimental_get_tracing_count() >= 1  # it was traced, not run eagerly
    return history


def test_a_dense_mlp_trains_bit_for_bit_as_eagerly():
    rng = np.random.default_rng(2)
    x, y = rng.normal(size=(90, 6)).astype(np.float32), rng.integers(0, 3, 90)

    def build():
        model = keras.Sequential(
            [keras.Input((6,)), keras.layers.Dense(16, activation="relu"), keras.layers.Dense(3, activation="softmax")]
        )
        model.compile(keras.optimizers.Adam(0.01), "sparse_categorical_crossentropy", metrics=["accuracy"])
        return model

    history = _same_training(
        build, x, y, batch_size=32, epochs=3, validation_split=0.2, class_weight={0: 1.0, 1: 2.0, 2: 0.5}
    )
    assert history["loss"][-1] < history["loss"][0]
    _same_training(build, x, y, batch_size=32, epochs=2, sample_weight=np.linspace(0.5, 1.5, 90))


def test_lesson_08s_cnn_trains_bit_for_bit_as_eagerly():
    (x, y), _ = keras.datasets.digits.load_data()
    x, y = (x[:200] / 16.0)[..., None].astype(np.float32), y[:200]

    def build():  # lesson 08's DigitsCNN, layer for layer
        model = keras.Sequential(
            [
                keras.Input((8, 8, 1)),
                keras.layers.Conv2D(8, 3, padding="same", activation="relu"),
                keras.layers.MaxPool2D(),
                keras.layers.Conv2D(16, 3, padding="same", activation="relu"),
                keras.layers.MaxPool2D(),
                keras.layers.Flatten(),
                keras.layers.Dense(64, activation="relu"),
                keras.layers.Dense(10),
            ]
        )
        loss = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
        model.compile(optimizer=keras.optimizers.Adam(learning_rate=0.01), loss=loss, metrics=["accuracy"])
        return model

    history = _same_training(build, x, y, batch_size=64, epochs=2, shuffle=False)
    assert history["loss"][1] < history["loss"][0]


def test_dropout_and_batch_normalization_train_bit_for_bit_as_eagerly():
    rng = np.random.default_rng(3)
    x, y = rng.normal(size=(50, 5)).astype(np.float32), rng.normal(size=(50, 2)).astype(np.float32)

    def build():
        model = keras.Sequential(
            [
                keras.Input((5,)),
                keras.layers.Dense(12, activation="relu"),
                keras.layers.Dropout(0.3),
                keras.layers.BatchNormalization(),
                keras.layers.Dense(2),
            ]
        )
        model.compile("adam", "mse", metrics=["mae"])
        return model

    _same_training(build, x, y, batch_size=16, epochs=3, validation_data=(x[:20], y[:20]))
    keras.utils.set_random_seed(0)
    model = build()
    model.fit(x, y, batch_size=16, epochs=2, verbose=0)
    moving_mean = model.layers[2].moving_mean.numpy()
    assert np.all(moving_mean != 0)  # the averages moved at every traced step, not only when it was traced


def test_a_model_with_two_outputs_trains_bit_for_bit_as_eagerly():
    rng = np.random.default_rng(4)
    x = rng.normal(size=(40, 3)).astype(np.float32)
    y = {"kind": rng.integers(0, 2, 40), "size": rng.normal(size=(40, 1)).astype(np.float32)}

    def build():
        inputs = keras.Input((3,), name="a")
        hidden = keras.layers.Dense(8, activation="relu")(inputs)
        kind = keras.layers.Dense(2, activation="softmax", name="kind")(hidden)
        size = keras.layers.Dense(1, name="size")(hidden)
        model = keras.Model(inputs, {"kind": kind, "size": size})
        model.compile(
            "adam",
            loss={"kind": "sparse_categorical_crossentropy", "size": "mse"},
            loss_weights={"kind": 1.0, "size": 0.5},
            metrics={"kind": ["accuracy"], "size": ["mae"]},
        )
        return model

    history = _same_training(build, x, y, batch_size=16, epochs=2)
    assert {"kind_loss", "size_loss", "kind_accuracy", "size_mae"} <= set(history)


def test_a_stateful_rnn_carries_its_state_across_traced_steps_as_eagerly():
    rng = np.random.default_rng(5)
    x, y = rng.normal(size=(8, 5, 3)).astype(np.float32), rng.normal(size=(8, 1)).astype(np.float32)

    def build():
        model = keras.Sequential(
            [keras.Input((5, 3), batch_size=4), keras.layers.SimpleRNN(6, stateful=True), keras.layers.Dense(1)]
        )
        model.compile("adam", "mse")
        return model

    _same_training(build, x, y, batch_size=4, epochs=2, shuffle=False)


def test_bad_labels_in_a_later_batch_are_caught_by_the_replayed_step():
    model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3)])
    model.compile("sgd", keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    labels = np.array([0, 1, 2, 0, 1, 2, 0, 3])  # the second batch holds a class the model does not have
    with pytest.raises(ValueError, match="SparseCategoricalCrossentropy"):
        model.fit(X[:8], labels, batch_size=4, shuffle=False, verbose=0)
    assert model.train_function.experimental_get_tracing_count() == 1  # it was the replay that refused it

    indices_in = keras.Input((2,), dtype="int32")
    embedding = keras.Model(indices_in, keras.layers.Flatten()(keras.layers.Embedding(5, 2)(indices_in)))
    embedding.compile("sgd", "mse")
    indices = np.array([[0, 1], [2, 3], [4, 0], [1, 9]])
    with pytest.raises(ValueError, match=r'Embedding ".*": index 9 is out of range \[0, 5\)'):
        embedding.fit(indices, np.zeros((4, 4), np.float32), batch_size=2, shuffle=False, verbose=0)


def test_float_of_the_loss_in_a_traced_train_step_is_refused_with_the_fix():
    class Floats(keras.Sequential):
        def train_step(self, data):
            x, y = data
            with mt.GradientTape() as tape:
                loss = self.compute_loss(x, y, self(x, training=True))
            gradients = tape.gradient(loss, self.trainable_variables)
            self.optimizer.apply_gradients(zip(gradients, self.trainable_variables))
            return {"loss": float(loss)}

    model = Floats([keras.Input((4,)), keras.layers.Dense(1)])
    model.compile("sgd", "mse")
    # TensorFlow 2.21 refuses it when tracing: TypeError: float() argument must be a string or a real number, not
    # 'SymbolicTensor'. minitape traces on real values and refuses it at the first batch whose loss differs
    with pytest.raises(RuntimeError, match=r"float\(t\).*has another value.*Keep the tensor instead"):
        model.fit(X, Y, batch_size=4, verbose=0)
    model.compile("sgd", "mse", run_eagerly=True)
    assert len(model.fit(X, Y, batch_size=4, epochs=2, verbose=0).history["loss"]) == 2


@pytest.mark.parametrize("loss", ["categorical_crossentropy", "hinge"])
def test_losses_and_metrics_that_look_at_the_values_train_bit_for_bit_as_eagerly(loss):
    rng = np.random.default_rng(6)
    x = rng.normal(size=(24, 4)).astype(np.float32)
    y = np.eye(3, dtype=np.float32)[rng.integers(0, 3, 24)]
    y[12:] = 2 * y[12:] - 1  # hinge: labels 0/1 in the first batch become -1/1 there, and stay -1/1 in the second

    def build():
        model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3, activation="softmax")])
        # the crossentropy metric takes the logits behind the softmax, as the loss does (kept_logits.py)
        model.compile("adam", loss, metrics=["categorical_crossentropy", "binary_crossentropy", "accuracy"])
        return model

    _same_training(build, x, y, batch_size=12, epochs=2, shuffle=False)


class BranchAfterUpdate(keras.Model):
    """A train_step with a Python `if` on a tensor after the optimizer's update: it goes the other way from step 4."""

    def __init__(self):
        super().__init__()
        self.dense = keras.layers.Dense(1, kernel_initializer="ones")
        self.late_steps = mt.Variable(0)

    def call(self, x):
        return self.dense(x)

    def train_step(self, data):
        x, y = data
        with mt.GradientTape() as tape:
            loss = self.compute_loss(x=x, y=y, y_pred=self(x, training=True))
        variables = self.dense.trainable_variables
        self.optimizer.apply_gradients(zip(tape.gradient(loss, variables), variables))
        if self.optimizer.iterations > 3:  # a branch on a tensor, decided after the update
            self.late_steps.assign_add(1)
        return {"loss": loss}


def _fit_branching(run_eagerly):
    model = BranchAfterUpdate()
    model.compile("sgd", "mse", run_eagerly=run_eagerly)
    history = model.fit(X, Y, batch_size=2, epochs=2, verbose=0, shuffle=False)
    return model, history.history["loss"]


def test_a_branch_after_the_update_makes_fit_run_that_step_eagerly_with_a_warning():
    eager_model, eager_losses = _fit_branching(run_eagerly=True)
    with pytest.warns(UserWarning, match=r"the train step branches on a tensor's value after an optimizer's") as seen:
        model, losses = _fit_branching(run_eagerly=False)
    assert len(seen) == 1 and "runs eagerly from now on" in str(seen[0].message)
    assert model.train_function.runs_eagerly and model.train_function.experimental_get_tracing_count() == 1
    # 10 steps, 7 of them after the third: every step ran its Python, as eager fit's did, bit for bit
    assert int(model.late_steps) == int(eager_model.late_steps) == 7
    assert losses == eager_losses
    np.testing.assert_array_equal(model.dense.kernel.numpy(), eager_model.dense.kernel.numpy())


def test_a_branch_before_the_update_stays_traced_without_a_warning(recwarn):
    class BranchBefore(BranchAfterUpdate):
        def train_step(self, data):
            x, y = data
            if self.optimizer.iterations > 3:  # decided before the update: a guard the graph can retreat from
                self.late_steps.assign_add(1)
            with mt.GradientTape() as tape:
                loss = self.compute_loss(x=x, y=y, y_pred=self(x, training=True))
            variables = self.dense.trainable_variables
            self.optimizer.apply_gradients(zip(tape.gradient(loss, variables), variables))
            return {"loss": loss}

    model = BranchBefore()
    model.compile("sgd", "mse")
    model.fit(X, Y, batch_size=2, epochs=2, verbose=0, shuffle=False)
    assert int(model.late_steps) == 6  # steps 5 to 10 see iterations > 3 before their update
    assert not [w for w in recwarn if "runs eagerly" in str(w.message)]
    assert not model.train_function.runs_eagerly and model.train_function.experimental_get_tracing_count() == 2
