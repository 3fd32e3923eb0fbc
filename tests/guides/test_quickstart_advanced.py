"""Port of TensorFlow's tutorial "TensorFlow 2 quickstart for experts" (site/en/tutorials/quickstart/advanced).

Its cells run unchanged but for the imports (`import minitape as tf`, `from minitape.keras.layers import ...`,
`from minitape.keras import Model`) and one line of cell 3: the tutorial downloads MNIST with
`tf.keras.datasets.mnist`, which cannot reach the network here. `DIGITS_AS_MNIST` stands in: the 8x8 digits
bundled with minitape (`tf.keras.datasets.digits`, 1437 training and 360 test images, scikit-learn's copy) with
their grey levels 0..16 rescaled to MNIST's 0..255 uint8, so cell 3's own `/ 255.0` and channel axis apply as
written. The offline error of `mnist.load_data()` itself is tested too: it names the digits as the way out.

The tutorial's loop (cell 10, five epochs, shuffled batches) runs as written; its printed lines are checked for
their format and for the learning TensorFlow 2.21 shows on the same digits (three runs: final training loss
0.11 to 0.13, test accuracy 97.2 to 98.3 %). A second run starts from the same weights as a TensorFlow 2.21
(Keras 3.15.1) run of the same cells (the `same_start` fixture of tests/conftest.py) over unshuffled batches,
so its two printed lines must be TensorFlow's, character for character.
Cell numbers count the notebook's code cells from 1 (the licence cell).
"""

import re
import urllib.error
import urllib.request

import numpy as np
import pytest

import minitape as tf
from minitape.keras import Model
from minitape.keras.layers import Conv2D, Dense, Flatten

pytestmark = pytest.mark.usefixtures("keras_session")


class DIGITS_AS_MNIST:  # noqa: N801 (it stands where the tutorial has the module tf.keras.datasets.mnist)
    """`load_data()` as MNIST's: uint8 images 0..255, here (n, 8, 8), and uint8 labels 0..9."""

    @staticmethod
    def load_data() -> tuple[tuple[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]:
        (x_train, y_train), (x_test, y_test) = tf.keras.datasets.digits.load_data()

        def pixels(x):
            return np.round(x.astype(np.float64) * 255 / 16).astype(np.uint8)

        return (pixels(x_train), y_train), (pixels(x_test), y_test)


def test_cell_02_version_and_imports(capsys):
    print("TensorFlow version:", tf.__version__)
    # TensorFlow prints its version (2.21.0 here); minitape prints its own
    assert re.fullmatch(r"TensorFlow version: \d+\.\d+\.\d+\n", capsys.readouterr().out)
    assert (Dense, Flatten, Conv2D, Model) == (
        tf.keras.layers.Dense,
        tf.keras.layers.Flatten,
        tf.keras.layers.Conv2D,
        tf.keras.Model,
    )


def test_cell_03_mnist_offline_says_to_use_the_digits(monkeypatch, tmp_path):
    def no_network(*args, **kwargs):
        raise urllib.error.URLError("no network here")

    monkeypatch.setenv("KERAS_HOME", str(tmp_path))  # an empty cache: load_data must download
    monkeypatch.setattr(urllib.request, "urlopen", no_network)
    mnist = tf.keras.datasets.mnist
    with pytest.raises(ConnectionError, match=r"could not download mnist.npz .*no network here") as caught:
        (x_train, y_train), (x_test, y_test) = mnist.load_data()
    assert "mt.keras.datasets.digits.load_data() loads 8x8 handwritten digits that need no download" in str(
        caught.value
    )
    assert not list(tmp_path.rglob("*.part"))  # no half-written file left behind


def _cells_03_04():
    """Cells 3 and 4 as written, with the stand-in for MNIST."""
    mnist = DIGITS_AS_MNIST

    (x_train, y_train), (x_test, y_test) = mnist.load_data()
    x_train, x_test = x_train / 255.0, x_test / 255.0

    # Add a channels dimension
    x_train = x_train[..., tf.newaxis].astype("float32")
    x_test = x_test[..., tf.newaxis].astype("float32")

    train_ds = tf.data.Dataset.from_tensor_slices((x_train, y_train)).shuffle(10000).batch(32)

    test_ds = tf.data.Dataset.from_tensor_slices((x_test, y_test)).batch(32)
    return (x_train, y_train), (x_test, y_test), train_ds, test_ds


class MyModel(Model):  # cell 5
    def __init__(self):
        super().__init__()
        self.conv1 = Conv2D(32, 3, activation="relu")
        self.flatten = Flatten()
        self.d1 = Dense(128, activation="relu")
        self.d2 = Dense(10)

    def call(self, x):
        x = self.conv1(x)
        x = self.flatten(x)
        x = self.d1(x)
        return self.d2(x)


def _cells_05_to_10(train_ds, test_ds, EPOCHS, start=None):  # noqa: N803 (the tutorial's name)
    """Cells 5 to 10 as written, training for EPOCHS; `start(model)`, if given, sets the first weights."""
    # Create an instance of the model
    model = MyModel()
    if start is not None:
        start(model)

    loss_object = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)

    optimizer = tf.keras.optimizers.Adam()

    train_loss = tf.keras.metrics.Mean(name="train_loss")
    train_accuracy = tf.keras.metrics.SparseCategoricalAccuracy(name="train_accuracy")

    test_loss = tf.keras.metrics.Mean(name="test_loss")
    test_accuracy = tf.keras.metrics.SparseCategoricalAccuracy(name="test_accuracy")

    @tf.function
    def train_step(images, labels):
        with tf.GradientTape() as tape:
            # training=True is only needed if there are layers with different
            # behavior during training versus inference (e.g. Dropout).
            predictions = model(images, training=True)
            loss = loss_object(labels, predictions)
        gradients = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(gradients, model.trainable_variables))

        train_loss(loss)
        train_accuracy(labels, predictions)

    @tf.function
    def test_step(images, labels):
        # training=False is only needed if there are layers with different
        # behavior during training versus inference (e.g. Dropout).
        predictions = model(images, training=False)
        t_loss = loss_object(labels, predictions)

        test_loss(t_loss)
        test_accuracy(labels, predictions)

    for epoch in range(EPOCHS):
        # Reset the metrics at the start of the next epoch
        train_loss.reset_state()
        train_accuracy.reset_state()
        test_loss.reset_state()
        test_accuracy.reset_state()

        for images, labels in train_ds:
            train_step(images, labels)

        for test_images, test_labels in test_ds:
            test_step(test_images, test_labels)

        print(
            f"Epoch {epoch + 1}, "
            f"Loss: {train_loss.result():0.2f}, "
            f"Accuracy: {train_accuracy.result() * 100:0.2f}, "
            f"Test Loss: {test_loss.result():0.2f}, "
            f"Test Accuracy: {test_accuracy.result() * 100:0.2f}"
        )
    return model, [m.result().numpy() for m in (train_loss, train_accuracy, test_loss, test_accuracy)]


