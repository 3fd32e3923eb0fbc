"""Convolutions whose im2col matrix would be too large (conv_ops.IM2COL_LIMIT bytes) take their products one kernel
offset at a time: the same numbers, found here against numpy's own sums over offsets and finite differences, with
the limit set to 0 so that small cases take that path too."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest

import minitape as mt
from minitape.aids.check_gradients import check_gradients
from minitape.ops import conv_ops

CASES = [  # (input shape, filter shape, strides, padding)
    ((3, 9, 8, 5), (3, 3, 5, 4), (1, 1), "SAME"),
    ((2, 10, 11, 3), (4, 4, 3, 6), (2, 2), "SAME"),
    ((2, 10, 11, 3), (3, 2, 3, 2), (2, 1), "VALID"),
    ((2, 7, 7, 4), (7, 7, 4, 1), (1, 1), "SAME"),
    ((0, 5, 5, 2), (3, 3, 2, 2), (1, 1), "SAME"),
]


def _by_offsets(x, w, strides, padding):
    """conv2d as numpy einsum over each kernel offset of the padded input, in float64."""
    (sh, sw), (kh, kw) = strides, w.shape[:2]
    out_hw, pads = conv_ops._geometry(x.shape[1:3], (kh, kw), strides, padding)
    xp = np.pad(x.astype(np.float64), pads)
    out = np.zeros((x.shape[0], *out_hw, w.shape[3]))
    for i in range(kh):
        for j in range(kw):
            seen = xp[:, i : i + sh * out_hw[0] : sh, j : j + sw * out_hw[1] : sw]
            out += np.einsum("nhwc,co->nhwo", seen, w[i, j].astype(np.float64))
    return out


@pytest.mark.parametrize("x_shape, w_shape, strides, padding", CASES)
def test_without_im2col_the_convolution_and_its_gradients_are_those_of_the_sums_over_offsets(
    monkeypatch, x_shape, w_shape, strides, padding
):
    monkeypatch.setattr(conv_ops, "IM2COL_LIMIT", 0)
    rng = np.random.default_rng(sum(x_shape) + sum(w_shape))
    x = rng.standard_normal(x_shape).astype(np.float32)
    w = rng.standard_normal(w_shape).astype(np.float32)
    xt, wt = mt.constant(x), mt.Variable(w)
    with mt.GradientTape() as tape:
        tape.watch(xt)
        y = mt.nn.conv2d(xt, wt, strides=strides, padding=padding)
    dy = rng.standard_normal(y.shape).astype(np.float32)
    dx, dw = tape.gradient(y, [xt, wt], output_gradients=mt.constant(dy))
    assert y.dtype == dx.dtype == dw.dtype == mt.float32
    np.testing.assert_allclose(y.numpy(), _by_offsets(x, w, strides, padding), rtol=2e-5, atol=2e-5)
    # the gradients, as the sums' own: d<y, dy>/dx and d<y, dy>/dw by the linear map's adjoint, in float64
    with mt.GradientTape() as reference:
        x64, w64 = mt.constant(x.astype(np.float64)), mt.Variable(w.astype(np.float64))
        reference.watch(x64)
        monkeypatch.setattr(conv_ops, "IM2COL_LIMIT", 1 << 40)  # the im2col path, tested elsewhere
        inner = mt.reduce_sum(mt.nn.conv2d(x64, w64, strides=strides, padding=padding) * dy.astype(np.float64))
    want_dx, want_dw = reference.gradient(inner, [x64, w64])
    np.testing.assert_allclose(dx.numpy(), want_dx.numpy(), rtol=2e-5, atol=2e-5)
    np.testing.assert_allclose(dw.numpy(), want_dw.numpy(), rtol=2e-5, atol=2e-5)


@pytest.mark.parametrize("x_shape, w_shape, strides, padding", CASES[:4])
def test_without_im2col_the_gradients_agree_with_finite_differences(monkeypatch, x_shape, w_shape, strides, padding):
    monkeypatch.setattr(conv_ops, "IM2COL_LIMIT", 0)
    rng = np.random.default_rng(7)
    x, w = rng.standard_normal((1, *x_shape[1:])), rng.standard_normal(w_shape)
    check_gradients(lambda a, b: conv_ops.conv2d(a, b, strides=strides, padding=padding), [x, w], order=2)


def test_a_7x7_filter_over_128_channels_never_makes_its_im2col_matrix():
    """The last layer of keras-io's GAN generator, on 8 images: its im2col matrix would be 157 MB."""
    rng = np.random.default_rng(0)
    x = mt.constant(rng.standard_normal((8, 28, 28, 128)).astype(np.float32))
    w = mt.Variable(rng.standard_normal((7, 7, 128, 1)).astype(np.float32) * 0.01)
    tracemalloc.start()
    try:
        with mt.GradientTape() as tape:
            tape.watch(x)
            y = mt.nn.conv2d(x, w, strides=1, padding="SAME")
        dx, dw = tape.gradient(y, [x, w])
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 40e6, f"peak {peak / 1e6:.0f} MB"  # the input is 3.2 MB, a padded copy 4.7 MB
    np.testing.assert_allclose(y.numpy(), _by_offsets(x.numpy(), w.numpy(), (1, 1), "SAME"), rtol=1e-4, atol=1e-5)
    assert dx.shape == x.shape and dw.shape == w.shape
