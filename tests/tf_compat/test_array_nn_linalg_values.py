"""Array, nn and linalg ops that a differential test against TensorFlow 2.21 found answering differently.

Each expected number is the one TensorFlow gives for the same call (written as a number: the tests do not
import TensorFlow); gradients are also checked against finite differences in float64.
"""

import numpy as np
import pytest

import minitape as mt
from minitape.aids.check_gradients import check_gradients


def message_of(exception, fn):
    with pytest.raises(exception) as info:
        fn()
    return str(info.value)


def gradient(f, x):
    x = mt.constant(np.asarray(x, np.float64))
    with mt.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    return tape.gradient(y, x).numpy()


# ---- clipping ------------------------------------------------------------------------------------------
def test_clip_by_norm_of_zeros_has_tensorflows_finite_gradient():
    weights = mt.constant([1.0, 2.0, 3.0], mt.float64)
    g = gradient(lambda x: mt.reduce_sum(mt.clip_by_norm(x, 1.0) * weights), np.zeros(3))
    np.testing.assert_array_equal(g, [1.0, 2.0, 3.0])  # TensorFlow gives [1, 2, 3]


def test_clip_by_norm_over_axes_with_a_zero_row():
    x = np.array([[0.0, 0.0], [3.0, 4.0]])
    np.testing.assert_allclose(mt.clip_by_norm(x, 1.0, axes=[1]).numpy(), [[0, 0], [0.6, 0.8]])
    weights = mt.constant([[1.0, 2.0], [3.0, 5.0]], mt.float64)
    g = gradient(lambda t: mt.reduce_sum(mt.clip_by_norm(t, 1.0, axes=[1]) * weights), x)
    np.testing.assert_allclose(g, [[1.0, 2.0], [-0.096, 0.072]])  # TensorFlow's numbers
    nonzero = np.array([[0.3, -0.2], [3.0, 4.0]])
    check_gradients(lambda t: mt.clip_by_norm(t, 1.0, axes=[1]), [nonzero], order=2)


def test_clip_by_global_norm_of_an_infinite_or_nan_norm_is_all_nan():
    (a, b), norm = mt.clip_by_global_norm([mt.constant([np.inf, 1.0]), mt.constant([2.0])], 1.0)
    assert np.isinf(norm.numpy())
    assert np.isnan(a.numpy()).all() and np.isnan(b.numpy()).all()  # TensorFlow: [nan, nan], [nan]
    (c,), norm = mt.clip_by_global_norm([mt.constant([np.nan, 1.0])], 1.0)
    assert np.isnan(norm.numpy()) and np.isnan(c.numpy()).all()
    (d,), _ = mt.clip_by_global_norm([mt.constant([3.0, 4.0])], 1.0)
    np.testing.assert_allclose(d.numpy(), [0.6, 0.8], rtol=1e-6)


# ---- one_hot's dtype -----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "kwargs, dtype, value",  # TensorFlow's dtype and value for each call
    [
        ({}, "float32", [[0.0, 1.0]]),
        ({"on_value": 5, "off_value": -1}, "int32", [[-1, 5]]),
        ({"on_value": 5}, "int32", [[0, 5]]),
        ({"off_value": -1}, "int32", [[-1, 1]]),
        ({"on_value": 5.0}, "float32", [[0.0, 5.0]]),
        ({"on_value": mt.constant(5.0, mt.float64)}, "float64", [[0.0, 5.0]]),
        ({"on_value": np.int64(3)}, "int64", [[0, 3]]),
        ({"on_value": True, "off_value": False}, "bool", [[False, True]]),
        ({"on_value": 5, "dtype": mt.float32}, "float32", [[0.0, 5.0]]),
        ({"dtype": mt.int64}, "int64", [[0, 1]]),
    ],
)
def test_one_hot_takes_its_dtype_from_the_values_as_tensorflow(kwargs, dtype, value):
    result = mt.one_hot([1], 2, **kwargs)
    assert result.dtype.name == dtype
    assert result.numpy().tolist() == value


