# ruff: noqa: UP008, UP032 - the tutorial's super(Class, self) and str.format calls are kept as written
"""Port of TensorFlow's tutorial "Intro to Autoencoders" (site/en/tutorials/generative/autoencoder.ipynb).

The cells run with `import minitape as tf` and `from minitape.keras import layers, losses` / `.models import
Model` in place of TensorFlow's imports. What differs, and why:
- no downloads: Fashion-MNIST becomes 256 training and 64 test images of the same shape and dtype (28x28 uint8),
  blurred ellipses drawn with numpy (`_fashion_like`); the ECG table becomes 500 synthetic 140-step signals,
  300 normal (a noisy sine) and 200 anomalous (a noisy square wave), labelled 1 and 0 in the last column, as
  the tutorial's `ecg.csv` is;
- each model starts from the same weights in both libraries (the `same_start` fixture of tests/conftest.py:
  seeded numpy, after the first call), the two image models train with `shuffle=False`, the noise is numpy's,
  and the denoiser trains for 2 epochs in place of 10 (time): so every loss below is the number TensorFlow 2.21
  printed for this exact script (run side by side, 2026-11-28), and the test asserts it;
- cell 11 as written passes `tf.math.reduce_prod(shape).numpy()`, a numpy int32, to `Dense`: TensorFlow 2.21's
  Keras refuses it ("expected a positive integer. Received: units=784"), and so does minitape; the test checks
  that, then runs the cell with `int(...)` around it.
Figures are drawn with matplotlib's Agg backend and closed.
"""

import matplotlib.pyplot as plt
import numpy as np
import pytest
from sklearn.metrics import accuracy_score, precision_score, recall_score
from sklearn.model_selection import train_test_split

import minitape as tf
from minitape.keras import layers, losses
from minitape.keras.models import Model

plt.switch_backend("Agg")
pytestmark = pytest.mark.usefixtures("keras_session")


def _fashion_like(n, seed):
    """n images shaped as Fashion-MNIST's (28x28 uint8): a filled, blurred ellipse of random size and grey."""
    rng = np.random.default_rng(seed)
    yy, xx = np.mgrid[0:28, 0:28]
    images = np.zeros((n, 28, 28))
    for i in range(n):
        cy, cx = rng.uniform(8, 20, 2)
        ry, rx = rng.uniform(4, 10, 2)
        images[i] = np.clip(1.2 - ((yy - cy) / ry) ** 2 - ((xx - cx) / rx) ** 2, 0, 1) * rng.uniform(0.5, 1.0)
    return (images * 255).astype(np.uint8)


def _images():
    """Cell 9, on the synthetic images."""
    x_train, x_test = _fashion_like(256, 0), _fashion_like(64, 1)
    x_train = x_train.astype("float32") / 255.0
    x_test = x_test.astype("float32") / 255.0
    return x_train, x_test


class Autoencoder(Model):  # cell 11, with int(...) around the number of units (see the module's docstring)
    def __init__(self, latent_dim, shape):
        super(Autoencoder, self).__init__()
        self.latent_dim = latent_dim
        self.shape = shape
        self.encoder = tf.keras.Sequential(
            [
                layers.Flatten(),
                layers.Dense(latent_dim, activation="relu"),
            ]
        )
        self.decoder = tf.keras.Sequential(
            [layers.Dense(int(tf.math.reduce_prod(shape).numpy()), activation="sigmoid"), layers.Reshape(shape)]
        )

    def call(self, x):
        encoded = self.encoder(x)
        decoded = self.decoder(encoded)
        return decoded


def test_cell_11_as_written_is_refused_as_tensorflow_refuses_it():
    units = tf.math.reduce_prod((28, 28)).numpy()
    assert units == 784 and isinstance(units, np.int32)  # TensorFlow: <class 'numpy.int32'> 784
    # TensorFlow 2.21: "Received an invalid value for `units`, expected a positive integer. Received: units=784"
    with pytest.raises(ValueError, match=r"expected a positive integer. Received: units=784 \(a numpy int32"):
        layers.Dense(units, activation="sigmoid")


