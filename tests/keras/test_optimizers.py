"""Optimizers: the first three steps of each against its update rule written in numpy (Keras 3's formulas),
gradient clipping, learning-rate schedules and `iterations`."""

from __future__ import annotations

import numpy as np
import pytest

import minitape as mt

keras = mt.keras
optimizers = keras.optimizers

W0 = np.array([1.0, -2.0, 0.5])
GRADS = [np.array([0.3, -0.1, 2.0]), np.array([-0.2, 0.4, 1.0]), np.array([0.5, 0.5, -3.0])]


def as_float32(value):
    return float(np.float32(value))


def run(optimizer, grads=GRADS):
    """The weights after each of the steps."""
    w = mt.Variable(W0.copy(), dtype="float64")
    out = []
    for g in grads:
        optimizer.apply_gradients([(mt.constant(g), w)])
        out.append(w.numpy())
    return out


def sgd_numpy(lr, momentum=0.0, nesterov=False):
    lr = as_float32(lr)  # Keras keeps the learning rate in a float32 variable
    w, v, out = W0.copy(), np.zeros(3), []
    for g in GRADS:
        v = momentum * v - lr * g
        w = w + (momentum * v - lr * g if nesterov else v)
        out.append(w)
    return out


def adam_numpy(lr=0.001, b1=0.9, b2=0.999, eps=1e-7, amsgrad=False, weight_decay=0.0, grads=GRADS):
    lr = as_float32(lr)  # Keras keeps the learning rate in a float32 variable
    w, m, v, v_max, out = W0.copy(), np.zeros(3), np.zeros(3), np.zeros(3), []
    for t, g in enumerate(grads, start=1):
        w = w - lr * weight_decay * w  # Keras 3's decoupled weight decay, before the update
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        v_max = np.maximum(v_max, v)
        alpha = lr * np.sqrt(1 - b2**t) / (1 - b1**t)  # Keras puts the bias corrections here, eps outside
        w = w - alpha * m / (np.sqrt(v_max if amsgrad else v) + eps)
        out.append(w)
    return out


def nadam_numpy(lr=0.001, b1=0.9, b2=0.999, eps=1e-7):
    lr = as_float32(lr)  # Keras keeps the learning rate in a float32 variable
    w, m, v, out, u_product = W0.copy(), np.zeros(3), np.zeros(3), [], 1.0
    for t, g in enumerate(GRADS, start=1):
        u_t = b1 * (1 - 0.5 * 0.96**t)
        u_next = b1 * (1 - 0.5 * 0.96 ** (t + 1))
        u_product *= u_t
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        m_hat = u_next * m / (1 - u_product * u_next) + (1 - u_t) * g / (1 - u_product)
        v_hat = v / (1 - b2**t)
        w = w - lr * m_hat / (np.sqrt(v_hat) + eps)
        out.append(w)
    return out


def adagrad_numpy(lr=0.001, initial=0.1, eps=1e-7):
    lr = as_float32(lr)  # Keras keeps the learning rate in a float32 variable
    w, acc, out = W0.copy(), np.full(3, initial), []
    for g in GRADS:
        acc = acc + g * g
        w = w - lr * g / np.sqrt(acc + eps)
        out.append(w)
    return out


def adamax_numpy(lr=0.001, b1=0.9, b2=0.999, eps=1e-7):
    lr = as_float32(lr)  # Keras keeps the learning rate in a float32 variable
    w, m, u, out = W0.copy(), np.zeros(3), np.zeros(3), []
    for t, g in enumerate(GRADS, start=1):
        m = b1 * m + (1 - b1) * g
        u = np.maximum(b2 * u, np.abs(g))
        w = w - lr / (1 - b1**t) * m / (u + eps)
        out.append(w)
    return out


