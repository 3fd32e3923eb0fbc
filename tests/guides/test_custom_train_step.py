"""Port of keras-io's guide "Customizing what happens in `fit()` with TensorFlow"
(guides/custom_train_step_in_tensorflow.py), every code cell in order.

The cells run with `import minitape as tf`, `from minitape import keras` and `from minitape.keras import layers`
(the guide's `os.environ["KERAS_BACKEND"] = "tensorflow"` means nothing here and is left out), and under fit's
traced default: each `train_step` / `test_step` runs through `mt.function`, as Keras 3 runs it through
`tf.function`. What differs, and why:
- the guide's random arrays come from numpy's global generator seeded before each cell (`np.random.seed(k)`), each
  model starts from the same weights in both libraries (the `same_start` fixture of tests/conftest.py) and `fit`
  gets `shuffle=False` and `verbose=2`: so every loss and metric below is the number TensorFlow 2.21 (Keras
  3.15.1) printed for this exact script (2026-11-28), and each test asserts it and the printed lines (timings
  masked);
- the GAN's MNIST cannot be downloaded: the 8x8 digits bundled with minitape, blown up to MNIST's 28x28 uint8
  images (the `digits_as_mnist` fixture of tests/conftest.py), stand in, training and test images joined as the
  guide joins MNIST's; and the GAN trains on 2 batches, not 100. Its draws from
  `keras.random` are minitape's (numpy's PCG64), not TensorFlow's, so the guide's run as written is checked against
  an eager run (the traced step draws afresh at every step, not the tracing step's draws replayed); a second run
  starts from TensorFlow's weights, on unshuffled batches, its `keras.random.normal` / `uniform` replaced (in both
  libraries) by reads of a table of numpy draws held in a variable and a counter it steps: its losses and line
  are TensorFlow 2.21's.
- Side effects: a list appended in the step counts its traces. TensorFlow 2.21 traced each of the guide's steps
  twice on its arrays (on 1024 samples, all batches full, twice too), and the GAN's step twice; minitape traces
  once per batch shape (see minitape/keras/loops.py): twice on the guide's arrays (batches of 32, a last one of
  8), as TensorFlow, but once for the GAN's batches of 64.
"""

import re

import numpy as np
import pytest

import minitape as tf
from minitape import keras
from minitape.keras import layers

pytestmark = pytest.mark.usefixtures("keras_session")

TRACES = []  # the tests' own addition to the steps: one entry per trace (a Python side effect)


def _lines(out):
    """Printed lines with the timings masked (they differ from run to run)."""
    return re.sub(r"- \d+s - \d+[mu]?s/step", "- Ts - T/step", out).splitlines()


def test_a_first_simple_example(capsys, same_start):
    class CustomModel(keras.Model):
        def train_step(self, data):
            TRACES.append("train_step")
            # Unpack the data. Its structure depends on your model and
            # on what you pass to `fit()`.
            x, y = data

            with tf.GradientTape() as tape:
                y_pred = self(x, training=True)  # Forward pass
                # Compute the loss value
                # (the loss function is configured in `compile()`)
                loss = self.compute_loss(y=y, y_pred=y_pred)

            # Compute gradients
            trainable_vars = self.trainable_variables
            gradients = tape.gradient(loss, trainable_vars)

            # Update weights
            self.optimizer.apply(gradients, trainable_vars)

            # Update metrics (includes the metric that tracks the loss)
            for metric in self.metrics:
                if metric.name == "loss":
                    metric.update_state(loss)
                else:
                    metric.update_state(y, y_pred)

            # Return a dict mapping metric names to current value
            return {m.name: m.result() for m in self.metrics}

    TRACES.clear()
    # Construct and compile an instance of CustomModel
    inputs = keras.Input(shape=(32,))
    outputs = keras.layers.Dense(1)(inputs)
    model = CustomModel(inputs, outputs)
    model.compile(optimizer="adam", loss="mse", metrics=["mae"])
    same_start(model, 1)

    # Just use `fit` as usual
    np.random.seed(1)
    x = np.random.random((1000, 32))
    y = np.random.random((1000, 1))
    history = model.fit(x, y, epochs=3, shuffle=False, verbose=2)

    # TensorFlow 2.21 prints these lines and records this History
    assert _lines(capsys.readouterr().out) == [
        "Epoch 1/3",
        "32/32 - Ts - T/step - mae: 0.4767 - loss: 0.3478",
        "Epoch 2/3",
        "32/32 - Ts - T/step - mae: 0.3995 - loss: 0.2511",
        "Epoch 3/3",
        "32/32 - Ts - T/step - mae: 0.3922 - loss: 0.2423",
    ]
    assert list(history.history) == ["mae", "loss"]
    tf_mae = [0.47666382789611816, 0.3995495140552521, 0.39219170808792114]
    tf_loss = [0.34780415892601013, 0.2510640323162079, 0.2423323094844818]
    np.testing.assert_allclose(history.history["mae"], tf_mae, rtol=1e-5)
    np.testing.assert_allclose(history.history["loss"], tf_loss, rtol=1e-5)
    assert [m.name for m in model.metrics] == ["loss", "compile_metrics"]  # TensorFlow's names
    assert TRACES == ["train_step", "train_step"]  # batches of 32, the last of 8; TensorFlow traced twice too


