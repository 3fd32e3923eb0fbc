# ruff: noqa: UP032 - the guide's str.format calls are kept as written
"""Port of keras-io's guide "Writing your own callbacks" (guides/keras_core/writing_your_own_callbacks.py, its Keras 3
edition), every code cell in order.

The cells run with `from minitape import keras` for `import keras`, under fit's traced default. What differs, and
why:
- MNIST cannot be downloaded: the 8x8 digits bundled with minitape, blown up to MNIST's 28x28 uint8 images (the
  `digits_as_mnist` fixture of tests/conftest.py), stand in; `x_test[:1000]` holds their 360 test images;
- each model is built and starts from the same weights in both libraries (the `same_start` fixture of
  tests/conftest.py) and `fit` gets `shuffle=False`, so every number the callbacks print is the one TensorFlow 2.21
  (Keras 3.15.1) printed for this exact script (2026-11-28); the first cell prints no numbers and runs as written;
- the guide's `np.Inf` is numpy 1's name, gone from numpy 2 (TensorFlow 2.21's own numpy 2.4 raises the same
  AttributeError): `np.inf` here;
- predict's default verbose draws a progress bar: TensorFlow 2.21 draws Keras 3's (bold, coloured, redrawn at
  every batch), minitape its plainer one (only its final line where the output is not a terminal or a
  notebook): the test masks the bar.
"""

import re

import numpy as np
import pytest

from minitape import keras

pytestmark = pytest.mark.usefixtures("keras_session")


# Define the Keras model to add callbacks to
def get_model():
    model = keras.Sequential()
    model.add(keras.layers.Dense(1))
    model.compile(
        optimizer=keras.optimizers.RMSprop(learning_rate=0.1),
        loss="mean_squared_error",
        metrics=["mean_absolute_error"],
    )
    return model


@pytest.fixture
def data(digits_as_mnist):
    # Load example MNIST data and pre-process it
    (x_train, y_train), (x_test, y_test) = digits_as_mnist()
    x_train = x_train.reshape(-1, 784).astype("float32") / 255.0
    x_test = x_test.reshape(-1, 784).astype("float32") / 255.0

    # Limit the data to 1000 samples
    x_train = x_train[:1000]
    y_train = y_train[:1000]
    x_test = x_test[:1000]
    y_test = y_test[:1000]
    return x_train, y_train, x_test, y_test


class CustomCallback(keras.callbacks.Callback):
    def on_train_begin(self, logs=None):
        keys = list(logs.keys())
        print("Starting training; got log keys: {}".format(keys))

    def on_train_end(self, logs=None):
        keys = list(logs.keys())
        print("Stop training; got log keys: {}".format(keys))

    def on_epoch_begin(self, epoch, logs=None):
        keys = list(logs.keys())
        print("Start epoch {} of training; got log keys: {}".format(epoch, keys))

    def on_epoch_end(self, epoch, logs=None):
        keys = list(logs.keys())
        print("End epoch {} of training; got log keys: {}".format(epoch, keys))

    def on_test_begin(self, logs=None):
        keys = list(logs.keys())
        print("Start testing; got log keys: {}".format(keys))

    def on_test_end(self, logs=None):
        keys = list(logs.keys())
        print("Stop testing; got log keys: {}".format(keys))

    def on_predict_begin(self, logs=None):
        keys = list(logs.keys())
        print("Start predicting; got log keys: {}".format(keys))

    def on_predict_end(self, logs=None):
        keys = list(logs.keys())
        print("Stop predicting; got log keys: {}".format(keys))

    def on_train_batch_begin(self, batch, logs=None):
        keys = list(logs.keys())
        print("...Training: start of batch {}; got log keys: {}".format(batch, keys))

    def on_train_batch_end(self, batch, logs=None):
        keys = list(logs.keys())
        print("...Training: end of batch {}; got log keys: {}".format(batch, keys))

    def on_test_batch_begin(self, batch, logs=None):
        keys = list(logs.keys())
        print("...Evaluating: start of batch {}; got log keys: {}".format(batch, keys))

    def on_test_batch_end(self, batch, logs=None):
        keys = list(logs.keys())
        print("...Evaluating: end of batch {}; got log keys: {}".format(batch, keys))

    def on_predict_batch_begin(self, batch, logs=None):
        keys = list(logs.keys())
        print("...Predicting: start of batch {}; got log keys: {}".format(batch, keys))

    def on_predict_batch_end(self, batch, logs=None):
        keys = list(logs.keys())
        print("...Predicting: end of batch {}; got log keys: {}".format(batch, keys))


