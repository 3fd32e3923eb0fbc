"""Port of TensorFlow's guide "Basic training loops" (site/en/guide/basic_training_loops).

The guide's cells run unchanged but for `import minitape as tf`, in order; plots go to matplotlib's Agg backend.
Cell numbers count the notebook's code cells from 1 (the licence cell). The notebook is stored without outputs
and its data are random, so the tests check what the printed numbers must satisfy: the starting loss is the
mean squared error of w = 5, b = 0 on the data, training lowers it every epoch and moves W and b towards 3 and 2.
"""

import re

import matplotlib.pyplot as plt
import numpy as np
import pytest

import minitape as tf

plt.switch_backend("Agg")  # figures are drawn off-screen; the tests check the numbers behind them
colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]

pytestmark = pytest.mark.usefixtures("keras_session")

# The actual line
TRUE_W = 3.0
TRUE_B = 2.0

NUM_EXAMPLES = 201


def f(x):
    return x * TRUE_W + TRUE_B


def _data():
    """Cell 3 (without its constants and f, which are above): the noisy line."""
    # A vector of random x values
    x = tf.linspace(-2, 2, NUM_EXAMPLES)
    x = tf.cast(x, tf.float32)

    # Generate some noise
    noise = tf.random.normal(shape=[NUM_EXAMPLES])

    # Calculate y
    y = f(x) + noise
    return x, y


def _my_model_class():
    """Cell 5's class, defined when a test runs so that a missing tf.Module fails only the tests that use it."""

    class MyModel(tf.Module):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            # Initialize the weights to `5.0` and the bias to `0.0`
            # In practice, these should be randomly initialized
            self.w = tf.Variable(5.0)
            self.b = tf.Variable(0.0)

        def __call__(self, x):
            return self.w * x + self.b

    return MyModel


# This computes a single loss value for an entire batch
def loss(target_y, predicted_y):
    return tf.reduce_mean(tf.square(target_y - predicted_y))


# Given a callable model, inputs, outputs, and a learning rate...
def train(model, x, y, learning_rate):
    with tf.GradientTape() as t:
        # Trainable variables are automatically tracked by GradientTape
        current_loss = loss(y, model(x))

    # Use GradientTape to calculate the gradients with respect to W and b
    dw, db = t.gradient(current_loss, [model.w, model.b])

    # Subtract the gradient scaled by the learning rate
    model.w.assign_sub(learning_rate * dw)
    model.b.assign_sub(learning_rate * db)


# Collect the history of W-values and b-values to plot later
weights = []
biases = []
epochs = range(10)


# Define a training loop
def report(model, loss):
    return f"W = {model.w.numpy():1.2f}, b = {model.b.numpy():1.2f}, loss={loss:2.5f}"


def training_loop(model, x, y):
    for epoch in epochs:
        # Update the model with the single giant batch
        train(model, x, y, learning_rate=0.1)

        # Track this before I update
        weights.append(model.w.numpy())
        biases.append(model.b.numpy())
        current_loss = loss(y, model(x))

        print(f"Epoch {epoch:2d}:")
        print("    ", report(model, current_loss))


def _reports(out: str) -> list[tuple[float, float, float]]:
    """(W, b, loss) from every line report() printed."""
    found = re.findall(r"W = (-?[\d.]+), b = (-?[\d.]+), loss=(-?[\d.]+)", out)
    return [(float(w), float(b), float(l)) for w, b, l in found]


def _check_training_reports(reports: list[tuple[float, float, float]]) -> None:
    losses = [l for _, _, l in reports]
    assert all(later < earlier for earlier, later in zip(losses, losses[1:])), losses
    w, b, final = reports[-1]
    assert 2.8 < w < 3.6 and 1.3 < b < 2.2  # on the way from (5, 0) to the true (3, 2)
    assert final < 1.6  # the noise's variance is 1


def test_cells_03_05_data_and_a_module_model(capsys):
    x, y = _data()
    assert x.shape == (201,) and x.dtype == tf.float32 and y.shape == (201,)

    plt.plot(x, y, ".")
    plt.show()

    MyModel = _my_model_class()
    model = MyModel()

    # List the variables tf.modules's built-in variable aggregation.
    print("Variables:", model.variables)

    # Verify the model works
    assert model(3.0).numpy() == 15.0

    out = capsys.readouterr().out
    assert out.startswith("Variables: (") and "numpy=5.0" in out and "numpy=0.0" in out
    plt.close("all")


