"""reduce_mean, reduce_sum and sparse cross-entropy skip numpy's Python wrappers: the same bits as the long way."""

import itertools
import warnings

import numpy as np
import pytest

import minitape as mt
from minitape.values.errors import InvalidArgumentError

rng = np.random.default_rng(11)
DTYPES = ["float16", "float32", "float64", "int8", "int32", "int64", "uint8", "uint16"]
AXES = [None, 0, -1, (0, 1), (1, -3), [2, 0], "tensor"]


def _sample(dtype, shape):
    if dtype.startswith("float"):
        return (rng.standard_normal(shape) * 10.0 ** rng.integers(-2, 4)).astype(dtype)
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max, shape, dtype=dtype, endpoint=True)


@pytest.mark.parametrize("dtype", DTYPES)
def test_reduce_mean_and_sum_give_numpys_bits_in_the_input_dtype(dtype):
    # numpy sums float16 in float32 and ints in float64, and rounds a float16 array mean twice but a scalar once
    for shape, axis, keepdims in itertools.product([(3, 5, 7), (2, 1, 9)], AXES, [False, True]):
        a = _sample(dtype, shape)
        ax = mt.constant([0, -1]) if axis == "tensor" else axis
        normal = tuple(range(3)) if axis is None else (0, 2) if axis == "tensor" else np.atleast_1d(axis) % 3
        normal = tuple(sorted(set(int(i) for i in normal)))
        with np.errstate(all="ignore"):
            mean = np.asarray(np.mean(a, axis=normal, keepdims=keepdims), dtype)
            total = np.asarray(np.sum(a, axis=normal, keepdims=keepdims), dtype)
        for got, want in ((mt.reduce_mean(a, axis=ax, keepdims=keepdims), mean),
                          (mt.reduce_sum(a, axis=ax, keepdims=keepdims), total)):  # fmt: skip
            assert got.numpy().dtype == want.dtype and got.shape == want.shape, (shape, axis, keepdims)
            assert got.numpy().tobytes() == want.tobytes(), (shape, axis, keepdims)


def test_a_float16_mean_keeps_numpys_two_roundings():
    # the float32 sum / 8193 lies just above a float16 midpoint: rounded once (a scalar) it goes up to 1.001,
    # rounded to float32 first (an array, keepdims) it lands on the midpoint and goes to the even 1.0
    v = np.array([1.0] * 8191 + [6.0, 2.0**-10], np.float16)
    assert mt.reduce_mean(v).numpy() == np.mean(v) == np.float16(1.0 + 2.0**-10)
    assert mt.reduce_mean(v, keepdims=True).numpy() == np.mean(v, keepdims=True) == np.float16(1.0)


def test_reduce_mean_gradient_divides_by_the_count_of_each_output():
    x = mt.constant(rng.standard_normal((2, 3, 4)).astype(np.float32))
    for axis, count in [(None, 24), (1, 3), ((0, -1), 8), ([2], 4)]:
        with mt.GradientTape() as tape:
            tape.watch(x)
            y = mt.reduce_mean(x, axis=axis)
        assert np.array_equal(tape.gradient(y, x).numpy(), np.full((2, 3, 4), np.float32(1) / count))


def test_reduce_axes_out_of_range_still_refused():
    x = mt.constant(np.ones((2, 3), np.float32))
    for axis in (2, -3, (0, 2), [1, -3]):
        with pytest.raises(InvalidArgumentError, match="out of range for a tensor of rank 2"):
            mt.reduce_mean(x, axis=axis)


@pytest.mark.parametrize("dtype", ["int8", "int16", "int32", "int64", "uint8", "uint16"])
def test_sparse_cross_entropy_finds_a_bad_label_on_either_side_with_one_test(dtype):
    # labels are compared as unsigned: a negative one is huge, so one maximum catches both kinds
    logits = mt.constant(np.zeros((3, 4), np.float32))
    info = np.iinfo(dtype)
    for bad in {info.min, -1, 4, info.max} - set(range(4)):
        if info.min <= bad <= info.max:
            labels = np.array([0, bad, 3], dtype)
            with pytest.raises(InvalidArgumentError, match=rf"label {bad} is outside the valid range \[0, 4\)"):
                mt.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)
    good = mt.nn.sparse_softmax_cross_entropy_with_logits(labels=np.array([0, 3, 1], dtype), logits=logits)
    np.testing.assert_allclose(good.numpy(), np.log(4), rtol=1e-6)


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_sparse_cross_entropy_of_non_finite_and_huge_rows_as_the_plain_formula(dtype):
    # a row whose maximum is not finite is shifted by 0, the others by their maximum
    big = float(np.finfo(dtype).max)
    logits = np.array(
        [[1, 2, 3], [np.inf, 1, 2], [-np.inf] * 3, [np.nan, 1, 2], [1, -np.inf, 2], [big, -big, 0], [1e3, 2e3, 0]],
        dtype,
    )
    labels = np.array([2, 1, 1, 1, 1, 1, 0])  # an infinite row's finite label: inf with the shift set to 0, else NaN
    with np.errstate(all="ignore"):
        top = logits.max(axis=-1, keepdims=True)
        shifted = logits - np.where(np.isfinite(top), top, 0)
        total = np.exp(shifted).sum(axis=-1)
        want = np.log(total) - shifted[np.arange(7), labels]
    got = mt.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=mt.constant(logits))
    assert got.numpy().dtype == dtype
    np.testing.assert_array_equal(got.numpy(), want)


def test_scalar_logits_are_refused_with_a_message_not_an_index_error():
    with pytest.raises(InvalidArgumentError, match="logits must have a last axis of classes"):
        mt.nn.sparse_softmax_cross_entropy_with_logits(labels=mt.constant(1), logits=mt.constant(2.0))


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
@pytest.mark.parametrize(("shape", "axis", "keepdims"), [((0,), None, False), ((2, 0), 1, False), ((2, 0), 1, True)])
def test_the_mean_of_nothing_is_nan_without_a_warning_as_in_tensorflow(dtype, shape, axis, keepdims):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # numpy's np.mean says "Mean of empty slice"; TensorFlow says nothing
        got = mt.reduce_mean(np.zeros(shape, dtype), axis=axis, keepdims=keepdims)
    want_shape = np.sum(np.zeros(shape), axis=axis, keepdims=keepdims).shape
    assert got.dtype.name == dtype and got.shape == want_shape and np.isnan(got.numpy()).all()
    x = mt.constant(np.zeros(shape, dtype))
    with mt.GradientTape() as tape:
        tape.watch(x)
        y = mt.reduce_sum(mt.reduce_mean(x, axis=axis, keepdims=keepdims))
    assert tape.gradient(y, x).shape == shape  # an empty gradient: nothing to spread it over


@pytest.mark.parametrize("dtype", ["int32", "uint8"])
def test_the_integer_mean_of_nothing_is_refused_not_a_garbage_number(dtype):
    with pytest.raises(InvalidArgumentError, match=rf"Mean\({dtype}\[2, 0\].*empty slice.*mt.cast\(x, mt.float32\)"):
        mt.reduce_mean(np.zeros((2, 0), dtype), axis=1)
    assert mt.reduce_mean(np.zeros((0, 3), dtype), axis=1).shape == (0,)  # no slice at all: an empty result
