"""Second side-by-side run against TensorFlow 2.21 (1,676 math snippets): what minitape got wrong.

Silent garbage first (a number where TensorFlow refuses), then values at the edges, then
what TensorFlow accepts. Each expectation below is TensorFlow's behaviour, written down here.
"""

import numpy as np
import pytest

import minitape as mt

ERROR = (TypeError, ValueError, mt.errors.InvalidArgumentError)


# ---- dtypes TensorFlow has no kernel for: numpy would wrap round or compute a meaningless number -------------
@pytest.mark.parametrize(
    "call, match",
    [
        # TF: Reciprocal has no integer CPU kernel (NotFoundError); numpy gave 1/0 = -2147483648
        (lambda: mt.math.reciprocal(mt.constant([1, 0])), "floating-point"),
        # TF: Neg, Abs, Sign and Pow have no unsigned kernels; numpy gave -1 = 255
        (lambda: -mt.constant([1, 5], mt.uint8), "uint8"),
        (lambda: mt.abs(mt.constant([1], mt.uint32)), "uint32"),
        (lambda: mt.sign(mt.constant([1], mt.uint64)), "uint64"),
        (lambda: mt.constant([5, 200], mt.uint8) ** 2, "uint8"),
        # TF: Floor, Ceil, IsNan, IsFinite, IsInf take floats only
        (lambda: mt.floor(mt.constant([1, 2])), "floating-point"),
        (lambda: mt.math.ceil(mt.constant([1, 2])), "floating-point"),
        (lambda: mt.math.is_nan(mt.constant([1, 2])), "floating-point"),
        (lambda: mt.math.is_finite(mt.constant([1, 2])), "floating-point"),
        (lambda: mt.math.is_inf(mt.constant([1, 2])), "floating-point"),
    ],
)
def test_ops_without_a_tensorflow_kernel_for_the_dtype_are_refused(call, match):
    with pytest.raises(ERROR, match=match):
        call()


def test_square_of_uint8_stays_allowed_as_in_tensorflow():
    assert mt.square(mt.constant([3], mt.uint8)).numpy().tolist() == [9]  # TF: uint8 [9]


# ---- reductions -----------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "call, match",
    [
        # TF: "Invalid reduction arguments: Axes contains duplicate dimension: 0"; numpy's set read [0, 0] as [0]
        (lambda: mt.reduce_sum(mt.ones([2, 3]), axis=[0, 0]), "twice"),
        (lambda: mt.reduce_sum(mt.ones([2, 3]), axis=[0, -2]), "twice"),
        (lambda: mt.reduce_max(mt.ones([2, 3]), axis=(1, 1)), "twice"),
        (lambda: mt.math.reduce_variance(mt.ones([2, 3]), axis=[0, 0]), "twice"),
        # TF: Any and All take bool tensors only; Max and Min have no bool kernel
        (lambda: mt.reduce_any(mt.constant([1.0, 0.0])), "needs a bool tensor"),
        (lambda: mt.reduce_all(mt.constant([1, 0])), "needs a bool tensor"),
        (lambda: mt.reduce_max(mt.constant([True, False])), "bool"),
        (lambda: mt.reduce_min(mt.constant([True, False])), "bool"),
        # TF: AddN does not broadcast ("must have the same size and shape")
        (lambda: mt.add_n([mt.ones([3, 1]), mt.ones([4])]), "one shape"),
        (lambda: mt.math.add_n([mt.ones([3]), mt.ones([])]), "one shape"),
        # TF: ScanOp "Expected scan axis in the range [0, 0)" for a scalar
        (lambda: mt.cumsum(mt.constant(2.0)), "out of range"),
        (lambda: mt.math.cumprod(mt.constant(2.0)), "out of range"),
        # TF gives 0 (Eigen's NaN of an int, an undocumented fill): refused as 0 / 0 has no integer value
        (lambda: mt.reduce_mean(mt.zeros([0], mt.int32)), "empty"),
    ],
)
def test_reductions_refuse_what_tensorflow_refuses(call, match):
    with pytest.raises(ERROR, match=match):
        call()


