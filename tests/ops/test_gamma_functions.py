"""tf.math.lgamma, digamma and polygamma: known values to float64 precision, TensorFlow 2.21's poles, infinities
and errors, gradients (each the next order) against finite differences to the second order, and mt.function."""

from __future__ import annotations

import math

import numpy as np
import pytest

import minitape as mt
from minitape.aids.check_gradients import check_gradients

EULER = 0.57721566490153286061
ZETA3 = 1.2020569031595942854


def f64(values):
    return mt.constant(values, mt.float64)


def test_known_values_to_float64_precision():  # within a few units in the last place
    digamma = mt.math.digamma(f64([1.0, 0.5, 5.0, 0.25])).numpy()
    harmonic4 = 1 + 1 / 2 + 1 / 3 + 1 / 4
    expected = [-EULER, -EULER - 2 * math.log(2), harmonic4 - EULER, -EULER - math.pi / 2 - 3 * math.log(2)]
    np.testing.assert_allclose(digamma, expected, rtol=1e-15, atol=0)
    trigamma = mt.math.polygamma(f64(1.0), f64([1.0, 0.5, 2.0])).numpy()
    np.testing.assert_allclose(trigamma, [math.pi**2 / 6, math.pi**2 / 2, math.pi**2 / 6 - 1], rtol=1e-15)
    np.testing.assert_allclose(mt.math.polygamma(f64(2.0), f64(1.0)).numpy(), -2 * ZETA3, rtol=1e-15)
    np.testing.assert_allclose(mt.math.polygamma(f64(3.0), f64(1.0)).numpy(), math.pi**4 / 15, rtol=1e-15)
    x = np.random.default_rng(5).uniform(-30, 30, 200)
    np.testing.assert_allclose(mt.math.lgamma(f64(x)).numpy(), [math.lgamma(v) for v in x], rtol=1e-15)


@pytest.mark.parametrize("n", [0, 1, 2, 3])
def test_the_recurrence_holds_across_zero_and_far_out(n):
    # psi_n(x + 1) - psi_n(x) = (-1)^n n! / x^(n + 1), for x on both sides of the series' threshold and below 0
    x = np.concatenate([np.random.default_rng(n).uniform(-25.0, 45.0, 300), [-1e4 + 0.3, 19.5, 1e-3]])
    order = f64(float(n))
    step = mt.math.polygamma(order, f64(x + 1)).numpy() - mt.math.polygamma(order, f64(x)).numpy()
    exact = (-1) ** n * math.factorial(n) / x ** (n + 1)
    scale = np.abs(mt.math.polygamma(order, f64(x)).numpy()) + np.abs(exact)
    assert np.all(np.abs(step - exact) <= 1e-13 * scale)


def test_poles_and_infinities_as_tensorflow():
    x = f64([-2.5, -1.0, -0.0, 0.0, 1e-8, np.inf, -np.inf, np.nan])
    inf, nan = np.inf, np.nan
    # TF 2.21's values
    np.testing.assert_allclose(
        mt.math.lgamma(x).numpy(), [-5.62437165e-02, inf, inf, inf, 1.84206807e01, inf, inf, nan], rtol=1e-8
    )
    np.testing.assert_allclose(
        mt.math.digamma(x).numpy(), [1.10315664, nan, nan, nan, -1.00000001e08, inf, nan, nan], rtol=1e-8
    )
    np.testing.assert_allclose(
        mt.math.polygamma(f64(1.0), x).numpy(), [9.53924664, inf, inf, inf, 1e16, 0, inf, nan], rtol=1e-8
    )
    even, odd = mt.math.polygamma(f64(2.0), f64([0.0, -3.0])), mt.math.polygamma(f64(3.0), f64([-0.0, -np.inf]))
    assert np.isnan(even.numpy()).all() and odd.numpy().tolist() == [inf, inf]  # TF 2.21: nan at even orders
    orders = mt.math.polygamma([0.5, -1.0, 0.0], [0.5, 0.5, 0.5])  # TF 2.21: no whole order >= 0 gives nan
    assert orders.dtype == mt.float32 and np.isnan(orders.numpy()[:2]).all()
    np.testing.assert_allclose(orders.numpy()[2], -1.9635108, rtol=1e-6)
    assert mt.math.polygamma([[1.0], [2.0]], [1.0, 2.0, 3.0]).shape == (2, 3)


def test_far_negative_arguments_use_the_reflection():
    out = mt.math.digamma(f64([-1e6 + 0.5, -123.25])).numpy()
    np.testing.assert_allclose(out, [1.38155106e01, 7.95985878e00], rtol=1e-8)  # TF 2.21's values
    np.testing.assert_allclose(mt.math.polygamma(f64(1.0), f64(-1e6 + 0.5)).numpy(), 9.8696034, rtol=1e-8)


def test_dtypes_as_tensorflow():
    assert mt.math.lgamma(mt.constant([0.5], mt.float16)).dtype == mt.float16
    np.testing.assert_allclose(mt.math.lgamma([0.5, 100.0]).numpy(), [0.5723649, 359.13422], rtol=1e-6)
    for f in (mt.math.lgamma, mt.math.digamma):
        with pytest.raises(mt.errors.InvalidArgumentError, match="floating-point tensor, not int32"):
            f([1, 2])  # TF 2.21: InvalidArgumentError, "Value for attr 'T' of int32 is not in the list ..."
    with pytest.raises(mt.errors.InvalidArgumentError, match="'T' of float16 is not in the list"):
        mt.math.polygamma(mt.constant([1.0], mt.float16), mt.constant([1.0], mt.float16))
    with pytest.raises(mt.errors.InvalidArgumentError, match="float32 and float64"):
        mt.math.polygamma(mt.constant([1.0]), f64([1.0]))


def test_gradients_are_the_next_order_to_second_order():
    x = np.array([-2.5, 0.3, 1.7, 6.0])
    check_gradients(mt.math.lgamma, [x], order=2)
    check_gradients(mt.math.digamma, [x], order=2)
    check_gradients(lambda t: mt.math.polygamma(f64([1.0, 2.0, 3.0, 1.0]), t), [x], order=2)
    v = mt.Variable([-2.5, 0.5, 3.0], dtype=mt.float64)
    with mt.GradientTape() as outer:
        with mt.GradientTape() as inner:
            y = mt.math.digamma(v)
        first = inner.gradient(y, v)
    # TF 2.21's values, as it prints them (to 8 digits)
    np.testing.assert_allclose(first.numpy(), [9.53924664, 4.9348022, 0.39493407], rtol=1e-7)
    np.testing.assert_allclose(outer.gradient(first, v).numpy(), [-0.10820405, -16.82879664, -0.15411381], rtol=1e-7)


def test_the_order_has_no_gradient():
    a, x = mt.Variable([1.0, 2.0]), mt.Variable([0.5, 1.5])
    with mt.GradientTape() as tape:
        y = mt.math.polygamma(a, x)
    da, dx = tape.gradient(y, [a, x])
    assert da is None  # TF 2.21: [None, [-16.828794, 1.409091]]
    np.testing.assert_allclose(dx.numpy(), [-16.828794, 1.409091], rtol=1e-6)


def test_traced_equals_eager():
    f = mt.function(lambda x: (mt.math.lgamma(x), mt.math.digamma(x), mt.math.polygamma(2.0, x)))
    for values in ([0.5, 3.0], [-1.5, 40.0]):
        x = mt.constant(values)
        for traced, eager in zip(f(x), (mt.math.lgamma(x), mt.math.digamma(x), mt.math.polygamma(2.0, x))):
            assert np.array_equal(traced.numpy(), eager.numpy())
