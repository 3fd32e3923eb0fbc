"""The optimizers update in place (numpy `out=`, scratch arrays kept between steps) and give the same numbers, bit
for bit, as their formulas written with temporaries (the code before issue 26, copied below as the reference)."""

from __future__ import annotations

import weakref

import numpy as np
import pytest

import minitape as mt
from minitape.keras import optimizers


# ---- the formulas with temporaries: the update rules as they were written before the in-place rewrite ---------
def sgd(o, value, grad, slots, step, lr):
    if not o.momentum:
        return value - lr * grad
    velocity = slots["momentum"] = o.momentum * slots["momentum"] - lr * grad
    return value + (o.momentum * velocity - lr * grad if o.nesterov else velocity)


def adam(o, value, grad, slots, step, lr):
    b1, b2 = o.beta_1, o.beta_2
    slots["m"] = b1 * slots["m"] + (1 - b1) * grad
    slots["v"] = b2 * slots["v"] + (1 - b2) * np.square(grad)
    v = slots["v"]
    if o.amsgrad:
        v = slots["v_hat"] = np.maximum(slots["v_hat"], v)
    step_size = lr * float(np.sqrt(1 - b2**step)) / (1 - b1**step)  # a Python float: float32 stays float32
    return value - step_size * slots["m"] / (np.sqrt(v) + o.epsilon)


def rmsprop(o, value, grad, slots, step, lr):
    slots["rms"] = o.rho * slots["rms"] + (1 - o.rho) * grad * grad
    denominator = slots["rms"] + o.epsilon
    if o.centered:
        slots["average_gradient"] = o.rho * slots["average_gradient"] + (1 - o.rho) * grad
        denominator = denominator - np.square(slots["average_gradient"])
    step_ = lr * grad / np.sqrt(denominator)
    if o.momentum:
        step_ = slots["momentum"] = o.momentum * slots["momentum"] + step_
    return value - step_


def nadam(o, value, grad, slots, step, lr, u_product):
    u_t, u_next = o._u(step), o._u(step + 1)
    slots["m"] = slots["m"] + (grad - slots["m"]) * (1 - o.beta_1)
    slots["v"] = slots["v"] + (np.square(grad) - slots["v"]) * (1 - o.beta_2)
    m_hat = u_next * slots["m"] / (1 - u_product * u_next) + (1 - u_t) * grad / (1 - u_product)
    v_hat = slots["v"] / (1 - o.beta_2**step)
    return value - lr * m_hat / (np.sqrt(v_hat) + o.epsilon)


def adagrad(o, value, grad, slots, step, lr):
    slots["accumulator"] = slots["accumulator"] + np.square(grad)
    return value - lr * grad / np.sqrt(slots["accumulator"] + o.epsilon)


def adamax(o, value, grad, slots, step, lr):
    slots["m"] = slots["m"] + (grad - slots["m"]) * (1 - o.beta_1)
    slots["u"] = np.maximum(o.beta_2 * slots["u"], np.abs(grad))
    return value - lr * slots["m"] / ((1 - o.beta_1**step) * (slots["u"] + o.epsilon))


def adadelta(o, value, grad, slots, step, lr):
    rho, eps = o.rho, o.epsilon
    slots["accumulated_grad"] = rho * slots["accumulated_grad"] + (1 - rho) * np.square(grad)
    delta = -np.sqrt(slots["accumulated_delta_var"] + eps) * grad / np.sqrt(slots["accumulated_grad"] + eps)
    slots["accumulated_delta_var"] = rho * slots["accumulated_delta_var"] + (1 - rho) * np.square(delta)
    return value + lr * delta


CASES = [
    (lambda: optimizers.SGD(0.1), sgd),
    (lambda: optimizers.SGD(0.1, momentum=0.9), sgd),
    (lambda: optimizers.SGD(0.1, momentum=0.9, nesterov=True), sgd),
    (lambda: optimizers.Adam(0.01), adam),
    (lambda: optimizers.Adam(0.01, amsgrad=True), adam),
    (lambda: optimizers.AdamW(0.01, weight_decay=0.1), adam),
    (lambda: optimizers.RMSprop(0.01), rmsprop),
    (lambda: optimizers.RMSprop(0.01, momentum=0.5, centered=True), rmsprop),
    (lambda: optimizers.Nadam(0.01), nadam),
    (lambda: optimizers.Adagrad(0.1), adagrad),
    (lambda: optimizers.Adamax(0.01), adamax),
    (lambda: optimizers.Adadelta(1.0), adadelta),
]


