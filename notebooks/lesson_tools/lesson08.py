"""Checkers for lesson 08: gradients of a model, training steps."""

from __future__ import annotations

import types

import numpy as np

import minitape as mt
from lesson_tools.checking import NotYet, as_number, call, exercise, expect_function, items

# Names whose use means an optimizer (or fit, which uses one) did the update instead of the student's assign_sub.
OPTIMIZER_NAMES = {"optimizers", "optimizer", "apply_gradients", "minimize", "fit", "compile", "SGD", "Adam", "RMSprop"}


@exercise("8.1", "a Dense layer has a kernel W (inputs x units) and a bias b (units).")
def dense_variables(answer: object, evidence: object) -> str:
    pair = items(answer, 2, "a pair: (number of variables, number of numbers)")
    counts = [as_number(v, name) for v, name in zip(pair, ("the number of variables", "the number of numbers"))]
    for count, name in zip(counts, ("the number of variables", "the number of numbers")):
        if count != round(count):
            raise NotYet(f"{name} is {count:g}: a count is a whole number.")
    variables, numbers = (int(c) for c in counts)
    if variables != 2:
        raise NotYet(f"{variables} variable(s)? Look at layer.trainable_variables.")
    if numbers == 12:
        raise NotYet("12 numbers is the kernel alone: every trainable variable counts.")
    if numbers != 15:
        raise NotYet(f"{numbers} numbers? Add up the sizes of all the layer's trainable variables.")
    return "Two variables, kernel (4, 3) and bias (3,): 12 + 3 = 15 numbers."


def _names_used(code: types.CodeType) -> set[str]:
    """Every global and attribute name a function's code (and the functions defined inside it) refers to."""
    names = set(code.co_names)
    for constant in code.co_consts:
        if isinstance(constant, types.CodeType):
            names |= _names_used(constant)
    return names


def _tiny_model() -> object:
    mt.keras.utils.set_random_seed(1)
    model = mt.keras.Sequential([mt.keras.layers.Dense(1)])
    model(np.zeros((1, 2), dtype="float32"))
    return model


def _reference_step(model: object, x: np.ndarray, y: np.ndarray, learning_rate: float, reduce=mt.reduce_mean) -> float:
    """One step of gradient descent on the mean (or, for the slips, `reduce`) of the squared errors."""
    with mt.GradientTape() as tape:
        loss = reduce(mt.square(model(x) - y))
    for variable, gradient in zip(model.trainable_variables, tape.gradient(loss, model.trainable_variables)):
        variable.assign_sub(learning_rate * gradient)
    return float(loss)


@exercise("8.2", "loss inside `with mt.GradientTape() as tape:`; then for each (variable, gradient): assign_sub.")
def sgd(fn: object, evidence: object) -> str:
    expect_function(fn, "sgd_step")
    code = getattr(fn, "__code__", None)
    used = sorted(_names_used(code) & OPTIMIZER_NAMES) if code is not None else []
    if used:
        raise NotYet(
            f"sgd_step uses {', '.join(used)}: the exercise asks for the update by hand, without an optimizer. "
            "Write variable.assign_sub(learning_rate * gradient) for each variable."
        )
    x = np.array([[1.0, 2.0], [3.0, -1.0], [0.5, 0.5]], dtype="float32")
    y = np.array([[1.0], [0.0], [2.0]], dtype="float32")
    yours = _tiny_model()
    losses = []
    for _ in range(3):
        try:
            loss = call(fn, (yours, x, y, 0.05), "sgd_step(model, x, y, 0.05)")
        except NotYet as error:
            if "NoneType" in str(error):  # learning_rate * None: tape.gradient found no path to the variables
                raise NotYet(
                    f"a gradient is None (so {error}): the tape recorded no path from the loss to the variables. "
                    "Is the loss computed inside `with mt.GradientTape() as tape:`?"
                ) from None
            raise
        if loss is None:
            raise NotYet("sgd_step returned None: return the loss.")
        losses.append(as_number(loss, "the loss your sgd_step returned"))
    weights = yours.get_weights()
    if all(np.array_equal(a, b) for a, b in zip(weights, _tiny_model().get_weights())):
        raise NotYet("after 3 steps the weights have not changed: update each variable with assign_sub.")

    def same_as(learning_rate: float, reduce=mt.reduce_mean) -> bool:
        reference = _tiny_model()
        for _ in range(3):
            _reference_step(reference, x, y, learning_rate, reduce)
        return all(np.allclose(a, b, atol=1e-5) for a, b in zip(weights, reference.get_weights()))

    if same_as(-0.05):
        raise NotYet("after 3 steps the weights moved up the gradient, so the loss grows: subtract the step, not add.")
    if same_as(0.05, mt.reduce_sum):
        raise NotYet(
            "your steps follow the sum of the squared errors; this exercise's loss is their mean (mt.reduce_mean)."
        )
    if not same_as(0.05):
        raise NotYet("after 3 steps the weights differ from plain gradient descent on the mean squared error.")
    if not losses[2] < losses[0]:
        raise NotYet("the loss did not go down over 3 steps.")
    return f"3 steps of gradient descent: the loss went from {losses[0]:.3f} to {losses[2]:.3f}."
