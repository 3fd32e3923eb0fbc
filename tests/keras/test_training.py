"""mt.keras training: losses, optimizers, compile/fit/evaluate/predict, the hand-written loop, digits accuracy."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minitape as mt

keras = mt.keras
layers = mt.keras.layers


pytestmark = pytest.mark.usefixtures("keras_session")


@pytest.fixture(scope="module")
def digits():
    (x_train, y_train), (x_test, y_test) = keras.datasets.digits.load_data()
    return (x_train / 16.0, y_train), (x_test / 16.0, y_test)


class CNN(keras.Model):
    """The lesson's model: Conv2D 16 relu, MaxPool, Conv2D 32 relu, MaxPool, Flatten, Dense 256 relu, Dense softmax."""

    def __init__(self):
        super().__init__()
        self.conv1 = layers.Conv2D(16, 3, padding="same", activation="relu")
        self.pool1 = layers.MaxPool2D()
        self.conv2 = layers.Conv2D(32, 3, padding="same", activation="relu")
        self.pool2 = layers.MaxPool2D()
        self.flatten = layers.Flatten()
        self.d1 = layers.Dense(256, activation="relu")
        self.d2 = layers.Dense(10, activation="softmax")

    def call(self, x):
        x = self.pool1(self.conv1(x))
        x = self.pool2(self.conv2(x))
        return self.d2(self.d1(self.flatten(x)))


# ---- the dataset ------------------------------------------------------------------------------------
def test_digits_load_data_has_a_fixed_documented_split():
    (x_train, y_train), (x_test, y_test) = keras.datasets.digits.load_data()
    assert x_train.shape == (1437, 8, 8) and x_test.shape == (360, 8, 8)
    assert x_train.dtype == np.uint8 and y_train.dtype == np.uint8
    assert x_train.max() == 16 and x_train.min() == 0
    assert set(np.unique(y_test)) == set(range(10))
    (again, _), _ = keras.datasets.digits.load_data()
    np.testing.assert_array_equal(again, x_train)
    x_train[0] = 0  # callers get copies: the next load is unaffected
    assert keras.datasets.digits.load_data()[0][0][0].max() > 0


# ---- losses -----------------------------------------------------------------------------------------
def test_losses_match_their_formulas():
    p = np.array([[0.7, 0.2, 0.1], [0.1, 0.1, 0.8]])
    y = np.array([0, 2])
    want = -np.mean(np.log([0.7, 0.8]))
    assert np.isclose(float(keras.losses.SparseCategoricalCrossentropy()(y, p)), want)
    assert np.isclose(float(mt.reduce_mean(keras.losses.get("categorical_crossentropy")(np.eye(3)[y], p))), want)
    logits = np.log(p) + 3.0  # softmax is shift invariant
    assert np.isclose(float(keras.losses.SparseCategoricalCrossentropy(from_logits=True)(y, logits)), want)
    t, q = np.array([[1.0], [0.0]]), np.array([[0.9], [0.3]])
    assert np.isclose(float(keras.losses.BinaryCrossentropy()(t, q)), -np.mean([np.log(0.9), np.log(0.7)]))
    np.testing.assert_allclose(keras.losses.get("mse")(t, q).numpy(), np.mean((t - q) ** 2, axis=-1))


def test_crossentropy_of_a_saturated_softmax_is_finite():
    p = np.array([[1.0, 0.0]], np.float32)
    loss = keras.losses.SparseCategoricalCrossentropy()(np.array([1]), p)
    assert np.isfinite(float(loss)) and float(loss) > 10
    big = np.array([[1000.0, -1000.0]], np.float32)
    assert np.isfinite(float(keras.losses.SparseCategoricalCrossentropy(from_logits=True)(np.array([1]), big)))


