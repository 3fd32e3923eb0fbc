"""The lines fit, evaluate and predict print off a terminal, as Keras 3 prints them (TensorFlow 2.21's shown)."""

import re

import numpy as np
import pytest

from minitape import keras

pytestmark = pytest.mark.usefixtures("keras_session")

TIMING = r"\d+s - \d+(us|ms|s)/step"


def _model():
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1)])
    model.compile("sgd", "mse")
    return model


def test_verbose_2_puts_a_dash_between_the_time_and_the_time_per_step(capsys):
    model = _model()
    x, y = np.ones((200, 3)), np.ones((200, 1))
    model.fit(x, y, epochs=2, verbose=2, validation_split=0.5)
    # TensorFlow 2.21: "Epoch 1/2\n4/4 - 0s - 74ms/step - loss: 0.3996 - val_loss: 0.2429\nEpoch 2/2\n..."
    epoch = r"Epoch {}/2\n4/4 - " + TIMING + r" - loss: \d+\.\d{{4}} - val_loss: \d+\.\d{{4}}\n"
    assert re.fullmatch(epoch.format(1) + epoch.format(2), capsys.readouterr().out)
    model.evaluate(x, y, verbose=2)
    model.predict(x, verbose=2)
    # TensorFlow 2.21: "7/7 - 0s - 5ms/step - loss: 0.1247" and "7/7 - 0s - 7ms/step"
    assert re.fullmatch(r"7/7 - " + TIMING + r" - loss: \d+\.\d{4}\n7/7 - " + TIMING + r"\n", capsys.readouterr().out)


def test_one_epoch_is_not_announced(capsys):
    model = _model()
    model.fit(np.ones((20, 3)), np.ones((20, 1)), epochs=1, verbose=2)
    # TensorFlow 2.21 (Keras 3 prints "Epoch 1/1" only when epochs > 1): "1/1 - 0s - 28ms/step - loss: 11.3502"
    assert re.fullmatch(r"1/1 - " + TIMING + r" - loss: \d+\.\d{4}\n", capsys.readouterr().out)
    model.fit(np.ones((20, 3)), np.ones((20, 1)), epochs=1, verbose=1)
    out = capsys.readouterr().out
    last = out.rsplit("\r", 1)[-1]  # a bar redrawn in place (in Jupyter, or on a terminal) ends with this line
    assert "Epoch" not in out and re.fullmatch(r"1/1 \[=+\] - \d+s \d+(us|ms|s)/step - loss: \d+\.\d{4}\n", last)