def test_going_lower_level(capsys, same_start):
    class CustomModel(keras.Model):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self.loss_tracker = keras.metrics.Mean(name="loss")
            self.mae_metric = keras.metrics.MeanAbsoluteError(name="mae")
            self.loss_fn = keras.losses.MeanSquaredError()

        def train_step(self, data):
            TRACES.append("train_step")
            x, y = data

            with tf.GradientTape() as tape:
                y_pred = self(x, training=True)  # Forward pass
                # Compute our own loss
                loss = self.loss_fn(y, y_pred)

            # Compute gradients
            trainable_vars = self.trainable_variables
            gradients = tape.gradient(loss, trainable_vars)

            # Update weights
            self.optimizer.apply(gradients, trainable_vars)

            # Compute our own metrics
            self.loss_tracker.update_state(loss)
            self.mae_metric.update_state(y, y_pred)
            return {
                "loss": self.loss_tracker.result(),
                "mae": self.mae_metric.result(),
            }

        @property
        def metrics(self):
            # We list our `Metric` objects here so that `reset_states()` can be
            # called automatically at the start of each epoch
            # or at the start of `evaluate()`.
            return [self.loss_tracker, self.mae_metric]

    TRACES.clear()
    # Construct an instance of CustomModel
    inputs = keras.Input(shape=(32,))
    outputs = keras.layers.Dense(1)(inputs)
    model = CustomModel(inputs, outputs)

    # We don't pass a loss or metrics here.
    model.compile(optimizer="adam")
    same_start(model, 2)

    # Just use `fit` as usual -- you can use callbacks, etc.
    np.random.seed(2)
    x = np.random.random((1000, 32))
    y = np.random.random((1000, 1))
    history = model.fit(x, y, epochs=5, shuffle=False, verbose=2)

    # TensorFlow 2.21 prints these lines: each epoch's averages, so the metrics were reset at each epoch's start
    assert _lines(capsys.readouterr().out)[1::2] == [
        "32/32 - Ts - T/step - loss: 0.5640 - mae: 0.6302",
        "32/32 - Ts - T/step - loss: 0.2718 - mae: 0.4190",
        "32/32 - Ts - T/step - loss: 0.2367 - mae: 0.3891",
        "32/32 - Ts - T/step - loss: 0.2309 - mae: 0.3849",
        "32/32 - Ts - T/step - loss: 0.2256 - mae: 0.3806",
    ]
    tf_loss = [0.5640245676040649, 0.27180951833724976, 0.23666779696941376, 0.23093105852603912, 0.22561807930469513]
    tf_mae = [0.6301653981208801, 0.4190131425857544, 0.3891388177871704, 0.384855180978775, 0.3805999755859375]
    np.testing.assert_allclose(history.history["loss"], tf_loss, rtol=1e-5)  # TensorFlow's
    np.testing.assert_allclose(history.history["mae"], tf_mae, rtol=1e-5)
    assert TRACES == ["train_step", "train_step"]  # as TensorFlow


