"""Model.save_weights / load_weights in Keras 3's `.weights.h5` format, and keras.callbacks.ModelCheckpoint.

Round trips for Sequential, functional and subclassed models; two files real Keras 3.15 wrote (tests/data, made by
tests/data/write_keras3_weights.py) load into the same architectures and give the predictions Keras printed, and
the files minitape writes for them have Keras's layout; the errors; and ModelCheckpoint's choice of when to save.
"""

from __future__ import annotations

import os
import sys
import warnings
import zipfile
from pathlib import Path

import numpy as np
import pytest

import minitape as mt

h5py = pytest.importorskip("h5py")

keras = mt.keras
layers = mt.keras.layers

pytestmark = pytest.mark.usefixtures("keras_session")
DATA = Path(__file__).resolve().parents[1] / "data"
RNG = np.random.default_rng(0)


# ---- the models ----------------------------------------------------------------------------------------------
def sequential():
    return keras.Sequential(
        [
            keras.Input((6, 6, 1)),
            layers.Conv2D(2, 3, activation="relu"),
            layers.BatchNormalization(),
            layers.Flatten(),
            layers.Dense(3),
        ]
    )


def functional():
    """The same code as tests/data/write_keras3_weights.py's, with `keras = mt.keras`."""
    image = keras.Input((6, 6, 1))
    tokens = keras.Input((4,), dtype="int32")
    x = layers.Flatten()(layers.BatchNormalization()(layers.Conv2D(3, 3, activation="relu")(image)))
    t = layers.Flatten()(layers.Embedding(12, 2)(tokens))
    h = layers.Dense(4, activation="tanh")(layers.Concatenate()([x, t]))
    return keras.Model([image, tokens], layers.Dense(1)(h))


class Net(keras.Model):
    """The subclassed model of tests/data/write_keras3_weights.py."""

    def __init__(self) -> None:
        super().__init__()
        self.stem = layers.Dense(4, activation="relu")
        self.blocks = [layers.Dense(4, activation="relu"), layers.Dense(4, activation="relu")]
        self.norm = layers.BatchNormalization()
        self.out = layers.Dense(2)

    def call(self, x, training=False):
        x = self.stem(x)
        for block in self.blocks:
            x = block(x)
        return self.out(self.norm(x, training=training))


def subclassed():
    model = Net()
    model(np.zeros((1, 3), "float32"))
    return model


def data_for(make):
    """(x, y) for training, and x for predictions."""
    if make is functional:
        x = [RNG.normal(size=(16, 6, 6, 1)).astype("float32"), RNG.integers(0, 12, (16, 4)).astype("int32")]
        return x, RNG.normal(size=(16, 1)).astype("float32"), [x[0][:3], x[1][:3]]
    shape, outputs = ((16, 6, 6, 1), 3) if make is sequential else ((16, 3), 2)
    x = RNG.normal(size=shape).astype("float32")
    return x, RNG.normal(size=(16, outputs)).astype("float32"), x[:3]


def tree(path) -> dict:
    """Every group and dataset of an HDF5 file: name -> shape and dtype (datasets) or 'group'."""
    found = {}
    with h5py.File(path, "r") as file:
        file.visititems(
            lambda name, item: found.__setitem__(
                name, (item.shape, str(item.dtype)) if isinstance(item, h5py.Dataset) else "group"
            )
        )
    return found


# ---- round trips ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("make", [sequential, functional, subclassed])
def test_weights_saved_after_training_load_into_a_fresh_model_of_the_same_architecture(make, tmp_path):
    model = make()
    x, y, x_test = data_for(make)
    model.compile(keras.optimizers.Adam(0.05), "mse")
    model.fit(x, y, epochs=2, batch_size=8, verbose=0)  # BatchNormalization's moving statistics move too
    path = tmp_path / "model.weights.h5"
    model.save_weights(path)  # a pathlib.Path, as Keras takes
    fresh = make()
    assert not np.allclose(fresh.predict(x_test, verbose=0), model.predict(x_test, verbose=0))
    fresh.load_weights(str(path))
    np.testing.assert_array_equal(fresh.predict(x_test, verbose=0), model.predict(x_test, verbose=0))
    for mine, theirs in zip(fresh.weights, model.weights):
        np.testing.assert_array_equal(mine.numpy(), theirs.numpy())
    fresh.compile(keras.optimizers.Adam(0.05), "mse")
    fresh.fit(x, y, epochs=1, batch_size=8, verbose=0)  # a loaded model trains on (its optimizer starts afresh)


