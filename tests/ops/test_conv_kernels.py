"""The convolution and max-pool kernels of issue 26 against plain references (loops over output positions), on
random shapes: strides, SAME/VALID, dilation, odd sizes, channel counts; float32 stays float32.

What stays bit for bit: Conv2D's forward pass and its filter gradient are the product of the same im2col matrix
as before (built now by one copy of a strided view instead of one copy per kernel offset), so with several input
channels they are equal to the old formulation to the last bit (`test_the_forward_pass_and_filter_gradient_...`).
With one input channel the matrix is copied as its transpose (longer runs to copy) and handed to BLAS as a
transposed view: the same numbers, but BLAS may sum them in another order (a matrix-vector product with one
filter, or a long sum over pixels blocked differently), so those agree within float32 rounding, tested there.
The input gradient is one product per kernel offset (strides, VALID), or for stride 1 with SAME padding one
product of dy's im2col with the turned filter: the sums are the same in another order, within float32 rounding
(`test_the_turned_filter_input_gradient_...`).
Max pooling's maxima are exact, whichever order np.maximum meets a window's pixels in (tiles: rows first); its
gradients are exact too (each window's gradient is moved, not summed).
"""

from __future__ import annotations

import numpy as np
import pytest

import minitape as mt
from minitape.aids.check_gradients import check_gradients
from minitape.ops import conv_ops