def test_label_out_of_range_names_the_loss_and_shapes():
    pattern = r"SparseCategoricalCrossentropy: label 10 is out of range.*\(2, 10\).*\[0, 10\)"
    with pytest.raises(ValueError, match=pattern):
        keras.losses.SparseCategoricalCrossentropy()(np.array([3, 10]), np.full((2, 10), 0.1))
    with pytest.raises(ValueError, match=r"SparseCategoricalCrossentropy.*3 examples.*2"):
        keras.losses.SparseCategoricalCrossentropy()(np.array([1, 2, 3]), np.full((2, 10), 0.1))
    with pytest.raises(ValueError, match=r"CategoricalCrossentropy.*\(2,\).*\(2, 3\).*SparseCategoricalCrossentropy"):
        keras.losses.CategoricalCrossentropy()(np.array([1, 2]), np.full((2, 3), 0.3))


def test_unknown_names_list_the_known_ones():
    with pytest.raises(ValueError, match="Unknown loss function: 'crossentropy'.*sparse_categorical_crossentropy"):
        keras.Sequential([layers.Dense(1)]).compile("adam", loss="crossentropy")
    with pytest.raises(ValueError, match="Unknown optimizer: 'lion'.*adam"):
        keras.Sequential([layers.Dense(1)]).compile("lion", loss="mse")
    with pytest.raises(ValueError, match="Unknown metric"):
        keras.Sequential([layers.Dense(1)]).compile("adam", loss="mse", metrics=["precision@k"])


# ---- optimizers -------------------------------------------------------------------------------------
def _run(optimizer, grads):
    v = mt.Variable([1.0, -2.0], name="w")
    for g in grads:
        optimizer.apply_gradients([(mt.constant(g), v)])
    return v.numpy()


def test_sgd_with_momentum_follows_its_update_rule():
    grads = [np.array([0.5, -1.0]), np.array([0.25, 2.0]), np.array([-1.0, 0.5])]
    w, velocity = np.array([1.0, -2.0]), np.zeros(2)
    for g in grads:
        velocity = 0.9 * velocity - 0.1 * g
        w = w + velocity
    np.testing.assert_allclose(_run(keras.optimizers.SGD(0.1, momentum=0.9), grads), w, rtol=1e-6)
    np.testing.assert_allclose(_run(keras.optimizers.SGD(0.1), grads[:1]), [0.95, -1.9], rtol=1e-6)


def test_adam_follows_its_update_rule():
    grads = [np.array([0.5, -1.0]), np.array([0.25, 2.0]), np.array([-1.0, 0.5])]
    w, m, s = np.array([1.0, -2.0]), np.zeros(2), np.zeros(2)
    for t, g in enumerate(grads, start=1):
        m = 0.9 * m + 0.1 * g
        s = 0.999 * s + 0.001 * g * g
        w = w - 0.01 * (m / (1 - 0.9**t)) / (np.sqrt(s / (1 - 0.999**t)) + 1e-7 / np.sqrt(1 - 0.999**t))
    np.testing.assert_allclose(_run(keras.optimizers.Adam(0.01), grads), w, rtol=1e-5)


def test_no_gradients_at_all_is_an_error_that_explains_the_usual_causes():
    model = keras.Sequential([layers.Dense(2)])
    y = model(np.ones((1, 3)))  # forward pass outside the tape
    with mt.GradientTape() as tape:
        loss = mt.reduce_sum(y)
    grads = tape.gradient(loss, model.trainable_variables)
    with pytest.raises(ValueError, match=r"No gradients provided for any variable.*dense/kernel:0.*outside.*numpy"):
        keras.optimizers.Adam().apply_gradients(zip(grads, model.trainable_variables))


def test_some_missing_gradients_warn_and_name_the_variables():
    a, b = mt.Variable(1.0, name="used"), mt.Variable(2.0, name="unused")
    with mt.GradientTape() as tape:
        loss = a * 3.0
    grads = tape.gradient(loss, [a, b])
    with pytest.warns(UserWarning, match=r"Gradients do not exist for variables \['unused:0'\]"):
        keras.optimizers.SGD(0.1).apply_gradients(zip(grads, [a, b]))
    assert np.isclose(a.numpy(), 0.7) and b.numpy() == 2.0