def test_save_weights_overwrites_by_default_and_each_layer_group_is_named_after_its_layer(tmp_path):
    model = sequential()
    path = tmp_path / "m.weights.h5"
    path.write_bytes(b"an older file")
    model.save_weights(path)
    with h5py.File(path, "r") as file:
        assert file["vars"].attrs["name"] == model.name
        assert file["layers/conv2d/vars"].attrs["name"] == model.layers[0].name
        kernel, bias = model.layers[0].weights
        np.testing.assert_array_equal(file["layers/conv2d/vars/0"][()], kernel.numpy())
        np.testing.assert_array_equal(file["layers/conv2d/vars/1"][()], bias.numpy())
        assert [file[f"layers/batch_normalization/vars/{i}"].shape for i in range(4)] == [(2,)] * 4


# ---- files Keras 3 wrote -------------------------------------------------------------------------------------
# Keras 3.15 (TensorFlow 2.21) printed these for the inputs below after training, saving and in eval mode
KERAS_PREDICTIONS = {
    "functional": [[-0.02258986], [-0.77790976], [-0.5827751]],
    "subclassed": [[-0.10840704, -0.01832192], [-0.17541207, -0.0870035], [-0.07234585, -0.02467727]],
}


def keras_inputs(name):
    """tests/data/write_keras3_weights.py's inputs()."""
    rng = np.random.default_rng(7)
    image, tokens = rng.normal(size=(3, 6, 6, 1)).astype("float32"), rng.integers(0, 12, (3, 4)).astype("int32")
    return [image, tokens] if name == "functional" else rng.normal(size=(3, 3)).astype("float32")