def test_cells_03_04_the_stand_in_data():
    (x_train, y_train), (x_test, y_test), train_ds, test_ds = _cells_03_04()
    assert x_train.shape == (1437, 8, 8, 1) and x_test.shape == (360, 8, 8, 1)
    assert x_train.dtype == np.float32 and 0.0 == x_train.min() and x_train.max() == 1.0
    assert y_train.dtype == np.uint8 and set(y_train.tolist()) == set(range(10))
    sizes = [len(labels) for _, labels in train_ds]
    assert sizes == [32] * 44 + [29]  # 1437 images in batches of 32
    first = [labels.numpy().tolist() for _, labels in train_ds.take(1)]
    again = [labels.numpy().tolist() for _, labels in train_ds.take(1)]
    assert first != again  # shuffle(10000) holds every image and draws a new order each epoch
    images, labels = next(iter(test_ds))
    assert images.shape == (32, 8, 8, 1) and images.dtype == tf.float32 and labels.dtype == tf.uint8


EPOCH_LINE = r"Epoch (\d), Loss: (\d+\.\d\d), Accuracy: (\d+\.\d\d), Test Loss: (\d+\.\d\d), Test Accuracy: (\d+\.\d\d)"


def test_cells_05_to_10_five_shuffled_epochs_learn_the_digits(capsys):
    _, _, train_ds, test_ds = _cells_03_04()
    model, _ = _cells_05_to_10(train_ds, test_ds, EPOCHS=5)
    lines = capsys.readouterr().out.splitlines()
    epochs = [re.fullmatch(EPOCH_LINE, line) for line in lines]
    assert all(epochs) and [int(m[1]) for m in epochs] == [1, 2, 3, 4, 5], lines
    loss, accuracy, test_loss, test_accuracy = (np.array([float(m[k]) for m in epochs]) for k in (2, 3, 4, 5))
    # TensorFlow 2.21's three runs on these digits: loss 1.27 to 1.34 after epoch 1, falling every epoch to
    # 0.11 to 0.13, training accuracy 96.4 to 97.1 %, test accuracy 93.1 to 98.3 % over epochs 2 to 5
    assert loss[0] < 1.5 and np.all(np.diff(loss) < 0) and loss[-1] < 0.2
    assert accuracy[-1] > 94 and np.all(test_accuracy[1:] > 90) and test_accuracy[-1] > 93
    assert test_loss[-1] < 0.25
    assert [v.shape for v in model.trainable_variables] == [(3, 3, 1, 32), (32,), (1152, 128), (128,), (128, 10), (10,)]


def test_cells_05_to_10_from_tensorflows_start_print_tensorflows_lines(capsys, same_start):
    (x_train, y_train), _, _, test_ds = _cells_03_04()
    train_ds = tf.data.Dataset.from_tensor_slices((x_train, y_train)).batch(32)  # unshuffled: one order in both

    def start(model):
        model(x_train[:1])  # build the layers
        same_start(model, 0)

    _, results = _cells_05_to_10(train_ds, test_ds, EPOCHS=2, start=start)
    # TensorFlow 2.21 (Keras 3.15.1) prints, from the same weights and batches:
    assert capsys.readouterr().out == (
        "Epoch 1, Loss: 1.25, Accuracy: 73.49, Test Loss: 0.38, Test Accuracy: 93.06\n"
        "Epoch 2, Loss: 0.29, Accuracy: 93.46, Test Loss: 0.18, Test Accuracy: 95.28\n"
    )
    # and its metrics after epoch 2 are these (float32 sums in another order: the losses agree to 1e-5)
    np.testing.assert_allclose(results, [0.28692886, 0.9345859, 0.18086608, 0.9527778], rtol=2e-5)