def test_supporting_sample_weight_and_class_weight(capsys, same_start):
    class CustomModel(keras.Model):
        def train_step(self, data):
            TRACES.append("train_step")
            # Unpack the data. Its structure depends on your model and
            # on what you pass to `fit()`.
            if len(data) == 3:
                x, y, sample_weight = data
            else:
                sample_weight = None
                x, y = data

            with tf.GradientTape() as tape:
                y_pred = self(x, training=True)  # Forward pass
                # Compute the loss value.
                # The loss function is configured in `compile()`.
                loss = self.compute_loss(
                    y=y,
                    y_pred=y_pred,
                    sample_weight=sample_weight,
                )

            # Compute gradients
            trainable_vars = self.trainable_variables
            gradients = tape.gradient(loss, trainable_vars)

            # Update weights
            self.optimizer.apply(gradients, trainable_vars)

            # Update the metrics.
            # Metrics are configured in `compile()`.
            for metric in self.metrics:
                if metric.name == "loss":
                    metric.update_state(loss)
                else:
                    metric.update_state(y, y_pred, sample_weight=sample_weight)

            # Return a dict mapping metric names to current value.
            # Note that it will include the loss (tracked in self.metrics).
            return {m.name: m.result() for m in self.metrics}

    TRACES.clear()
    # Construct and compile an instance of CustomModel
    inputs = keras.Input(shape=(32,))
    outputs = keras.layers.Dense(1)(inputs)
    model = CustomModel(inputs, outputs)
    model.compile(optimizer="adam", loss="mse", metrics=["mae"])
    same_start(model, 3)

    # You can now use sample_weight argument
    np.random.seed(3)
    x = np.random.random((1000, 32))
    y = np.random.random((1000, 1))
    sw = np.random.random((1000, 1))
    history = model.fit(x, y, sample_weight=sw, epochs=3, shuffle=False, verbose=2)

    assert _lines(capsys.readouterr().out)[1::2] == [  # TensorFlow 2.21's lines
        "32/32 - Ts - T/step - mae: 0.7698 - loss: 0.3876",
        "32/32 - Ts - T/step - mae: 0.4545 - loss: 0.1581",
        "32/32 - Ts - T/step - mae: 0.3794 - loss: 0.1139",
    ]
    tf_mae = [0.7698076367378235, 0.4544782340526581, 0.37936076521873474]  # TensorFlow 2.21's History
    tf_loss = [0.3876468539237976, 0.15807446837425232, 0.11393380910158157]
    np.testing.assert_allclose(history.history["mae"], tf_mae, rtol=1e-5)
    np.testing.assert_allclose(history.history["loss"], tf_loss, rtol=1e-5)
    assert TRACES == ["train_step", "train_step"]  # as TensorFlow: `data` had 3 entries at both traces


def test_providing_your_own_evaluation_step(capsys, same_start):
    class CustomModel(keras.Model):
        def test_step(self, data):
            TRACES.append("test_step")
            # Unpack the data
            x, y = data
            # Compute predictions
            y_pred = self(x, training=False)
            # Updates the metrics tracking the loss
            loss = self.compute_loss(y=y, y_pred=y_pred)
            # Update the metrics.
            for metric in self.metrics:
                if metric.name == "loss":
                    metric.update_state(loss)
                else:
                    metric.update_state(y, y_pred)
            # Return a dict mapping metric names to current value.
            # Note that it will include the loss (tracked in self.metrics).
            return {m.name: m.result() for m in self.metrics}

    TRACES.clear()
    # Construct an instance of CustomModel
    inputs = keras.Input(shape=(32,))
    outputs = keras.layers.Dense(1)(inputs)
    model = CustomModel(inputs, outputs)
    model.compile(loss="mse", metrics=["mae"])
    same_start(model, 4)

    # Evaluate with our custom test_step
    np.random.seed(4)
    x = np.random.random((1000, 32))
    y = np.random.random((1000, 1))
    result = model.evaluate(x, y, verbose=2)

    # TensorFlow 2.21: the line names loss first (Keras sorts the names again for its callbacks), the result
    # list follows metrics_names (loss, then mae)
    assert _lines(capsys.readouterr().out) == ["32/32 - Ts - T/step - loss: 0.9271 - mae: 0.8513"]
    np.testing.assert_allclose(result, [0.9271312355995178, 0.8513332009315491], rtol=1e-6)
    assert TRACES == ["test_step", "test_step"]  # as TensorFlow
    again = model.evaluate(x, y, verbose=0, return_dict=True)
    assert list(again) == ["mae", "loss"]  # TensorFlow 2.21's order: compile_metrics' entries, then loss
    np.testing.assert_allclose(list(again.values()), [0.8513332009315491, 0.9271312355995178], rtol=1e-6)
    assert TRACES == ["test_step", "test_step"]  # no new trace: the metrics were reset, not retraced


