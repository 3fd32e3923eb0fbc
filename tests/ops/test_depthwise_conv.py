"""tf.nn.depthwise_conv2d and separable_conv2d: values against loops and TensorFlow 2.21, gradients of order 1 and 2
against finite differences, TensorFlow's refusals, and mt.function."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import minitape as mt
from minitape.aids.check_gradients import check_gradients
from minitape.ops import depthwise_ops
from minitape.values.errors import InvalidArgumentError


def depthwise_by_loops(x, w, strides, dilations, pads):
    """The definition, one output pixel and kernel offset at a time, on explicitly padded input."""
    n, _, _, c = x.shape
    kh, kw, _, m = w.shape
    xp = np.pad(x, ((0, 0), *pads, (0, 0)))
    oh = (xp.shape[1] - (kh - 1) * dilations[0] - 1) // strides[0] + 1
    ow = (xp.shape[2] - (kw - 1) * dilations[1] - 1) // strides[1] + 1
    out = np.zeros((n, oh, ow, c, m))
    for i, j, a, b in itertools.product(range(oh), range(ow), range(kh), range(kw)):
        pixel = xp[:, i * strides[0] + a * dilations[0], j * strides[1] + b * dilations[1]]
        out[:, i, j] += pixel[:, :, None] * w[a, b]
    return out.reshape(n, oh, ow, c * m)


def same_pads(size, k, s, d):
    span = (k - 1) * d + 1
    total = max((-(-size // s) - 1) * s + span - size, 0)
    return total // 2, total - total // 2


# (image h, w), kernel, strides, dilations, multiplier, padding ("SAME", "VALID" or explicit pairs)
CASES = [
    ((5, 6), (3, 3), (1, 1), (1, 1), 1, "SAME"),
    ((5, 6), (3, 3), (1, 1), (1, 1), 2, "VALID"),
    ((7, 6), (3, 2), (2, 2), (1, 1), 1, "SAME"),
    ((7, 7), (3, 3), (2, 2), (1, 1), 3, "VALID"),
    ((6, 5), (2, 3), (3, 3), (1, 1), 2, "SAME"),
    ((7, 7), (3, 2), (1, 1), (2, 3), 1, "SAME"),
    ((8, 7), (2, 3), (1, 1), (3, 2), 2, "VALID"),
    ((5, 5), (3, 3), (1, 1), (1, 1), 2, ((0, 2), (1, 0))),
    ((6, 7), (3, 3), (2, 2), (1, 1), 1, ((1, 2), (0, 3))),
    ((7, 8), (2, 2), (1, 1), (2, 2), 1, ((2, 1), (0, 1))),
    ((4, 4), (1, 1), (1, 1), (1, 1), 3, "SAME"),
]


def _tf_args(padding, strides):
    explicit = padding if isinstance(padding, str) else [[0, 0], list(padding[0]), list(padding[1]), [0, 0]]
    return [1, *strides, 1], explicit


def _pads_of(hw, k, s, d, padding):
    if padding == "VALID":
        return ((0, 0), (0, 0))
    if padding == "SAME":
        return tuple(same_pads(n, kk, ss, dd) for n, kk, ss, dd in zip(hw, k, s, d))
    return padding


@pytest.mark.parametrize("hw, k, s, d, m, padding", CASES)
def test_depthwise_conv2d_matches_the_definition(hw, k, s, d, m, padding):
    rng = np.random.default_rng(0)
    x, w = rng.normal(size=(2, *hw, 3)), rng.normal(size=(*k, 3, m))
    strides, tf_padding = _tf_args(padding, s)
    got = mt.nn.depthwise_conv2d(mt.constant(x), mt.constant(w), strides, tf_padding, dilations=list(d))
    want = depthwise_by_loops(x, w, s, d, _pads_of(hw, k, s, d, padding))
    assert got.shape == want.shape
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("hw, k, s, d, m, padding", CASES)
def test_depthwise_gradients_of_first_and_second_order(hw, k, s, d, m, padding):
    rng = np.random.default_rng(1)
    x, w = rng.normal(size=(2, *hw, 2)), rng.normal(size=(*k, 2, m))
    pads = padding if isinstance(padding, str) else tuple(padding)
    check_gradients(
        lambda a, b: depthwise_ops.depthwise_op(a, b, strides=s, padding=pads, dilations=d), [x, w], order=2
    )


def test_the_gradient_ops_have_gradients_themselves():
    rng = np.random.default_rng(2)
    x, w, dy = rng.normal(size=(2, 7, 6, 2)), rng.normal(size=(3, 2, 2, 2)), rng.normal(size=(2, 4, 3, 4))
    attrs = {"strides": (2, 2), "padding": "SAME", "dilations": (1, 1)}
    check_gradients(
        lambda g, f: depthwise_ops.depthwise_backprop_input_op(g, f, input_shape=(2, 7, 6, 2), **attrs),
        [dy, w],
        order=2,
    )
    check_gradients(
        lambda a, g: depthwise_ops.depthwise_backprop_filter_op(a, g, filter_shape=(3, 2, 2, 2), **attrs),
        [x, dy],
        order=2,
    )


def test_separable_conv2d_gradients_reach_all_three_inputs_and_agree_with_finite_differences():
    rng = np.random.default_rng(3)
    x, dw, pw = rng.normal(size=(2, 6, 5, 3)), rng.normal(size=(3, 3, 3, 2)), rng.normal(size=(1, 1, 6, 4))
    check_gradients(lambda a, b, c: mt.nn.separable_conv2d(a, b, c, [1, 2, 2, 1], "SAME"), [x, dw, pw], order=2)


def test_tensorflows_docstring_example():
    x = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], np.float32).reshape((1, 3, 2, 1))
    kernel = np.array([[1.0, 2.0], [3.0, 4]], np.float32).reshape((2, 1, 1, 2))
    valid = mt.nn.depthwise_conv2d(x, kernel, strides=[1, 1, 1, 1], padding="VALID")
    assert valid.dtype == mt.float32
    assert valid.numpy().tolist() == [[[[10.0, 14.0], [14.0, 20.0]], [[18.0, 26.0], [22.0, 32.0]]]]
    explicit = mt.nn.depthwise_conv2d(x, kernel, strides=[1, 1, 1, 1], padding=[[0, 0], [1, 0], [1, 0], [0, 0]])
    assert explicit.numpy().tolist() == [
        [[[0.0, 0.0], [3.0, 4.0], [6.0, 8.0]], [[0.0, 0.0], [10.0, 14.0], [14.0, 20.0]]]
        + [[[0.0, 0.0], [18.0, 26.0], [22.0, 32.0]]]
    ]


X2 = np.arange(50, dtype=np.float32).reshape(1, 5, 5, 2) / 10
W2 = np.arange(36, dtype=np.float32).reshape(3, 3, 2, 2) / 10 - 1


def test_a_multiplier_of_2_with_stride_2_and_same_padding_gives_tensorflows_numbers():
    y = mt.nn.depthwise_conv2d(X2, W2, [1, 2, 2, 1], "SAME")
    tf_gives = [  # TensorFlow 2.21, rounded to 4 digits
        [[4.64, 4.88, 5.76, 6.04], [8.6, 9.14, 10.52, 11.12], [6.08, 6.56, 7.52, 8.04]],
        [[15.0, 16.26, 18.12, 19.44], [20.64, 22.8, 25.68, 27.93], [11.4, 13.02, 15.0, 16.68]],
        [[4.16, 5.6, 7.2, 8.68], [2.12, 4.46, 6.92, 9.32], [-2.08, -0.4, 1.28, 3.0]],
    ]
    assert y.shape == (1, 3, 3, 4) and y.dtype == mt.float32
    np.testing.assert_allclose(y.numpy()[0], tf_gives, atol=1e-4)


def test_the_gradients_are_tensorflows():
    x, w = mt.constant(X2), mt.constant(W2)
    weights = np.cos(np.arange(36, dtype=np.float32)).reshape(1, 3, 3, 4)
    with mt.GradientTape() as tape:
        tape.watch([x, w])
        loss = mt.reduce_sum(mt.nn.depthwise_conv2d(x, w, [1, 2, 2, 1], "SAME") * weights)
    gx, gw = tape.gradient(loss, [x, w])
    tf_gx = [  # TensorFlow 2.21's tape, channel 0 then channel 1, rounded to 4 digits
        [
            [0.9782, 1.5487, -0.1936, -0.6441, -0.7251],
            [1.8665, 3.8989, 0.0746, -2.0521, -1.964],
            [1.1415, 1.568, -0.7672, -1.343, -0.1386],
            [2.493, 3.642, -1.295, -3.545, -0.8],
            [0.9483, 1.0976, -1.1012, -1.6226, 0.4912],
        ],
        [
            [-1.2239, -1.0253, 1.4466, 1.7989, -0.6673],
            [-2.7381, -1.9521, 2.9428, 4.126, -1.109],
            [-0.5743, -0.065, 1.4181, 1.4113, -1.2795],
            [-1.493, 0.3733, 3.0608, 2.9537, -2.5083],
            [0.2546, 0.9156, 0.9467, 0.583, -1.4922],
        ],
    ]
    tf_gw = [
        [-0.5734, -3.6481, -3.4722, 0.0545],
        [1.4074, -0.0839, -1.5231, -1.5934],
        [-2.6276, 1.1275, 4.0059, 3.1137],
        [-1.4694, -5.7223, -4.8055, 0.7507],
        [1.6196, -0.3849, -2.0901, -1.8964],
        [-3.4721, 2.2812, 6.1514, 4.196],
        [-2.6126, -3.9698, -1.699, 2.2788],
        [0.6492, -0.9972, -1.7766, -0.9223],
        [-0.5931, 3.0155, 3.9857, 1.1459],
    ]
    assert gx.dtype == gw.dtype == mt.float32
    np.testing.assert_allclose(np.moveaxis(gx.numpy()[0], 2, 0), tf_gx, atol=2e-4)
    np.testing.assert_allclose(gw.numpy().reshape(9, 4), tf_gw, atol=2e-4)


def _weighted_sum(t):
    """sum(t * [0, 1, 2, ...]): one number that any misplaced value changes."""
    values = t.numpy().astype(np.float64)
    return float(np.sum(values * np.arange(values.size).reshape(values.shape)))


def test_the_backprop_functions_give_tensorflows_numbers_and_the_tapes_gradients():
    dy = np.cos(np.arange(36, dtype=np.float32)).reshape(1, 3, 3, 4)
    dx = mt.nn.depthwise_conv2d_backprop_input([1, 5, 5, 2], W2, dy, [1, 2, 2, 1], "SAME")
    dw = mt.nn.depthwise_conv2d_backprop_filter(X2, mt.constant([3, 3, 2, 2]), dy, [1, 2, 2, 1], "SAME")
    assert dx.shape == (1, 5, 5, 2) and dw.shape == (3, 3, 2, 2) and dx.dtype == dw.dtype == mt.float32
    assert _weighted_sum(dx) == pytest.approx(166.33468, rel=1e-6)  # TensorFlow 2.21
    assert _weighted_sum(dw) == pytest.approx(64.833493, rel=1e-5)
    x, w = mt.constant(X2), mt.constant(W2)
    with mt.GradientTape() as tape:
        tape.watch([x, w])
        y = mt.nn.depthwise_conv2d(x, w, [1, 2, 2, 1], "SAME")
    gx, gw = tape.gradient(y, [x, w], output_gradients=dy)
    np.testing.assert_array_equal(dx.numpy(), gx.numpy())
    np.testing.assert_array_equal(dw.numpy(), gw.numpy())
    ones = np.ones((1, 4, 6, 4), np.float32)
    explicit = mt.nn.depthwise_conv2d_backprop_input([1, 5, 5, 2], W2, ones, [1] * 4, [[0, 0], [0, 1], [1, 2], [0, 0]])
    assert _weighted_sum(explicit) == pytest.approx(14027.4, rel=1e-6)  # TensorFlow 2.21


def test_the_backprop_functions_refuse_dilations_which_tensorflows_op_ignores():
    # TensorFlow 2.21's depthwise_conv2d_backprop_input with dilations [1, 2, 2, 1] gives the undilated gradient
    # (15117.7 as the weighted sum below, where its own tape gives 12296.9): refused, not copied
    ones = np.ones((1, 5, 5, 4), np.float32)
    _raises(
        ValueError,
        ["ignores them", "GradientTape"],
        lambda: mt.nn.depthwise_conv2d_backprop_input([1, 5, 5, 2], W2, ones, [1] * 4, "SAME", dilations=[1, 2, 2, 1]),
    )
    _raises(
        ValueError,
        ["ignores them"],
        lambda: mt.nn.depthwise_conv2d_backprop_filter(X2, [3, 3, 2, 2], ones, [1] * 4, "SAME", dilations=[2, 2]),
    )
    x = mt.constant(X2)
    with mt.GradientTape() as tape:
        tape.watch(x)
        y = mt.nn.depthwise_conv2d(x, W2, [1, 1, 1, 1], "SAME", dilations=[2, 2])
    assert _weighted_sum(tape.gradient(y, x, output_gradients=ones)) == pytest.approx(12296.9, rel=1e-6)
    _raises(
        InvalidArgumentError,
        ["out_backprop has shape [1, 4, 4, 4]", "[1, 3, 3, 4]"],
        lambda: mt.nn.depthwise_conv2d_backprop_input([1, 5, 5, 2], W2, ones[:, :4, :4], [1, 2, 2, 1], "SAME"),
    )
    _raises(
        InvalidArgumentError,
        ["4 ints", "[5, 5, 2]"],
        lambda: mt.nn.depthwise_conv2d_backprop_input([5, 5, 2], W2, ones, [1] * 4, "SAME"),
    )


def test_dilations_give_tensorflows_numbers():
    x = np.arange(25, dtype=np.float32).reshape(1, 5, 5, 1)
    w = np.array([1.0, -1.0, 2.0, 0.5], np.float32).reshape(2, 2, 1, 1)
    same = mt.nn.depthwise_conv2d(x, w, [1, 1, 1, 1], "SAME", dilations=[2, 2])
    valid = mt.nn.depthwise_conv2d(x, w, [1, 1, 1, 1], "VALID", dilations=[1, 2])
    assert same.numpy()[0, ..., 0].tolist() == [  # TensorFlow 2.21
        [3.0, 13.5, 16.0, 18.5, 16.0],
        [4.5, 24.0, 26.5, 29.0, 29.0],
        [2.0, 36.5, 39.0, 41.5, 44.0],
        [-0.5, 49.0, 51.5, 54.0, 59.0],
        [-16.0, -2.0, -2.0, -2.0, 18.0],
    ]
    assert valid.numpy()[0, ..., 0].tolist() == [
        [11.5, 14.0, 16.5],
        [24.0, 26.5, 29.0],
        [36.5, 39.0, 41.5],
        [49.0, 51.5, 54.0],
    ]


def test_separable_conv2d_gives_tensorflows_numbers():
    pointwise = np.arange(12, dtype=np.float32).reshape(1, 1, 4, 3) / 6 - 1
    y = mt.nn.separable_conv2d(X2, W2, pointwise, [1, 1, 1, 1], "VALID")
    tf_gives = [  # TensorFlow 2.21, rounded to 4 digits
        [[-12.675, -1.9, 8.875], [-13.575, -1.9, 9.775], [-14.475, -1.9, 10.675]],
        [[-17.175, -1.9, 13.375], [-18.075, -1.9, 14.275], [-18.975, -1.9, 15.175]],
        [[-21.675, -1.9, 17.875], [-22.575, -1.9, 18.775], [-23.475, -1.9, 19.675]],
    ]
    assert y.shape == (1, 3, 3, 3)
    np.testing.assert_allclose(y.numpy()[0], tf_gives, atol=1e-4)


@pytest.mark.parametrize("dtype", [np.float16, np.float64])
def test_the_output_keeps_the_inputs_dtype(dtype):
    y = mt.nn.depthwise_conv2d(X2.astype(dtype), W2.astype(dtype), [1, 1, 1, 1], "VALID")
    assert y.dtype == mt.as_dtype(dtype)
    want = depthwise_by_loops(X2.astype(np.float64), W2.astype(np.float64), (1, 1), (1, 1), ((0, 0), (0, 0)))
    np.testing.assert_allclose(y.numpy().astype(np.float64), want, rtol=2e-3 if dtype == np.float16 else 1e-12)


def test_an_empty_batch_gives_an_empty_batch_and_a_zero_filter_gradient():
    x, w = mt.zeros((0, 5, 5, 3)), mt.ones((3, 3, 3, 2))
    with mt.GradientTape() as tape:
        tape.watch(w)
        y = mt.nn.depthwise_conv2d(x, w, [1, 1, 1, 1], "SAME")
    assert y.shape == (0, 5, 5, 6)
    assert not tape.gradient(y, w).numpy().any()


def _raises(error, words, fn):
    with pytest.raises(error) as info:
        fn()
    for word in words:
        assert word in str(info.value)


X = np.ones((2, 5, 5, 3), np.float32)
W = np.ones((3, 3, 3, 2), np.float32)


def test_tensorflows_refusals_of_bad_shapes():
    dw = mt.nn.depthwise_conv2d
    # TensorFlow 2.21 (without oneDNN) says "input and filter must have the same depth: 3 vs 4"
    _raises(
        InvalidArgumentError,
        ["input and filter must have the same depth: 3 vs 4", "[3, 3, 4, 2]"],
        lambda: dw(X, np.ones((3, 3, 4, 2), np.float32), [1, 1, 1, 1], "SAME"),
    )
    _raises(InvalidArgumentError, ["filter must be 4-dimensional", "[3, 3, 2]"], lambda: dw(X, W[0], [1] * 4, "SAME"))
    _raises(InvalidArgumentError, ["input must be 4-dimensional", "[5, 5, 3]"], lambda: dw(X[0], W, [1] * 4, "SAME"))
    _raises(InvalidArgumentError, ["filter must not have zero elements"], lambda: dw(X, W[..., :0], [1] * 4, "SAME"))
    _raises(
        InvalidArgumentError,
        ["does not fit a 5x5 input", "VALID"],
        lambda: dw(X, np.ones((6, 6, 3, 1), np.float32), [1] * 4, "VALID"),
    )
    _raises(
        InvalidArgumentError,
        ["floating-point", "int32"],
        lambda: dw(mt.constant(X, mt.int32), mt.constant(W, mt.int32), [1] * 4, "SAME"),
    )
    _raises(
        InvalidArgumentError,
        ["float32 and float64"],
        lambda: dw(mt.constant(X), mt.constant(W, mt.float64), [1] * 4, "SAME"),
    )


def test_tensorflows_refusals_of_bad_strides_padding_dilations_and_data_format():
    dw = mt.nn.depthwise_conv2d
    _raises(TypeError, ["Expected list for 'strides'"], lambda: dw(X, W, 1, "SAME"))
    _raises(InvalidArgumentError, ["strides field must specify 4"], lambda: dw(X, W, [2, 2], "SAME"))
    _raises(InvalidArgumentError, ["batch and depth dimensions"], lambda: dw(X, W, [2, 1, 1, 1], "SAME"))
    _raises(InvalidArgumentError, ["Stride must be > 0"], lambda: dw(X, W, [1, 0, 0, 1], "SAME"))
    _raises(InvalidArgumentError, ["equal length strides"], lambda: dw(X, W, [1, 2, 1, 1], "SAME"))
    _raises(ValueError, ["all values of strides must be 1"], lambda: dw(X, W, [1, 2, 2, 1], "SAME", dilations=[2, 2]))
    _raises(ValueError, ["must be positive", "[0, 1]"], lambda: dw(X, W, [1] * 4, "SAME", dilations=[0, 1]))
    _raises(TypeError, ["list of 2 ints"], lambda: dw(X, W, [1] * 4, "SAME", dilations=2))
    _raises(InvalidArgumentError, ["'SAME'"], lambda: dw(X, W, [1] * 4, "same"))
    _raises(ValueError, ["must be a list"], lambda: dw(X, W, [1] * 4, "EXPLICIT"))
    _raises(ValueError, ["must be of size 4"], lambda: dw(X, W, [1] * 4, [[1, 2], [0, 1]]))
    _raises(InvalidArgumentError, ["batch or depth"], lambda: dw(X, W, [1] * 4, [[1, 0], [1, 2], [0, 1], [0, 0]]))
    _raises(InvalidArgumentError, [">= 0"], lambda: dw(X, W, [1] * 4, [[0, 0], [-1, 2], [0, 1], [0, 0]]))
    _raises(ValueError, ["must be of size 4"], lambda: dw(X, W, [1] * 4, [0, 1, 1, 0]))
    _raises(TypeError, ["Expected list for 'strides'"], lambda: dw(X, W, mt.constant([1, 1, 1, 1]), "SAME"))
    _raises(TypeError, ["list of 2 ints"], lambda: dw(X, W, [1] * 4, "SAME", dilations=[2]))
    _raises(NotImplementedError, ["NHWC", "transpose"], lambda: dw(X, W, [1] * 4, "SAME", data_format="NCHW"))
    _raises(InvalidArgumentError, ["'NWHC'"], lambda: dw(X, W, [1] * 4, "SAME", data_format="NWHC"))


def test_tuples_and_arrays_are_taken_where_tensorflow_takes_them():
    by_lists = mt.nn.depthwise_conv2d(X2, W2, [1, 1, 1, 1], [[0, 0], [1, 0], [0, 2], [0, 0]], dilations=[2, 1])
    by_others = mt.nn.depthwise_conv2d(X2, W2, (1, 1, 1, 1), ((0, 0), (1, 0), (0, 2), (0, 0)), "NHWC", np.array([2, 1]))
    assert by_lists.shape == (1, 2, 5, 4)
    np.testing.assert_array_equal(by_others.numpy(), by_lists.numpy())


def test_separable_conv2d_with_explicit_padding_and_dilations_is_depthwise_then_pointwise():
    rng = np.random.default_rng(5)
    x, dw, pw = rng.normal(size=(1, 5, 5, 2)), rng.normal(size=(3, 3, 2, 1)), rng.normal(size=(1, 1, 2, 3))
    y = mt.nn.separable_conv2d(x, dw, pw, [1, 1, 1, 1], [[0, 0], [1, 0], [2, 1], [0, 0]], dilations=[2, 1])
    assert y.shape == (1, 2, 6, 3)  # TensorFlow 2.21's shape for these arguments
    want = depthwise_by_loops(x, dw, (1, 1), (2, 1), ((1, 0), (2, 1))) @ pw[0, 0]
    np.testing.assert_allclose(y.numpy(), want, rtol=1e-12, atol=1e-12)


def test_separable_conv2d_refuses_a_pointwise_filter_that_does_not_fit():
    sep = mt.nn.separable_conv2d
    _raises(
        ValueError,
        ["[1, 1, in_channels", "[2, 1, 6, 4]"],
        lambda: sep(X, W, np.ones((2, 1, 6, 4), np.float32), [1] * 4, "SAME"),
    )
    _raises(ValueError, ["[1, 6, 4]"], lambda: sep(X, W, np.ones((1, 6, 4), np.float32), [1] * 4, "SAME"))
    _raises(
        InvalidArgumentError,
        ["6 channels", "expects 5"],
        lambda: sep(X, W, np.ones((1, 1, 5, 4), np.float32), [1] * 4, "SAME"),
    )
    _raises(
        InvalidArgumentError,
        ["same depth: 3 vs 4"],
        lambda: sep(X, np.ones((3, 3, 4, 2), np.float32), np.ones((1, 1, 8, 4), np.float32), [1] * 4, "SAME"),
    )


def test_a_traced_function_gives_the_eager_values_and_gradients_and_retraces_for_new_shapes():
    rng = np.random.default_rng(4)
    w = mt.Variable(rng.normal(size=(3, 3, 2, 2)).astype(np.float32))
    pointwise = mt.Variable(rng.normal(size=(1, 1, 4, 3)).astype(np.float32))

    def step(x):
        with mt.GradientTape() as tape:
            y = mt.nn.separable_conv2d(x, w, pointwise, [1, 2, 2, 1], "SAME")
            loss = mt.reduce_sum(y * y)
        return y, tape.gradient(loss, [w, pointwise])

    traced = mt.function(step)
    for shape in [(2, 7, 7, 2), (2, 7, 7, 2), (1, 6, 9, 2)]:
        x = mt.constant(rng.normal(size=shape).astype(np.float32))
        (y1, g1), (y2, g2) = step(x), traced(x)
        assert y1.shape == y2.shape
        np.testing.assert_allclose(y2.numpy(), y1.numpy(), rtol=1e-6)
        for a, b in zip(g1, g2):
            np.testing.assert_allclose(b.numpy(), a.numpy(), rtol=1e-5, atol=1e-5)
    assert traced.experimental_get_tracing_count() == 2


def test_forward_mode_gives_the_directional_derivative():
    rng = np.random.default_rng(6)
    x, w, v = rng.normal(size=(1, 6, 5, 2)), rng.normal(size=(3, 3, 2, 2)), rng.normal(size=(1, 6, 5, 2))

    def conv(a):
        return mt.nn.depthwise_conv2d(a, w, [1, 2, 2, 1], "SAME")

    primal = mt.constant(x)
    with mt.autodiff.ForwardAccumulator(primal, mt.constant(v)) as accumulator:
        y = conv(primal)
    eps = 1e-6
    numeric = (conv(x + eps * v).numpy() - conv(x - eps * v).numpy()) / (2 * eps)
    np.testing.assert_allclose(accumulator.jvp(y).numpy(), numeric, atol=1e-7)
