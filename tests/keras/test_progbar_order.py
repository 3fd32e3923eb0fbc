"""The lines fit and evaluate print, and the logs evaluate hands its callbacks, in Keras 3's format and order.

Keras 3 flattens and sorts a step's logs for each callback hook, and evaluate flattens and sorts its final logs
once more before its callbacks see them: a custom test_step returning {"loss": ..., "compile_metrics": {"mae":
...}} gives batch logs (mae, loss), evaluate's result dict (mae, loss), but final callback logs (loss, mae). Its
progress bar keeps the order it met first: a batch's with verbose=1, the final logs' with verbose=2.
"""

import re

import numpy as np
import pytest

from minitape import keras

pytestmark = pytest.mark.usefixtures("keras_session")


class CustomModel(keras.Model):
    def test_step(self, data):
        x, y = data
        y_pred = self(x, training=False)
        loss = self.compute_loss(y=y, y_pred=y_pred)
        for metric in self.metrics:
            if metric.name == "loss":
                metric.update_state(loss)
            else:
                metric.update_state(y, y_pred)
        return {m.name: m.result() for m in self.metrics}


class Logs(keras.callbacks.Callback):
    def __init__(self):
        super().__init__()
        self.seen = []

    def on_test_batch_end(self, batch, logs=None):
        self.seen.append(("batch", list(logs)))

    def on_test_end(self, logs=None):
        self.seen.append(("end", list(logs)))


def _evaluate(verbose, capsys):
    inputs = keras.Input(shape=(3,))
    model = CustomModel(inputs, keras.layers.Dense(1)(inputs))
    model.compile(loss="mse", metrics=["mae"])
    rng = np.random.default_rng(0)
    logs = Logs()
    capsys.readouterr()
    result = model.evaluate(rng.random((8, 3)), rng.random((8, 1)), batch_size=4, verbose=verbose, callbacks=[logs])
    return result, logs.seen, capsys.readouterr().out


def test_evaluate_verbose_2_prints_the_names_sorted_again_and_a_dash_before_the_time_per_step(capsys):
    result, seen, out = _evaluate(2, capsys)
    # TensorFlow 2.21 prints "4/4 - 0s - 34ms/step - loss: 0.3835 - mae: 0.4743" for 100 samples
    assert re.fullmatch(r"2/2 - \d+s - \d+[mu]?s/step - loss: \d\.\d{4} - mae: \d\.\d{4}\n", out)
    # and its callbacks see these names in this order
    assert seen == [("batch", ["mae", "loss"]), ("batch", ["mae", "loss"]), ("end", ["loss", "mae"])]
    assert len(result) == 2


def test_evaluate_verbose_1_keeps_the_order_of_the_batch_logs(capsys):
    _, seen, out = _evaluate(1, capsys)
    # TensorFlow 2.21's last line: "4/4 ━━━━ 0s 5ms/step - mae: 0.4743 - loss: 0.3835" (no dash before the time)
    last = out.rstrip("\n").split("\r")[-1].splitlines()[-1]
    assert re.search(r"\] - \d+s \d+[mu]?s/step - mae: \d\.\d{4} - loss: \d\.\d{4}$", last)
    assert seen[-1] == ("end", ["loss", "mae"])


def test_fit_verbose_2_line(capsys):
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1)])
    model.compile("sgd", "mse", metrics=["mae"])
    rng = np.random.default_rng(0)
    capsys.readouterr()
    model.fit(rng.random((8, 3)), rng.random((8, 1)), batch_size=4, epochs=1, verbose=2)
    # TensorFlow 2.21 prints "2/2 - 0s - 88ms/step - loss: 0.3223 - mae: 0.5124" (its own start)
    line = r"2/2 - \d+s - \d+[mu]?s/step - loss: \d\.\d{4} - mae: \d\.\d{4}\n"
    assert re.fullmatch(line, capsys.readouterr().out)  # one epoch: no "Epoch 1/1" line, as in TensorFlow 2.21


class Printing(keras.callbacks.Callback):
    def on_epoch_begin(self, epoch, logs=None):
        print("epoch_begin", epoch)

    def on_epoch_end(self, epoch, logs=None):
        print("epoch_end", epoch)
        logs["extra"] = 1.0

    def on_test_end(self, logs=None):
        print("test_end")

    def on_predict_end(self, logs=None):
        print("predict_end")


def _fit_evaluate_predict(verbose, capsys, epochs=1):
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1)])
    model.compile("sgd", "mse")
    x, y = np.ones((8, 3)), np.ones((8, 1))
    capsys.readouterr()
    model.fit(x, y, batch_size=4, epochs=epochs, verbose=verbose, callbacks=[Printing()])
    model.evaluate(x, y, verbose=verbose, callbacks=[Printing()])
    model.predict(x, verbose=verbose, callbacks=[Printing()])
    return capsys.readouterr().out


def test_the_progress_bar_prints_after_the_other_callbacks_hooks_with_what_they_added(capsys):
    out = re.sub(r" - \d+s - \d+[mu]?s/step", " - T", _fit_evaluate_predict(2, capsys, epochs=2))
    # TensorFlow 2.21 (its bar is Keras 3's last callback) prints these lines in this order
    epoch = r"epoch_begin {0}\nEpoch {1}/2\nepoch_end {0}\n2/2 - T - loss: \d+\.\d{{4}} - extra: 1\.0000\n"
    assert re.fullmatch(
        epoch.format(0, 1) + epoch.format(1, 2) + r"test_end\n1/1 - T - loss: \d+\.\d{4}\npredict_end\n1/1 - T\n",
        out,
    )


def test_with_verbose_1_too(capsys):
    out = _fit_evaluate_predict(1, capsys)
    # the final bars (a time per step and no ETA) come after the hooks, as in TensorFlow 2.21
    finals = [m.start() for m in re.finditer(r"\d/\d \[=+\] - \d+s", out)]
    hooks = [out.index(name) for name in ("epoch_end 0", "test_end", "predict_end")]
    assert len(finals) == 3 and all(h < f for h, f in zip(hooks, finals, strict=True))
    assert hooks[1] > finals[0] and hooks[2] > finals[1]
    assert re.search(r"2/2 \[=+\] - \d+s \d+[mu]?s/step - loss: \d+\.\d{4} - extra: 1\.0000\n", out)