def test_one_hot_refuses_values_that_disagree_on_dtype():
    text = message_of(TypeError, lambda: mt.one_hot([1], 2, on_value=1, off_value=0.5))
    assert "one_hot" in text and "int32" in text and "float32" in text and "off_value" in text
    text = message_of(TypeError, lambda: mt.one_hot([1], 2, on_value=5.0, dtype=mt.int32))
    assert "one_hot" in text and "dtype=int32" in text and "float32" in text
    text = message_of(TypeError, lambda: mt.one_hot([1], 2, on_value=mt.constant(1.0, mt.float64), dtype="float32"))
    assert "float64" in text and "dtype=float32" in text
    assert "off_value=False" in message_of(TypeError, lambda: mt.one_hot([1], 2, on_value=True))
    assert "scalar" in message_of(mt.errors.InvalidArgumentError, lambda: mt.one_hot([1], 2, on_value=[1, 2]))


# ---- a Python list as the index ------------------------------------------------------------------------
X34 = mt.reshape(mt.range(12.0), [3, 4])


@pytest.mark.parametrize(
    "key, tensorflow_reads",  # TensorFlow reads a list key as a tuple: x[[0, 2]] is its x[0, 2] (2.0 here)
    [([0, 2], "x[0, 2]"), ([1, slice(1, 3)], "x[1, 1:3]"), ([None, 0], "x[mt.newaxis, 0]"), ([], "x[()]")],
)
def test_a_list_key_is_refused_saying_what_tensorflow_and_numpy_read(key, tensorflow_reads):
    text = message_of(TypeError, lambda: X34[key])
    assert f"TensorFlow reads x[[...]] as {tensorflow_reads}" in text and "numpy" in text


def test_a_list_key_message_offers_gather_or_boolean_mask():
    assert "write x[0, 2] for TensorFlow's meaning, or mt.gather(x, [0, 2])" in message_of(
        TypeError, lambda: X34[[0, 2]]
    )
    assert "mt.gather(x, [1, 2])" in message_of(TypeError, lambda: X34[[mt.constant(1), 2]])
    assert "mt.boolean_mask(x, [True, False, True])" in message_of(TypeError, lambda: X34[[True, False, True]])
    assert "mt.gather(x, [[0, 1]])" in message_of(TypeError, lambda: X34[[[0, 1]]])
    assert "mt.gather" in message_of(TypeError, lambda: mt.Variable(X34)[[0, 2]])


def test_tuple_keys_index_as_before():
    assert X34[0, 2].numpy() == 2.0  # TensorFlow's x[[0, 2]] written as it means it
    assert X34[(1, slice(1, 3))].numpy().tolist() == [5.0, 6.0]
    assert X34[np.array([True, False, True])].numpy().tolist() == [[0, 1, 2, 3], [8, 9, 10, 11]]
    assert mt.gather(X34, [0, 2]).numpy().tolist() == [[0, 1, 2, 3], [8, 9, 10, 11]]


# ---- shape, size and rank ------------------------------------------------------------------------------
def test_shape_and_size_take_out_type_and_rank_is_int32():
    x = mt.zeros([2, 3])
    for out_type in (mt.int64, "int64"):
        assert mt.shape(x, out_type=out_type).dtype == mt.int64  # TensorFlow: int64 [2, 3]
    assert mt.shape(x, out_type=mt.int64).numpy().tolist() == [2, 3]
    assert mt.shape([[1, 2]]).dtype == mt.int32
    size = mt.size(x, out_type=mt.int64)
    assert size.dtype == mt.int64 and size.numpy() == 6
    assert mt.size(x, out_type=mt.float32).dtype == mt.float32  # TensorFlow: float32 6.0
    assert mt.rank(x).dtype == mt.int32 and mt.rank(x).numpy() == 2
    text = message_of(mt.errors.InvalidArgumentError, lambda: mt.shape(x, out_type=mt.float32))
    assert "shape" in text and "int32 or int64" in text and "float32" in text