# TensorFlow 2.21 prints these lines (its progress bar line left out)
CELL_TRY_IT_OUT = """\
Starting training; got log keys: []
Start epoch 0 of training; got log keys: []
...Training: start of batch 0; got log keys: []
...Training: end of batch 0; got log keys: ['loss', 'mean_absolute_error']
...Training: start of batch 1; got log keys: []
...Training: end of batch 1; got log keys: ['loss', 'mean_absolute_error']
...Training: start of batch 2; got log keys: []
...Training: end of batch 2; got log keys: ['loss', 'mean_absolute_error']
...Training: start of batch 3; got log keys: []
...Training: end of batch 3; got log keys: ['loss', 'mean_absolute_error']
Start testing; got log keys: []
...Evaluating: start of batch 0; got log keys: []
...Evaluating: end of batch 0; got log keys: ['loss', 'mean_absolute_error']
...Evaluating: start of batch 1; got log keys: []
...Evaluating: end of batch 1; got log keys: ['loss', 'mean_absolute_error']
...Evaluating: start of batch 2; got log keys: []
...Evaluating: end of batch 2; got log keys: ['loss', 'mean_absolute_error']
...Evaluating: start of batch 3; got log keys: []
...Evaluating: end of batch 3; got log keys: ['loss', 'mean_absolute_error']
Stop testing; got log keys: ['loss', 'mean_absolute_error']
End epoch 0 of training; got log keys: ['loss', 'mean_absolute_error', 'val_loss', 'val_mean_absolute_error']
Stop training; got log keys: ['loss', 'mean_absolute_error', 'val_loss', 'val_mean_absolute_error']
Start testing; got log keys: []
...Evaluating: start of batch 0; got log keys: []
...Evaluating: end of batch 0; got log keys: ['loss', 'mean_absolute_error']
...Evaluating: start of batch 1; got log keys: []
...Evaluating: end of batch 1; got log keys: ['loss', 'mean_absolute_error']
...Evaluating: start of batch 2; got log keys: []
...Evaluating: end of batch 2; got log keys: ['loss', 'mean_absolute_error']
Stop testing; got log keys: ['loss', 'mean_absolute_error']
Start predicting; got log keys: []
...Predicting: start of batch 0; got log keys: []
...Predicting: end of batch 0; got log keys: ['outputs']
...Predicting: start of batch 1; got log keys: []
...Predicting: end of batch 1; got log keys: ['outputs']
...Predicting: start of batch 2; got log keys: []
...Predicting: end of batch 2; got log keys: ['outputs']
Stop predicting; got log keys: []
"""


def test_a_basic_example(capsys, data):
    x_train, y_train, x_test, y_test = data
    model = get_model()
    model.fit(
        x_train,
        y_train,
        batch_size=128,
        epochs=1,
        verbose=0,
        validation_split=0.5,
        callbacks=[CustomCallback()],
    )

    res = model.evaluate(x_test, y_test, batch_size=128, verbose=0, callbacks=[CustomCallback()])

    res = model.predict(x_test, batch_size=128, callbacks=[CustomCallback()])

    out = capsys.readouterr().out
    # minitape's bar: its final line, and the ones it redraws over in a terminal or a notebook
    final = r"\r?3/3 \[=+\] - \d+s \d+[mu]?s/step\n"
    assert re.search("Stop predicting; got log keys: \\[\\]\n" + final + "$", out)  # after the callback's hook
    assert re.sub(final + r"|\r\d/3 \[[=>.]+\] - ETA: \d+s", "", out) == CELL_TRY_IT_OUT
    assert res.shape == (360, 1)


