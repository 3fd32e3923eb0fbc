"""fit on datasets (any iterable of (x, y) batches), the per-thread training flag, and what Keras has that minitape
does not (an error that says so and what to use instead)."""

from __future__ import annotations

import threading

import numpy as np
import pytest

import minitape as mt

keras = mt.keras
layers = mt.keras.layers

pytestmark = pytest.mark.usefixtures("keras_session")


class Batches:
    """What a tf.data.Dataset looks like to fit: iterable again each epoch, yielding (x, y[, sample_weight])."""

    def __init__(self, x, y, batch_size, weights=None):
        self.x, self.y, self.batch_size, self.weights = x, y, batch_size, weights
        self.passes = 0

    def __iter__(self):
        self.passes += 1
        for start in range(0, len(self.x), self.batch_size):
            part = slice(start, start + self.batch_size)
            if self.weights is None:
                yield self.x[part], self.y[part]
            else:
                yield self.x[part], self.y[part], self.weights[part]


def regression(n=32):
    rng = np.random.default_rng(0)
    x = rng.normal(size=(n, 2)).astype("float32")
    return x, (x @ np.array([[1.0], [-2.0]], "float32")) + 0.5


def test_fit_on_a_dataset_equals_fit_on_the_same_batches_from_arrays():
    x, y = regression()
    results = []
    for source in ("dataset", "arrays"):
        keras.backend.clear_session()
        mt.random.set_seed(0)
        model = keras.Sequential([layers.Dense(1)])
        model.compile(keras.optimizers.SGD(0.1), loss="mse", metrics=["mae"])
        if source == "dataset":
            data = Batches(x, y, 8)
            history = model.fit(data, epochs=3, verbose=0)
            assert data.passes == 3  # iterated afresh each epoch
        else:
            history = model.fit(x, y, batch_size=8, epochs=3, shuffle=False, verbose=0)
        results.append((history.history, model.get_weights()))
    assert results[0][0] == results[1][0]
    for a, b in zip(results[0][1], results[1][1]):
        np.testing.assert_array_equal(a, b)


def test_evaluate_and_predict_take_datasets_and_validation_data_may_be_one():
    x, y = regression()
    model = keras.Sequential([layers.Dense(1)])
    model.compile("sgd", loss="mse")
    history = model.fit(Batches(x, y, 8), validation_data=Batches(x, y, 16), epochs=2, verbose=0)
    assert list(history.history) == ["loss", "val_loss"]
    assert model.evaluate(Batches(x, y, 5), verbose=0) == pytest.approx(model.evaluate(x, y, verbose=0), rel=1e-5)
    np.testing.assert_allclose(model.predict(Batches(x, y, 7), verbose=0), model.predict(x, verbose=0), rtol=1e-6)


def test_a_dataset_with_sample_weights():
    x, y = regression(8)
    model = keras.Sequential([layers.Dense(1, kernel_initializer="zeros")])
    model.compile(keras.optimizers.SGD(0.0), loss="mse")
    weights = np.array([1, 1, 1, 1, 0, 0, 0, 0], "float32")
    weighted = model.evaluate(Batches(x, y, 8, weights), verbose=0)
    assert weighted == pytest.approx(np.sum(weights * (y[:, 0] - 0.0) ** 2) / 8, rel=1e-5)


def test_a_generator_works_for_one_epoch_and_bad_elements_are_explained():
    x, y = regression()
    model = keras.Sequential([layers.Dense(1)])
    model.compile("sgd", loss="mse")
    history = model.fit((pair for pair in Batches(x, y, 8)), epochs=1, verbose=0)
    assert len(history.history["loss"]) == 1
    with pytest.raises(ValueError, match=r"needs targets y, but the data gives x only.*override train_step"):
        model.fit(iter([x, x]), epochs=1, verbose=0)
    with pytest.raises(ValueError, match="y must not be given when x is a dataset"):
        model.fit(Batches(x, y, 8), y, verbose=0)