# ---- strided_slice with TensorFlow's signature ---------------------------------------------------------
X234 = mt.reshape(mt.range(24.0), [2, 3, 4])


@pytest.mark.parametrize(
    "args, kwargs, shape, first",  # TensorFlow's shape and first entries for each call
    [
        (([0, 1], [2, 3]), {}, [2, 2, 4], [4.0, 5.0, 6.0]),
        (([1, -1], [0, 0], [-1, -1]), {}, [1, 2, 4], [20.0, 21.0, 22.0]),
        (([1, 1], [2, 3]), {"begin_mask": 1}, [2, 2, 4], [4.0, 5.0, 6.0]),
        (([1, 1], [0, 0]), {"end_mask": 3}, [1, 2, 4], [16.0, 17.0, 18.0]),
        (([0, 1], [0, 3]), {"ellipsis_mask": 1}, [2, 3, 2], [1.0, 2.0, 5.0]),
        (([0, 0], [0, 2]), {"new_axis_mask": 1}, [1, 2, 3, 4], [0.0, 1.0, 2.0]),
        (([1, 0], [2, 2]), {"shrink_axis_mask": 1}, [2, 4], [12.0, 13.0, 14.0]),
        (([-1], [0]), {"shrink_axis_mask": 1}, [3, 4], [12.0, 13.0, 14.0]),
        (([0, 1], [0, 2]), {"ellipsis_mask": 1, "shrink_axis_mask": 3}, [2, 3], [1.0, 5.0, 9.0]),
        (([1, 0, 0], [2, 0, 3], [1, 1, 1]), {"begin_mask": 2, "end_mask": 2, "shrink_axis_mask": 1}, [3, 3], [12.0]),
        ((mt.constant([0, 1]), mt.constant([2, 3]), mt.constant([1, 1])), {}, [2, 2, 4], [4.0, 5.0, 6.0]),
    ],
)
def test_strided_slice_has_tensorflows_signature_and_masks(args, kwargs, shape, first):
    result = mt.strided_slice(X234, *args, **kwargs)
    assert result.shape.as_list() == shape
    assert result.numpy().ravel()[: len(first)].tolist() == first


def test_strided_slice_gradient_and_refusals():
    weights = mt.constant([1.0, 5.0], mt.float64)
    g = gradient(lambda x: mt.reduce_sum(mt.strided_slice(x, [3], [0], [-2]) * weights), [1.0, 2.0, 3.0, 4.0])
    np.testing.assert_array_equal(g, [0.0, 5.0, 0.0, 1.0])  # TensorFlow's gradient
    check_gradients(lambda x: mt.strided_slice(x, [0, 1], [3, 0], [2, -1], shrink_axis_mask=0) ** 2, [np.ones((3, 4))])
    refused = {
        "non-zero": lambda: mt.strided_slice(X234, [0], [2], [0]),
        "one entry each": lambda: mt.strided_slice(X234, [0, 1], [2]),
        "more than one ellipsis": lambda: mt.strided_slice(X234, [0, 0], [0, 0], ellipsis_mask=3),
        "has only 3": lambda: mt.strided_slice(X234, [0, 0, 0, 0], [1, 1, 1, 1]),
        "positive stride": lambda: mt.strided_slice(X234, [1], [0], [-1], shrink_axis_mask=1),
        "1-D list of integers": lambda: mt.strided_slice(X234, [0.0], [1.0]),
    }
    for words, call in refused.items():
        text = message_of(mt.errors.InvalidArgumentError, call)
        assert "strided_slice" in text and words in text


# ---- pooling, batch_normalization, weighted cross-entropy ----------------------------------------------
IMAGES = mt.reshape(mt.range(2 * 5 * 5 * 2, dtype=mt.float64), [2, 5, 5, 2]) ** 1.5 / 10
SEQUENCES = mt.reshape(mt.range(2 * 7 * 3, dtype=mt.float64), [2, 7, 3]) ** 1.3


