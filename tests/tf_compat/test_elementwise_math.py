"""Elementwise math where minitape gave another answer than TensorFlow 2.21 for the same snippet.

Found by running the same snippets in TensorFlow and minitape side by side (2026-11-23); each
expected number below is TensorFlow's. New functions are also checked against finite differences.
"""

import numpy as np
import pytest

import minitape as mt
from minitape.aids.check_gradients import check_gradients


def gradient(f, *values, order=1):
    """d(sum f)/d(each value); with order=2, the gradient of the sum of the first gradient."""
    xs = [mt.constant(np.asarray(v, np.float64)) for v in values]
    with mt.GradientTape() as outer:
        outer.watch(xs)
        with mt.GradientTape() as inner:
            inner.watch(xs)
            y = f(*xs)
        first = inner.gradient(y, xs)
        if order == 1:
            return [None if g is None else g.numpy() for g in first]
        total = mt.reduce_sum(first[0])
    return [None if g is None else g.numpy() for g in outer.gradient(total, xs)]


# ---- operators: & | ^ ~ are bitwise on integers, logical on bools ----------------------------------------------
def test_bit_operators_on_integer_tensors_are_bitwise_as_in_tensorflow():
    assert (~mt.constant([5, 0, -3])).numpy().tolist() == [-6, -1, 2]
    assert (mt.constant([6, 4]) & mt.constant([3, 1])).numpy().tolist() == [2, 0]
    assert (mt.constant([-7, 5]) | 1).numpy().tolist() == [-7, 5]
    assert (mt.constant([6, 4]) ^ 3).numpy().tolist() == [5, 7]
    assert (3 & mt.constant([6, 4])).numpy().tolist() == [2, 0]
    shifted = mt.bitwise.left_shift(mt.constant([1, 2]), mt.constant([3, 1]))
    assert shifted.numpy().tolist() == [8, 4] and shifted.dtype == mt.int32
    assert mt.bitwise.right_shift(mt.constant([8, 4]), 2).numpy().tolist() == [2, 1]


def test_bit_operators_on_bool_tensors_stay_logical():
    a, b = mt.constant([True, True, False]), mt.constant([True, False, False])
    assert (a & b).numpy().tolist() == [True, False, False]
    assert (a | b).numpy().tolist() == [True, True, False]
    assert (a ^ b).numpy().tolist() == [False, True, False]
    assert (~a).numpy().tolist() == [False, False, True]
    assert (True & b).numpy().tolist() == [True, False, False] and (False | b).dtype == mt.bool
    assert mt.math.logical_xor(a, b).numpy().tolist() == [False, True, False]


@pytest.mark.parametrize(
    "call",
    [
        lambda: mt.math.logical_and(mt.constant([1, 0]), mt.constant([1, 1])),
        lambda: mt.math.logical_not(mt.constant([1.0, 0.0])),
        lambda: mt.math.logical_xor(mt.constant([2]), 1),
    ],
)
def test_logical_ops_refuse_numbers_instead_of_reading_them_as_truth_values(call):
    with pytest.raises(mt.errors.InvalidArgumentError, match="needs bool tensors.*compare first"):
        call()


def test_bitwise_ops_refuse_floats_and_bools():
    with pytest.raises(mt.errors.InvalidArgumentError, match="BitwiseAnd.*needs integer tensors.*logical_and"):
        mt.bitwise.bitwise_and(mt.constant([1.0]), mt.constant([3.0]))
    with pytest.raises(mt.errors.InvalidArgumentError, match="needs integer tensors"):
        mt.bitwise.invert(mt.constant([True]))