def adadelta_numpy(lr=0.001, rho=0.95, eps=1e-7):
    lr = as_float32(lr)  # Keras keeps the learning rate in a float32 variable
    w, acc_g, acc_d, out = W0.copy(), np.zeros(3), np.zeros(3), []
    for g in GRADS:
        acc_g = rho * acc_g + (1 - rho) * g * g
        delta = -np.sqrt(acc_d + eps) / np.sqrt(acc_g + eps) * g
        acc_d = rho * acc_d + (1 - rho) * delta * delta
        w = w + lr * delta
        out.append(w)
    return out


def rmsprop_numpy(lr=0.001, rho=0.9, eps=1e-7, centered=False, momentum=0.0):
    lr = as_float32(lr)  # Keras keeps the learning rate in a float32 variable
    w, v, mean_g, velocity, out = W0.copy(), np.zeros(3), np.zeros(3), np.zeros(3), []
    for g in GRADS:
        v = rho * v + (1 - rho) * g * g
        mean_g = rho * mean_g + (1 - rho) * g
        increment = lr * g / np.sqrt(v - (mean_g**2 if centered else 0.0) + eps)
        velocity = momentum * velocity + increment
        w = w - (velocity if momentum else increment)
        out.append(w)
    return out


def sgd_weight_decay_numpy(lr, momentum, weight_decay):
    lr = as_float32(lr)
    w, v, out = W0.copy(), np.zeros(3), []
    for g in GRADS:
        w = w - lr * weight_decay * w
        v = momentum * v - lr * g
        w = w + v
        out.append(w)
    return out


@pytest.mark.parametrize(
    ("optimizer", "expected"),
    [
        (lambda: optimizers.SGD(0.1), lambda: sgd_numpy(0.1)),
        (lambda: optimizers.SGD(0.1, momentum=0.9), lambda: sgd_numpy(0.1, 0.9)),
        (lambda: optimizers.SGD(0.1, momentum=0.9, nesterov=True), lambda: sgd_numpy(0.1, 0.9, True)),
        (lambda: optimizers.Adam(), adam_numpy),
        (lambda: optimizers.Adam(0.1, beta_1=0.5), lambda: adam_numpy(0.1, b1=0.5)),
        (lambda: optimizers.RMSprop(), rmsprop_numpy),
        (lambda: optimizers.RMSprop(0.01, centered=True), lambda: rmsprop_numpy(0.01, centered=True)),
        (
            lambda: optimizers.RMSprop(0.01, centered=True, momentum=0.9),
            lambda: rmsprop_numpy(0.01, centered=True, momentum=0.9),
        ),
        (lambda: optimizers.AdamW(0.1), lambda: adam_numpy(0.1, weight_decay=0.004)),  # Keras 3's default decay
        (lambda: optimizers.AdamW(0.05, weight_decay=0.2), lambda: adam_numpy(0.05, weight_decay=0.2)),
        (lambda: optimizers.Adam(0.1, weight_decay=0.01), lambda: adam_numpy(0.1, weight_decay=0.01)),
        (lambda: optimizers.SGD(0.1, 0.9, weight_decay=0.1), lambda: sgd_weight_decay_numpy(0.1, 0.9, 0.1)),
        (lambda: optimizers.Nadam(), nadam_numpy),
        (lambda: optimizers.Nadam(0.05, beta_2=0.9), lambda: nadam_numpy(0.05, b2=0.9)),
        (lambda: optimizers.Adagrad(), adagrad_numpy),
        (lambda: optimizers.Adagrad(0.1, initial_accumulator_value=1.0), lambda: adagrad_numpy(0.1, 1.0)),
        (lambda: optimizers.Adamax(), adamax_numpy),
        (lambda: optimizers.Adamax(0.02, beta_2=0.5), lambda: adamax_numpy(0.02, b2=0.5)),
        (lambda: optimizers.Adadelta(), adadelta_numpy),
        (lambda: optimizers.Adadelta(1.0, rho=0.9), lambda: adadelta_numpy(1.0, 0.9)),
    ],
)
def test_first_three_steps_follow_the_update_rule(optimizer, expected):
    for got, want in zip(run(optimizer()), expected()):
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize(
    ("name", "cls", "lr", "defaults"),
    [
        ("nadam", optimizers.Nadam, 0.001, {"beta_1": 0.9, "beta_2": 0.999, "epsilon": 1e-7}),
        ("adagrad", optimizers.Adagrad, 0.001, {"initial_accumulator_value": 0.1, "epsilon": 1e-7}),
        ("adamax", optimizers.Adamax, 0.001, {"beta_1": 0.9, "beta_2": 0.999, "epsilon": 1e-7}),
        ("adadelta", optimizers.Adadelta, 0.001, {"rho": 0.95, "epsilon": 1e-7}),
    ],
)
def test_keras_3_defaults_and_lookup_by_name(name, cls, lr, defaults):
    optimizer = optimizers.get(name)
    assert type(optimizer) is cls and optimizer.name == name
    assert float(optimizer.learning_rate) == as_float32(lr)
    assert {k: getattr(optimizer, k) for k in defaults} == defaults