def test_cells_09_to_17_a_basic_autoencoder(capsys, same_start):
    x_train, x_test = _images()
    print(x_train.shape)
    shape = x_test.shape[1:]
    latent_dim = 64
    autoencoder = Autoencoder(latent_dim, shape)
    autoencoder.compile(optimizer="adam", loss=losses.MeanSquaredError())
    autoencoder(x_test[:1])
    same_start(autoencoder, 10)
    assert autoencoder.evaluate(x_test, x_test, verbose=0) == pytest.approx(0.20686659216880798, rel=1e-5)
    history = autoencoder.fit(x_train, x_train, epochs=10, shuffle=False, validation_data=(x_test, x_test), verbose=0)
    # TensorFlow: loss 0.20016494393348694 (epoch 1), 0.023699555546045303 (epoch 10), val_loss 0.023239262402057648
    assert history.history["loss"][0] == pytest.approx(0.20016494393348694, rel=1e-4)
    assert history.history["loss"][-1] == pytest.approx(0.023699555546045303, rel=1e-3)
    assert history.history["val_loss"][-1] == pytest.approx(0.023239262402057648, rel=1e-3)

    encoded_imgs = autoencoder.encoder(x_test).numpy()
    decoded_imgs = autoencoder.decoder(encoded_imgs).numpy()
    assert encoded_imgs.shape == (64, 64) and decoded_imgs.shape == (64, 28, 28)
    assert float(np.mean((decoded_imgs - x_test) ** 2)) == pytest.approx(0.023239262402057648, rel=1e-3)

    n = 10
    plt.figure(figsize=(20, 4))
    for i in range(n):
        ax = plt.subplot(2, n, i + 1)
        plt.imshow(x_test[i])
        plt.title("original")
        plt.gray()
        ax.get_xaxis().set_visible(False)
        ax.get_yaxis().set_visible(False)
        ax = plt.subplot(2, n, i + 1 + n)
        plt.imshow(decoded_imgs[i])
        plt.title("reconstructed")
        plt.gray()
        ax.get_xaxis().set_visible(False)
        ax.get_yaxis().set_visible(False)
    plt.show()
    plt.close("all")
    assert capsys.readouterr().out == "(256, 28, 28)\n"


class Denoise(Model):  # cell 27
    def __init__(self):
        super(Denoise, self).__init__()
        self.encoder = tf.keras.Sequential(
            [
                layers.Input(shape=(28, 28, 1)),
                layers.Conv2D(16, (3, 3), activation="relu", padding="same", strides=2),
                layers.Conv2D(8, (3, 3), activation="relu", padding="same", strides=2),
            ]
        )
        self.decoder = tf.keras.Sequential(
            [
                layers.Conv2DTranspose(8, kernel_size=3, strides=2, activation="relu", padding="same"),
                layers.Conv2DTranspose(16, kernel_size=3, strides=2, activation="relu", padding="same"),
                layers.Conv2D(1, kernel_size=(3, 3), activation="sigmoid", padding="same"),
            ]
        )

    def call(self, x):
        encoded = self.encoder(x)
        decoded = self.decoder(encoded)
        return decoded