class LossAndErrorPrintingCallback(keras.callbacks.Callback):
    def on_train_batch_end(self, batch, logs=None):
        print("Up to batch {}, the average loss is {:7.2f}.".format(batch, logs["loss"]))

    def on_test_batch_end(self, batch, logs=None):
        print("Up to batch {}, the average loss is {:7.2f}.".format(batch, logs["loss"]))

    def on_epoch_end(self, epoch, logs=None):
        print(
            "The average loss for epoch {} is {:7.2f} and mean absolute error is {:7.2f}.".format(
                epoch, logs["loss"], logs["mean_absolute_error"]
            )
        )


# TensorFlow 2.21 prints these lines from the same start
LOGS_DICT = """\
Up to batch 0, the average loss is   31.88.
Up to batch 1, the average loss is 1330.92.
Up to batch 2, the average loss is  895.79.
Up to batch 3, the average loss is  674.03.
Up to batch 4, the average loss is  540.67.
Up to batch 5, the average loss is  452.00.
Up to batch 6, the average loss is  388.56.
Up to batch 7, the average loss is  348.87.
The average loss for epoch 0 is  348.87 and mean absolute error is    9.14.
Up to batch 0, the average loss is    7.47.
Up to batch 1, the average loss is    7.17.
Up to batch 2, the average loss is    6.79.
Up to batch 3, the average loss is    6.73.
Up to batch 4, the average loss is    6.58.
Up to batch 5, the average loss is    6.64.
Up to batch 6, the average loss is    6.68.
Up to batch 7, the average loss is    6.57.
The average loss for epoch 1 is    6.57 and mean absolute error is    2.16.
Up to batch 0, the average loss is    6.52.
Up to batch 1, the average loss is    6.45.
Up to batch 2, the average loss is    6.04.
"""


def test_usage_of_logs_dict(capsys, data, same_start):
    x_train, y_train, x_test, y_test = data
    model = get_model()
    model.build((None, 784))
    same_start(model, 1)
    model.fit(
        x_train,
        y_train,
        batch_size=128,
        epochs=2,
        verbose=0,
        callbacks=[LossAndErrorPrintingCallback()],
        shuffle=False,
    )

    res = model.evaluate(
        x_test,
        y_test,
        batch_size=128,
        verbose=0,
        callbacks=[LossAndErrorPrintingCallback()],
    )
    assert capsys.readouterr().out == LOGS_DICT
    np.testing.assert_allclose(res, [6.03606653213501, 2.092844009399414], rtol=1e-5)  # TensorFlow's


class EarlyStoppingAtMinLoss(keras.callbacks.Callback):
    """Stop training when the loss is at its min, i.e. the loss stops decreasing.

    Arguments:
        patience: Number of epochs to wait after min has been hit. After this
        number of no improvement, training stops.
    """

    def __init__(self, patience=0):
        super().__init__()
        self.patience = patience
        # best_weights to store the weights at which the minimum loss occurs.
        self.best_weights = None

    def on_train_begin(self, logs=None):
        # The number of epoch it has waited when loss is no longer minimum.
        self.wait = 0
        # The epoch the training stops at.
        self.stopped_epoch = 0
        # Initialize the best as infinity.
        self.best = np.inf

    def on_epoch_end(self, epoch, logs=None):
        current = logs.get("loss")
        if np.less(current, self.best):
            self.best = current
            self.wait = 0
            # Record the best weights if current results is better (less).
            self.best_weights = self.model.get_weights()
        else:
            self.wait += 1
            if self.wait >= self.patience:
                self.stopped_epoch = epoch
                self.model.stop_training = True
                print("Restoring model weights from the end of the best epoch.")
                self.model.set_weights(self.best_weights)

    def on_train_end(self, logs=None):
        if self.stopped_epoch > 0:
            print(f"Epoch {self.stopped_epoch + 1}: early stopping")