def test_iterations_is_an_int64_variable_counting_updates():
    optimizer = optimizers.Adam()
    assert isinstance(optimizer.iterations, mt.Variable)
    assert optimizer.iterations.dtype == mt.int64 and not optimizer.iterations.trainable
    run(optimizer)
    assert optimizer.iterations.numpy() == 3


def test_clipnorm_clips_each_gradient_by_its_own_norm():
    grads = [np.array([3.0, 4.0, 0.0])]  # norm 5
    (w,) = run(optimizers.SGD(1.0, clipnorm=1.0), grads)
    np.testing.assert_allclose(w, W0 - grads[0] / 5.0)
    (w,) = run(optimizers.SGD(1.0, clipnorm=10.0), grads)  # below the limit: untouched
    np.testing.assert_allclose(w, W0 - grads[0])


def test_global_clipnorm_scales_all_gradients_by_their_joint_norm():
    a, b = mt.Variable([0.0, 0.0], dtype="float64"), mt.Variable([0.0], dtype="float64")
    optimizer = optimizers.SGD(1.0, global_clipnorm=2.0)
    optimizer.apply_gradients([(mt.constant([3.0, 0.0], dtype="float64"), a), (mt.constant([4.0], "float64"), b)])
    # joint norm 5 -> every gradient scaled by 2/5 (clipnorm per gradient would give [-2, 0] and [-2])
    np.testing.assert_allclose(a.numpy(), [-1.2, 0.0])
    np.testing.assert_allclose(b.numpy(), [-1.6])


def test_clipvalue_clips_each_component():
    (w,) = run(optimizers.SGD(1.0, clipvalue=0.5), [np.array([0.3, -0.9, 2.0])])
    np.testing.assert_allclose(w, W0 - np.array([0.3, -0.5, 0.5]))


def test_only_one_clipping_option_at_a_time():
    with pytest.raises(ValueError, match="only one of `clipnorm`, `clipvalue` and `global_clipnorm`"):
        optimizers.Adam(clipnorm=1.0, global_clipnorm=1.0)
    with pytest.raises(ValueError, match="clipnorm must be a positive number"):
        optimizers.Adam(clipnorm=-1.0)


def test_exponential_decay_values():
    schedule = optimizers.schedules.ExponentialDecay(0.1, decay_steps=10, decay_rate=0.5)
    assert np.isclose(float(schedule(0)), 0.1) and np.isclose(float(schedule(5)), 0.1 * 0.5**0.5)
    assert np.isclose(float(schedule(20)), 0.025)
    stairs = optimizers.schedules.ExponentialDecay(0.1, decay_steps=10, decay_rate=0.5, staircase=True)
    assert np.isclose(float(stairs(19)), 0.05)


def test_piecewise_constant_decay_values_at_the_boundaries():
    schedule = optimizers.schedules.PiecewiseConstantDecay([100, 110], [1.0, 0.5, 0.1])
    assert [float(schedule(s)) for s in (0, 100, 101, 110, 111)] == [1.0, 1.0, 0.5, 0.5, pytest.approx(0.1)]
    with pytest.raises(ValueError, match="1 less than the length of values"):
        optimizers.schedules.PiecewiseConstantDecay([1], [1.0])