def test_cells_19_to_36_a_denoising_convolutional_autoencoder(capsys, same_start):
    x_train, x_test = _images()
    x_train = x_train[..., tf.newaxis]
    x_test = x_test[..., tf.newaxis]
    assert x_train.shape == (256, 28, 28, 1)

    noise_factor = 0.2
    rng = np.random.default_rng(5)  # the tutorial draws tf.random.normal: numpy's here, the same in both runs
    x_train_noisy = x_train + noise_factor * rng.normal(size=x_train.shape).astype("float32")
    x_test_noisy = x_test + noise_factor * rng.normal(size=x_test.shape).astype("float32")
    x_train_noisy = tf.clip_by_value(x_train_noisy, clip_value_min=0.0, clip_value_max=1.0)
    x_test_noisy = tf.clip_by_value(x_test_noisy, clip_value_min=0.0, clip_value_max=1.0)
    assert float(tf.reduce_min(x_test_noisy)) == 0.0 and float(tf.reduce_max(x_test_noisy)) <= 1.0

    autoencoder = Denoise()
    autoencoder.compile(optimizer="adam", loss=losses.MeanSquaredError())
    autoencoder(x_test_noisy[:1])
    same_start(autoencoder, 11)
    assert autoencoder.evaluate(x_test_noisy, x_test, verbose=0) == pytest.approx(0.2062082439661026, rel=1e-5)
    history = autoencoder.fit(
        x_train_noisy, x_train, epochs=2, shuffle=False, validation_data=(x_test_noisy, x_test), verbose=0
    )
    # TensorFlow: loss [0.2057100236415863, 0.19820857048034668], val_loss [0.20023924112319946, 0.19017568230628967]
    np.testing.assert_allclose(history.history["loss"], [0.2057100236415863, 0.19820857048034668], rtol=1e-4)
    np.testing.assert_allclose(history.history["val_loss"], [0.20023924112319946, 0.19017568230628967], rtol=1e-4)

    autoencoder.encoder.summary()
    autoencoder.decoder.summary()
    printed = capsys.readouterr().out
    # TensorFlow's tables: Conv2D (None, 14, 14, 16) 160, Conv2D (None, 7, 7, 8) 1,160; Conv2DTranspose 584 and
    # 1,168, Conv2D 145 (TensorFlow prints the decoder's batch size as 1: it was built on one image)
    for row in ("(None, 14, 14, 16)    160", "(None, 7, 7, 8)       1160", "584", "1168", "145"):
        assert row in printed
    assert "Total params: 1,320" in printed and "Total params: 1,897" in printed

    encoded_imgs = autoencoder.encoder(x_test_noisy).numpy()
    decoded_imgs = autoencoder.decoder(encoded_imgs).numpy()
    assert encoded_imgs.shape == (64, 7, 7, 8) and decoded_imgs.shape == (64, 28, 28, 1)
    n = 10
    plt.figure(figsize=(20, 4))
    for i in range(n):
        ax = plt.subplot(2, n, i + 1)
        plt.title("original + noise")
        plt.imshow(tf.squeeze(x_test_noisy[i]))
        plt.gray()
        ax.get_xaxis().set_visible(False)
        ax.get_yaxis().set_visible(False)
        bx = plt.subplot(2, n, i + n + 1)
        plt.title("reconstructed")
        plt.imshow(tf.squeeze(decoded_imgs[i]))
        plt.gray()
        bx.get_xaxis().set_visible(False)
        bx.get_yaxis().set_visible(False)
    plt.show()
    plt.close("all")


def _ecg_table():
    """In place of cell 40's download: rows of 140 samples and a label (1 normal, 0 anomalous), as ecg.csv."""
    rng = np.random.default_rng(7)
    t = np.linspace(0, 1, 140)
    normal = np.sin(2 * np.pi * 3 * t) * rng.uniform(0.8, 1.2, (300, 1)) + 0.1 * rng.normal(size=(300, 140))
    square = np.sign(np.sin(2 * np.pi * 5 * t)) * rng.uniform(0.8, 1.2, (200, 1)) + 0.1 * rng.normal(size=(200, 140))
    raw_data = np.concatenate([np.c_[normal, np.ones(300)], np.c_[square, np.zeros(200)]])
    return raw_data[rng.permutation(500)]


class AnomalyDetector(Model):  # cell 51
    def __init__(self):
        super(AnomalyDetector, self).__init__()
        self.encoder = tf.keras.Sequential(
            [
                layers.Dense(32, activation="relu"),
                layers.Dense(16, activation="relu"),
                layers.Dense(8, activation="relu"),
            ]
        )
        self.decoder = tf.keras.Sequential(
            [
                layers.Dense(16, activation="relu"),
                layers.Dense(32, activation="relu"),
                layers.Dense(140, activation="sigmoid"),
            ]
        )

    def call(self, x):
        encoded = self.encoder(x)
        decoded = self.decoder(encoded)
        return decoded


def predict(model, data, threshold):  # cell 70
    reconstructions = model(data)
    loss = tf.keras.losses.mae(reconstructions, data)
    return tf.math.less(loss, threshold)


