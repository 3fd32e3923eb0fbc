# ruff: noqa: B007, UP018 - the tutorial's loop variable and float() kept as written
"""Port of TensorFlow's tutorial "Overfit and underfit" (site/en/tutorials/keras/overfit_and_underfit.ipynb).

The cells run with `import minitape as tf` and `from minitape.keras import layers, regularizers`. What differs,
and why:
- no download: the HIGGS table (28 features and a label per row, read with `tf.data.experimental.CsvDataset`,
  which minitape refuses with what to use, checked below) becomes 1,200 synthetic rows (`_higgs_like`: normal
  features, a label from a noisy nonlinear score), fed through the tutorial's own `pack_row`, `unbatch`,
  `take`/`skip`/`cache`, `shuffle`/`repeat`/`batch` pipeline; the sizes are smaller (200 validation and 1,000
  training rows, batches of 100) and each model trains for a few epochs in place of up to 10,000 (time);
- `tensorflow_docs` (EpochDots, HistoryPlotter) is not installed: its plots are drawn from the histories with
  matplotlib, and the TensorBoard callback, which minitape refuses (checked below), is left out of the callbacks;
- each model starts from the same weights in both libraries (the `same_start` fixture of tests/conftest.py). So
  the learning-rate schedule, each model's parameter count, its metrics before training, and the L2 penalty are
  TensorFlow 2.21's numbers for the same script (2026-11-28), asserted to float32 precision; after training, the
  batches' order is each library's own shuffle (and dropout mask), seeded here so that every run is the same, so
  the validation metrics are compared with TensorFlow's within 0.06.
"""

import numpy as np
import pytest
from matplotlib import pyplot as plt

import minitape as tf
from minitape.keras import layers, regularizers

plt.switch_backend("Agg")
pytestmark = pytest.mark.usefixtures("keras_session")

FEATURES = 28
N_VALIDATION = int(2e2)
N_TRAIN = int(1e3)
BUFFER_SIZE = int(1e3)
BATCH_SIZE = 100
STEPS_PER_EPOCH = N_TRAIN // BATCH_SIZE


def _higgs_like(n, seed):
    """Columns as CsvDataset gives HIGGS's: the label, then 28 float features."""
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, FEATURES)).astype("float32")
    w = rng.normal(size=FEATURES) / np.sqrt(FEATURES)
    score = x @ w + 0.5 * np.sin(3 * x[:, 0]) * x[:, 1]
    y = (score + 0.5 * rng.normal(size=n) > 0).astype("float32")
    return (y, *x.T)


def pack_row(*row):  # cell 18
    label = row[0]
    features = tf.stack(row[1:], 1)
    return features, label


@pytest.fixture(scope="module")
def data():
    tf.random.set_seed(0)  # the shuffle's order, the same on every run (whatever ran before in this process)
    ds = tf.data.Dataset.from_tensor_slices(_higgs_like(1200, 0))
    packed_ds = ds.batch(10000).map(pack_row).unbatch()  # cell 20
    for features, label in packed_ds.batch(1000).take(1):  # cell 22
        plt.hist(features.numpy().flatten(), bins=101)
    plt.close("all")
    validate_ds = packed_ds.take(N_VALIDATION).cache()  # cell 26
    train_ds = packed_ds.skip(N_VALIDATION).take(N_TRAIN).cache()
    validate_ds = validate_ds.batch(BATCH_SIZE)  # cell 29
    train_ds = train_ds.shuffle(BUFFER_SIZE).repeat().batch(BATCH_SIZE)
    return features, train_ds, validate_ds


def test_cells_13_to_22_the_csv_reader_is_refused_and_the_packed_rows_are_tensorflows(data):
    with pytest.raises(AttributeError, match=r"no tf.data.experimental.CsvDataset: load the file with numpy"):
        tf.data.experimental.CsvDataset("HIGGS.csv.gz", [float()] * (FEATURES + 1), compression_type="GZIP")
    features, _, _ = data
    assert features.shape == (1000, 28) and features.dtype == tf.float32
    assert float(features[0][0]) == pytest.approx(0.1257302165031433)  # TensorFlow prints the same first value


lr_schedule = tf.keras.optimizers.schedules.InverseTimeDecay(  # cell 33
    0.001, decay_steps=STEPS_PER_EPOCH * 1000, decay_rate=1, staircase=False
)


def get_optimizer():
    return tf.keras.optimizers.Adam(lr_schedule)


def test_cell_35_the_learning_rate_schedule():
    step = np.linspace(0, 100000)
    lr = lr_schedule(step)
    plt.figure(figsize=(8, 6))
    plt.plot(step / STEPS_PER_EPOCH, lr)
    plt.ylim([0, max(plt.ylim())])
    plt.xlabel("Epoch")
    _ = plt.ylabel("Learning Rate")
    plt.close("all")
    # TensorFlow: 0.0010000000474974513, 0.0008305084775201976, 0.00016387960931751877, 9.090909588849172e-05
    np.testing.assert_allclose(
        np.asarray(lr)[[0, 1, 25, 49]],
        [0.0010000000474974513, 0.0008305084775201976, 0.00016387960931751877, 9.090909588849172e-05],
        rtol=1e-6,
    )


def get_callbacks(name):  # cell 37 without EpochDots (tensorflow_docs) and TensorBoard (refused, below)
    return [tf.keras.callbacks.EarlyStopping(monitor="val_binary_crossentropy", patience=200)]


def test_cell_37_tensorboard_is_refused_with_what_to_use():
    with pytest.raises(AttributeError, match="no keras.callbacks.TensorBoard: .*History"):
        tf.keras.callbacks.TensorBoard("logs/sizes/Tiny")