def test_reflected_floordiv_and_mod():
    assert (7 // mt.constant([2, 3])).numpy().tolist() == [3, 2]
    assert (7.5 % mt.constant([2.0, 3.0])).numpy().tolist() == [1.5, 1.5]


# ---- gradients at the edges ------------------------------------------------------------------------------------
def test_sqrt_rsqrt_reciprocal_give_zero_where_the_upstream_gradient_is_zero():
    # the guard every tutorial writes: where(x > 0, sqrt(x), 0) has gradient 0 at x <= 0 (was NaN: 0 * inf)
    (g,) = gradient(lambda x: mt.where(x > 0, mt.sqrt(x), 0.0), [-1.0, 0.0, 4.0])
    np.testing.assert_array_equal(g, [0.0, 0.0, 0.25])
    for f in (mt.sqrt, mt.math.rsqrt, mt.math.reciprocal):
        x = mt.constant([-1.0, 0.0, 4.0, np.inf, -np.inf, np.nan])
        with mt.GradientTape() as tape:
            tape.watch(x)
            y = f(x)
        np.testing.assert_array_equal(tape.gradient(y, x, output_gradients=mt.zeros([6])).numpy(), np.zeros(6))
    # and second derivatives stay as they were
    np.testing.assert_allclose(gradient(mt.sqrt, [1.0, 4.0], order=2)[0], [-0.25, -0.03125])
    np.testing.assert_allclose(gradient(mt.math.rsqrt, [1.0, 4.0], order=2)[0], [0.75, 0.0234375])
    np.testing.assert_allclose(gradient(mt.math.reciprocal, [1.0, 4.0], order=2)[0], [2.0, 0.03125])


def test_sqrt_keeps_its_forward_mode_derivative_where_the_gradient_rule_has_a_zero_guard():
    x = mt.constant([0.25, 4.0], mt.float64)
    with mt.autodiff.ForwardAccumulator(x, mt.constant([1.0, 2.0], mt.float64)) as acc:
        y = mt.sqrt(x)
    np.testing.assert_allclose(acc.jvp(y).numpy(), [1.0, 0.5])  # 1 / (2 sqrt x) times the tangent


def test_sign_has_a_zero_gradient_so_second_derivatives_of_abs_and_relu_are_zeros():
    np.testing.assert_array_equal(gradient(mt.sign, [1.0, -2.0, 0.0])[0], [0.0, 0.0, 0.0])  # was None
    np.testing.assert_array_equal(gradient(mt.abs, [1.0, -2.0], order=2)[0], [0.0, 0.0])
    np.testing.assert_array_equal(gradient(mt.nn.relu, [1.0, -2.0], order=2)[0], [0.0, 0.0])


def test_float_floormod_is_differentiable():
    gx, gy = gradient(lambda a, b: a % b, [5.5, -2.5], [2.0, 2.0])  # was None for both
    np.testing.assert_array_equal(gx, [1.0, 1.0])
    np.testing.assert_array_equal(gy, [-2.0, 2.0])  # -floor(x / y)
    check_gradients(lambda a, b: mt.math.floormod(a, b), [np.array([5.5, -2.5, 0.7]), np.array([2.0, 1.5, -0.4])])


def test_activations_take_tensorflows_side_at_their_kinks():
    np.testing.assert_allclose(gradient(mt.nn.selu, [0.0, -1.0, 1.0])[0], [1.0507, 0.64677, 1.0507], atol=1e-5)
    np.testing.assert_allclose(gradient(mt.nn.elu, [0.0, -1.0, 1.0], order=2)[0], [0.0, 0.36788, 0.0], atol=1e-5)
    np.testing.assert_array_equal(gradient(mt.nn.elu, [np.nan, 0.0])[0], [1.0, 1.0])
    np.testing.assert_array_equal(gradient(mt.nn.relu6, [6.0, 0.0, 3.0, 7.0, -1.0])[0], [0, 0, 1, 0, 0])
    np.testing.assert_array_equal(mt.nn.relu6(mt.constant([6.0, np.nan, 3.0, 7.0, -1.0])).numpy(), [6, np.nan, 3, 6, 0])


def test_sigmoid_cross_entropy_at_a_zero_logit_has_the_slope_sigmoid_minus_label():
    # a zero-initialised logistic regression: every logit is 0 at the first step
    x = mt.constant([[1.0, 2.0], [3.0, -1.0], [0.5, 0.5]])
    y = mt.constant([[1.0], [0.0], [1.0]])
    w, b = mt.Variable(mt.zeros([2, 1])), mt.Variable(0.0)
    with mt.GradientTape() as tape:
        loss = mt.reduce_mean(mt.nn.sigmoid_cross_entropy_with_logits(labels=y, logits=x @ w + b))
    gw, gb = tape.gradient(loss, [w, b])
    np.testing.assert_allclose(gw.numpy().ravel(), [0.25, -0.583333], rtol=1e-5)  # was [1.0, -0.3333]
    assert gb.numpy() == pytest.approx(-1 / 6)  # was 0.3333
    labels = mt.constant([0.0, 0.5, 1.0, 1.0, 0.0], mt.float64)
    logits = mt.constant([0.0, 0.0, 0.0, -3.0, 40.0], mt.float64)
    loss = mt.nn.sigmoid_cross_entropy_with_logits(labels=labels, logits=logits).numpy()
    np.testing.assert_allclose(loss, [0.693147, 0.693147, 0.693147, 3.04859, 40.0], rtol=1e-5)
    check_gradients(lambda t: mt.nn.sigmoid_cross_entropy_with_logits(labels=labels, logits=t), [logits.numpy() + 0.3])


def test_argmax_and_argmin_pass_over_nan_as_tensorflow_does():
    values = mt.constant([[1.0, np.nan, 3.0], [np.nan, np.nan, np.nan]])
    assert mt.argmax(values, axis=1).numpy().tolist() == [2, 0]  # numpy stops at the first NaN: [1, 0]
    assert mt.argmin(mt.constant([1.0, np.nan, 0.5])).numpy() == 2


def test_unsigned_32_and_64_bit_integers_keep_their_dtype():
    t = mt.constant(np.array([1, 2], np.uint32))
    assert t.dtype == mt.uint32 and (t + 1).dtype == mt.uint32  # was int64
    assert (t + 1).numpy().tolist() == [2, 3]
    assert mt.constant(np.uint64(5)).dtype == mt.uint64
    assert (t / t).dtype == mt.float64  # TensorFlow divides 32-bit integers in float64


# ---- tf.math functions that were missing -----------------------------------------------------------------------
V = [0.3, -0.7, 0.9]
INVERSE_AND_HYPERBOLIC = {  # name: (values at V, second derivatives at V), as TensorFlow gives them
    "asin": ([0.30469, -0.7754, 1.11977], [0.34559, -1.92195, 10.86706]),
    "acos": ([1.2661, 2.34619, 0.45103], [-0.34559, 1.92195, -10.86706]),
    "atan": ([0.29146, -0.61073, 0.73282], [-0.50501, 0.6306, -0.54943]),
    "sinh": ([0.30452, -0.75858, 1.02652], [0.30452, -0.75858, 1.02652]),
    "cosh": ([1.04534, 1.25517, 1.43309], [1.04534, 1.25517, 1.43309]),
    "asinh": ([0.29567, -0.65267, 0.80887], [-0.26362, 0.38487, -0.36959]),
    "atanh": ([0.30952, -0.8673, 1.47222], [0.72455, -5.38255, 49.8615]),
    "erfc": ([0.67137, 1.6778, 0.20309], [0.61876, -0.96778, 0.90354]),
}


@pytest.mark.parametrize("name", INVERSE_AND_HYPERBOLIC)
def test_inverse_trigonometric_and_hyperbolic_functions(name):
    f = getattr(mt.math, name)
    values, second = INVERSE_AND_HYPERBOLIC[name]
    np.testing.assert_allclose(f(mt.constant(V, mt.float64)).numpy(), values, atol=1e-5)
    np.testing.assert_allclose(gradient(f, V, order=2)[0], second, atol=1e-4)
    check_gradients(f, [np.array(V)], order=2)
    assert f(mt.constant(V)).dtype == mt.float32
    with pytest.raises(mt.errors.InvalidArgumentError, match="floating"):
        f(mt.constant([1, 2]))


def test_acosh_atan2_and_erfc_tail():
    np.testing.assert_allclose(gradient(mt.math.acosh, [1.5, 3.0], order=2)[0], [-1.07331, -0.13258], atol=1e-5)
    gx, gy = gradient(mt.math.atan2, V, [1.0, -2.0, 0.5])
    np.testing.assert_allclose(gx, [0.91743, -0.44543, 0.4717], atol=1e-5)
    np.testing.assert_allclose(gy, [-0.27523, 0.1559, -0.84906], atol=1e-5)
    check_gradients(mt.math.atan2, [np.array(V), np.array([1.0, -2.0, 0.5])], order=2)
    assert mt.math.erfc(mt.constant(10.0, mt.float64)).numpy() == pytest.approx(2.088487583762545e-45)


def test_cumprod_is_exact_where_an_entry_is_zero():
    x = mt.constant([[1.0, 2, 3], [4, 5, 6]])
    assert mt.math.cumprod(x, axis=1, exclusive=True, reverse=True).numpy().tolist() == [[6, 3, 1], [30, 6, 1]]
    assert mt.math.cumprod(x, axis=0).numpy().tolist() == [[1, 2, 3], [4, 10, 18]]
    assert mt.math.cumprod(mt.constant([1, 2, 3])).dtype == mt.int32
    np.testing.assert_array_equal(
        gradient(lambda a: mt.math.cumprod(a, exclusive=True), [2.0, 0.5, 3.0])[0], [1.5, 2, 0]
    )
    # d/dx of 2 + 2x + 6x at x = 0 is 8 (TensorFlow's rule divides by x and gives 0 here)
    np.testing.assert_array_equal(gradient(mt.math.cumprod, [2.0, 0.0, 3.0])[0], [1.0, 8.0, 0.0])
    for exclusive, reverse in [(False, False), (False, True), (True, False), (True, True)]:
        check_gradients(
            lambda a, e=exclusive, r=reverse: mt.math.cumprod(a, axis=1, exclusive=e, reverse=r),
            [np.array([[0.5, -1.2, 2.0], [1.5, 0.0, -0.7]])],
            order=2,
        )


def test_x_times_or_over_y_that_is_zero_where_x_is_zero():
    assert mt.math.xdivy(mt.constant([0.0, 1.0, 2.0]), mt.constant([0.0, 2.0, 0.0])).numpy().tolist() == [
        0,
        0.5,
        np.inf,
    ]
    np.testing.assert_allclose(
        mt.math.xlog1py(mt.constant([0.0, 1.0, 2.0]), mt.constant([-1.0, 2.0, 0.5])).numpy(),
        [0, 1.098612, 0.810930],
        rtol=1e-6,
    )
    gx, gy = gradient(mt.math.xlog1py, [0.0, 1.0, 2.0], [-1.0, 2.0, 0.5])
    np.testing.assert_allclose(gx, [0, 1.098612, 0.405465], atol=1e-6)
    np.testing.assert_allclose(gy, [0, 0.333333, 1.333333], atol=1e-6)
    gx, gy = gradient(mt.math.xdivy, [0.0, 1.0, 2.0], [0.0, 2.0, 0.5])
    np.testing.assert_allclose(gx, [0, 0.5, 2.0])
    np.testing.assert_allclose(gy, [0, -0.25, -8.0])
    assert mt.math.reciprocal_no_nan(mt.constant([0.0, 2.0])).numpy().tolist() == [0.0, 0.5]
    assert mt.math.scalar_mul(2.0, mt.constant([1.0, 2.0])).numpy().tolist() == [2.0, 4.0]