# ---- references: loops over output positions ---------------------------------------------------------
def _pads(size: int, k: int, s: int, padding: str) -> tuple[int, int, int]:
    if padding == "VALID":
        return (size - k) // s + 1, 0, 0
    out = -(-size // s)
    total = max((out - 1) * s + k - size, 0)
    return out, total // 2, total - total // 2


def _geometry(x, k_hw, strides, padding, fill=0.0):
    (oh, pt, pb), (ow, pl, pr) = (_pads(n, k, s, padding) for n, k, s in zip(x.shape[1:3], k_hw, strides))
    xp = np.pad(x, ((0, 0), (pt, pb), (pl, pr), (0, 0)), constant_values=fill)
    return oh, ow, xp, (pt, pl)


def conv_reference(x, w, strides, padding, dilations=(1, 1)):
    """out[n, i, j, f] = sum over the dilated window and the channels, position by position."""
    (dh, dw), (kh, kw) = dilations, w.shape[:2]
    span = ((kh - 1) * dh + 1, (kw - 1) * dw + 1)
    oh, ow, xp, _ = _geometry(x, span, strides, padding)
    out = np.zeros((x.shape[0], oh, ow, w.shape[3]), np.float64)
    for i in range(oh):
        for j in range(ow):
            r, c = i * strides[0], j * strides[1]
            window = xp[:, r : r + span[0] : dh, c : c + span[1] : dw, :]  # (N, kh, kw, C)
            out[:, i, j, :] = np.tensordot(window.astype(np.float64), w.astype(np.float64), axes=3)
    return out


def conv_input_gradient_reference(dy, w, in_shape, strides, padding):
    """The adjoint of conv_reference in x: each output position sends dy * w back to its window."""
    oh, ow, xp, (pt, pl) = _geometry(np.zeros(in_shape), w.shape[:2], strides, padding)
    dx = np.zeros(xp.shape, np.float64)
    for i in range(oh):
        for j in range(ow):
            r, c = i * strides[0], j * strides[1]
            dx[:, r : r + w.shape[0], c : c + w.shape[1], :] += np.einsum("nf,hwcf->nhwc", dy[:, i, j], w)
    return dx[:, pt : pt + in_shape[1], pl : pl + in_shape[2]]


def conv_filter_gradient_reference(x, dy, k_hw, strides, padding):
    oh, ow, xp, _ = _geometry(x, k_hw, strides, padding)
    dw = np.zeros((*k_hw, x.shape[3], dy.shape[3]), np.float64)
    for i in range(oh):
        for j in range(ow):
            r, c = i * strides[0], j * strides[1]
            dw += np.einsum("nhwc,nf->hwcf", xp[:, r : r + k_hw[0], c : c + k_hw[1]], dy[:, i, j])
    return dw


def pool_reference(x, k_hw, strides, padding, dy=None):
    """The max of each window, and (with dy) the gradient: each window's dy to its first maximum."""
    oh, ow, xp, (pt, pl) = _geometry(x, k_hw, strides, padding, fill=-np.inf)
    out = np.empty((x.shape[0], oh, ow, x.shape[3]), x.dtype)
    dx = np.zeros(xp.shape, np.float64)
    for i in range(oh):
        for j in range(ow):
            r, c = i * strides[0], j * strides[1]
            window = xp[:, r : r + k_hw[0], c : c + k_hw[1], :].reshape(x.shape[0], -1, x.shape[3])
            out[:, i, j] = window.max(axis=1)
            first = window.argmax(axis=1)  # numpy's argmax: the first maximum
            for n in range(x.shape[0]):
                for ch in range(x.shape[3]):
                    a, b = divmod(int(first[n, ch]), k_hw[1])
                    if dy is not None:
                        dx[n, r + a, c + b, ch] += dy[n, i, j, ch]
    return out, dx[:, pt : pt + x.shape[1], pl : pl + x.shape[2]]


# ---- random cases ----------------------------------------------------------------------------------------
def _cases(count: int, seed: int):
    rng = np.random.default_rng(seed)
    for _ in range(count):
        k = (int(rng.integers(1, 4)), int(rng.integers(1, 4)))
        s = (int(rng.integers(1, 4)), int(rng.integers(1, 3)))
        hw = (int(rng.integers(k[0], 10)), int(rng.integers(k[1], 10)))
        channels = (int(rng.integers(1, 5)), int(rng.integers(1, 6)))
        yield hw, k, s, str(rng.choice(["SAME", "VALID"])), channels


CONV_CASES = list(_cases(14, 0))


@pytest.mark.parametrize("hw, k, s, padding, channels", CONV_CASES)
def test_conv2d_and_its_gradients_match_loops_over_output_positions_in_float32(hw, k, s, padding, channels):
    rng = np.random.default_rng(hash((hw, k, s)) % 2**32)
    c_in, c_out = channels
    x = rng.standard_normal((2, *hw, c_in)).astype(np.float32)
    w = rng.standard_normal((*k, c_in, c_out)).astype(np.float32)
    xt, wt = mt.constant(x), mt.Variable(w)
    with mt.GradientTape() as tape:
        tape.watch(xt)
        y = mt.nn.conv2d(xt, wt, strides=s, padding=padding)
    dy = rng.standard_normal(y.shape).astype(np.float32)
    dx, dw = tape.gradient(y, [xt, wt], output_gradients=mt.constant(dy))
    assert y.dtype == dx.dtype == dw.dtype == mt.float32
    tolerance = {"rtol": 2e-5, "atol": 2e-5}  # float32 rounding of sums of a few dozen products
    np.testing.assert_allclose(y.numpy(), conv_reference(x, w, s, padding), **tolerance)
    np.testing.assert_allclose(dx.numpy(), conv_input_gradient_reference(dy, w, x.shape, s, padding), **tolerance)
    np.testing.assert_allclose(dw.numpy(), conv_filter_gradient_reference(x, dy, k, s, padding), **tolerance)


@pytest.mark.parametrize("dilations", [(2, 1), (1, 3), (2, 2)])
@pytest.mark.parametrize("padding", ["SAME", "VALID"])
def test_dilated_conv2d_matches_its_loops_and_finite_differences(dilations, padding):
    rng = np.random.default_rng(4)
    x, w = rng.standard_normal((2, 9, 8, 3)), rng.standard_normal((3, 2, 3, 2))
    got = mt.nn.conv2d(mt.constant(x.astype(np.float32)), mt.constant(w.astype(np.float32)), 1, padding,
                       dilations=dilations)  # fmt: skip
    assert got.dtype == mt.float32
    np.testing.assert_allclose(got.numpy(), conv_reference(x, w, (1, 1), padding, dilations), rtol=2e-5, atol=2e-5)
    check_gradients(lambda a, b: mt.nn.conv2d(a, b, 1, padding, dilations=dilations), [x, w])


@pytest.mark.parametrize("hw, k, s, padding, channels", CONV_CASES[:6])
def test_conv2d_gradients_agree_with_finite_differences(hw, k, s, padding, channels):
    rng = np.random.default_rng(5)
    x, w = rng.standard_normal((2, *hw, channels[0])), rng.standard_normal((*k, *channels))
    check_gradients(lambda a, b: conv_ops.conv2d(a, b, strides=s, padding=padding), [x, w], order=2)


def _im2col_per_offset(x, k_hw, strides, out_hw, pads):
    """The im2col before issue 26: one strided copy per kernel offset."""
    xp = conv_ops._pad(x, pads)
    n, c = x.shape[0], x.shape[3]
    cols = np.empty((n, *out_hw, k_hw[0] * k_hw[1], c), dtype=x.dtype)
    for k, where in enumerate(conv_ops._offsets(k_hw, strides, out_hw)):
        cols[:, :, :, k] = xp[where]
    return cols.reshape(n * out_hw[0] * out_hw[1], -1)


def assert_within_float32_rounding(got, want, magnitudes, terms: int) -> None:
    """Two float32 sums of the same `terms` products, in different orders, each within terms * eps/2 *
    `magnitudes` (the sum of the products' absolute values) of the exact sum: so within terms * eps of each
    other. Equality is not asked for, and nothing looser is allowed."""
    assert got.dtype == want.dtype == np.float32
    bound = terms * np.finfo(np.float32).eps * np.asarray(magnitudes, np.float64)
    assert np.all(np.abs(got.astype(np.float64) - want) <= bound)


ONE_CHANNEL_CASES = [  # beside CONV_CASES' own
    ((8, 8), (3, 3), (1, 1), "SAME", (1, 16)),  # the digits CNN's first layer
    ((9, 7), (2, 3), (1, 1), "VALID", (1, 5)),
    ((12, 11), (3, 3), (2, 1), "SAME", (1, 4)),
    ((6, 6), (3, 3), (1, 2), "SAME", (1, 3)),  # stride 2 along the width: the usual copy
]


@pytest.mark.parametrize("hw, k, s, padding, channels", CONV_CASES + ONE_CHANNEL_CASES)
def test_the_forward_pass_and_filter_gradient_are_bit_for_bit_those_of_the_per_offset_im2col(
    hw, k, s, padding, channels
):
    rng = np.random.default_rng(6)
    batch = 33  # a long sum over pixels for the filter gradient
    x = rng.standard_normal((batch, *hw, channels[0])).astype(np.float32)
    w = rng.standard_normal((*k, *channels)).astype(np.float32)
    out_hw, pads = conv_ops._geometry(hw, k, s, padding)
    old_cols = _im2col_per_offset(x, k, s, out_hw, pads)
    np.testing.assert_array_equal(conv_ops._im2col(x, k, s, out_hw, pads), old_cols)  # the same numbers always
    old_forward = (old_cols @ w.reshape(-1, channels[1])).reshape(batch, *out_hw, channels[1])
    dy = rng.standard_normal(old_forward.shape).astype(np.float32)
    old_filter = (old_cols.T @ dy.reshape(-1, channels[1])).reshape(w.shape)
    forward = conv_ops._conv2d(x, w, s, padding)
    filter_gradient = conv_ops._conv2d_backprop_filter(x, dy, w.shape, s, padding)
    if channels[0] == 1 and s[1] == 1:  # the transposed copy: BLAS may sum in another order
        a, b = np.abs(old_cols).astype(np.float64), np.abs(w.reshape(-1, channels[1])).astype(np.float64)
        assert_within_float32_rounding(forward, old_forward, (a @ b).reshape(forward.shape), old_cols.shape[1])
        d = np.abs(dy.reshape(-1, channels[1])).astype(np.float64)
        assert_within_float32_rounding(filter_gradient, old_filter, (a.T @ d).reshape(w.shape), old_cols.shape[0])
    else:
        np.testing.assert_array_equal(forward, old_forward)
        np.testing.assert_array_equal(filter_gradient, old_filter)


SAME_STRIDE_1_CASES = [  # (batch, hw, k, channels): even kernels pad one pixel more after than before
    (3, (8, 8), (3, 3), (16, 32)),
    (2, (4, 4), (3, 3), (8, 16)),
    (2, (5, 7), (2, 2), (3, 4)),
    (2, (6, 5), (4, 3), (2, 1)),
    (1, (3, 9), (1, 4), (1, 3)),
    (2, (2, 2), (5, 5), (2, 2)),  # a kernel larger than the image
    (2, (7, 6), (1, 1), (4, 2)),
]


@pytest.mark.parametrize("batch, hw, k, channels", SAME_STRIDE_1_CASES)
def test_the_turned_filter_input_gradient_matches_the_per_offset_one_and_the_loops(batch, hw, k, channels):
    """Stride 1, SAME: the input gradient is dy's im2col times the turned filter, one product; the per-offset
    products (what strides and VALID take) sum the same products in another order."""
    rng = np.random.default_rng(9)
    c_in, c_out = channels
    w = rng.standard_normal((*k, c_in, c_out)).astype(np.float32)
    dy = rng.standard_normal((batch, *hw, c_out)).astype(np.float32)
    shape = (batch, *hw, c_in)
    got = conv_ops._conv2d_backprop_input(dy, w, shape, (1, 1), "SAME")
    out_hw, pads = conv_ops._geometry(hw, k, (1, 1), "SAME")
    per_offset = conv_ops._col2im_product(dy, w, shape, (1, 1), out_hw, pads)
    magnitudes = conv_input_gradient_reference(np.abs(dy), np.abs(w), shape, (1, 1), "SAME")
    assert_within_float32_rounding(got, per_offset, magnitudes, k[0] * k[1] * c_out)
    np.testing.assert_allclose(got, conv_input_gradient_reference(dy, w, shape, (1, 1), "SAME"), rtol=2e-5, atol=2e-5)


@pytest.mark.parametrize("batch, hw, k, channels", SAME_STRIDE_1_CASES[2:5])
def test_stride_1_same_convolution_gradients_agree_with_finite_differences(batch, hw, k, channels):
    rng = np.random.default_rng(10)
    x, w = rng.standard_normal((batch, *hw, channels[0])), rng.standard_normal((*k, *channels))
    check_gradients(lambda a, b: mt.nn.conv2d(a, b, strides=1, padding="SAME"), [x, w], order=2)


POOL_CASES = list(_cases(12, 1)) + [
    ((30, 30), (2, 2), (2, 2), "VALID", (16, 0)),
    ((13, 13), (2, 2), (2, 2), "VALID", (3, 0)),
]


@pytest.mark.parametrize("hw, k, s, padding, channels", POOL_CASES)
def test_max_pool_and_its_gradients_match_loops_with_ties_going_to_the_first_maximum(hw, k, s, padding, channels):
    rng = np.random.default_rng(7)
    # after a ReLU many windows are all zero: ties everywhere, which the gradient must send to the first pixel
    x = np.maximum(rng.standard_normal((2, *hw, channels[0])), 0).astype(np.float32)
    xt = mt.constant(x)
    with mt.GradientTape(persistent=True) as tape:
        tape.watch(xt)
        y = mt.nn.max_pool2d(xt, ksize=k, strides=s, padding=padding)
        dy = mt.constant(rng.standard_normal(y.shape).astype(np.float32))
        tape.watch(dy)
        dx = conv_ops.max_pool_grad_op(xt, dy, ksize=k, strides=s, padding=padding)
    want_y, want_dx = pool_reference(x, k, s, padding, dy.numpy())
    assert y.dtype == dx.dtype == mt.float32
    np.testing.assert_array_equal(y.numpy(), want_y)
    np.testing.assert_allclose(dx.numpy(), want_dx, rtol=1e-6, atol=1e-6)  # sums where windows overlap
    g = rng.standard_normal(x.shape).astype(np.float32)
    # the gradient in dy picks g at each window's first maximum: the adjoint of the gradient above
    picked = tape.gradient(dx, dy, output_gradients=mt.constant(g)).numpy()
    assert picked.dtype == np.float32
    np.testing.assert_allclose(np.sum(picked * dy.numpy()), np.sum(g * want_dx), rtol=1e-4)


def test_max_pool_gradient_of_a_window_of_equal_values_goes_to_its_first_pixel_only():
    x = mt.constant(np.zeros((1, 4, 4, 2), np.float32))
    with mt.GradientTape() as tape:
        tape.watch(x)
        y = mt.nn.max_pool2d(x, 2, 2, "VALID")
    dx = tape.gradient(y, x).numpy()
    expected = np.zeros((1, 4, 4, 2), np.float32)
    expected[:, ::2, ::2] = 1
    np.testing.assert_array_equal(dx, expected)


def test_a_float32_cnn_step_makes_no_float64_array():
    """Every op of a Conv2D / MaxPool2D / Dense step, forward and backward (the backward ops recorded by an outer
    tape), takes and gives float32 (labels and shapes aside): no float64 temporary reaches a tensor."""
    layers = mt.keras.layers
    model = mt.keras.Sequential(
        [
            mt.keras.Input((9, 9, 3)),
            layers.Conv2D(4, 3, padding="same", activation="relu"),
            layers.MaxPool2D(),
            layers.Conv2D(3, 2, strides=2),
            layers.Flatten(),
            layers.Dense(5, activation="softmax"),
        ]
    )
    x = np.random.default_rng(8).random((4, 9, 9, 3), dtype=np.float32)
    with mt.GradientTape(persistent=True) as outer:
        with mt.GradientTape() as tape:
            loss = mt.keras.losses.SparseCategoricalCrossentropy()(np.arange(4), model(x, training=True))
        grads = tape.gradient(loss, model.trainable_variables)
    kinds = {op.type for op in outer.records}
    assert {"Conv2DBackpropInput", "Conv2DBackpropFilter", "MaxPoolGrad", "MatMul"} <= kinds, kinds
    floats = {d.name for op in outer.records for d in (*op.input_dtypes, *op.output_dtypes) if d.is_floating}
    assert floats == {"float32"}, floats
    assert all(g.dtype == mt.float32 for g in grads)


def test_an_infinite_gradient_reaches_only_the_maximum_not_nan_elsewhere():
    x = mt.constant(np.array([[[[1.0], [3.0]], [[2.0], [0.0]]]], np.float32))  # one 2x2 window, maximum 3
    dy = np.array([[[[np.inf]]]], np.float32)
    dx = conv_ops.max_pool_grad_op(x, dy, ksize=(2, 2), strides=(2, 2), padding="VALID").numpy()
    np.testing.assert_array_equal(dx[0, :, :, 0], [[0.0, np.inf], [0.0, 0.0]])


@pytest.mark.parametrize("channels", [1, 3])
@pytest.mark.parametrize("padding", ["SAME", "VALID"])
def test_an_empty_batch_convolves_to_an_empty_batch_and_its_filter_gradient_is_zero(channels, padding):
    x = mt.constant(np.zeros((0, 5, 5, channels), np.float32))
    w = mt.Variable(np.ones((3, 3, channels, 2), np.float32))
    with mt.GradientTape() as tape:
        tape.watch(x)
        y = mt.nn.conv2d(x, w, strides=1, padding=padding)
    dx, dw = tape.gradient(y, [x, w])
    assert y.shape.as_list() == [0, 5 if padding == "SAME" else 3, 5 if padding == "SAME" else 3, 2]
    assert dx.shape.as_list() == [0, 5, 5, channels]
    np.testing.assert_array_equal(dw.numpy(), np.zeros((3, 3, channels, 2), np.float32))


@pytest.mark.parametrize(
    "hw, k", [((8, 8), (2, 2)), ((9, 7), (3, 3)), ((7, 9), (2, 3)), ((5, 6), (1, 2)), ((4, 4), (1, 1))]
)
def test_max_pool_over_tiles_takes_rows_then_columns_and_keeps_nan_and_minus_infinity(hw, k):
    """Windows that tile the image (stride == pool size, VALID), rows and columns past the last tile left out:
    the maxima of the loops, NaN wherever a window holds one, -inf where a window holds nothing else."""
    rng = np.random.default_rng(11)
    x = rng.standard_normal((3, *hw, 5)).astype(np.float32)
    x[0, 0, 0, 0] = np.nan
    x[1, : k[0], : k[1], 1] = -np.inf
    got = mt.nn.max_pool2d(mt.constant(x), ksize=k, strides=k, padding="VALID").numpy()
    want, _ = pool_reference(x, k, k, "VALID")
    assert got.dtype == np.float32
    np.testing.assert_array_equal(got, want)  # NaN where want has NaN
    assert np.isnan(got[0, 0, 0, 0]) and got[1, 0, 0, 1] == -np.inf