def print_stats(predictions, labels):
    print("Accuracy = {}".format(accuracy_score(labels, predictions)))
    print("Precision = {}".format(precision_score(labels, predictions)))
    print("Recall = {}".format(recall_score(labels, predictions)))


def test_cells_40_to_71_anomaly_detection_on_ecg_signals(capsys, same_start):
    raw_data = _ecg_table()
    labels = raw_data[:, -1]
    data = raw_data[:, 0:-1]
    train_data, test_data, train_labels, test_labels = train_test_split(data, labels, test_size=0.2, random_state=21)

    min_val = tf.reduce_min(train_data)
    max_val = tf.reduce_max(train_data)
    train_data = (train_data - min_val) / (max_val - min_val)
    test_data = (test_data - min_val) / (max_val - min_val)
    train_data = tf.cast(train_data, tf.float32)
    test_data = tf.cast(test_data, tf.float32)
    # TensorFlow: -1.4922147579803713 1.5256694082280715, float64 until the cast
    assert (float(min_val), float(max_val)) == pytest.approx((-1.4922147579803713, 1.5256694082280715))
    assert min_val.dtype == tf.float64 and train_data.dtype == tf.float32

    train_labels = train_labels.astype(bool)
    test_labels = test_labels.astype(bool)
    normal_train_data = train_data[train_labels]
    normal_test_data = test_data[test_labels]
    anomalous_train_data = train_data[~train_labels]
    anomalous_test_data = test_data[~test_labels]
    assert normal_train_data.shape == (237, 140) and anomalous_test_data.shape == (37, 140)  # as TensorFlow's
    assert normal_test_data.shape[0] + anomalous_test_data.shape[0] == 100 and anomalous_train_data.shape[0] == 163

    plt.grid()
    plt.plot(np.arange(140), normal_train_data[0])
    plt.title("A Normal ECG")
    plt.show()

    autoencoder = AnomalyDetector()
    autoencoder.compile(optimizer="adam", loss="mae")
    autoencoder(normal_train_data[:1])
    same_start(autoencoder, 12)
    history = autoencoder.fit(
        normal_train_data,
        normal_train_data,
        epochs=20,
        batch_size=512,
        validation_data=(test_data, test_data),
        shuffle=True,  # one batch of all 237 rows: its order does not change the step
        verbose=0,
    )
    # TensorFlow: loss 0.20944955945014954 (epoch 1), 0.156741201877594 (epoch 20), val_loss 0.22099268436431885
    assert history.history["loss"][0] == pytest.approx(0.20944955945014954, rel=1e-5)
    assert history.history["loss"][-1] == pytest.approx(0.156741201877594, rel=1e-4)
    assert history.history["val_loss"][-1] == pytest.approx(0.22099268436431885, rel=1e-4)
    plt.plot(history.history["loss"], label="Training Loss")
    plt.plot(history.history["val_loss"], label="Validation Loss")
    plt.legend()

    encoded_data = autoencoder.encoder(normal_test_data).numpy()
    decoded_data = autoencoder.decoder(encoded_data).numpy()
    plt.plot(normal_test_data[0], "b")
    plt.plot(decoded_data[0], "r")
    plt.fill_between(np.arange(140), decoded_data[0], normal_test_data[0], color="lightcoral")
    plt.legend(labels=["Input", "Reconstruction", "Error"])
    plt.show()

    reconstructions = autoencoder.predict(normal_train_data, verbose=0)
    train_loss = tf.keras.losses.mae(reconstructions, normal_train_data)
    plt.hist(train_loss[None, :], bins=50)
    plt.xlabel("Train loss")
    plt.ylabel("No of examples")
    plt.show()
    threshold = np.mean(train_loss) + np.std(train_loss)
    print("Threshold: ", threshold)

    preds = predict(autoencoder, test_data, threshold)
    print_stats(preds, test_labels)
    plt.close("all")
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("Threshold:  ") and float(out[0].split()[-1]) == pytest.approx(0.17183256, rel=1e-4)
    # TensorFlow: Accuracy = 0.86, Precision = 1.0, Recall = 0.7777777777777778
    assert out[1:] == ["Accuracy = 0.86", "Precision = 1.0", "Recall = 0.7777777777777778"]