def _reference_steps(make, rule, values, grads_per_step):
    """The variables' values after each step, by the formulas with temporaries (and the weight decay as before)."""
    o = make()
    slots = [{n: (np.full_like(v, 0.1) if n == "accumulator" else np.zeros_like(v)) for n in _slot_names(o)}
             for v in values]  # fmt: skip
    values, u_product, history = [v.copy() for v in values], 1.0, []
    lr = o.current_learning_rate()
    for step, grads in enumerate(grads_per_step, 1):
        u_product *= o._u(step) if rule is nadam else 1.0
        new = []
        for value, grad, slot in zip(values, grads, slots):
            if o.weight_decay:
                value = value - value * np.asarray(o.weight_decay * lr, value.dtype)
            args = (o, value, grad, slot, step, lr) + ((u_product,) if rule is nadam else ())
            new.append(rule(*args).astype(value.dtype, copy=False))
        values = new
        history.append([v.copy() for v in values])
    return history


def _slot_names(o):
    return o._slot_names if not isinstance(o, optimizers.Adagrad) else ("accumulator",)


@pytest.mark.parametrize("make, rule", CASES, ids=lambda c: getattr(c, "__name__", ""))
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_in_place_updates_equal_the_formulas_with_temporaries_bit_for_bit(make, rule, dtype):
    rng = np.random.default_rng(7)
    shapes = [(5, 3), (3,), (), (2, 2, 2)]  # the 0-d one holds a numpy scalar after an update, not an array
    start = [rng.standard_normal(s).astype(dtype) for s in shapes]
    grads_per_step = [[rng.standard_normal(s).astype(dtype) for s in shapes] for _ in range(5)]
    expected = _reference_steps(make, rule, start, grads_per_step)
    variables = [mt.Variable(v) for v in start]
    optimizer = make()
    for step, grads in enumerate(grads_per_step):
        optimizer.apply_gradients(zip([mt.constant(g) for g in grads], variables))
        for v, want in zip(variables, expected[step]):
            assert v.dtype.as_numpy_dtype == dtype
            np.testing.assert_array_equal(v.numpy(), want, err_msg=f"step {step + 1}, {v.name}")


def test_the_variables_array_is_overwritten_when_nothing_else_holds_it():
    w = mt.Variable(np.ones((4, 3), np.float32))
    optimizer = optimizers.Adam(0.1)
    optimizer.apply_gradients([(mt.constant(np.ones((4, 3), np.float32)), w)])  # the slots are made here
    array = weakref.ref(w._value)  # a strong reference here would itself make the optimizer copy
    for _ in range(3):
        optimizer.apply_gradients([(mt.constant(np.ones((4, 3), np.float32)), w)])
    assert array() is w._value  # no new array per step
    assert w.numpy().dtype == np.float32 and (w.numpy() < 1).all()


def test_a_tensor_read_before_the_update_keeps_its_value():
    w = mt.Variable([1.0, 2.0])
    before = w.read_value()
    optimizers.SGD(0.5).apply_gradients([(mt.constant([1.0, 1.0]), w)])
    np.testing.assert_array_equal(before.numpy(), [1.0, 2.0])
    np.testing.assert_array_equal(w.numpy(), [0.5, 1.5])


def test_a_persistent_tape_differentiates_at_the_values_it_recorded_after_an_update():
    w = mt.Variable([1.0, 2.0])
    with mt.GradientTape(persistent=True) as tape:
        y = mt.reduce_sum(w * w)
    first = tape.gradient(y, w)
    optimizers.SGD(0.25).apply_gradients([(first, w)])
    np.testing.assert_array_equal(w.numpy(), [0.5, 1.0])
    np.testing.assert_array_equal(tape.gradient(y, w).numpy(), [2.0, 4.0])  # 2 w at the recorded w, not the new one


def test_a_variable_made_from_a_users_array_never_writes_into_it():
    data = np.array([1.0, 2.0], np.float32)
    w = mt.Variable(data)
    w.assign(data)  # the variable may now hold `data` itself, or a view of it
    optimizers.SGD(1.0).apply_gradients([(mt.constant([1.0, 1.0]), w)])
    np.testing.assert_array_equal(data, [1.0, 2.0])
    np.testing.assert_array_equal(w.numpy(), [0.0, 1.0])