@pytest.mark.parametrize(
    "pool, args, shape, first",  # TensorFlow's shape and first entries (6 decimals)
    [
        ("avg_pool2d", (IMAGES, 2, 2, "VALID"), [2, 2, 2, 2], [1.900511, 2.23878, 3.477004, 3.947204]),
        ("avg_pool2d", (IMAGES, [1, 2, 2, 1], [1, 2, 2, 1], "VALID"), [2, 2, 2, 2], [1.900511, 2.23878]),
        ("avg_pool2d", (IMAGES, 3, 2, "SAME"), [2, 3, 3, 2], [1.900511, 2.23878, 3.057963, 3.499274, 4.442297]),
        ("avg_pool", (IMAGES, [2, 3], [1, 2], "SAME"), [2, 5, 3, 2], [1.900511, 2.23878, 3.057963, 3.499274]),
        ("max_pool", (IMAGES, 3, 2, "SAME"), [2, 3, 3, 2], [4.156922, 4.687217, 6.4, 7.00928]),
        ("max_pool", (SEQUENCES, 3, 2, "SAME"), [2, 4, 3], [4.171168, 6.062866, 8.103283, 17.398638]),
        ("avg_pool", (SEQUENCES, [3], [2], "SAME"), [2, 4, 3], [2.085584, 3.531433, 5.282786, 10.613475]),
        ("avg_pool1d", (SEQUENCES, 3, 2, "VALID"), [2, 3, 3], [4.813929, 6.537465, 8.498033]),
        ("max_pool1d", (SEQUENCES, 3, 2, "VALID"), [2, 3, 3], [10.270619, 12.54953, 14.928528]),
    ],
)
def test_pooling_as_tensorflow(pool, args, shape, first):
    result = getattr(mt.nn, pool)(*args)
    assert result.shape.as_list() == shape and result.dtype == mt.float64
    np.testing.assert_allclose(result.numpy().ravel()[: len(first)], first, rtol=1e-6)


def test_avg_pool_gradient_counts_only_real_pixels():
    weights = mt.reshape(mt.range(18, dtype=mt.float64), [1, 3, 3, 2])
    g = gradient(lambda x: mt.reduce_sum(mt.nn.avg_pool2d(x, 3, 2, "SAME") * weights), IMAGES[:1].numpy())
    expected = [0.0, 0.25, 0.333333, 0.75, 0.333333, 0.5, 1.333333, 1.75, 1.0, 1.25, 1.0, 1.416667]
    np.testing.assert_allclose(g.ravel()[:12], expected, rtol=1e-5)  # TensorFlow's gradient
    small = np.random.default_rng(0).normal(size=(1, 4, 5, 2))
    check_gradients(lambda x: mt.nn.avg_pool(x, [2, 3], [1, 2], "SAME") ** 2, [small], order=2)
    check_gradients(lambda x: mt.nn.max_pool(x[0], 2, 1, "VALID"), [small])


def test_pooling_refuses_other_ranks_and_integer_averages():
    text = message_of(mt.errors.InvalidArgumentError, lambda: mt.nn.max_pool(mt.zeros([2, 3]), 2, 2, "VALID"))
    assert "max_pool" in text and "3-D" in text and "4-D" in text and "[2, 3]" in text
    text = message_of(TypeError, lambda: mt.nn.avg_pool2d(mt.ones([1, 2, 2, 1], mt.int32), 2, 2, "VALID"))
    assert "avg_pool2d" in text and "int32" in text and "mt.cast" in text
    text = message_of(mt.errors.InvalidArgumentError, lambda: mt.nn.avg_pool2d(IMAGES, 6, 1, "VALID"))
    assert "avg_pool2d" in text and "6x6" in text