# ---- fit and the hand-written loop ------------------------------------------------------------------
def test_fit_and_a_hand_written_train_step_give_identical_weights(digits):
    (x, y), _ = digits
    x, y = x[:160, ..., None].astype(np.float32), y[:160]

    keras.backend.clear_session()
    mt.random.set_seed(42)
    by_hand = CNN()
    optimizer = keras.optimizers.Adam()
    loss_fn = keras.losses.SparseCategoricalCrossentropy()

    def train_step(images, labels):
        with mt.GradientTape() as tape:
            predictions = by_hand(images, training=True)
            loss = loss_fn(labels, predictions)
        gradients = tape.gradient(loss, by_hand.trainable_variables)
        optimizer.apply_gradients(zip(gradients, by_hand.trainable_variables))
        return loss

    for _epoch in range(2):
        for start in range(0, len(x), 32):
            train_step(x[start : start + 32], y[start : start + 32])

    keras.backend.clear_session()
    mt.random.set_seed(42)
    fitted = CNN()
    fitted.compile(optimizer=keras.optimizers.Adam(), loss=keras.losses.SparseCategoricalCrossentropy())
    fitted.fit(x, y, batch_size=32, epochs=2, shuffle=False, verbose=0)

    assert [v.name for v in fitted.trainable_variables] == [v.name for v in by_hand.trainable_variables]
    assert int(fitted.optimizer.iterations) == int(optimizer.iterations) == 10  # an int64 Variable
    for a, b in zip(by_hand.trainable_variables, fitted.trainable_variables):
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    keras.backend.clear_session()
    mt.random.set_seed(42)
    untrained = CNN()
    untrained(x[:1])
    assert not np.array_equal(untrained.d2.kernel.numpy(), fitted.d2.kernel.numpy())  # training moved the weights


def test_an_mlp_reaches_97_percent_on_digits(digits):
    (x_train, y_train), (x_test, y_test) = digits
    model = keras.Sequential(
        [layers.Flatten(), layers.Dense(256, activation="relu"), layers.Dense(10, activation="softmax")]
    )
    model.compile(optimizer="adam", loss="sparse_categorical_crossentropy", metrics=["accuracy"])
    history = model.fit(x_train, y_train, epochs=30, verbose=0, validation_data=(x_test, y_test))
    loss, accuracy = model.evaluate(x_test, y_test, verbose=0)
    assert accuracy >= 0.97
    assert history.history["loss"][-1] < history.history["loss"][0]
    assert sorted(history.history) == ["accuracy", "loss", "val_accuracy", "val_loss"]
    assert np.isclose(history.history["val_accuracy"][-1], accuracy)
    predicted = model.predict(x_test, verbose=0)
    assert predicted.shape == (360, 10)
    assert np.isclose(np.mean(np.argmax(predicted, axis=1) == y_test), accuracy)


def test_fit_prints_a_keras_style_epoch_line_and_is_silent_with_verbose_0(capsys):
    x, y = np.random.default_rng(0).normal(size=(40, 3)), np.arange(40) % 2
    model = keras.Sequential([layers.Dense(2, activation="softmax")])
    model.compile("sgd", "sparse_categorical_crossentropy", metrics=["accuracy"])
    model.fit(x, y, batch_size=16, epochs=2, verbose=1)
    out = capsys.readouterr().out
    assert "Epoch 1/2" in out and "Epoch 2/2" in out
    assert "3/3 [==============================]" in out and "- loss: " in out and "- accuracy: " in out
    model.fit(x, y, epochs=1, verbose=0)
    model.evaluate(x, y, verbose=0)
    model.predict(x, verbose=0)
    assert capsys.readouterr().out == ""


def test_fit_reports_the_epoch_mean_loss_that_evaluate_would_give_before_training():
    x, y = np.random.default_rng(1).normal(size=(50, 4)), np.random.default_rng(2).normal(size=(50, 1))
    model = keras.Sequential([layers.Dense(1)])
    model.compile(keras.optimizers.SGD(0.0), "mse")  # learning rate 0: weights never move
    before = model.evaluate(x, y, batch_size=7, verbose=0)
    history = model.fit(x, y, batch_size=16, epochs=1, verbose=0)
    assert np.isclose(history.history["loss"][0], before, rtol=1e-5)
    assert np.isclose(before, np.mean((model.predict(x, verbose=0) - y) ** 2), rtol=1e-5)