def compile_and_fit(model, name, train_ds, validate_ds, same_start, optimizer=None, max_epochs=10000, seed=0):
    """Cell 39, with the start weights set after compile and the metrics before training returned too."""
    if optimizer is None:
        optimizer = get_optimizer()
    model.compile(
        optimizer=optimizer,
        loss=tf.keras.losses.BinaryCrossentropy(from_logits=True),
        metrics=[tf.keras.metrics.BinaryCrossentropy(from_logits=True, name="binary_crossentropy"), "accuracy"],
    )
    model.summary()
    same_start(model, seed)
    start = model.evaluate(validate_ds.map(lambda x, y: (x, tf.expand_dims(y, axis=-1))), verbose=0, return_dict=True)
    tf.random.set_seed(seed)  # dropout's masks, the same on every run
    history = model.fit(
        train_ds.map(lambda x, y: (x, tf.expand_dims(y, axis=-1))),
        steps_per_epoch=STEPS_PER_EPOCH,
        epochs=max_epochs,
        validation_data=validate_ds.map(lambda x, y: (x, tf.expand_dims(y, axis=-1))),
        callbacks=get_callbacks(name),
        verbose=0,
    )
    return start, history


def _dense_stack(widths, **dense):
    """The tutorial's Sequential models: Dense(width, 'elu') layers, the first with input_shape, then Dense(1)."""
    stack = [layers.Dense(widths[0], activation="elu", input_shape=(FEATURES,), **dense)]
    stack += [layers.Dense(w, activation="elu", **dense) for w in widths[1:]]
    return tf.keras.Sequential([*stack, layers.Dense(1)])


# TensorFlow 2.21's numbers for each model: parameters, validation metrics before training, and after
SIZES = {
    "Tiny": ([16], 5, 1, 481, (0.5199999809265137, 0.9176477193832397), 0.6134),
    "Small": ([16, 16], 5, 2, 753, (0.5099999904632568, 0.7215150594711304), 0.6055),
    "Medium": ([64, 64, 64], 3, 3, 10241, (0.4749999940395355, 0.7868120074272156), 0.3371),
    "large": ([512, 512, 512, 512], 1, 4, 803329, (0.5199999809265137, 0.6868953108787537), 0.4594),
}


@pytest.mark.parametrize("name", list(SIZES))
def test_cells_42_to_63_models_of_four_sizes(name, data, capsys, same_start):
    _, train_ds, validate_ds = data
    widths, epochs, seed, params, (accuracy, crossentropy), trained = SIZES[name]
    model = _dense_stack(widths)
    start, history = compile_and_fit(
        model, f"sizes/{name}", train_ds, validate_ds, same_start, max_epochs=epochs, seed=seed
    )
    assert f"Total params: {params:,}" in capsys.readouterr().out and model.count_params() == params
    assert start["accuracy"] == pytest.approx(accuracy, abs=1e-6)
    assert start["binary_crossentropy"] == pytest.approx(crossentropy, rel=1e-5)
    assert start["loss"] == pytest.approx(crossentropy, rel=1e-5)
    assert sorted(history.history) == [
        "accuracy",
        "binary_crossentropy",
        "loss",
        "val_accuracy",
        "val_binary_crossentropy",
        "val_loss",
    ]
    assert len(history.history["loss"]) == epochs
    assert history.history["val_binary_crossentropy"][-1] == pytest.approx(trained, abs=0.06)
    assert history.history["val_binary_crossentropy"][-1] < crossentropy
    plt.plot(history.history["val_binary_crossentropy"], label=name)  # cell 46's plot, without tensorflow_docs
    plt.ylim([0.5, 0.7])
    plt.close("all")


def test_cells_74_and_79_the_l2_penalty(data, same_start):
    features, _, _ = data
    l2_model = _dense_stack([512, 512, 512, 512], kernel_regularizer=regularizers.l2(0.001))
    same_start(l2_model, 5)
    result = l2_model(features)
    regularization_loss = tf.add_n(l2_model.losses)
    # TensorFlow: 1.5873003005981445 and a mean output of -0.03351955488324165
    assert float(regularization_loss) == pytest.approx(1.5873003005981445, rel=1e-6)
    assert float(tf.reduce_mean(result)) == pytest.approx(-0.03351955488324165, abs=1e-6)


def test_cell_82_dropout(data, same_start):
    _, train_ds, validate_ds = data
    dropout_model = tf.keras.Sequential(
        [
            layers.Dense(512, activation="elu", input_shape=(FEATURES,)),
            layers.Dropout(0.5),
            layers.Dense(512, activation="elu"),
            layers.Dropout(0.5),
            layers.Dense(512, activation="elu"),
            layers.Dropout(0.5),
            layers.Dense(512, activation="elu"),
            layers.Dropout(0.5),
            layers.Dense(1),
        ]
    )
    start, history = compile_and_fit(
        dropout_model, "regularizers/dropout", train_ds, validate_ds, same_start, max_epochs=1, seed=6
    )
    # TensorFlow: accuracy 0.48500001430511475, binary_crossentropy 0.7249352335929871 before training (dropout off)
    assert start["accuracy"] == pytest.approx(0.48500001430511475, abs=1e-6)
    assert start["binary_crossentropy"] == pytest.approx(0.7249352335929871, rel=1e-5)
    assert history.history["val_binary_crossentropy"][-1] == pytest.approx(0.3614, abs=0.06)  # TensorFlow: 0.3614