def test_batch_normalization_as_tensorflow():
    x = mt.constant([[1.0, 2.0], [3.0, 5.0]], mt.float64)
    mean, variance = mt.constant([2.0, 3.0], mt.float64), mt.constant([1.0, 4.0], mt.float64)
    offset, scale = mt.constant([0.5, -1.0], mt.float64), mt.constant([2.0, 3.0], mt.float64)
    result = mt.nn.batch_normalization(x, mean, variance, offset, scale, 1e-3)
    np.testing.assert_allclose(result.numpy(), [[-1.499001, -2.499813], [2.499001, 1.999625]], rtol=1e-6)
    bare = mt.nn.batch_normalization(x, 2.0, 4.0, None, None, 1e-3)  # TensorFlow casts to x's dtype
    assert bare.dtype == mt.float64
    np.testing.assert_allclose(bare.numpy(), [[-0.499938, 0.0], [0.499938, 1.499813]], rtol=1e-5)
    check_gradients(
        lambda x, m, v, o, s: mt.nn.batch_normalization(x, m, v, o, s, 1e-3),
        [x, mean, variance, offset, scale],
        order=2,
    )


def test_weighted_cross_entropy_as_tensorflow():
    labels = mt.constant([[1.0, 0.0], [0.3, 1.0]], mt.float64)
    logits = mt.constant([[2.0, -1.0], [0.5, -30.0]], mt.float64)
    loss = mt.nn.weighted_cross_entropy_with_logits(labels, logits, 3.0)
    np.testing.assert_allclose(loss.numpy(), [[0.380784, 0.313262], [1.108523, 90.0]], rtol=1e-6)
    check_gradients(lambda z, x: mt.nn.weighted_cross_entropy_with_logits(z, x, 3.0), [labels, logits], order=2)
    text = message_of(ValueError, lambda: mt.nn.weighted_cross_entropy_with_logits(mt.ones([2]), mt.ones([2, 1]), 3.0))
    assert "same shape" in text and "[2, 1]" in text


def test_missing_nn_and_linalg_names_say_what_to_use():
    assert "mt.nn.conv2d_transpose" in message_of(AttributeError, lambda: mt.nn.conv1d_transpose)
    assert "mt.linalg.svd" in message_of(AttributeError, lambda: mt.linalg.matrix_rank)
    with pytest.raises(AttributeError, match="has no attribute 'no_such_op'"):
        mt.nn.no_such_op  # noqa: B018


def test_linalg_cholesky_solve_l2_normalize_and_normalize():
    a = mt.constant([[4.0, 2.0], [2.0, 3.0]], mt.float64)
    rhs = mt.constant([[1.0], [2.0]], mt.float64)
    np.testing.assert_allclose(mt.linalg.cholesky_solve(mt.linalg.cholesky(a), rhs).numpy(), [[-0.125], [0.75]])
    check_gradients(lambda a, b: mt.linalg.cholesky_solve(mt.linalg.cholesky(a @ mt.transpose(a)), b), [a, rhs])
    np.testing.assert_allclose(mt.linalg.l2_normalize(mt.constant([3.0, 4.0]), axis=0).numpy(), [0.6, 0.8])
    unit, length = mt.linalg.normalize(mt.constant([[3.0, 4.0], [1.0, 0.0]]), axis=1)
    np.testing.assert_allclose(unit.numpy(), [[0.6, 0.8], [1.0, 0.0]])
    assert length.numpy().tolist() == [[5.0], [1.0]]  # TensorFlow keeps the axis: shape (2, 1)
    unit, length = mt.linalg.normalize(mt.constant([[3.0, 4.0], [1.0, 0.0]]), ord=1, axis=[0, 1])
    assert length.numpy().tolist() == [[4.0]] and unit.numpy().tolist() == [[0.75, 1.0], [0.25, 0.0]]


# ---- einsum: explicit labels must match; '...' broadcasts ----------------------------------------------
A134 = mt.reshape(mt.range(12, dtype=mt.float64), [1, 3, 4]) / 7
B245 = mt.reshape(mt.range(40, dtype=mt.float64), [2, 4, 5]) / 11