def test_overriding_train_step_keeps_fit_working():
    calls = []

    class Counting(keras.Sequential):
        def train_step(self, data):
            calls.append(len(data[0]))
            return super().train_step(data)

    model = Counting([layers.Dense(1)])
    # run_eagerly: the step's Python runs at every batch (traced, as by default, it runs when the step is traced)
    model.compile("sgd", "mse", run_eagerly=True)
    model.fit(np.ones((10, 2)), np.ones((10, 1)), batch_size=4, verbose=0)
    assert calls == [4, 4, 2]


def test_a_train_step_returning_tensors_as_keras_guides_write_it_logs_numbers():
    # "Customizing what happens in fit()": the step returns {m.name: m.result()}, which are tensors
    class Custom(keras.Model):
        def train_step(self, data):
            x, y = data
            with mt.GradientTape() as tape:
                y_pred = self(x, training=True)
                loss = self.compute_loss(y=y, y_pred=y_pred)
            self.optimizer.apply_gradients(zip(tape.gradient(loss, self.trainable_variables), self.trainable_variables))
            for metric in self.metrics:
                metric.update_state(loss) if metric.name == "loss" else metric.update_state(y, y_pred)
            return {m.name: m.result() for m in self.metrics}

    inputs = keras.Input(shape=(3,))
    model = Custom(inputs, layers.Dense(1)(inputs))
    model.compile(optimizer="adam", loss="mse", metrics=["mae", "mse"])
    x, y = np.random.default_rng(0).random((40, 3)), np.random.default_rng(1).random((40, 1))
    history = model.fit(x, y, epochs=2, batch_size=8, verbose=0)
    # the step returned {'loss': ..., 'compile_metrics': {'mae': ..., 'mse': ...}}: Keras 3 logs these names, sorted
    assert list(history.history) == ["mae", "mse", "loss"]
    np.testing.assert_allclose(history.history["loss"], history.history["mse"], rtol=1e-6)
    assert all(type(v) is float for values in history.history.values() for v in values)


def test_x_and_y_of_different_lengths_is_a_clear_error():
    model = keras.Sequential([layers.Dense(1)])
    model.compile("sgd", "mse")
    with pytest.raises(ValueError, match=r"fit\(\): x and y have different lengths: x has 10 .*\(10, 2\).* y has 9"):
        model.fit(np.ones((10, 2)), np.ones((9, 1)), verbose=0)
    with pytest.raises(ValueError, match=r"evaluate\(\): x and y have different lengths"):
        model.evaluate(np.ones((10, 2)), np.ones((9, 1)), verbose=0)


def test_fit_before_compile_says_to_compile():
    with pytest.raises(RuntimeError, match=r"compile your model.*model.compile\("):
        keras.Sequential([layers.Dense(1)]).fit(np.ones((2, 2)), np.ones((2, 1)), verbose=0)


def test_labels_out_of_range_during_fit_name_the_loss():
    model = keras.Sequential([layers.Dense(3, activation="softmax")])
    model.compile("adam", "sparse_categorical_crossentropy")
    with pytest.raises(ValueError, match=r"label 5 is out of range.*\[0, 3\).*last Dense layer"):
        model.fit(np.ones((4, 2)), np.array([0, 1, 2, 5]), verbose=0)


def test_shuffled_fit_is_repeatable_with_a_fixed_seed():
    x, y = np.random.default_rng(3).normal(size=(64, 3)), np.arange(64) % 3

    def train():
        keras.backend.clear_session()
        mt.random.set_seed(5)
        model = keras.Sequential([layers.Dense(8, activation="relu"), layers.Dropout(0.3), layers.Dense(3)])
        model.compile(keras.optimizers.SGD(0.1, momentum=0.9), keras.losses.SparseCategoricalCrossentropy(True))
        model.fit(x, y, batch_size=8, epochs=2, verbose=0)
        return model.get_weights()

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        first, second = train(), train()
    for a, b in zip(first, second):
        np.testing.assert_array_equal(a, b)