def test_the_training_flag_is_per_thread():
    seen: dict[str, bool] = {}
    inside_training = threading.Event()
    inference_done = threading.Event()

    class Spy(layers.Layer):
        def call(self, x, training=False):
            seen[threading.current_thread().name] = training
            return x

    class Blocking(layers.Layer):
        def call(self, x, training=False):
            inside_training.set()
            inference_done.wait(timeout=10)  # stay inside the training=True call while the other thread runs
            return x

    spy = Spy()
    trainer_model = keras.Sequential([Blocking(), layers.Lambda(lambda t: t)])
    trainer = threading.Thread(target=lambda: trainer_model(np.ones((1, 1)), training=True), name="trainer")
    trainer.start()
    assert inside_training.wait(timeout=10)
    inference = threading.Thread(target=lambda: spy(np.ones((1, 1))), name="inference")
    inference.start()
    inference.join(timeout=10)
    inference_done.set()
    trainer.join(timeout=10)
    assert seen == {"inference": False}  # the other thread's training=True did not leak into this call
    assert keras.backend.current_training() is None


@pytest.mark.parametrize(
    ("get", "message"),
    [
        (lambda: keras.callbacks.TensorBoard, r"no keras.callbacks.TensorBoard: .*History"),
        (lambda: keras.callbacks.BackupAndRestore, r"no keras.callbacks.BackupAndRestore: .*ModelCheckpoint"),
        (lambda: keras.models.load_model, r"no keras.models.load_model: .*save_weights"),
        (lambda: keras.saving.load_model, r"no keras.saving.load_model: .*load_weights"),
    ],
)
def test_missing_keras_parts_say_what_to_use_instead(get, message):
    with pytest.raises(AttributeError, match=message):
        get()


def test_model_save_says_it_is_missing():
    model = keras.Sequential([layers.Dense(1)])
    with pytest.raises(NotImplementedError, match=r"no keras.Model.save\(\): .*save_weights"):
        model.save("model.keras")
    with pytest.raises(NotImplementedError, match=r"no keras.Model.to_json\(\)"):
        model.to_json()


def test_early_stopping_stops_and_restores_the_best_weights():
    x, y = regression()
    model = keras.Sequential([layers.Dense(1)])
    model.compile(keras.optimizers.SGD(2.0), loss="mse")  # a rate this large diverges: the loss grows
    stop = keras.callbacks.EarlyStopping(monitor="loss", patience=1, restore_best_weights=True)
    history = model.fit(x, y, epochs=20, batch_size=32, callbacks=[stop], verbose=0)
    losses = history.history["loss"]
    assert len(losses) < 20 and stop.stopped_epoch == len(losses) - 1
    best = int(np.argmin(losses))
    assert stop.best_epoch == best


def test_learning_rate_scheduler_sets_the_rate_each_epoch_and_history_records_it():
    x, y = regression()
    model = keras.Sequential([layers.Dense(1)])
    model.compile(keras.optimizers.SGD(0.1), loss="mse")
    seen = []
    record = keras.callbacks.LambdaCallback(on_epoch_end=lambda epoch, logs: seen.append(dict(logs)))
    halve = keras.callbacks.LearningRateScheduler(lambda epoch, rate: rate * 0.5)
    history = model.fit(x, y, epochs=3, verbose=0, callbacks=[halve, record])
    # Keras 3 logs the rate each epoch used under 'learning_rate': 0.05, 0.025, 0.0125
    assert history.history["learning_rate"] == pytest.approx([0.05, 0.025, 0.0125])
    assert [logs["learning_rate"] for logs in seen] == pytest.approx([0.05, 0.025, 0.0125])  # later callbacks see it
    plain = model.fit(x, y, epochs=1, verbose=0)
    assert "learning_rate" not in plain.history  # only a scheduler adds it, as in Keras 3


def test_sample_weight_and_class_weight_weigh_each_examples_loss():
    x = np.array([[1.0], [2.0], [3.0], [4.0]], "float32")
    y = np.array([[0.0], [0.0], [1.0], [1.0]], "float32")
    model = keras.Sequential([layers.Dense(1, kernel_initializer="ones", bias_initializer="zeros")])
    model.compile(keras.optimizers.SGD(0.0), loss="mse")
    errors = (x[:, 0] - y[:, 0]) ** 2  # 1, 4, 4, 9
    weights = np.array([1.0, 0.0, 2.0, 0.0], "float32")
    got = model.evaluate(x, y, sample_weight=weights, batch_size=4, verbose=0)
    assert got == pytest.approx(np.sum(weights * errors) / 4)  # Keras: the weighted sum over the batch size
    history = model.fit(x, y, class_weight={0: 0.5, 1: 2.0}, batch_size=4, epochs=1, shuffle=False, verbose=0)
    class_weights = np.array([0.5, 0.5, 2.0, 2.0])
    assert history.history["loss"][0] == pytest.approx(np.sum(class_weights * errors) / 4)
    with pytest.raises(ValueError, match=r"class_weight has no weight for class\(es\) \[1\]"):
        model.fit(x, y, class_weight={0: 1.0}, verbose=0)
    with pytest.raises(ValueError, match="one weight per example"):
        model.evaluate(x, y, sample_weight=np.ones(3), verbose=0)