def test_max_and_min_over_nothing_are_tensorflows_identities():
    empty = mt.zeros([0, 3])
    assert mt.reduce_max(empty).numpy() == -np.inf and mt.reduce_min(empty).numpy() == np.inf  # TF: -inf, inf
    assert mt.reduce_max(empty, axis=0).numpy().tolist() == [-np.inf] * 3  # TF: [-inf -inf -inf]
    assert mt.reduce_max(empty, axis=1).shape == (0,)
    assert mt.reduce_max(mt.zeros([0], mt.int32)).numpy() == -(2**31)  # TF: -2147483648
    assert mt.reduce_min(mt.zeros([0], mt.int32)).numpy() == 2**31 - 1  # TF: 2147483647
    assert mt.reduce_max(mt.constant([1.0, 3.0, 2.0])).numpy() == 3.0


# ---- constants and Python conversions -------------------------------------------------------------------------
@pytest.mark.parametrize(
    "call, match",
    [
        # TF: "Cannot convert [1, 0] to EagerTensor of dtype bool" (a numpy array of ints does convert)
        (lambda: mt.constant([1, 0], dtype=mt.bool), "dtype bool"),
        (lambda: mt.constant(2, dtype=mt.bool), "dtype bool"),
        # TF: "Expected tensor 1 with dtype tf.float32, but got dtype tf.int32."
        (lambda: mt.constant(mt.constant(1), dtype=mt.float32), "has dtype int32"),
        # TF: "only 0-dimensional arrays can be converted to Python scalars"
        (lambda: float(mt.constant([2.5])), "scalar"),
        (lambda: int(mt.constant([[2]])), "scalar"),
    ],
)
def test_conversions_tensorflow_refuses(call, match):
    with pytest.raises(ERROR, match=match):
        call()


def test_conversions_tensorflow_accepts():
    assert mt.constant(np.array([1, 0]), dtype=mt.bool).numpy().tolist() == [True, False]  # TF: [True, False]
    assert mt.constant(mt.constant(1), dtype=mt.int32).numpy() == 1
    assert bool(mt.constant([])) is False and bool(mt.constant([[0.0]])) is False  # TF: False, False
    assert bool(mt.constant([3.0])) is True and float(mt.constant(2.5)) == 2.5


# ---- values at the edges: TensorFlow's numbers ----------------------------------------------------------------
INF, NAN = float("inf"), float("nan")


def test_square_root_power_at_minus_inf_and_minus_zero_is_c_pow():
    x = mt.constant([0.0, INF, -INF, NAN, -0.0])
    for y in (x**0.5, mt.pow(x, 0.5)):  # TF: [0, inf, inf, nan, 0] (C's pow; numpy's sqrt gives NaN and -0)
        np.testing.assert_array_equal(y.numpy(), [0.0, INF, INF, NAN, 0.0])
        assert not np.signbit(y.numpy()[4])
    np.testing.assert_array_equal((x**3.0).numpy(), [0.0, INF, -INF, NAN, -0.0])  # TF: -inf stays -inf


def test_float_floor_division_is_floor_of_the_quotient():
    a, b = mt.constant([INF, -1.0, NAN, 0.0]), mt.constant([2.0, INF, 1.0, -0.0])
    got = (a // b).numpy()  # TF: [inf, -0, nan, nan]; numpy's divmod gives [nan, -1, nan, nan]
    np.testing.assert_array_equal(got, [INF, -0.0, NAN, NAN])
    assert np.signbit(got[1])
    assert (mt.constant(1.0) // 0.1).numpy() == 10.0  # TF: floor(1 / 0.1) = 10 (Python's 1 // 0.1 is 9)


def test_maximum_and_minimum_send_the_gradient_past_a_nan():
    a, b = mt.constant([NAN, 1.0, 2.0]), mt.constant([1.0, NAN, 2.0])
    for op in (mt.maximum, mt.minimum):
        with mt.GradientTape() as tape:
            tape.watch([a, b])
            y = op(a, b)
        da, db = tape.gradient(y, [a, b])
        assert da.numpy().tolist() == [0, 0, 1] and db.numpy().tolist() == [1, 1, 0]  # TF: x >= y (x <= y) else y


def test_clip_by_value_with_min_above_max_gives_the_min():
    assert mt.clip_by_value(mt.constant([1.0, 5.0]), 8.0, 2.0).numpy().tolist() == [8.0, 8.0]  # TF: [8, 8]


def test_leaky_relu_of_integers_is_float32():
    y = mt.nn.leaky_relu(mt.constant([-1, 2], mt.int64))  # TF: [-0.2, 2.] float32
    assert y.dtype == mt.float32 and y.numpy().tolist() == pytest.approx([-0.2, 2.0])