def test_metrics_objects_for_a_custom_loop():
    mean, accuracy = keras.metrics.Mean(name="train_loss"), keras.metrics.SparseCategoricalAccuracy()
    mean(mt.constant(2.0))
    mean(mt.constant(4.0))
    accuracy.update_state(np.array([0, 1, 1]), np.array([[0.9, 0.1], [0.2, 0.8], [0.6, 0.4]]))
    assert float(mean.result()) == 3.0 and np.isclose(float(accuracy.result()), 2 / 3)
    mean.reset_state()
    assert float(mean.result()) == 0.0


def test_binary_and_one_hot_classification_with_keras_label_shapes():
    x = np.random.default_rng(4).normal(size=(120, 3))
    y = (x[:, 0] > 0).astype(np.float32)  # shape (n,) against predictions (n, 1), as Keras allows
    model = keras.Sequential([layers.Dense(1, activation="sigmoid")])
    model.compile(keras.optimizers.SGD(0.5), "binary_crossentropy", metrics=["accuracy"])
    history = model.fit(x, y, epochs=8, verbose=0, validation_split=0.25)
    assert history.history["accuracy"][-1] > 0.9 and history.history["val_accuracy"][-1] > 0.85
    one_hot = keras.utils.to_categorical(y.astype(int), 2)
    model = keras.Sequential([layers.Dense(2, activation="softmax")])
    model.compile(keras.optimizers.SGD(0.5), "categorical_crossentropy", metrics=["accuracy"])
    model.fit(x, one_hot, epochs=8, verbose=0)
    loss, accuracy = model.evaluate(x, one_hot, verbose=0)
    assert accuracy > 0.9 and model.metrics_names == ["loss", "compile_metrics"]  # Keras 3: the metrics as one


def test_the_tensorflow_advanced_quickstart_runs_with_only_the_import_changed(digits):
    import minitape as tf  # the only line that differs from TensorFlow's quickstart

    (x_train, y_train), (x_test, y_test) = digits
    x_train = x_train[..., tf.newaxis].astype("float32")
    x_test = x_test[..., tf.newaxis].astype("float32")

    class MyModel(tf.keras.Model):
        def __init__(self):
            super().__init__()
            self.conv1 = tf.keras.layers.Conv2D(32, 3, activation="relu")
            self.flatten = tf.keras.layers.Flatten()
            self.d1 = tf.keras.layers.Dense(128, activation="relu")
            self.d2 = tf.keras.layers.Dense(10)

        def call(self, x):
            x = self.conv1(x)
            x = self.flatten(x)
            x = self.d1(x)
            return self.d2(x)

    model = MyModel()
    loss_object = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    optimizer = tf.keras.optimizers.Adam()
    train_loss = tf.keras.metrics.Mean(name="train_loss")
    train_accuracy = tf.keras.metrics.SparseCategoricalAccuracy(name="train_accuracy")
    test_accuracy = tf.keras.metrics.SparseCategoricalAccuracy(name="test_accuracy")

    @tf.function
    def train_step(images, labels):
        with tf.GradientTape() as tape:
            predictions = model(images, training=True)
            loss = loss_object(labels, predictions)
        gradients = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(gradients, model.trainable_variables))
        train_loss(loss)
        train_accuracy(labels, predictions)

    losses = []
    for _epoch in range(3):
        train_loss.reset_states()
        train_accuracy.reset_states()
        for start in range(0, len(x_train), 32):
            train_step(x_train[start : start + 32], y_train[start : start + 32])
        losses.append(float(train_loss.result()))
    test_accuracy(y_test, model(x_test, training=False))
    assert losses[-1] < losses[0]
    assert float(test_accuracy.result()) > 0.9


def test_a_loss_function_given_to_compile_is_averaged_over_the_batch():
    x, y = np.random.default_rng(6).normal(size=(8, 2)), np.random.default_rng(7).normal(size=(8, 1))
    model = keras.Sequential([layers.Dense(1)])
    model.compile("sgd", keras.losses.mean_squared_error)
    assert np.isclose(model.evaluate(x, y, verbose=0), np.mean((model.predict(x, verbose=0) - y) ** 2), rtol=1e-5)
    with mt.GradientTape() as tape:
        loss = model.compute_loss(x, y, model(x))
    assert loss.shape == () and tape.gradient(loss, model.trainable_variables)[0] is not None