def test_cosine_decay_values_with_and_without_warmup():
    schedules = optimizers.schedules
    steps = np.array([0, 1, 3, 5, 9, 10, 13, 20])

    def cosine(step, decay_steps, start, alpha=0.0):
        step = np.minimum(step, decay_steps)
        return start * ((1 - alpha) * 0.5 * (1 + np.cos(np.pi * step / decay_steps)) + alpha)

    plain = [float(schedules.CosineDecay(0.1, 10, alpha=0.2)(s)) for s in steps]
    np.testing.assert_allclose(plain, cosine(steps, 10, 0.1, 0.2), rtol=1e-6)
    np.testing.assert_allclose(plain[:3], [0.1, 0.0980423, 0.0835114], rtol=1e-6)  # Keras 3's values
    warm = schedules.CosineDecay(0.01, 6, alpha=0.1, warmup_target=0.2, warmup_steps=3)
    got = [float(warm(s)) for s in steps]
    want = np.where(steps < 3, 0.01 + (0.2 - 0.01) * steps / 3, cosine(np.minimum(steps, 9) - 3, 6, 0.2, 0.1))
    np.testing.assert_allclose(got, want, rtol=1e-6)
    np.testing.assert_allclose(got[:4], [0.01, 0.0733333, 0.2, 0.155], rtol=1e-6)  # Keras 3's values
    with pytest.raises(ValueError, match="decay_steps must be > 0"):
        schedules.CosineDecay(0.1, 0)


def test_polynomial_decay_values_with_and_without_cycle():
    schedules = optimizers.schedules
    steps = np.array([0, 1, 3, 4, 5, 9, 10, 13, 20])
    got = [float(schedules.PolynomialDecay(0.1, 10, end_learning_rate=0.01, power=2.0)(s)) for s in steps]
    np.testing.assert_allclose(got, 0.09 * (1 - np.minimum(steps, 10) / 10) ** 2 + 0.01, rtol=1e-6)
    np.testing.assert_allclose(got[:3], [0.1, 0.0829, 0.0541], rtol=1e-6)  # Keras 3's values
    cycled = [float(schedules.PolynomialDecay(0.1, 4, end_learning_rate=0.01, power=0.5, cycle=True)(s)) for s in steps]
    period = 4 * np.maximum(np.ceil(steps / 4), 1)
    np.testing.assert_allclose(cycled, 0.09 * (1 - steps / period) ** 0.5 + 0.01, rtol=1e-6)
    np.testing.assert_allclose(cycled[4], 0.0651135, rtol=1e-6)  # Keras 3: step 5 restarts a period of 8
    assert float(schedules.PolynomialDecay(0.1, 10)(50)) == pytest.approx(0.0001)  # Keras 3's end rate default


def test_a_schedule_as_learning_rate_is_called_with_iterations_before_each_update():
    schedule = optimizers.schedules.PiecewiseConstantDecay([0, 1], [1.0, 0.1, 0.01])
    out = run(optimizers.SGD(schedule))
    # step 0 uses 1.0, step 1 uses 0.1, step 2 uses 0.01 (Keras passes iterations = 0 on the first update)
    np.testing.assert_allclose(out[0], W0 - 1.0 * GRADS[0], rtol=1e-6)
    np.testing.assert_allclose(out[1], out[0] - 0.1 * GRADS[1], rtol=1e-6)
    np.testing.assert_allclose(out[2], out[1] - 0.01 * GRADS[2], rtol=1e-6)