def test_register_keras_serializable_leaves_the_class_usable():
    @keras.saving.register_keras_serializable()
    class Twice(keras.layers.Layer):
        def call(self, x):
            return 2.0 * x

    assert float(Twice()(mt.constant(3.0))) == 6.0


# ---- keras.utils.timeseries_dataset_from_array: the expected values are what Keras 3.15 gives --------------
def windows_of(ds):
    return [tuple(part.numpy().tolist() for part in batch) if isinstance(batch, tuple) else batch.numpy().tolist()
            for batch in ds]  # fmt: skip


def test_timeseries_windows_start_every_stride_rows_and_pair_with_the_target_at_their_start():
    data = np.arange(20, dtype="float32").reshape(10, 2)
    ds = mt.keras.utils.timeseries_dataset_from_array(
        data, np.arange(10) * 100, sequence_length=3, sequence_stride=2, sampling_rate=2, batch_size=2
    )
    batches = list(ds)
    assert [x.shape for x, _ in batches] == [(2, 3, 2), (1, 3, 2)] and batches[0][0].dtype == mt.float32
    assert [(x.numpy()[:, :, 0].tolist(), y.numpy().tolist()) for x, y in batches] == [
        ([[0, 4, 8], [4, 8, 12]], [0, 200]),
        ([[8, 12, 16]], [400]),
    ]
    within = mt.keras.utils.timeseries_dataset_from_array(
        np.arange(10), None, sequence_length=4, batch_size=3, start_index=2, end_index=9
    )
    assert windows_of(within) == [[[2, 3, 4, 5], [3, 4, 5, 6], [4, 5, 6, 7]], [[5, 6, 7, 8]]]
    short_targets = mt.keras.utils.timeseries_dataset_from_array(
        np.arange(10.0), np.arange(5), sequence_length=4, batch_size=3
    )
    assert windows_of(short_targets) == [
        ([[0, 1, 2, 3], [1, 2, 3, 4], [2, 3, 4, 5]], [0, 1, 2]),
        ([[3, 4, 5, 6], [4, 5, 6, 7]], [3, 4]),
    ]
    assert int(short_targets.cardinality()) == 2
    offset = mt.keras.utils.timeseries_dataset_from_array(
        np.arange(10.0), np.arange(10) * 100, sequence_length=3, start_index=3, end_index=9, batch_size=10
    )
    assert windows_of(offset) == [([[3, 4, 5], [4, 5, 6], [5, 6, 7], [6, 7, 8]], [300, 400, 500, 600])]


def test_timeseries_shuffle_reorders_whole_windows_with_their_targets():
    mt.keras.utils.set_random_seed(0)
    ds = mt.keras.utils.timeseries_dataset_from_array(
        np.arange(10.0), np.arange(10) * 100, sequence_length=3, shuffle=True, batch_size=10
    )
    ((x, y),) = list(ds)
    assert sorted(y.numpy().tolist()) == [0, 100, 200, 300, 400, 500, 600, 700]
    assert y.numpy().tolist() != sorted(y.numpy().tolist())
    np.testing.assert_array_equal(x.numpy()[:, 0] * 100, y.numpy())  # each window still with its own target


def test_timeseries_arguments_are_checked_with_messages_that_say_what_is_allowed():
    make = mt.keras.utils.timeseries_dataset_from_array
    for keyword in ("sequence_stride", "sampling_rate", "batch_size"):
        with pytest.raises(ValueError, match=f"{keyword} must be a positive integer, got 0"):
            make(np.arange(10.0), None, 3, **{keyword: 0})
    with pytest.raises(ValueError, match="sequence_length must be a positive integer, got 0"):
        make(np.arange(10.0), None, 0)
    for start, end in [(12, None), (4, 2), (-1, None)]:
        with pytest.raises(ValueError, match=r"must satisfy 0 <= start_index < end_index <= 10 \(the number of rows"):
            make(np.arange(10.0), None, 3, start_index=start, end_index=end)
    assert list(make(np.arange(10.0), None, 20)) == []  # no window fits: an empty dataset, as Keras