def test_einsum_refuses_explicit_labels_of_different_sizes_before_running():
    text = message_of(mt.errors.InvalidArgumentError, lambda: mt.einsum("bij,bjk->bik", A134, B245))
    assert "'b'" in text and "[1, 3, 4]" in text and "[2, 4, 5]" in text and "'...'" in text
    text = message_of(mt.errors.InvalidArgumentError, lambda: mt.einsum("ij,ij->i", mt.ones([2, 3]), mt.ones([2, 1])))
    assert "'j'" in text
    text = message_of(
        mt.errors.InvalidArgumentError, lambda: mt.einsum("ij,jk->ik", mt.ones([2, 3, 1]), mt.ones([3, 4]))
    )
    assert "rank 3" in text and "'ij'" in text
    text = message_of(mt.errors.InvalidArgumentError, lambda: mt.tensordot(mt.ones([2, 1]), mt.ones([3, 4]), 1))
    assert "tensordot" in text and "1 long" in text
    text = message_of(
        mt.errors.InvalidArgumentError, lambda: mt.einsum("...ij,...jk->...ik", mt.ones([2, 3, 4]), mt.ones([3, 4, 5]))
    )
    assert "do not broadcast" in text and "2 and 3" in text


def test_einsum_ellipsis_broadcasts_a_size_one_batch_and_sums_its_gradient_back():
    weights = mt.reshape(mt.range(30, dtype=mt.float64), [2, 3, 5])
    for a in (A134, A134[0]):  # a batch of 1, and no batch axis at all
        result = mt.einsum("...ij,...jk->...ik", a, B245)
        assert result.shape.as_list() == [2, 3, 5]
        np.testing.assert_allclose(result.numpy().ravel()[:3], [0.90909, 0.98701, 1.06494], rtol=1e-5)  # TensorFlow
    with mt.GradientTape() as tape:
        tape.watch([A134, B245])
        y = mt.reduce_sum(mt.einsum("...ij,...jk->...ik", A134, B245) * weights)
    ga, gb = tape.gradient(y, [A134, B245])
    assert ga.shape.as_list() == [1, 3, 4] and gb.shape.as_list() == [2, 4, 5]
    np.testing.assert_allclose(ga.numpy().ravel()[:4], [173.63636, 216.81818, 260.0, 303.18182], rtol=1e-6)
    np.testing.assert_allclose(gb.numpy().ravel()[:3], [14.28571, 16.0, 17.71429], rtol=1e-6)
    check_gradients(lambda a, b: mt.einsum("...ij,...jk->...ik", a, b), [A134, B245], order=2)


# ---- conv2d with dilations -----------------------------------------------------------------------------
def test_conv2d_dilations_as_tensorflow_with_finite_difference_gradients():
    rng = np.random.default_rng(0)
    x, w = mt.constant(rng.normal(size=(2, 7, 6, 3))), mt.constant(rng.normal(size=(3, 2, 3, 4)))
    expected = [  # TensorFlow's shape and first entries (its CPU kernels have no gradient with dilations)
        (1, "SAME", 2, [2, 7, 6, 4], [2.86056, -2.34696, 0.96305, -0.27966]),
        (1, "VALID", (2, 3), [2, 3, 3, 4], [-0.89822, 3.97092, -3.86052, -4.52146]),
        (2, "SAME", [1, 2, 2, 1], [2, 4, 3, 4], [-1.61771, -0.46434, -2.54202, 0.71296]),
    ]
    for strides, padding, dilations, shape, first in expected:
        result = mt.nn.conv2d(x, w, strides, padding, dilations=dilations)
        assert result.shape.as_list() == shape
        np.testing.assert_allclose(result.numpy().ravel()[:4], first, rtol=1e-4)
    small_x, small_w = rng.normal(size=(1, 5, 4, 2)), rng.normal(size=(2, 2, 2, 3))
    check_gradients(lambda a, b: mt.nn.conv2d(a, b, 1, "SAME", dilations=2), [small_x, small_w], order=2)
    check_gradients(lambda a, b: mt.nn.conv2d(a, b, 2, "VALID", dilations=[1, 2]), [small_x, small_w])


# ---- pad with REFLECT and SYMMETRIC --------------------------------------------------------------------
X34_15 = mt.reshape(mt.range(12, dtype=mt.float64), [3, 4]) ** 1.5


