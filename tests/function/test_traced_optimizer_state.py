"""An optimizer's update inside a traced train step: after N replays its state (iterations, learning rate, every
slot: Adam's m and v, SGD's momentum, ...) and the weights are those of N eager steps, bit for bit; and what a user
changes between steps (the learning rate assigned, a schedule, the clipping) is used by the next replay."""

import sys
from pathlib import Path

import numpy as np
import pytest

import minitape as mt
from minitape import keras

sys.path.insert(0, str(Path(__file__).resolve().parent))

from test_tracing_and_replay import lesson08_train_step  # noqa: E402

OPTIMIZERS = {
    "adam": lambda: keras.optimizers.Adam(0.01),
    "sgd_momentum": lambda: keras.optimizers.SGD(0.05, momentum=0.9),
    "sgd_nesterov": lambda: keras.optimizers.SGD(0.05, momentum=0.9, nesterov=True),
    "rmsprop_centered": lambda: keras.optimizers.RMSprop(0.01, momentum=0.5, centered=True),
    "adamw": lambda: keras.optimizers.AdamW(0.01, weight_decay=0.1),
    "nadam": lambda: keras.optimizers.Nadam(0.01),
    "adam_clipnorm": lambda: keras.optimizers.Adam(0.01, clipnorm=0.1),
}


def _train(make_optimizer, wrap, steps=7, between=None):
    """`steps` steps of a small Keras model; `between(optimizer, k)` runs before step k. The optimizer's variables
    (as numpy arrays), the weights and the losses."""
    keras.utils.set_random_seed(0)
    model = keras.Sequential([keras.Input((6,)), keras.layers.Dense(5, activation="relu"), keras.layers.Dense(3)])
    optimizer = make_optimizer()
    loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    step = wrap(lesson08_train_step(model, optimizer, loss_fn))
    rng = np.random.default_rng(1)
    x, y = rng.normal(size=(steps * 8, 6)).astype("float32"), rng.integers(0, 3, steps * 8)
    losses = []
    for k in range(steps):
        if between is not None:
            between(optimizer, k)
        losses.append(step(x[8 * k : 8 * k + 8], y[8 * k : 8 * k + 8]).numpy())
    state = [np.array(v.numpy() if isinstance(v, mt.Variable) else v) for v in optimizer.variables]
    return state, [w.numpy() for w in model.weights], losses, step


def _assert_same(traced, eager):
    for a, b in zip(traced[:3], eager[:3]):
        assert len(a) == len(b)
        for x, y in zip(a, b):
            assert x.dtype == y.dtype and np.array_equal(x, y)


@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
def test_the_optimizer_state_after_traced_steps_is_the_eager_state_bit_for_bit(name):
    eager = _train(OPTIMIZERS[name], lambda f: f)
    traced = _train(OPTIMIZERS[name], mt.function)
    assert traced[3].experimental_get_tracing_count() == 1
    state = traced[0]
    assert int(state[0]) == 7  # iterations, then the learning rate, then the slots
    assert len(state) > 2 and any(np.any(s != 0) for s in state[2:])  # the slots moved
    _assert_same(traced, eager)


def _change_lr(optimizer, k):
    if k == 3:
        optimizer.learning_rate.assign(0.001)  # Keras' way: the variable keeps its identity


def _change_clipping(optimizer, k):
    if k == 2:
        optimizer.clipnorm = 1e-3


@pytest.mark.parametrize("between", [_change_lr, _change_clipping])
def test_a_setting_changed_between_traced_steps_is_used_by_the_next_replay(between):
    eager = _train(OPTIMIZERS["adam"], lambda f: f, between=between)
    traced = _train(OPTIMIZERS["adam"], mt.function, between=between)
    unchanged = _train(OPTIMIZERS["adam"], mt.function)
    assert traced[3].experimental_get_tracing_count() == 1
    _assert_same(traced, eager)
    assert not np.array_equal(traced[1][0], unchanged[1][0])  # the change made a difference


def test_a_learning_rate_schedule_is_evaluated_at_each_replay():
    def schedule():
        return keras.optimizers.SGD(keras.optimizers.schedules.ExponentialDecay(0.1, 2, 0.5), momentum=0.9)

    eager = _train(schedule, lambda f: f)
    traced = _train(schedule, mt.function)
    _assert_same(traced, eager)


def test_a_traced_step_inside_another_traced_function_updates_as_eager():
    def nested(train_step):
        inner = mt.function(train_step)
        return mt.function(lambda x, y: inner(x, y))  # the outer trace records the inner graph's steps as ops

    eager = _train(OPTIMIZERS["adam"], lambda f: f)
    traced = _train(OPTIMIZERS["adam"], nested)
    _assert_same(traced, eager)


def test_a_variable_without_gradient_is_left_alone_with_the_warning_at_each_traced_call():
    w, unused = mt.Variable([1.0, 2.0]), mt.Variable([5.0], name="unused")
    optimizer = keras.optimizers.SGD(0.5, momentum=0.9)

    @mt.function
    def step(x):
        with mt.GradientTape() as tape:
            loss = mt.reduce_sum(w * x)
        optimizer.apply_gradients(zip(tape.gradient(loss, [w, unused]), [w, unused]))
        return loss

    for _ in range(3):
        with pytest.warns(UserWarning, match=r"Gradients do not exist for variables \['unused:0'\]"):
            step(mt.constant([1.0, -1.0]))
    # momentum SGD on a constant gradient g: velocities -0.5, -0.95, -1.355 (times g), summed
    np.testing.assert_allclose(w.numpy(), [1.0 - 2.805, 2.0 + 2.805], rtol=1e-6)
    assert unused.numpy().tolist() == [5.0] and int(optimizer.iterations.numpy()) == 3


def test_a_traced_update_refuses_variables_the_optimizer_was_rebuilt_without():
    w = mt.Variable([1.0, 2.0])
    optimizer = keras.optimizers.Adam(0.1)

    @mt.function
    def step(x):
        with mt.GradientTape() as tape:
            loss = mt.reduce_sum(w * x)
        optimizer.apply_gradients(zip([tape.gradient(loss, w)], [w]))
        return loss

    step(mt.constant([1.0, 1.0]))
    optimizer.build([mt.Variable([0.0])])  # bound to another variable from now on
    with pytest.raises(ValueError, match="Unknown variable"):
        step(mt.constant([1.0, 1.0]))