def test_adam_in_float32_is_within_float32_rounding_of_the_old_float64_step():
    """Before issue 26 Adam's step size was numpy's float64 (np.sqrt of a Python float), which made the step
    `step_size * m / denominator` a float64 temporary; now it stays float32, so the values move by rounding."""
    rng = np.random.default_rng(3)
    value, grads = rng.standard_normal(50).astype(np.float32), rng.standard_normal((4, 50)).astype(np.float32)
    m, v, w = np.zeros(50, np.float32), np.zeros(50, np.float32), mt.Variable(value)
    optimizer = optimizers.Adam(0.01)
    for step, g in enumerate(grads, 1):
        m, v = 0.9 * m + 0.1 * g, 0.999 * v + 0.001 * np.square(g)
        step_size = 0.01 * np.sqrt(1 - 0.999**step) / (1 - 0.9**step)
        assert type(step_size) is np.float64 and (step_size * m).dtype == np.float64  # the old temporary
        value = (value - step_size * m / (np.sqrt(v) + 1e-7)).astype(np.float32)
        optimizer.apply_gradients([(mt.constant(g), w)])
        np.testing.assert_allclose(w.numpy(), value, rtol=0, atol=4 * np.spacing(np.abs(value)).max())


@pytest.mark.parametrize("make, rule", CASES, ids=lambda c: getattr(c, "__name__", ""))
def test_an_update_of_many_variables_at_once_equals_the_update_one_variable_at_a_time(make, rule, monkeypatch):
    """The first update makes the variables' slots end to end, and later updates of the same variables run the
    rule once over all of them; a step on a subset (the per-variable path, on views of those slots) between
    them, a 0-d variable, and the weight decay included: the same numbers, bit for bit."""
    rng = np.random.default_rng(11)
    shapes = [(4, 3), (3,), (), (2, 5)]
    start = [rng.standard_normal(s).astype(np.float32) for s in shapes]
    pick = [[0, 1, 2, 3], [0, 1, 2, 3], [1, 3], [0, 1, 2, 3], [3, 0]]  # steps on all, a subset, another order
    grads = [[rng.standard_normal(shapes[i]).astype(np.float32) for i in p] for p in pick]
    results = []
    for together in (True, False):
        variables, optimizer = [mt.Variable(v) for v in start], make()
        if not together:
            monkeypatch.setattr(optimizer, "_group_of", lambda variables, grads: None)
        for p, g in zip(pick, grads):
            optimizer.apply_gradients(zip([mt.constant(x) for x in g], [variables[i] for i in p]))
        results.append([v.numpy() for v in variables] + [np.array(a) for a in optimizer.variables])
    assert len(results[0]) == len(results[1])
    for a, b in zip(*results):
        np.testing.assert_array_equal(a, b)
    assert not np.array_equal(results[0][0], start[0])


def test_variables_updated_together_are_still_written_in_place():
    variables = [mt.Variable(np.ones((4, 3), np.float32)), mt.Variable(np.ones(3, np.float32))]
    optimizer = optimizers.Adam(0.1)
    grads = [mt.constant(np.ones((4, 3), np.float32)), mt.constant(np.ones(3, np.float32))]
    optimizer.apply_gradients(zip(grads, variables))  # the slots are made here, together
    arrays = [weakref.ref(v._value) for v in variables]
    for _ in range(3):
        optimizer.apply_gradients(zip(grads, variables))
    assert all(a() is v._value for a, v in zip(arrays, variables))  # no new array per step
    assert all((v.numpy() < 1).all() for v in variables)


def test_a_variable_whose_declared_shape_leaves_a_size_open_is_checked_against_its_shape_now():
    w = mt.Variable([1.0, 2.0], shape=[None])
    optimizer = optimizers.SGD(0.5)
    optimizer.apply_gradients([(mt.constant([2.0, 2.0]), w)])
    w.assign([1.0, 2.0, 3.0])  # the declared shape [None] takes a longer value
    optimizer.apply_gradients([(mt.constant([2.0, 2.0, 2.0]), w)])
    np.testing.assert_array_equal(w.numpy(), [0.0, 1.0, 2.0])
    with pytest.raises(
        ValueError, match=r"the gradient for Variable:0 has shape \(2,\), but the variable has shape \(3,\)"
    ):
        optimizer.apply_gradients([(mt.constant([2.0, 2.0]), w)])


def test_variables_updated_together_keep_their_own_constraints():
    capped = mt.Variable([0.5, 0.5], constraint=lambda w: mt.clip_by_value(w, 0.0, 0.6))
    free = mt.Variable([0.5, 0.5])
    optimizer = optimizers.SGD(0.1)
    for _ in range(3):  # the first update makes the group; the later ones run the rule over both at once
        optimizer.apply_gradients(zip([mt.constant([-1.0, 1.0])] * 2, [capped, free]))
    np.testing.assert_allclose(capped.numpy(), [0.6, 0.2], rtol=1e-6)
    np.testing.assert_allclose(free.numpy(), [0.8, 0.2], rtol=1e-6)