# TensorFlow 2.21 prints these lines from the same start (and 16 "Up to batch" lines an epoch)
EARLY_STOPPING = """\
The average loss for epoch 0 is  175.13 and mean absolute error is    5.74.
The average loss for epoch 1 is   89.79 and mean absolute error is    7.62.
The average loss for epoch 2 is   83.34 and mean absolute error is    7.65.
The average loss for epoch 3 is   81.86 and mean absolute error is    7.62.
The average loss for epoch 4 is   81.33 and mean absolute error is    7.51.
The average loss for epoch 5 is   81.09 and mean absolute error is    7.33.
The average loss for epoch 6 is   80.79 and mean absolute error is    7.13.
The average loss for epoch 7 is   79.99 and mean absolute error is    7.01.
The average loss for epoch 8 is   79.13 and mean absolute error is    7.04.
The average loss for epoch 9 is   78.60 and mean absolute error is    7.14.
The average loss for epoch 10 is   78.93 and mean absolute error is    7.19.
Restoring model weights from the end of the best epoch.
Epoch 11: early stopping
"""


def _without_batches(out, batches):
    """The printed lines but the "Up to batch" ones, which must come `batches` to an epoch."""
    lines = out.splitlines(keepends=True)
    ups = [line for line in lines if line.startswith("Up to batch")]
    epochs = sum(line.startswith("The average loss") for line in lines)
    assert [line.split(",")[0] for line in ups] == [f"Up to batch {i}" for i in range(batches)] * epochs
    return "".join(line for line in lines if line not in ups)


def test_early_stopping_at_minimum_loss(capsys, data, same_start):
    x_train, y_train, x_test, y_test = data
    model = get_model()
    model.build((None, 784))
    same_start(model, 2)
    history = model.fit(
        x_train,
        y_train,
        batch_size=64,
        epochs=30,
        verbose=0,
        callbacks=[LossAndErrorPrintingCallback(), EarlyStoppingAtMinLoss()],
        shuffle=False,
    )
    assert _without_batches(capsys.readouterr().out, 16) == EARLY_STOPPING
    # TensorFlow 2.21's History: 11 epochs; the weights restored are the best epoch's (the 10th)
    tf_loss = [175.132080078125, 89.78999328613281, 83.34430694580078, 81.85783386230469, 81.32769775390625,
               81.0949478149414, 80.79350280761719, 79.99221801757812, 79.1280746459961, 78.60325622558594,
               78.93177032470703]  # fmt: skip
    np.testing.assert_allclose(history.history["loss"], tf_loss, rtol=1e-5)
    np.testing.assert_allclose(np.sum(model.get_weights()[0]), -78.2280044555664, rtol=1e-5)


class CustomLearningRateScheduler(keras.callbacks.Callback):
    """Learning rate scheduler which sets the learning rate according to schedule.

    Arguments:
        schedule: a function that takes an epoch index
            (integer, indexed from 0) and current learning rate
            as inputs and returns a new learning rate as output (float).
    """

    def __init__(self, schedule):
        super().__init__()
        self.schedule = schedule

    def on_epoch_begin(self, epoch, logs=None):
        if not hasattr(self.model.optimizer, "learning_rate"):
            raise ValueError('Optimizer must have a "learning_rate" attribute.')
        # Get the current learning rate from model's optimizer.
        lr = self.model.optimizer.learning_rate
        # Call schedule function to get the scheduled learning rate.
        scheduled_lr = self.schedule(epoch, lr)
        # Set the value back to the optimizer before this epoch starts
        self.model.optimizer.learning_rate = scheduled_lr
        print(f"\nEpoch {epoch}: Learning rate is {float(np.array(scheduled_lr))}.")