@pytest.mark.parametrize(("name", "make"), [("functional", functional), ("subclassed", subclassed)])
def test_a_file_keras_3_wrote_loads_and_gives_the_predictions_keras_printed(name, make):
    model = make()
    before = model.predict(keras_inputs(name), verbose=0)
    model.load_weights(DATA / f"keras3_{name}.weights.h5")  # it holds Adam's state too, which is not read
    predictions = model.predict(keras_inputs(name), verbose=0)
    assert not np.allclose(before, KERAS_PREDICTIONS[name], atol=1e-3)
    np.testing.assert_allclose(predictions, KERAS_PREDICTIONS[name], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize(("name", "make"), [("functional", functional), ("subclassed", subclassed)])
def test_the_file_minitape_writes_has_the_layout_keras_wrote(name, make, tmp_path):
    model = make()
    model.save_weights(tmp_path / "mine.weights.h5")
    theirs = {k: v for k, v in tree(DATA / f"keras3_{name}.weights.h5").items() if not k.startswith("optimizer")}
    assert tree(tmp_path / "mine.weights.h5") == theirs
    if name == "subclassed":  # Keras meets `layers` before `norm`, `out` and `stem`, and files them there
        assert {"blocks/dense_1/vars/0", "layers/dense/vars/0", "layers/dense_3/vars/1"} <= set(theirs)
        assert "layers/batch_normalization/vars/3" in theirs and "out/vars/0" not in theirs


def test_a_layer_kept_in_a_dict_and_a_layer_with_sublayers_round_trip(tmp_path):
    class Block(layers.Layer):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.inner = layers.Dense(2)

        def build(self, input_shape):
            self.scale = self.add_weight(name="scale", shape=(2,), initializer="ones")

        def call(self, x):
            return self.inner(x) * self.scale

    class Heads(keras.Model):
        def __init__(self):
            super().__init__()
            self.heads = {"a": Block(), "b": [Block(), layers.Dense(2)]}

        def call(self, x):
            return self.heads["a"](x) + self.heads["b"][1](self.heads["b"][0](x))

    model = Heads()
    x = RNG.normal(size=(4, 3)).astype("float32")
    model(x)
    model.set_weights([RNG.normal(size=w.shape).astype("float32") for w in model.get_weights()])
    model.save_weights(tmp_path / "h.weights.h5")
    names = set(tree(tmp_path / "h.weights.h5"))
    assert {"heads/block/vars/0", "heads/block/inner/vars/1", "heads/container/block/vars/0"} <= names
    assert "heads/container/dense/vars/0" in names
    fresh = Heads()
    fresh(x)
    fresh.load_weights(tmp_path / "h.weights.h5")
    np.testing.assert_array_equal(fresh(x).numpy(), model(x).numpy())


def test_the_weights_inside_a_keras_archive_load_as_keras_3_loads_them(tmp_path):
    model = sequential()
    model.save_weights(tmp_path / "inside.weights.h5")
    with zipfile.ZipFile(tmp_path / "model.keras", "w") as archive:  # a .keras file keeps its weights under this name
        archive.write(tmp_path / "inside.weights.h5", "model.weights.h5")
    fresh = sequential()
    fresh.load_weights(tmp_path / "model.keras")
    for mine, theirs in zip(fresh.get_weights(), model.get_weights()):
        np.testing.assert_array_equal(mine, theirs)


@pytest.mark.parametrize("answer", ["n", "y"])
def test_overwrite_false_asks_first_as_keras_does(answer, tmp_path, monkeypatch, capsys):
    path = tmp_path / "w.weights.h5"
    path.write_bytes(b"keep me")
    asked = []
    monkeypatch.setattr("builtins.input", lambda prompt: asked.append(prompt) or answer)
    small().save_weights(path, overwrite=False)
    assert asked == [f"[WARNING] {path} already exists - overwrite? [y/n]"]
    assert (path.read_bytes() == b"keep me") == (answer == "n")
    assert ("[TIP] Next time specify overwrite=True!" in capsys.readouterr().out) == (answer == "y")


# ---- errors --------------------------------------------------------------------------------------------------
def small(units=3):
    return keras.Sequential([keras.Input((4,)), layers.Dense(units, name="hidden"), layers.Dense(1)])


def test_a_filename_not_ending_in_weights_h5_is_refused_with_keras_message_and_a_name_that_works(tmp_path):
    model = small()
    with pytest.raises(
        ValueError, match=r"must end in `\.weights\.h5`\. Received: filepath=.*ckpt\.h5.*ckpt\.weights\.h5"
    ):
        model.save_weights(str(tmp_path / "ckpt.h5"))
    with pytest.raises(ValueError, match=r"must end in `\.weights\.h5`.*'my_checkpoint\.weights\.h5'"):
        model.save_weights("my_checkpoint")
    assert os.listdir(tmp_path) == [] and not os.path.exists("my_checkpoint")
    with pytest.raises(ValueError, match=r"File format not supported: filepath=w\.txt.*reads `\.weights\.h5` files"):
        model.load_weights("w.txt")
    with pytest.raises(ValueError, match=r"legacy \(Keras 2\) `\.h5` file"):
        model.load_weights("old.h5")


def test_shape_mismatch_names_the_layer_the_weight_and_both_shapes_and_loads_nothing(tmp_path):
    small(3).save_weights(tmp_path / "w.weights.h5")
    wider = small(5)
    before = wider.get_weights()
    with pytest.raises(ValueError) as caught:
        wider.load_weights(tmp_path / "w.weights.h5")
    message = str(caught.value)
    assert "layer 'hidden' (Dense), weight 'kernel': the model's has shape (4, 5), the file's" in message
    assert "('layers/dense/vars/0') has shape (4, 3)" in message
    assert "weight 'kernel': the model's has shape (5, 1)" in message and "has shape (3, 1)" in message
    for now, then in zip(wider.get_weights(), before):
        np.testing.assert_array_equal(now, then)  # nothing loaded, not even the layers that would fit


def test_a_layer_the_file_has_no_weights_for_is_named_and_skip_mismatch_loads_the_rest(tmp_path):
    source = small(3)
    source.save_weights(tmp_path / "w.weights.h5")
    longer = keras.Sequential([keras.Input((4,)), layers.Dense(3), layers.Dense(1), layers.Dense(2, name="extra")])
    with pytest.raises(
        ValueError,
        match=r"layer 'extra' \(Dense\) has 2 weight\(s\) \['kernel', 'bias'\], but the "
        r"file has none for it \(no weights at 'layers/dense_2/vars'\)",
    ):
        longer.load_weights(tmp_path / "w.weights.h5")
    extra = longer.layers[2].get_weights()
    with pytest.warns(UserWarning, match=r"(?s)layer 'extra'.*keep their weights \(skip_mismatch=True\)"):
        longer.load_weights(tmp_path / "w.weights.h5", skip_mismatch=True)
    for mine, theirs in zip(longer.get_weights()[:4], source.get_weights()):
        np.testing.assert_array_equal(mine, theirs)
    for mine, kept in zip(longer.layers[2].get_weights(), extra):
        np.testing.assert_array_equal(mine, kept)


def test_a_missing_file_and_a_file_that_is_not_hdf5_say_so(tmp_path):
    model = small()
    with pytest.raises(FileNotFoundError, match=r"load_weights: there is no file '.*nothing\.weights\.h5'"):
        model.load_weights(tmp_path / "nothing.weights.h5")
    (tmp_path / "notes.weights.h5").write_text("not HDF5")
    with pytest.raises(OSError, match=r"'.*notes\.weights\.h5' is not an HDF5 file"):
        model.load_weights(tmp_path / "notes.weights.h5")


def test_an_unbuilt_model_cannot_save_or_load_as_in_keras(tmp_path):
    small().save_weights(tmp_path / "w.weights.h5")
    unbuilt = keras.Sequential([layers.Dense(3), layers.Dense(1)])
    with pytest.raises(ValueError, match=r"You are saving a model that has not yet been built.*model\.build"):
        unbuilt.save_weights(tmp_path / "u.weights.h5")
    with pytest.raises(ValueError, match=r"You are loading weights into a model that has not yet been built"):
        unbuilt.load_weights(tmp_path / "w.weights.h5")
    unbuilt.build((None, 4))
    unbuilt.load_weights(tmp_path / "w.weights.h5")


def test_without_h5py_save_weights_says_to_pip_install_it(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "h5py", None)  # `import h5py` now raises ImportError
    with pytest.raises(ImportError, match=r"save_weights needs the h5py package.*pip install h5py"):
        small().save_weights(tmp_path / "w.weights.h5")


def test_model_save_and_load_model_still_refuse_and_point_to_the_weights():
    with pytest.raises(NotImplementedError, match=r"no keras.Model.save\(\): .*save_weights\('model\.weights\.h5'\)"):
        small().save("model.keras")
    with pytest.raises(AttributeError, match=r"no keras.models.load_model: .*load_weights"):
        keras.models.load_model  # noqa: B018


# ---- ModelCheckpoint -----------------------------------------------------------------------------------------
class Scores(keras.callbacks.Callback):
    """Logs `values[epoch]` as `key` at the end of each epoch (before the callbacks after it read the logs), and
    keeps the model's weights at that moment."""

    def __init__(self, key, values):
        super().__init__()
        self.key, self.values, self.weights = key, values, []

    def on_epoch_end(self, epoch, logs=None):
        logs[self.key] = self.values[epoch]
        self.weights.append(self.model.get_weights())


def fit_with(checkpoint, key="score", values=(0.3, 0.5, 0.4, 0.6, 0.1), metrics=None):
    model = keras.Sequential([keras.Input((2,)), layers.Dense(1)])
    model.compile(keras.optimizers.SGD(0.1), "mse", metrics=metrics)
    x = np.linspace(-1, 1, 16, dtype="float32").reshape(8, 2)
    scores = Scores(key, list(values))
    model.fit(
        x, x[:, :1] * 2, epochs=len(values), batch_size=4, shuffle=False, verbose=0, callbacks=[scores, checkpoint]
    )
    return model, scores


def saved_epochs(folder):
    return sorted(int(name[1:3]) for name in os.listdir(folder))


@pytest.mark.parametrize(("mode", "expected"), [("min", [1, 5]), ("max", [1, 2, 4])])
def test_save_best_only_writes_only_when_the_monitored_value_improves(mode, expected, tmp_path):
    path = tmp_path / "e{epoch:02d}-{score:.2f}.weights.h5"
    checkpoint = keras.callbacks.ModelCheckpoint(
        path, monitor="score", mode=mode, save_best_only=True, save_weights_only=True
    )
    fit_with(checkpoint)
    assert saved_epochs(tmp_path) == expected
    assert ("e02-0.50.weights.h5" if mode == "max" else "e05-0.10.weights.h5") in os.listdir(tmp_path)
    assert checkpoint.best == (0.1 if mode == "min" else 0.6)


def test_without_save_best_only_every_epoch_is_saved(tmp_path):
    fit_with(keras.callbacks.ModelCheckpoint(tmp_path / "e{epoch:02d}.weights.h5", save_weights_only=True))
    assert saved_epochs(tmp_path) == [1, 2, 3, 4, 5]


@pytest.mark.parametrize(
    ("monitor", "metrics", "expected"),
    [("val_loss", None, [1, 5]), ("val_accuracy", ["accuracy"], [1, 2, 4]), ("val_mae", ["mae"], [1, 5])],
)
def test_mode_auto_takes_min_for_a_loss_and_asks_the_metric_otherwise(monitor, metrics, expected, tmp_path):
    checkpoint = keras.callbacks.ModelCheckpoint(
        tmp_path / "e{epoch:02d}.weights.h5", monitor=monitor, save_best_only=True, save_weights_only=True
    )
    fit_with(checkpoint, key=monitor, metrics=metrics)
    assert saved_epochs(tmp_path) == expected


def test_mode_auto_with_a_value_it_cannot_place_raises_keras_error(tmp_path):
    checkpoint = keras.callbacks.ModelCheckpoint(tmp_path / "e.weights.h5", monitor="score", save_weights_only=True)
    with pytest.raises(ValueError, match=r"monitor=score, but Keras isn't able to automatically determine.*mode='max'"):
        fit_with(checkpoint)


def test_an_unknown_mode_warns_and_falls_back_to_auto():
    with pytest.warns(UserWarning, match="ModelCheckpoint mode 'biggest' is unknown, fallback to auto mode."):
        checkpoint = keras.callbacks.ModelCheckpoint("x.weights.h5", mode="biggest", save_weights_only=True)
    assert checkpoint.mode == "auto"


def test_initial_value_threshold_is_the_best_to_beat(tmp_path):
    checkpoint = keras.callbacks.ModelCheckpoint(
        tmp_path / "e{epoch:02d}.weights.h5",
        monitor="score",
        mode="min",
        save_best_only=True,
        save_weights_only=True,
        initial_value_threshold=0.2,
    )
    fit_with(checkpoint)
    assert saved_epochs(tmp_path) == [5]


def test_the_best_weights_file_holds_the_weights_of_the_best_epoch(tmp_path):
    path = tmp_path / "best.weights.h5"
    checkpoint = keras.callbacks.ModelCheckpoint(
        path, monitor="score", mode="max", save_best_only=True, save_weights_only=True
    )
    model, scores = fit_with(checkpoint, values=(0.3, 0.5, 0.9, 0.6, 0.1))
    best = scores.weights[2]  # epoch 3's
    assert not np.allclose(best[0], model.get_weights()[0])
    restored = keras.Sequential([keras.Input((2,)), layers.Dense(1)])
    restored.load_weights(path)
    for mine, theirs in zip(restored.get_weights(), best):
        np.testing.assert_array_equal(mine, theirs)


def test_a_real_val_loss_names_the_files_and_picks_the_lowest(tmp_path):
    model = keras.Sequential([keras.Input((2,)), layers.Dense(1)])
    model.compile(keras.optimizers.SGD(0.5), "mse")  # a rate this large overshoots: val_loss goes up and down
    x = np.linspace(-1, 1, 16, dtype="float32").reshape(8, 2)
    path = tmp_path / "m{epoch:02d}-{val_loss:.3f}.weights.h5"
    checkpoint = keras.callbacks.ModelCheckpoint(path, save_best_only=True, save_weights_only=True)
    history = model.fit(
        x,
        x[:, :1],
        epochs=6,
        batch_size=4,
        shuffle=False,
        verbose=0,
        validation_data=(x[:4], x[:4, :1]),
        callbacks=[checkpoint],
    )
    losses = history.history["val_loss"]
    improved = [e + 1 for e, v in enumerate(losses) if v < min(losses[:e], default=np.inf)]
    assert 1 < len(improved) < len(losses)
    assert sorted(os.listdir(tmp_path)) == [f"m{e:02d}-{losses[e - 1]:.3f}.weights.h5" for e in improved]


def test_verbose_prints_keras_messages(tmp_path, capsys):
    path = str(tmp_path / "best.weights.h5")
    checkpoint = keras.callbacks.ModelCheckpoint(
        path, monitor="score", mode="min", save_best_only=True, save_weights_only=True, verbose=1
    )
    fit_with(checkpoint, values=(0.3, 0.5))
    printed = capsys.readouterr().out
    assert f"\nEpoch 1: score improved from None to 0.30000, saving model to {path}\n" in printed
    assert f"\nEpoch 1: finished saving model to {path}\n" in printed
    assert "\nEpoch 2: score did not improve from 0.30000\n" in printed and "Epoch 2: finished" not in printed


def test_a_monitor_missing_from_the_logs_warns_as_keras_and_saves_anyway(tmp_path):
    checkpoint = keras.callbacks.ModelCheckpoint(
        tmp_path / "e{epoch:02d}.weights.h5",
        monitor="val_nope",
        mode="min",
        save_best_only=True,
        save_weights_only=True,
    )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fit_with(checkpoint, values=(0.3, 0.5))
    assert [str(w.message) for w in caught] == ["Can save best model only with val_nope available."] * 2
    assert saved_epochs(tmp_path) == [1, 2]


def test_a_filepath_naming_a_value_not_logged_is_a_key_error(tmp_path):
    checkpoint = keras.callbacks.ModelCheckpoint(tmp_path / "{val_acc:.2f}.weights.h5", save_weights_only=True)
    with pytest.raises(KeyError) as caught:
        fit_with(checkpoint, values=(0.3,))
    message = caught.value.args[0]
    assert message.startswith('Failed to format this callback filepath: "') and "Reason: 'val_acc'" in message
    assert "['loss', 'score']" in message  # what it could have named


def test_save_freq_in_batches_names_epoch_and_batch(tmp_path):
    checkpoint = keras.callbacks.ModelCheckpoint(
        tmp_path / "e{epoch}-b{batch}.weights.h5", save_weights_only=True, save_freq=3
    )
    fit_with(checkpoint, values=(0.3, 0.5, 0.4))  # 2 batches an epoch: saves after batches 3 and 6 in all
    assert sorted(os.listdir(tmp_path)) == ["e2-b1.weights.h5", "e3-b2.weights.h5"]


def test_saving_whole_models_is_refused_at_construction_with_what_to_pass_instead():
    with pytest.raises(
        NotImplementedError,
        match=r"writes no model files.*ModelCheckpoint\('best\."
        r"weights\.h5', save_weights_only=True",
    ):
        keras.callbacks.ModelCheckpoint("best.keras", save_best_only=True)
    with pytest.raises(
        ValueError,
        match=r"When using `save_weights_only=True` in `ModelCheckpoint`, the filepath "
        r"provided must end in `\.weights\.h5`.*'best\.weights\.h5'",
    ):
        keras.callbacks.ModelCheckpoint("best.h5", save_weights_only=True)
    with pytest.raises(ValueError, match="Unrecognized save_freq: batch"):
        keras.callbacks.ModelCheckpoint("best.weights.h5", save_weights_only=True, save_freq="batch")