def _gan(digits_as_mnist, run_eagerly, same_start=None):
    """The GAN cells as written (discriminator, generator, the GAN class, the test drive), the steps counted; with
    `same_start`, unshuffled batches and TensorFlow's starting weights."""
    # Create the discriminator
    discriminator = keras.Sequential(
        [
            keras.Input(shape=(28, 28, 1)),
            layers.Conv2D(64, (3, 3), strides=(2, 2), padding="same"),
            layers.LeakyReLU(negative_slope=0.2),
            layers.Conv2D(128, (3, 3), strides=(2, 2), padding="same"),
            layers.LeakyReLU(negative_slope=0.2),
            layers.GlobalMaxPooling2D(),
            layers.Dense(1),
        ],
        name="discriminator",
    )

    # Create the generator
    latent_dim = 128
    generator = keras.Sequential(
        [
            keras.Input(shape=(latent_dim,)),
            # We want to generate 128 coefficients to reshape into a 7x7x128 map
            layers.Dense(7 * 7 * 128),
            layers.LeakyReLU(negative_slope=0.2),
            layers.Reshape((7, 7, 128)),
            layers.Conv2DTranspose(128, (4, 4), strides=(2, 2), padding="same"),
            layers.LeakyReLU(negative_slope=0.2),
            layers.Conv2DTranspose(128, (4, 4), strides=(2, 2), padding="same"),
            layers.LeakyReLU(negative_slope=0.2),
            layers.Conv2D(1, (7, 7), padding="same", activation="sigmoid"),
        ],
        name="generator",
    )

    class GAN(keras.Model):
        def __init__(self, discriminator, generator, latent_dim):
            super().__init__()
            self.discriminator = discriminator
            self.generator = generator
            self.latent_dim = latent_dim
            self.d_loss_tracker = keras.metrics.Mean(name="d_loss")
            self.g_loss_tracker = keras.metrics.Mean(name="g_loss")
            self.seed_generator = keras.random.SeedGenerator(1337)

        @property
        def metrics(self):
            return [self.d_loss_tracker, self.g_loss_tracker]

        def compile(self, d_optimizer, g_optimizer, loss_fn):
            super().compile()
            self.d_optimizer = d_optimizer
            self.g_optimizer = g_optimizer
            self.loss_fn = loss_fn

        def train_step(self, real_images):
            TRACES.append(tuple(real_images.shape))
            if isinstance(real_images, tuple):
                real_images = real_images[0]
            # Sample random points in the latent space
            batch_size = tf.shape(real_images)[0]
            random_latent_vectors = keras.random.normal(shape=(batch_size, self.latent_dim), seed=self.seed_generator)

            # Decode them to fake images
            generated_images = self.generator(random_latent_vectors)

            # Combine them with real images
            combined_images = tf.concat([generated_images, real_images], axis=0)

            # Assemble labels discriminating real from fake images
            labels = tf.concat([tf.ones((batch_size, 1)), tf.zeros((batch_size, 1))], axis=0)
            # Add random noise to the labels - important trick!
            labels += 0.05 * keras.random.uniform(tf.shape(labels), seed=self.seed_generator)

            # Train the discriminator
            with tf.GradientTape() as tape:
                predictions = self.discriminator(combined_images)
                d_loss = self.loss_fn(labels, predictions)
            grads = tape.gradient(d_loss, self.discriminator.trainable_weights)
            self.d_optimizer.apply(grads, self.discriminator.trainable_weights)

            # Sample random points in the latent space
            random_latent_vectors = keras.random.normal(shape=(batch_size, self.latent_dim), seed=self.seed_generator)

            # Assemble labels that say "all real images"
            misleading_labels = tf.zeros((batch_size, 1))

            # Train the generator (note that we should *not* update the weights
            # of the discriminator)!
            with tf.GradientTape() as tape:
                predictions = self.discriminator(self.generator(random_latent_vectors))
                g_loss = self.loss_fn(misleading_labels, predictions)
            grads = tape.gradient(g_loss, self.generator.trainable_weights)
            self.g_optimizer.apply(grads, self.generator.trainable_weights)

            # Update metrics and return their value.
            self.d_loss_tracker.update_state(d_loss)
            self.g_loss_tracker.update_state(g_loss)
            return {
                "d_loss": self.d_loss_tracker.result(),
                "g_loss": self.g_loss_tracker.result(),
            }

    # Prepare the dataset. We use both the training & test MNIST digits.
    batch_size = 64
    (x_train, _), (x_test, _) = digits_as_mnist()
    all_digits = np.concatenate([x_train, x_test])
    all_digits = all_digits.astype("float32") / 255.0
    all_digits = np.reshape(all_digits, (-1, 28, 28, 1))
    dataset = tf.data.Dataset.from_tensor_slices(all_digits)
    if same_start is None:
        dataset = dataset.shuffle(buffer_size=1024).batch(batch_size)
    else:  # the test's run from TensorFlow's start
        dataset = dataset.batch(batch_size)
        same_start(generator, 6)
        same_start(discriminator, 7)

    gan = GAN(discriminator=discriminator, generator=generator, latent_dim=latent_dim)
    gan.compile(
        d_optimizer=keras.optimizers.Adam(learning_rate=0.0003),
        g_optimizer=keras.optimizers.Adam(learning_rate=0.0003),
        loss_fn=keras.losses.BinaryCrossentropy(from_logits=True),
    )
    gan.run_eagerly = run_eagerly  # the test's addition: the same GAN, its step as plain Python

    # To limit the execution time, we only train on 100 batches. You can train on
    # the entire dataset. You will need about 20 epochs to get nice results.
    return gan.fit(dataset.take(2), epochs=1, verbose=2)