def test_cells_06_07_the_starting_loss(capsys):
    x, y = _data()
    model = _my_model_class()()

    plt.plot(x, y, ".", label="Data")
    plt.plot(x, f(x), label="Ground truth")
    plt.plot(x, model(x), label="Predictions")
    plt.legend()
    plt.show()

    print("Current loss: %1.6f" % loss(y, model(x)).numpy())  # noqa: UP031 - the guide's formatting

    printed = float(capsys.readouterr().out.split(": ")[1])
    assert printed == pytest.approx(np.mean((y.numpy() - 5 * x.numpy()) ** 2), abs=1e-5)
    assert 8.0 < printed < 13.0  # 4·mean(x²) + 4 + 1 ≈ 10.4 for this x and unit noise
    plt.close("all")


def test_cells_08_12_the_training_loop(capsys):
    x, y = _data()
    MyModel = _my_model_class()
    weights.clear()
    biases.clear()

    model = MyModel()

    current_loss = loss(y, model(x))

    print("Starting:")
    print("    ", report(model, current_loss))

    training_loop(model, x, y)

    plt.plot(epochs, weights, label="Weights", color=colors[0])
    plt.plot(epochs, [TRUE_W] * len(epochs), "--", label="True weight", color=colors[0])

    plt.plot(epochs, biases, label="bias", color=colors[1])
    plt.plot(epochs, [TRUE_B] * len(epochs), "--", label="True bias", color=colors[1])

    plt.legend()
    plt.show()

    plt.plot(x, y, ".", label="Data")
    plt.plot(x, f(x), label="Ground truth")
    plt.plot(x, model(x), label="Predictions")
    plt.legend()
    plt.show()

    print("Current loss: %1.6f" % loss(model(x), y).numpy())  # noqa: UP031 - the guide's formatting
    plt.close("all")

    out = capsys.readouterr().out
    reports = _reports(out)
    assert len(reports) == 11 and reports[0][:2] == (5.0, 0.0)
    assert [line for line in out.splitlines() if line.startswith("Epoch")] == [f"Epoch {e:2d}:" for e in range(10)]
    _check_training_reports(reports)
    assert len(weights) == 10 and weights[-1] == pytest.approx(reports[-1][0], abs=0.005)
    assert float(out.splitlines()[-1].split(": ")[1]) == pytest.approx(reports[-1][2], abs=1e-5)


class MyModelKeras(tf.keras.Model):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        # Initialize the weights to `5.0` and the bias to `0.0`
        # In practice, these should be randomly initialized
        self.w = tf.Variable(5.0)
        self.b = tf.Variable(0.0)

    def call(self, x):
        return self.w * x + self.b


def test_cell_13_the_same_loop_with_a_keras_model(capsys):
    x, y = _data()
    keras_model = MyModelKeras()

    # Reuse the training loop with a Keras model
    training_loop(keras_model, x, y)

    _check_training_reports(_reports(capsys.readouterr().out))


def test_cell_13_save_weights_wants_the_keras_3_file_name(tmp_path):
    keras_model = MyModelKeras()
    # You can also save a checkpoint using Keras's built-in support
    with pytest.raises(ValueError, match=r"must end in `\.weights\.h5`.*'my_checkpoint\.weights\.h5'"):
        keras_model.save_weights("my_checkpoint")  # Keras 3 refuses the guide's name the same way
    # Not in the guide: with the name Keras 3 wants, the weights of the built model save and load back
    keras_model(tf.constant([1.0, 2.0]))
    keras_model.w.assign(3.0)
    keras_model.b.assign(2.0)
    keras_model.save_weights(tmp_path / "my_checkpoint.weights.h5")
    again = MyModelKeras()
    again(tf.constant([0.0]))
    again.load_weights(tmp_path / "my_checkpoint.weights.h5")
    assert [float(again.w), float(again.b)] == [3.0, 2.0]


def test_cells_14_15_compile_and_fit(capsys):
    x, y = _data()
    keras_model = MyModelKeras()

    # compile sets the training parameters
    keras_model.compile(
        # By default, fit() uses tf.function().  You can
        # turn that off for debugging, but it is on now.
        run_eagerly=False,
        # Using a built-in optimizer, configuring as an object
        optimizer=tf.keras.optimizers.SGD(learning_rate=0.1),
        # Keras comes with built-in MSE error
        # However, you could use the loss function
        # defined above
        loss=tf.keras.losses.mean_squared_error,
    )

    print(x.shape[0])
    history = keras_model.fit(x, y, epochs=10, batch_size=1000)

    assert capsys.readouterr().out.startswith("201\n")
    # One full batch per epoch: fit reports the loss before each step, which is the hand-written loop's loss
    # after the previous step, so the two must agree
    xs, ys, w, b = x.numpy().astype(np.float64), y.numpy().astype(np.float64), 5.0, 0.0
    expected = []
    for _ in range(10):
        residual = ys - (w * xs + b)
        expected.append(np.mean(residual**2))
        w, b = w + 0.1 * 2 * np.mean(residual * xs), b + 0.1 * 2 * np.mean(residual)
    np.testing.assert_allclose(history.history["loss"], expected, rtol=1e-4)