@pytest.mark.parametrize(
    "paddings, mode, shape, first",  # TensorFlow's shape and first entries
    [
        ([[1, 2], [2, 3]], "REFLECT", [6, 9], [14.69694, 11.18034, 8.0, 11.18034, 14.69694, 18.52026]),
        ([[2, 3], [1, 4]], "SYMMETRIC", [8, 9], [8.0, 8.0, 11.18034, 14.69694, 18.52026, 18.52026]),
        ([[1, 1], [1, 1]], "reflect", [5, 6], [11.18034, 8.0, 11.18034, 14.69694, 18.52026, 14.69694]),
        ([[3, 3], [0, 0]], "SYMMETRIC", [9, 4], [22.62742, 27.0, 31.62278, 36.48287, 8.0]),
    ],
)
def test_mirror_padding_as_tensorflow(paddings, mode, shape, first):
    result = mt.pad(X34_15, paddings, mode=mode)
    assert result.shape.as_list() == shape
    np.testing.assert_allclose(result.numpy().ravel()[: len(first)], first, rtol=1e-6)


def test_mirror_padding_gradients_and_refusals():
    weights = mt.reshape(mt.range(54, dtype=mt.float64), [6, 9])
    g = gradient(lambda x: mt.reduce_sum(mt.pad(x, [[2, 1], [2, 3]], mode="SYMMETRIC") * weights), X34_15.numpy())
    np.testing.assert_allclose(g.ravel()[:6], [60.0, 103.0, 76.0, 76.0, 60.0, 103.0])  # TensorFlow's gradient
    weights = mt.reshape(mt.range(35, dtype=mt.float64), [5, 7])
    g = gradient(lambda x: mt.reduce_sum(mt.pad(x, [[1, 1], [2, 1]], mode="REFLECT") * weights), X34_15.numpy())
    np.testing.assert_allclose(g.ravel()[:6], [9.0, 18.0, 31.0, 12.0, 48.0, 96.0])
    check_gradients(lambda x: mt.pad(x, [[2, 0], [1, 3]], mode="REFLECT") ** 2, [X34_15], order=2)
    assert mt.pad(mt.constant([[1, 2, 3]]), [[0, 0], [2, 2]], mode="REFLECT").numpy().tolist() == [
        [3, 2, 1, 2, 3, 2, 1]
    ]
    text = message_of(mt.errors.InvalidArgumentError, lambda: mt.pad(X34_15, [[3, 0], [0, 0]], mode="REFLECT"))
    assert "REFLECT" in text and "at most 2" in text and "[3, 4]" in text
    text = message_of(mt.errors.InvalidArgumentError, lambda: mt.pad(X34_15, [[4, 0], [0, 0]], mode="SYMMETRIC"))
    assert "at most 3" in text
    assert "SYMMETRIC" in message_of(ValueError, lambda: mt.pad(X34_15, [[0, 0], [1, 1]], mode="EDGE"))


def test_one_hot_takes_numpy_floats_holding_whole_numbers_and_refuses_float_tensors():
    # TensorFlow converts a numpy float array of whole numbers to integer indices, and refuses a float tensor
    np.testing.assert_array_equal(mt.one_hot(np.array([1.0, 2.0], np.float32), 3).numpy(), [[0, 1, 0], [0, 0, 1]])
    for bad in (mt.constant([1.0, 2.0]), np.array([1.5])):
        with pytest.raises(TypeError, match="indices must be integers"):
            mt.one_hot(bad, 3)


def test_dtypes_are_also_named_by_tensorflows_numbers():
    assert mt.zeros(1, 1).dtype == mt.float32  # a tutorial's typo for zeros((1, 1)): 1 is DT_FLOAT
    assert [mt.as_dtype(n) for n in (1, 2, 3, 9, 10)] == [mt.float32, mt.float64, mt.int32, mt.int64, mt.bool]
    with pytest.raises(TypeError, match="cannot interpret 7"):
        mt.as_dtype(7)  # DT_STRING: not a dtype minitape has