def test_wrapping_up_an_end_to_end_gan_example(capsys, digits_as_mnist):
    TRACES.clear()
    keras.utils.set_random_seed(0)
    traced = _gan(digits_as_mnist, run_eagerly=False).history
    assert TRACES == [(64, 28, 28, 1)]  # one trace for its batches of 64 (TensorFlow 2.21 traced twice)
    (line,) = _lines(capsys.readouterr().out)  # one epoch: no "Epoch 1/1" line, as in TensorFlow 2.21
    assert re.fullmatch(r"2/2 - Ts - T/step - d_loss: \d\.\d{4} - g_loss: \d\.\d{4}", line)
    TRACES.clear()
    keras.utils.set_random_seed(0)
    eager = _gan(digits_as_mnist, run_eagerly=True).history
    assert len(TRACES) == 2  # eagerly, the step's Python runs at each batch
    # the traced step drew new latent vectors and label noise at each step, as the eager one did
    assert traced.keys() == eager.keys() == {"d_loss", "g_loss"}
    np.testing.assert_allclose(traced["d_loss"], eager["d_loss"], rtol=1e-5)
    np.testing.assert_allclose(traced["g_loss"], eager["g_loss"], rtol=1e-5)
    # a fresh GAN: logits near 0, so cross-entropies near log 2 = 0.693 (TensorFlow 2.21's same-start run below:
    # 0.6773 and 0.6702)
    assert 0.6 < traced["d_loss"][0] < 0.75
    assert 0.6 < traced["g_loss"][0] < 0.75


class TableDraws:
    """`keras.random.normal` and `uniform` for the same-start GAN: each call reads the next entry of a variable
    holding numpy draws and steps a counter variable, so a traced step reads a new entry at each call."""

    def __init__(self, steps, seed):
        rng = np.random.default_rng(seed)
        self.normals = tf.Variable(rng.standard_normal((2 * steps, 64, 128)).astype("float32"))
        self.uniforms = tf.Variable(rng.random((steps, 128, 1)).astype("float32"))
        self.n = tf.Variable(0)
        self.u = tf.Variable(0)

    def normal(self, shape, seed=None, **kwargs):
        drawn = tf.gather(self.normals, self.n)
        self.n.assign_add(1)
        return drawn

    def uniform(self, shape, seed=None, **kwargs):
        drawn = tf.gather(self.uniforms, self.u)
        self.u.assign_add(1)
        return drawn


def test_the_gan_from_tensorflows_start(capsys, monkeypatch, same_start, digits_as_mnist):
    draws = TableDraws(2, 5)
    monkeypatch.setattr(keras.random, "normal", draws.normal)
    monkeypatch.setattr(keras.random, "uniform", draws.uniform)
    TRACES.clear()
    history = _gan(digits_as_mnist, run_eagerly=False, same_start=same_start).history
    # TensorFlow 2.21 prints this line and records this History for the same script
    assert _lines(capsys.readouterr().out) == ["2/2 - Ts - T/step - d_loss: 0.6773 - g_loss: 0.6702"]  # TF 2.21's
    np.testing.assert_allclose(history["d_loss"], [0.6773155927658081], rtol=1e-5)
    np.testing.assert_allclose(history["g_loss"], [0.6701958179473877], rtol=1e-5)
    assert (int(draws.n.numpy()), int(draws.u.numpy())) == (4, 2)  # TensorFlow's: every draw at every step
    assert TRACES == [(64, 28, 28, 1)]
