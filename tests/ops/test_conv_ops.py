"""Conv2D and MaxPool primitives: values against plain loops, gradients of order 1 and 2, errors."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import minitape as mt
from minitape.aids.check_gradients import check_gradients
from minitape.ops import conv_ops
from minitape.values.errors import InvalidArgumentError


def _pads(size, k, s, padding):
    if padding == "VALID":
        return (size - k) // s + 1, 0
    out = -(-size // s)
    return out, max((out - 1) * s + k - size, 0) // 2


def conv_by_loops(x, w, s, padding):
    """The definition, one output pixel at a time: the reference the vectorised op must match."""
    n, h, wd, _ = x.shape
    kh, kw, _, f = w.shape
    (oh, top), (ow, left) = _pads(h, kh, s[0], padding), _pads(wd, kw, s[1], padding)
    out = np.zeros((n, oh, ow, f))
    for b, i, j in itertools.product(range(n), range(oh), range(ow)):
        for di, dj in itertools.product(range(kh), range(kw)):
            r, c = i * s[0] + di - top, j * s[1] + dj - left
            if 0 <= r < h and 0 <= c < wd:
                out[b, i, j] += x[b, r, c] @ w[di, dj]
    return out


def pool_by_loops(x, k, s, padding):
    n, h, wd, ch = x.shape
    (oh, top), (ow, left) = _pads(h, k[0], s[0], padding), _pads(wd, k[1], s[1], padding)
    out = np.full((n, oh, ow, ch), -np.inf)
    for i, j, di, dj in itertools.product(range(oh), range(ow), range(k[0]), range(k[1])):
        r, c = i * s[0] + di - top, j * s[1] + dj - left
        if 0 <= r < h and 0 <= c < wd:
            out[:, i, j] = np.maximum(out[:, i, j], x[:, r, c])
    return out


CASES = [  # (image h, w), kernel (kh, kw), strides, padding
    ((5, 6), (3, 3), (1, 1), "VALID"),
    ((5, 6), (3, 3), (1, 1), "SAME"),
    ((7, 6), (3, 2), (2, 2), "VALID"),
    ((7, 6), (3, 2), (2, 3), "SAME"),
    ((4, 4), (1, 1), (1, 1), "SAME"),
    ((8, 8), (2, 2), (2, 2), "SAME"),
]


@pytest.mark.parametrize("hw, k, s, padding", CASES)
def test_conv2d_matches_the_definition(hw, k, s, padding):
    rng = np.random.default_rng(0)
    x, w = rng.normal(size=(2, *hw, 3)), rng.normal(size=(*k, 3, 4))
    got = mt.nn.conv2d(mt.constant(x), mt.constant(w), strides=s, padding=padding)
    np.testing.assert_allclose(got.numpy(), conv_by_loops(x, w, s, padding), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("hw, k, s, padding", CASES)
def test_conv2d_gradients_of_first_and_second_order(hw, k, s, padding):
    rng = np.random.default_rng(1)
    x, w = rng.normal(size=(2, *hw, 2)), rng.normal(size=(*k, 2, 3))
    check_gradients(lambda a, b: conv_ops.conv2d(a, b, strides=s, padding=padding), [x, w], order=2)


def test_conv_gradient_ops_have_gradients_themselves():
    rng = np.random.default_rng(2)
    x, w, dy = rng.normal(size=(2, 5, 5, 2)), rng.normal(size=(3, 3, 2, 3)), rng.normal(size=(2, 3, 3, 3))
    attrs = {"strides": (2, 2), "padding": "SAME"}
    check_gradients(
        lambda d, f: conv_ops.conv2d_backprop_input_op(d, f, input_shape=(2, 5, 5, 2), **attrs), [dy, w], order=2
    )
    check_gradients(
        lambda a, d: conv_ops.conv2d_backprop_filter_op(a, d, filter_shape=(3, 3, 2, 3), **attrs), [x, dy], order=2
    )


POOLS = [
    ((6, 6), (2, 2), (2, 2), "VALID"),
    ((7, 5), (2, 2), (2, 2), "VALID"),  # odd sizes: the last row/column is dropped
    ((7, 5), (2, 2), (2, 2), "SAME"),
    ((6, 7), (3, 3), (1, 2), "VALID"),  # overlapping windows
    ((5, 5), (3, 2), (2, 1), "SAME"),
]


@pytest.mark.parametrize("hw, k, s, padding", POOLS)
def test_max_pool_matches_the_definition_and_differentiates(hw, k, s, padding):
    rng = np.random.default_rng(3)
    x = rng.normal(size=(2, *hw, 3))
    got = mt.nn.max_pool2d(mt.constant(x), ksize=k, strides=s, padding=padding)
    np.testing.assert_array_equal(got.numpy(), pool_by_loops(x, k, s, padding))
    check_gradients(lambda a: conv_ops.max_pool2d(a, ksize=k, strides=s, padding=padding), [x], order=2)


def test_max_pool_gradient_goes_to_the_first_maximum_on_ties():
    x = mt.constant(np.ones((1, 2, 2, 1)))
    with mt.GradientTape() as tape:
        tape.watch(x)
        y = conv_ops.max_pool2d(x, ksize=2, strides=2)
    np.testing.assert_array_equal(tape.gradient(y, x).numpy()[0, :, :, 0], [[1, 0], [0, 0]])


def test_float32_stays_float32():
    x = mt.constant(np.zeros((1, 4, 4, 2), np.float32))
    w = mt.constant(np.zeros((3, 3, 2, 5), np.float32))
    assert conv_ops.conv2d(x, w, padding="SAME").dtype == mt.float32
    assert conv_ops.max_pool2d(x, 2, 2).dtype == mt.float32


def test_tensorflow_style_four_entry_strides():
    rng = np.random.default_rng(4)
    x, w = rng.normal(size=(1, 6, 6, 1)), rng.normal(size=(2, 2, 1, 1))
    a = conv_ops.conv2d(mt.constant(x), mt.constant(w), strides=[1, 2, 2, 1], padding="VALID")
    np.testing.assert_allclose(a.numpy(), conv_by_loops(x, w, (2, 2), "VALID"))


@pytest.mark.parametrize(
    "x_shape, w_shape, pattern",
    [
        ((8, 8, 1), (3, 3, 1, 4), "4-D input"),
        ((1, 8, 8, 3), (3, 3, 1, 4), "3 channels"),
        ((1, 2, 2, 1), (3, 3, 1, 4), "does not fit"),
    ],
)
def test_conv2d_errors_name_the_op_and_shapes(x_shape, w_shape, pattern):
    with pytest.raises(InvalidArgumentError, match=pattern) as info:
        conv_ops.conv2d(mt.constant(np.zeros(x_shape)), mt.constant(np.zeros(w_shape)))
    assert "Conv2D" in str(info.value)


def test_pool_and_padding_errors():
    with pytest.raises(InvalidArgumentError, match=r"max_pool2d needs a 4-D.*x\[..., None\]"):
        conv_ops.max_pool2d(mt.constant(np.zeros((4, 4))), 2, 2)
    with pytest.raises(ValueError, match='padding must be "SAME" or "VALID"'):
        conv_ops.conv2d(mt.constant(np.zeros((1, 4, 4, 1))), mt.constant(np.zeros((2, 2, 1, 1))), padding="full")


def test_forward_mode_through_conv_and_pool_matches_finite_differences():
    rng = np.random.default_rng(5)
    x, w, t = rng.normal(size=(1, 5, 5, 2)), rng.normal(size=(3, 3, 2, 3)), rng.normal(size=(1, 5, 5, 2))

    def f(a):
        return mt.nn.max_pool2d(mt.nn.conv2d(a, mt.constant(w), strides=1, padding="SAME"), 2, 2)

    primal = mt.constant(x)
    with mt.autodiff.ForwardAccumulator(primal, mt.constant(t)) as acc:
        y = f(primal)
    numeric = (f(mt.constant(x + 1e-6 * t)).numpy() - f(mt.constant(x - 1e-6 * t)).numpy()) / 2e-6
    np.testing.assert_allclose(acc.jvp(y).numpy(), numeric, atol=1e-6)


def test_conv2d_transpose_with_sizes_that_do_not_fit_names_them():
    x, w = np.ones((1, 4, 5, 2)), np.ones((3, 3, 6, 2))
    assert mt.nn.conv2d_transpose(x, w, output_shape=[1, 8, 10, 6], strides=2).shape == (1, 8, 10, 6)
    with pytest.raises(mt.errors.InvalidArgumentError, match=r"do not give output_shape \[1, 9, 9, 6\]"):
        mt.nn.conv2d_transpose(x, w, output_shape=[1, 9, 9, 6], strides=2)
    with pytest.raises(mt.errors.InvalidArgumentError, match=r"the input needs 2 channels"):
        mt.nn.conv2d_transpose(np.ones((1, 4, 5, 3)), w, output_shape=[1, 8, 10, 6], strides=2)