LR_SCHEDULE = [
    # (epoch to start, learning rate) tuples
    (3, 0.05),
    (6, 0.01),
    (9, 0.005),
    (12, 0.001),
]


def lr_schedule(epoch, lr):
    """Helper function to retrieve the scheduled learning rate based on epoch."""
    if epoch < LR_SCHEDULE[0][0] or epoch > LR_SCHEDULE[-1][0]:
        return lr
    for i in range(len(LR_SCHEDULE)):
        if epoch == LR_SCHEDULE[i][0]:
            return LR_SCHEDULE[i][1]
    return lr


# TensorFlow 2.21 prints these lines from the same start (each "Epoch" line after an empty one; the rate a
# float32 variable read back, or the float the schedule gave)
LR_SCHEDULING = """\
Epoch 0: Learning rate is 0.10000000149011612.
The average loss for epoch 0 is  177.96 and mean absolute error is    5.77.
Epoch 1: Learning rate is 0.10000000149011612.
The average loss for epoch 1 is   89.95 and mean absolute error is    7.50.
Epoch 2: Learning rate is 0.10000000149011612.
The average loss for epoch 2 is   83.14 and mean absolute error is    7.44.
Epoch 3: Learning rate is 0.05.
The average loss for epoch 3 is    5.36 and mean absolute error is    1.85.
Epoch 4: Learning rate is 0.05000000074505806.
The average loss for epoch 4 is   24.72 and mean absolute error is    4.28.
Epoch 5: Learning rate is 0.05000000074505806.
The average loss for epoch 5 is   25.20 and mean absolute error is    4.51.
Epoch 6: Learning rate is 0.01.
The average loss for epoch 6 is    6.69 and mean absolute error is    1.99.
Epoch 7: Learning rate is 0.009999999776482582.
The average loss for epoch 7 is    3.95 and mean absolute error is    1.59.
Epoch 8: Learning rate is 0.009999999776482582.
The average loss for epoch 8 is    4.49 and mean absolute error is    1.68.
Epoch 9: Learning rate is 0.005.
The average loss for epoch 9 is    3.77 and mean absolute error is    1.53.
Epoch 10: Learning rate is 0.004999999888241291.
The average loss for epoch 10 is    3.84 and mean absolute error is    1.54.
Epoch 11: Learning rate is 0.004999999888241291.
The average loss for epoch 11 is    3.82 and mean absolute error is    1.53.
Epoch 12: Learning rate is 0.001.
The average loss for epoch 12 is    3.62 and mean absolute error is    1.49.
Epoch 13: Learning rate is 0.0010000000474974513.
The average loss for epoch 13 is    3.62 and mean absolute error is    1.48.
Epoch 14: Learning rate is 0.0010000000474974513.
The average loss for epoch 14 is    3.61 and mean absolute error is    1.48.
"""


def test_learning_rate_scheduling(capsys, data, same_start):
    x_train, y_train, x_test, y_test = data
    model = get_model()
    model.build((None, 784))
    same_start(model, 3)
    model.fit(
        x_train,
        y_train,
        batch_size=64,
        epochs=15,
        verbose=0,
        callbacks=[
            LossAndErrorPrintingCallback(),
            CustomLearningRateScheduler(lr_schedule),
        ],
        shuffle=False,
    )
    out = _without_batches(capsys.readouterr().out, 16)
    assert out == "".join(
        f"\n{line}\n" if line.startswith("Epoch") else f"{line}\n" for line in LR_SCHEDULING.splitlines()
    )
    # TensorFlow 2.21: the optimizer keeps its learning rate a variable, set to the schedule's last float
    assert float(np.array(model.optimizer.learning_rate)) == 0.0010000000474974513