def test_amsgrad_divides_by_the_largest_second_moment_so_far():
    shrinking = [np.array([2.0, -1.0, 0.5]), np.array([0.1, 0.1, 0.1]), np.array([0.01, 0.3, -0.2])]
    got = run(optimizers.Adam(0.1, amsgrad=True), shrinking)
    for step, want in zip(got, adam_numpy(0.1, amsgrad=True, grads=shrinking)):
        np.testing.assert_allclose(step, want, rtol=1e-12)
    plain = run(optimizers.Adam(0.1), shrinking)
    # the first weight's second moment fell after its big first gradient: AMSGrad's last step there is smaller
    assert abs(got[-1][0] - got[-2][0]) < abs(plain[-1][0] - plain[-2][0])
    amsgrad_w = run(optimizers.AdamW(0.1, weight_decay=0.1, amsgrad=True), shrinking)[-1]
    np.testing.assert_allclose(amsgrad_w, adam_numpy(0.1, amsgrad=True, weight_decay=0.1, grads=shrinking)[-1])


def test_adamw_by_name_and_its_weight_decay_with_a_schedule():
    optimizer = optimizers.get("adamw")
    assert type(optimizer) is optimizers.AdamW and optimizer.weight_decay == 0.004
    schedule = optimizers.schedules.PiecewiseConstantDecay([0, 1], [0.1, 0.05, 0.02])
    got = run(optimizers.AdamW(schedule, weight_decay=0.5))
    # the decay uses each step's rate: w -= rate * 0.5 * w, then Adam's step with the same rate
    w, m, v = W0.copy(), np.zeros(3), np.zeros(3)
    for t, (g, rate) in enumerate(zip(GRADS, (0.1, 0.05, 0.02)), start=1):
        rate = as_float32(rate)
        w = w - rate * 0.5 * w
        m, v = 0.9 * m + 0.1 * g, 0.999 * v + 0.001 * g * g
        w = w - rate * np.sqrt(1 - 0.999**t) / (1 - 0.9**t) * m / (np.sqrt(v) + 1e-7)
        np.testing.assert_allclose(got[t - 1], w, rtol=1e-7)
    with pytest.raises(ValueError, match="weight_decay must be a number"):
        optimizers.AdamW(weight_decay=None)
    with pytest.raises(ValueError, match="weight_decay must be a number >= 0"):
        optimizers.SGD(weight_decay=-1.0)


def test_unsupported_options_are_refused_by_name():
    with pytest.raises(ValueError, match="use_ema=True asks for an EMA"):
        optimizers.Adam(use_ema=True)


def test_learning_rate_is_a_float32_variable_that_can_be_assigned():
    optimizer = optimizers.Adam(0.01)
    assert isinstance(optimizer.learning_rate, mt.Variable) and optimizer.learning_rate.dtype == mt.float32
    optimizer.learning_rate.assign(0.5)
    assert float(optimizer.learning_rate.numpy()) == 0.5
    optimizer.learning_rate = 0.25  # assignment, as in Keras, keeps the same variable
    assert optimizer.lr.numpy() == np.float32(0.25) and optimizer.current_learning_rate() == 0.25
    (w,) = run(optimizers.SGD(0.5), [np.array([1.0, 1.0, 1.0])])
    np.testing.assert_allclose(w, W0 - 0.5)
    scheduled = optimizers.SGD(optimizers.schedules.ExponentialDecay(0.1, 1, 0.5))
    assert float(scheduled.learning_rate) == pytest.approx(0.1)  # a schedule: its value for the next update


def test_apply_takes_the_gradients_and_the_variables_as_two_lists_as_keras_3_does():
    a, b = mt.Variable([1.0, 2.0]), mt.Variable(3.0)
    pairs_opt, lists_opt = keras.optimizers.Adam(0.1), keras.optimizers.Adam(0.1)
    a2, b2 = mt.Variable([1.0, 2.0]), mt.Variable(3.0)
    grads = [mt.constant([0.5, -1.0]), mt.constant(2.0)]
    pairs_opt.apply_gradients(zip(grads, [a, b]))
    assert int(lists_opt.apply(grads, [a2, b2])) == 1
    np.testing.assert_array_equal(a2.numpy(), a.numpy())
    assert b2.numpy() == b.numpy()
    with pytest.raises(ValueError, match=r"2 gradient\(s\) for 1 variable\(s\)"):
        lists_opt.apply(grads, [a2])
    with pytest.raises(ValueError, match=r"optimizer.apply\(grads, model.trainable_weights\)"):
        lists_opt.apply(grads)


