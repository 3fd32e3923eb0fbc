"""Checkers for lesson 08: gradients of a model, training steps."""

from __future__ import annotations

import numpy as np

import minitape as mt
from lesson_tools._core import NotYet, as_number, exercise


@exercise("8.1", "a Dense layer has a kernel W (inputs x units) and a bias b (units).")
def dense_variables(answer: object) -> str:
    if not isinstance(answer, (list, tuple)) or len(answer) != 2:
        raise NotYet("answer should be a pair: (number of variables, number of numbers).")
    variables, numbers = int(answer[0]), int(answer[1])
    if variables != 2:
        raise NotYet(f"{variables} variable(s)? Look at layer.trainable_variables.")
    if numbers != 15:
        raise NotYet(f"{numbers} numbers? The kernel is 4 x 3 and the bias has 3 entries.")
    return "Two variables, kernel (4, 3) and bias (3,): 12 + 3 = 15 numbers."


def _tiny_model() -> object:
    mt.keras.utils.set_random_seed(1)
    model = mt.keras.Sequential([mt.keras.layers.Dense(1)])
    model(np.zeros((1, 2), dtype="float32"))
    return model


def _reference_step(model: object, x: np.ndarray, y: np.ndarray, learning_rate: float) -> float:
    with mt.GradientTape() as tape:
        loss = mt.reduce_mean(mt.square(model(x) - y))
    for variable, gradient in zip(model.trainable_variables, tape.gradient(loss, model.trainable_variables)):
        variable.assign_sub(learning_rate * gradient)
    return float(loss)


@exercise("8.2", "loss inside `with mt.GradientTape() as tape:`; then for each (variable, gradient): assign_sub.")
def sgd(fn: object) -> str:
    x = np.array([[1.0, 2.0], [3.0, -1.0], [0.5, 0.5]], dtype="float32")
    y = np.array([[1.0], [0.0], [2.0]], dtype="float32")
    yours, reference = _tiny_model(), _tiny_model()
    losses = []
    for _ in range(3):
        losses.append(as_number(fn(yours, x, y, 0.05), "the loss your sgd_step returned"))
        _reference_step(reference, x, y, 0.05)
    for a, b in zip(yours.get_weights(), reference.get_weights()):
        if not np.allclose(a, b, atol=1e-5):
            raise NotYet("after 3 steps the weights differ from plain gradient descent on the mean squared error.")
    if not losses[2] < losses[0]:
        raise NotYet("the loss did not go down over 3 steps.")
    return f"3 steps of gradient descent: the loss went from {losses[0]:.3f} to {losses[2]:.3f}."