# gather(batch_dims=b): example k picks from params[k] with indices[k]; the numbers are TensorFlow 2.21's
P234 = np.arange(24.0).reshape(2, 3, 4)
I22 = np.array([[0, 2], [1, 1]])


def test_gather_with_batch_dims_picks_from_each_examples_own_slice():
    assert mt.gather(P234, I22, batch_dims=1).numpy().tolist() == [
        [[0, 1, 2, 3], [8, 9, 10, 11]],
        [[16, 17, 18, 19], [16, 17, 18, 19]],
    ]
    on_last = [[[0, 2], [4, 6], [8, 10]], [[13, 13], [17, 17], [21, 21]]]
    assert mt.gather(P234, I22, batch_dims=1, axis=2).numpy().tolist() == on_last
    assert mt.gather(P234, I22, batch_dims=-1, axis=-1).numpy().tolist() == on_last  # -1: rank(indices) - 1
    assert mt.gather(P234, [0, 1], batch_dims=1).numpy().tolist() == [[0, 1, 2, 3], [16, 17, 18, 19]]
    two = mt.gather(P234, [[[0], [1], [2]], [[0], [0], [0]]], batch_dims=2, axis=2)
    assert two.numpy().tolist() == [[[0], [5], [10]], [[12], [16], [20]]]


def gather_by_loop(params, indices, b, axis):
    """The definition of batch_dims: a plain gather per example, the examples stacked."""
    if b == 0:
        return np.take(params, indices, axis=axis)
    return np.stack([gather_by_loop(p, i, b - 1, axis - 1) for p, i in zip(params, indices)])


def test_gather_with_batch_dims_agrees_with_a_loop_over_the_batch():
    rng = np.random.default_rng(0)
    params = rng.normal(size=(2, 3, 5, 4))
    for b, axis, index_shape in [(1, 1, (2, 4)), (1, 2, (2, 2, 3)), (2, 2, (2, 3, 2)), (1, 3, (2,)), (2, 3, (2, 3))]:
        indices = rng.integers(0, params.shape[axis], size=index_shape)
        got = mt.gather(params, indices, batch_dims=b, axis=axis).numpy()
        np.testing.assert_array_equal(got, gather_by_loop(params, indices, b, axis))


def test_gather_with_batch_dims_differentiates():
    x = mt.Variable(P234)
    with mt.GradientTape() as tape:
        y = mt.reduce_sum(mt.gather(x, I22, batch_dims=1, axis=2) ** 2)
    assert tape.gradient(y, x).numpy().tolist() == [  # TensorFlow's
        [[0, 0, 4, 0], [8, 0, 12, 0], [16, 0, 20, 0]],
        [[0, 52, 0, 0], [0, 68, 0, 0], [0, 84, 0, 0]],
    ]
    check_gradients(
        lambda p: mt.gather(p, I22, batch_dims=1), [np.random.default_rng(1).normal(size=(2, 3, 4))], order=2
    )
    check_gradients(
        lambda p: mt.gather(p, I22, batch_dims=1, axis=2), [np.random.default_rng(2).normal(size=(2, 3, 4))]
    )


def test_gather_with_batch_dims_refuses_what_tensorflow_refuses_and_says_why():
    assert "batch_dims 3 is out of range for indices of rank 2; use a value in [-2, 2]" in message_of(
        mt.errors.InvalidArgumentError, lambda: mt.gather(P234, I22, batch_dims=3, axis=2)
    )
    for indices, axis in [(I22, 0), ([[0], [1], [2]], 1)]:  # an axis inside the batch; batches of 2 and 3
        assert "batch_dims=1 needs params and indices that agree on their leading 1 axes" in message_of(
            mt.errors.InvalidArgumentError, lambda i=indices, a=axis: mt.gather(P234, i, batch_dims=1, axis=a)
        )
    assert "index 3 (at indices[0, 1]) is not in [0, 3) on axis 1" in message_of(
        mt.errors.InvalidArgumentError, lambda: mt.gather(P234, [[0, 3], [1, 1]], batch_dims=1)
    )
