"""A bias's gradient sums the upstream gradient over every leading axis. For many rows (a convolution's bias
sums batch * height * width of them) the float sum is a BLAS product with a vector of ones, not np.add.reduce:
another order of the same additions, so within float rounding of the exact sum; few rows, other dtypes and other
broadcasts keep np.add.reduce, bit for bit."""

from __future__ import annotations

import numpy as np
import pytest

import minitape as mt
from minitape.aids.check_gradients import check_gradients
from minitape.ops import math_ops


def _bias_gradient(shape, dtype, seed=0):
    g = np.random.default_rng(seed).standard_normal(shape).astype(dtype)
    x = mt.constant(np.zeros(shape, dtype))
    b = mt.Variable(np.zeros(shape[-1:], dtype))
    with mt.GradientTape() as tape:
        y = x + b
    return g, tape.gradient(y, b, output_gradients=mt.constant(g)).numpy()


@pytest.mark.parametrize(
    "shape, dtype",
    [((32, 8, 8, 16), np.float32), ((32, 4, 4, 32), np.float32), ((7, 30, 5), np.float64), ((200, 3), np.float32)],
)
def test_a_bias_gradient_over_many_rows_is_the_sum_within_float_rounding(shape, dtype):
    g, got = _bias_gradient(shape, dtype)
    assert got.dtype == dtype and got.shape == shape[-1:]
    rows = g.reshape(-1, shape[-1]).astype(np.float64)
    exact = rows.sum(axis=0)
    # a float sum of n terms, in any order, is within n * eps/2 * sum(|terms|) of the exact sum
    bound = len(rows) * np.finfo(dtype).eps / 2 * np.abs(rows).sum(axis=0)
    assert np.all(np.abs(got - exact) <= bound)
    np.testing.assert_allclose(got, exact, rtol=1e-4 if dtype == np.float32 else 1e-12, atol=1e-3)


@pytest.mark.parametrize("shape, dtype", [((32, 128), np.float32), ((5, 3, 4), np.float64), ((300, 6), np.float16)])
def test_a_bias_gradient_over_few_rows_or_in_half_precision_is_np_add_reduce_bit_for_bit(shape, dtype):
    g, got = _bias_gradient(shape, dtype)
    np.testing.assert_array_equal(got, np.add.reduce(g, axis=tuple(range(len(shape) - 1))))


def test_summing_integers_to_a_bias_shape_stays_exact():
    g = np.random.default_rng(3).integers(-(2**20), 2**20, (300, 6)).astype(np.int32)
    got = math_ops.sum_to_shape(mt.constant(g), shape=(6,)).numpy()
    assert got.dtype == np.int32
    np.testing.assert_array_equal(got, g.sum(axis=0, dtype=np.int64))


def test_a_bias_gradient_of_a_matrix_bias_and_of_a_strided_gradient():
    """Trailing axes beyond one (a (4, 5) bias over (300, 4, 5)), and an upstream gradient that is a strided view."""
    rng = np.random.default_rng(1)
    g = rng.standard_normal((300, 4, 10)).astype(np.float32)[:, :, ::2]
    x, b = mt.constant(np.zeros((300, 4, 5), np.float32)), mt.Variable(np.zeros((4, 5), np.float32))
    with mt.GradientTape() as tape:
        y = x + b
    got = tape.gradient(y, b, output_gradients=mt.constant(g)).numpy()
    np.testing.assert_allclose(got, g.astype(np.float64).sum(axis=0), rtol=1e-5, atol=1e-4)


def test_a_convolution_bias_gradient_agrees_with_finite_differences():
    rng = np.random.default_rng(2)
    x, w, b = rng.standard_normal((4, 8, 8, 1)), rng.standard_normal((3, 3, 1, 5)), rng.standard_normal(5)
    check_gradients(lambda a, f, c: mt.nn.relu(mt.nn.conv2d(a, f, 1, "SAME") + c), [x, w, b])