def test_schedules_take_an_array_of_steps_as_keras_does():
    # the overfitting tutorial plots lr_schedule(np.linspace(0, 100000, 1000)); values are Keras 3's
    schedules = keras.optimizers.schedules
    steps = np.array([0.0, 5, 10, 25, 40])
    cases = [
        (schedules.ExponentialDecay(0.1, 10, 0.5), [0.1, 0.070711, 0.05, 0.017678, 0.00625]),
        (schedules.ExponentialDecay(0.1, 10, 0.5, staircase=True), [0.1, 0.1, 0.05, 0.025, 0.00625]),
        (schedules.PiecewiseConstantDecay([10, 20], [1.0, 0.5, 0.1]), [1.0, 1.0, 1.0, 0.1, 0.1]),
        (schedules.InverseTimeDecay(0.001, 20, 1), [0.001, 0.0008, 0.001 / 1.5, 0.001 / 2.25, 0.001 / 3]),
        (schedules.PolynomialDecay(0.1, 20), [0.1, 0.075025, 0.05005, 0.0001, 0.0001]),
        (schedules.PolynomialDecay(0.1, 20, cycle=True), [0.1, 0.075025, 0.05005, 0.037562, 0.0001]),
        (schedules.CosineDecay(0.1, 20), [0.1, 0.085355, 0.05, 0.0, 0.0]),
        (schedules.CosineDecay(0.0, 20, warmup_target=0.1, warmup_steps=10), [0.0, 0.05, 0.1, 0.014645, 0.0]),
    ]
    for schedule, expected in cases:
        rates = schedule(steps)
        assert rates.dtype == mt.float32 and rates.shape == (5,)
        np.testing.assert_allclose(rates.numpy(), expected, rtol=1e-4, atol=1e-7)
        assert float(schedule(10)) == pytest.approx(expected[2], rel=1e-4)  # one step: a scalar, as before


def test_an_optimizer_refuses_variables_it_was_not_built_for_as_keras_3():
    first, second = mt.Variable([1.0, 2.0]), mt.Variable([3.0])
    optimizer = mt.keras.optimizers.Adam()
    optimizer.apply_gradients([(mt.constant([0.1, 0.1]), first)])
    assert optimizer.built
    optimizer.apply_gradients([(mt.constant([0.1, 0.1]), first)])  # the same variables again: fine
    # Keras 3: ValueError "Unknown variable: ... you should recreate a new optimizer instance."
    with pytest.raises(ValueError, match=r"Unknown variable.*recreate a new optimizer.*keras.optimizers.Adam\(\)"):
        optimizer.apply_gradients([(mt.constant([0.1]), second)])


def test_the_unknown_variable_error_shows_a_layers_weight_by_its_path_not_its_values():
    dense = mt.keras.layers.Dense(64, name="dense")  # named: other tests' layers take the default names first
    dense.build((None, 784))
    optimizer = mt.keras.optimizers.Adam()
    optimizer.apply([mt.constant(1.0)], [mt.Variable(2.0)])
    # TensorFlow 2.21 (Keras 3.15.1) names a layer's weight this way, without its 50,176 values
    with pytest.raises(ValueError) as caught:
        optimizer.apply([mt.zeros_like(dense.kernel)], [dense.kernel])
    assert str(caught.value).startswith(
        "Unknown variable: <Variable path=dense/kernel, shape=(784, 64), dtype=float32>. This optimizer can only be "
        "called for the variables it was originally built with."
    )
    # a tf.Variable made by hand: TensorFlow shows its repr, values and all
    with pytest.raises(ValueError, match=r"^Unknown variable: <mt.Variable 'w:0' shape=\(\) dtype=float32, numpy=1.0>"):
        optimizer.apply([mt.constant(1.0)], [mt.Variable(1.0, name="w")])