def test_test_on_batch_and_train_on_batch_give_keras_3_numbers():
    x = np.array([[1.0, 2.0], [3.0, -1.0], [0.0, 1.0], [2.0, 2.0]], np.float32)
    y = np.array([[1.0], [0.0], [2.0], [1.0]], np.float32)
    model = keras.Sequential([keras.Input((2,)), layers.Dense(1, kernel_initializer="ones")])
    model.compile(keras.optimizers.SGD(0.1), "mse", metrics=["mae"])
    error = x.sum(axis=1, keepdims=True) - y  # the bias starts at zero
    assert model.test_on_batch(x, y) == pytest.approx([np.mean(error**2), np.mean(np.abs(error))])  # Keras 3: 4.5, 2.0
    weights = np.array([1.0, 0.0, 0.0, 1.0], np.float32)
    logs = model.test_on_batch(x, y, sample_weight=weights, return_dict=True)
    assert logs == pytest.approx({"loss": np.sum(weights * error[:, 0] ** 2) / 4, "mae": np.mean(np.abs(error))})
    before = model.get_weights()
    assert model.test_on_batch(x, y, return_dict=True)["loss"] == pytest.approx(4.5)  # metrics are reset each time
    np.testing.assert_array_equal(model.get_weights()[0], before[0])  # test_on_batch does not train
    loss, _ = model.train_on_batch(x, y, sample_weight=weights)
    assert loss == pytest.approx(np.sum(weights * error[:, 0] ** 2) / 4)
    gradient = 2 * x.T @ (weights[:, None] * error) / 4  # of the weighted mean squared error, by the kernel
    np.testing.assert_allclose(model.get_weights()[0], before[0] - 0.1 * gradient, rtol=1e-6)
    single = keras.Sequential([keras.Input((2,)), layers.Dense(1, kernel_initializer="ones")])
    single.compile("sgd", "mse")
    assert single.test_on_batch(x, y) == pytest.approx(4.5)  # one number when there is only the loss
    with pytest.raises(RuntimeError, match=r"compile your model before using test_on_batch\(\)"):
        keras.Sequential([layers.Dense(1)]).test_on_batch(x, y)


def test_pandas_tables_and_columns_are_arrays_and_a_single_column_is_a_feature():
    # the regression tutorial: a DataFrame of float and one-hot bool columns, Series as labels, one Series as x
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"weight": rng.uniform(1.5, 5.0, 120), "power": rng.uniform(0.5, 2.3, 120)})
    frame = frame.join(pd.get_dummies(pd.Series(rng.integers(0, 3, 120)).map({0: "EU", 1: "JP", 2: "US"})))
    labels = pd.Series(40 - 4 * frame["weight"] - 3 * frame["power"] + 2 * frame["JP"])
    assert frame["JP"].dtype == bool and np.asarray(frame).dtype == object  # what numpy makes of such a table
    norm = keras.layers.Normalization(axis=-1)
    norm.adapt(np.array(frame))
    model = keras.Sequential([norm, keras.layers.Dense(1)])
    model.compile(optimizer=keras.optimizers.Adam(0.1), loss="mean_absolute_error")
    history = model.fit(frame, labels, epochs=40, batch_size=8, verbose=0, validation_split=0.2)
    assert history.history["val_loss"][-1] < 0.3 * history.history["val_loss"][0]
    assert model.predict(frame[:10], verbose=0).shape == (10, 1)
    assert model.evaluate(frame, labels, verbose=0) < 2.0
    power = keras.layers.Normalization(input_shape=[1], axis=None)
    power.adapt(np.array(frame["power"]))
    one = keras.Sequential([power, keras.layers.Dense(1)])
    one.compile(optimizer=keras.optimizers.Adam(0.1), loss="mean_absolute_error")
    # (n,) becomes (n, 1) because the first layer declares input_shape=[1], as in Keras 3
    one.fit(frame["power"], labels, epochs=2, verbose=0, validation_split=0.2)
    assert one.predict(mt.linspace(0.0, 2.5, 26), verbose=0).shape == (26, 1)
    assert isinstance(one.evaluate(frame["power"], labels, verbose=0), float)


def test_a_rank_1_x_is_adjusted_only_to_a_declared_input_shape_as_in_keras_3():
    x, y = np.arange(10.0), np.arange(10.0)
    # the basics guide: a Lambda that stacks features of a 1-D x (Keras 2 made x a column first, and broke it)
    model = keras.Sequential([keras.layers.Lambda(lambda x: mt.stack([x, x**2], axis=1)), keras.layers.Dense(1)])
    model.compile(loss="mse", optimizer="sgd")
    model.fit(x, y, epochs=1, verbose=0)
    assert model.layers[1].kernel.shape == (2, 1) and model.predict(x[:3], verbose=0).shape == (3, 1)
    # a declared input of shape (1,) takes (n,) as (n, 1); (3, 1) takes (n, 3) as (n, 3, 1), as Keras 3 does
    column = keras.Sequential([keras.Input((1,)), keras.layers.Dense(1)])
    column.compile(loss="mse", optimizer="sgd")
    column.fit(x, y, epochs=1, verbose=0)
    assert column.predict(x[:3], verbose=0).shape == (3, 1)
    assert keras.Sequential([keras.Input((3, 1)), keras.layers.Dense(2)])(np.ones((2, 3))).shape == (2, 3, 2)
    inputs = keras.Input((1,))
    assert keras.Model(inputs, keras.layers.Dense(2)(inputs))(np.ones(4)).shape == (4, 2)
    # no declared shape: a Dense layer asks for a column, and says which axis to add
    bare = keras.Sequential([keras.layers.Dense(1)])
    bare.compile(loss="mse", optimizer="sgd")
    with pytest.raises(ValueError, match=r"rank >= 2.*x\[:, None\].*x\[None, :\]"):
        bare.fit(x, y, epochs=1, verbose=0)


def test_fit_on_a_repeated_dataset_runs_steps_per_epoch_and_goes_on_where_it_stopped():
    # the overfitting tutorial: dataset.repeat().batch(n) with steps_per_epoch
    rng = np.random.default_rng(0)
    x = rng.normal(size=(50, 3)).astype(np.float32)
    y = x.sum(axis=1, keepdims=True)
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1)])
    model.compile(loss="mse", optimizer="sgd")
    seen = []
    batches = mt.data.Dataset.from_tensor_slices((x, y)).repeat().batch(10)
    record = keras.callbacks.LambdaCallback(on_train_batch_end=lambda batch, logs: seen.append(batch))
    history = model.fit(batches, steps_per_epoch=7, epochs=3, verbose=0, callbacks=[record])
    assert len(history.history["loss"]) == 3 and seen == list(range(7)) * 3
    assert model.optimizer.iterations.numpy() == 21  # 21 batches, none skipped between epochs
    # a finite dataset that runs out ends that epoch with a warning, and the next epoch starts it again: Keras 3
    # (TF 2.21) trains 3 epochs on batches [0, 1, 2, 0, 1, 0, 1, 2], 8 steps in all
    seen.clear()
    iterations = int(model.optimizer.iterations.numpy())
    five_batches = mt.data.Dataset.from_tensor_slices((x, y)).batch(10)
    with pytest.warns(UserWarning, match="ran out of data after 2 of the 3 steps of epoch 2"):
        history = model.fit(five_batches, steps_per_epoch=3, epochs=3, verbose=0, callbacks=[record])
    assert len(history.history["loss"]) == 3 and seen == [0, 1, 2, 0, 1, 0, 1, 2]
    assert model.optimizer.iterations.numpy() - iterations == 8
    filtered = mt.data.Dataset.from_tensor_slices((x, y)).filter(lambda a, b: b[0] > 0).batch(10)
    assert len(model.fit(filtered, epochs=2, verbose=0).history["loss"]) == 2  # length unknown until run
