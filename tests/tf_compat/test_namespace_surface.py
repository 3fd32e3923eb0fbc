"""The smaller `tf.math` / `tf.nn` / `tf` functions tutorials call, and the errors for what minitape leaves out.
Expected values are the examples of TensorFlow's API documentation."""

import sys
import warnings

import numpy as np
import pytest

import minitape as mt
from minitape.aids.check_gradients import check_gradients


def test_cumsum_as_documented():
    x = mt.constant([2, 4, 6, 8])
    assert mt.math.cumsum(x).numpy().tolist() == [2, 6, 12, 20]
    assert mt.cumsum(x, exclusive=True).numpy().tolist() == [0, 2, 6, 12]
    assert mt.cumsum(x, reverse=True).numpy().tolist() == [20, 18, 14, 8]
    assert mt.cumsum(x, exclusive=True, reverse=True).numpy().tolist() == [18, 14, 8, 0]
    assert mt.cumsum(mt.constant([[2, 4], [6, 8]]), axis=1).numpy().tolist() == [[2, 6], [6, 14]]
    with pytest.raises(ValueError, match="axis 2"):
        mt.cumsum(x, axis=2)


@pytest.mark.parametrize("exclusive", [False, True])
@pytest.mark.parametrize("reverse", [False, True])
def test_cumsum_gradients(exclusive, reverse):
    x = mt.constant(np.random.default_rng(0).normal(size=(3, 4)))
    check_gradients(lambda t: mt.cumsum(t, axis=1, exclusive=exclusive, reverse=reverse) ** 2, [x], order=2)


def test_confusion_matrix_as_documented():
    counts = mt.math.confusion_matrix([1, 2, 4], [2, 2, 4]).numpy()
    expected = np.zeros((5, 5), np.int32)
    expected[1, 2] = expected[2, 2] = expected[4, 4] = 1
    np.testing.assert_array_equal(counts, expected)
    assert mt.math.confusion_matrix([0, 1], [1, 1], num_classes=3).shape == (3, 3)


def test_small_math_functions():
    x = mt.constant([[3.0, 4.0], [0.0, 0.0]], mt.float64)
    np.testing.assert_allclose(mt.math.l2_normalize(x, axis=1).numpy(), [[0.6, 0.8], [0.0, 0.0]])
    np.testing.assert_allclose(mt.nn.l2_normalize(x).numpy(), [[0.6, 0.8], [0.0, 0.0]])
    assert float(mt.math.reduce_euclidean_norm(x)) == 5.0
    count = mt.math.count_nonzero(mt.constant([0, 1, 2, 0]))
    assert int(count) == 2 and count.dtype == mt.int64
    assert float(mt.math.log_sigmoid(mt.constant(-1000.0))) == -1000.0  # no overflow
    assert mt.truediv(mt.constant([3]), mt.constant([2])).numpy().tolist() == [1.5]
    check_gradients(lambda t: mt.math.l2_normalize(t, axis=1), [x + 1.0], order=2)


def test_map_fn_and_vectorized_map_stack_per_row_results_and_differentiate():
    x = mt.constant([[1.0, 2.0], [3.0, 4.0]], mt.float64)
    assert mt.map_fn(lambda row: mt.reduce_sum(row), x).numpy().tolist() == [3.0, 7.0]
    pair = mt.vectorized_map(lambda p: (p[0] * 2.0, p[1]), (x, mt.constant([5, 6])))
    assert pair[0].numpy().tolist() == [[2.0, 4.0], [6.0, 8.0]] and pair[1].numpy().tolist() == [5, 6]
    check_gradients(lambda t: mt.map_fn(lambda row: row**2 * row[0], t), [x], order=2)


@pytest.mark.parametrize(
    "lookup, hint",
    [
        (lambda: mt.summary, "TensorBoard"),
        (lambda: mt.saved_model, "mt.train.Checkpoint"),
        (lambda: mt.distribute, "one process"),
        (lambda: mt.io, "numpy"),
        (lambda: mt.lite, "deployment"),
        (lambda: mt.estimator, "GradientTape"),
        (lambda: mt.placeholder, "placeholders do not exist"),
        (lambda: mt.SparseTensor, "dense"),
        (lambda: mt.RaggedTensor, "mt.pad"),
        (lambda: mt.strings, "numbers only"),
        (lambda: mt.linalg.qr, "cholesky"),
        (lambda: mt.math.bessel_i0, "no Bessel functions"),
    ],
)
def test_what_is_left_out_says_so_and_what_to_use(lookup, hint):
    with pytest.raises(AttributeError, match="minitape has no tf") as info:
        lookup()
    assert hint in str(info.value)


def test_an_unknown_name_is_a_plain_attribute_error():
    with pytest.raises(AttributeError, match="module 'minitape.linalg' has no attribute 'nonsense'"):
        mt.linalg.nonsense  # noqa: B018


# ---- shape functions ---------------------------------------------------------------------------------------
def test_split_as_documented():
    x = mt.reshape(mt.range(5 * 30), (5, 30))
    parts = mt.split(x, [4, 15, 11], axis=1)
    assert [p.shape for p in parts] == [(5, 4), (5, 15), (5, 11)]
    assert [p.shape for p in mt.split(x, 3, axis=1)] == [(5, 10)] * 3
    assert [p.shape for p in mt.split(x, [4, -1], axis=1)] == [(5, 4), (5, 26)]
    with pytest.raises(ValueError, match="do not divide"):
        mt.split(x, 4, axis=1)
    with pytest.raises(ValueError, match="add up to 30"):
        mt.split(x, [4, 15], axis=1)
    check_gradients(lambda t: mt.split(t, [1, 2], axis=1)[1] ** 2, [mt.constant(np.ones((2, 3)))], order=2)


def test_reverse_repeat_meshgrid_ensure_shape():
    x = mt.constant([[1, 2, 3], [4, 5, 6]])
    assert mt.reverse(x, [1]).numpy().tolist() == [[3, 2, 1], [6, 5, 4]]
    assert mt.reverse(x, [0, -1]).numpy().tolist() == [[6, 5, 4], [3, 2, 1]]
    assert mt.repeat(mt.constant([1, 2, 3]), repeats=[3, 1, 2], axis=0).numpy().tolist() == [1, 1, 1, 2, 3, 3]
    assert mt.repeat(mt.constant([[1, 2], [3, 4]]), repeats=2, axis=None).numpy().tolist() == [1, 1, 2, 2, 3, 3, 4, 4]
    gx, gy = mt.meshgrid(mt.constant([1, 2, 3]), mt.constant([4, 5, 6, 7]))
    nx, ny = np.meshgrid([1, 2, 3], [4, 5, 6, 7])
    assert gx.numpy().tolist() == nx.tolist() and gy.numpy().tolist() == ny.tolist()
    ix, _ = mt.meshgrid(mt.constant([1, 2, 3]), mt.constant([4, 5]), indexing="ij")
    assert ix.shape == (3, 2)
    assert mt.ensure_shape(x, [None, 3]) is x
    with pytest.raises(ValueError, match=r"not compatible with expected shape \[3, None\]"):
        mt.ensure_shape(x, [3, None])
    check_gradients(lambda t: mt.repeat(t, [2, 0, 1], axis=0) ** 2, [mt.constant(np.ones((3, 2)))], order=2)


# ---- more of tf.math and tf.nn -------------------------------------------------------------------------------
def test_no_nan_functions_and_xlogy():
    x, y = mt.constant([1.0, 2.0, np.inf]), mt.constant([0.0, 4.0, 0.0])
    assert mt.math.divide_no_nan(x, y).numpy().tolist() == [0.0, 0.5, 0.0]
    assert mt.math.multiply_no_nan(x, y).numpy().tolist() == [0.0, 8.0, 0.0]
    assert mt.math.xlogy(mt.constant([0.0, 2.0]), mt.constant([0.0, np.e])).numpy().tolist() == [0.0, 2.0]
    assert mt.math.is_inf(x).numpy().tolist() == [False, False, True]
    assert mt.math.ceil(mt.constant([-1.5, 1.2])).numpy().tolist() == [-1.0, 2.0]
    assert int(mt.math.mod(mt.constant(-7), mt.constant(3))) == 2
    a = mt.constant([0.5, 2.0], mt.float64)
    check_gradients(lambda t: mt.math.divide_no_nan(t, t + 1.0), [a], order=2)
    check_gradients(lambda t: mt.math.xlogy(t, t), [a], order=2)


def test_activations_against_their_definitions():
    x = mt.constant([-2.0, -0.5, 0.5, 3.0, 7.0], mt.float64)
    v = x.numpy()
    erf = np.vectorize(__import__("math").erf)
    np.testing.assert_allclose(mt.math.erf(x).numpy(), erf(v))
    np.testing.assert_allclose(mt.math.expm1(x).numpy(), np.expm1(v))
    np.testing.assert_allclose(mt.nn.gelu(x).numpy(), 0.5 * v * (1 + erf(v / np.sqrt(2))))
    tanh_form = 0.5 * v * (1 + np.tanh(np.sqrt(2 / np.pi) * (v + 0.044715 * v**3)))
    np.testing.assert_allclose(mt.nn.gelu(x, approximate=True).numpy(), tanh_form)
    np.testing.assert_allclose(mt.nn.relu6(x).numpy(), np.clip(v, 0, 6))
    selu = 1.0507009873554805 * np.where(v > 0, v, 1.6732632423543772 * np.expm1(v))
    np.testing.assert_allclose(mt.nn.selu(x).numpy(), selu)
    np.testing.assert_allclose(mt.nn.softsign(x).numpy(), v / (1 + np.abs(v)))
    assert mt.math.softmax is mt.nn.softmax and mt.math.log_softmax is mt.nn.log_softmax
    for f in (mt.math.erf, mt.math.expm1, mt.nn.gelu, mt.nn.selu, mt.nn.softsign):
        check_gradients(f, [x], order=2)


def test_moments_bias_add_embedding_lookup():
    x = mt.constant([[1.0, 2.0], [3.0, 6.0]])
    mean, variance = mt.nn.moments(x, axes=[0])
    assert mean.numpy().tolist() == [2.0, 4.0] and variance.numpy().tolist() == [1.0, 4.0]
    mean, _ = mt.nn.moments(x, axes=[0, 1], keepdims=True)
    assert mean.shape == (1, 1)
    assert mt.nn.bias_add(x, mt.constant([10.0, 20.0])).numpy().tolist() == [[11.0, 22.0], [13.0, 26.0]]
    with pytest.raises(ValueError, match="bias of shape"):
        mt.nn.bias_add(x, mt.constant([1.0]))  # broadcasting would hide the mistake
    assert mt.nn.embedding_lookup(x, [1, 1]).numpy().tolist() == [[3.0, 6.0], [3.0, 6.0]]


def test_clip_by_global_norm_as_documented():
    a, b = mt.constant([3.0, 0.0]), mt.constant([0.0, 4.0])  # global norm 5
    (ca, cb, none), norm = mt.clip_by_global_norm([a, b, None], 1.0)
    assert float(norm) == 5.0 and none is None
    np.testing.assert_allclose([ca.numpy(), cb.numpy()], [[0.6, 0.0], [0.0, 0.8]])
    (unchanged,), _ = mt.clip_by_global_norm([a], 10.0)
    np.testing.assert_allclose(unchanged.numpy(), a.numpy())
    assert float(mt.linalg.global_norm([a, b])) == 5.0


def test_print_writes_values_as_tf_print(capsys):
    mt.print("loss:", mt.constant(0.25), mt.constant([1, 2, 3]))
    mt.print(mt.range(10), {"a": mt.constant([1.5, 2.0])}, output_stream=__import__("sys").stdout)
    captured = capsys.readouterr()
    assert captured.err == "loss: 0.25 [1 2 3]\n"  # standard error, as TensorFlow
    assert captured.out == "[0 1 2 ... 7 8 9] {'a': [1.5 2]}\n"
    mt.print(mt.range(10), summarize=-1, output_stream=__import__("sys").stdout)
    assert capsys.readouterr().out == "[0 1 2 3 4 5 6 7 8 9]\n"


def test_tensor_spec_and_categorical():
    spec = mt.TensorSpec(shape=[None, 3], dtype=mt.float32)
    assert spec.is_compatible_with(mt.ones((5, 3))) and not spec.is_compatible_with(mt.ones((5, 2)))
    assert not spec.is_compatible_with(mt.ones((5, 3), mt.float64))
    f = mt.function(lambda x: x * 2, input_signature=[spec])
    assert f(mt.ones((1, 3))).shape == (1, 3)
    draws = mt.random.categorical(mt.constant([[0.0, 20.0], [20.0, 0.0]]), 5, seed=1)
    assert draws.dtype == mt.int64 and draws.numpy().tolist() == [[1] * 5, [0] * 5]
    np.testing.assert_array_equal(
        mt.random.categorical(mt.zeros((1, 4)), 6, seed=3).numpy(),
        mt.random.categorical(mt.zeros((1, 4)), 6, seed=3).numpy(),
    )


def test_convert_image_dtype_scales_between_integer_and_float_ranges():
    image = mt.constant(np.array([[0, 128, 255]], np.uint8))
    as_float = mt.image.convert_image_dtype(image, mt.float32)
    assert as_float.dtype == mt.float32
    np.testing.assert_allclose(as_float.numpy(), [[0.0, 128 / 255, 1.0]], rtol=1e-6)
    assert mt.image.convert_image_dtype(as_float, mt.uint8).numpy().tolist() == [[0, 128, 255]]
    clipped = mt.image.convert_image_dtype(mt.constant([1.5, -0.2]), mt.uint8, saturate=True)
    assert clipped.numpy().tolist() == [255, 0]
    assert mt.image.convert_image_dtype(as_float, mt.float64).dtype == mt.float64
    with pytest.raises(AttributeError, match="no tf.image.decode_png: decode files with Pillow"):
        mt.image.decode_png  # noqa: B018
    assert mt.image.resize([[[1.0]]], [2, 2]).shape == (2, 2, 1)  # no longer missing: tests/ops/test_image_ops.py
    mt.debugging.set_log_device_placement(True)  # accepted: there is only the CPU


def test_einsum_with_an_ellipsis_as_numpy():
    rng = np.random.default_rng(1)
    a, b = rng.normal(size=(3, 4, 5)), rng.normal(size=(3, 5, 2))
    np.testing.assert_allclose(mt.einsum("...ij,...jk->...ik", a, b).numpy(), np.einsum("...ij,...jk->...ik", a, b))
    np.testing.assert_allclose(mt.einsum("...ij", a).numpy(), np.einsum("...ij", a))
    np.testing.assert_allclose(mt.einsum("i...,i...->...", a, a).numpy(), np.einsum("i...,i...->...", a, a))
    broadcast = mt.einsum("...ij,...jk->...ik", a, b[:1])  # a batch of 1 broadcasts, as in TensorFlow
    np.testing.assert_allclose(broadcast.numpy(), np.einsum("...ij,...jk->...ik", a, b[:1]))
    check_gradients(lambda x, y: mt.einsum("...ij,...jk->...ik", x, y), [mt.constant(a), mt.constant(b)], order=2)


def test_tensors_live_on_the_cpu():
    assert mt.constant(1.0).device.endswith("CPU:0") and mt.Variable(1.0).device.endswith("CPU:0")


X64 = mt.constant(np.random.default_rng(5).normal(size=(3, 4)))


@pytest.mark.parametrize(
    "f",
    [
        lambda t: mt.nn.dropout(t, 0.5, seed=7),  # a fixed seed: the same mask at every evaluation
        lambda t: mt.nn.dropout(t, 0.5, noise_shape=[3, 1], seed=7) ** 2,
        lambda t: mt.nn.moments(t, axes=[0])[1],
        lambda t: mt.nn.moments(t**2, axes=[0, 1])[0],
        lambda t: mt.clip_by_global_norm([t, 2.0 * t], 1.0)[0][1],
        lambda t: mt.reverse(t, [0, 1]) ** 2,
        lambda t: mt.meshgrid(t[0], t[1])[1] ** 2,
        lambda t: mt.nn.bias_add(t**2, t[0]),
        lambda t: mt.nn.embedding_lookup(t, [2, 0, 2]) ** 2,
        lambda t: mt.linalg.global_norm([t, t[0]]),
        lambda t: mt.math.log_sigmoid(t),
        lambda t: mt.nn.relu6(t * 4.0),
    ],
)
def test_composite_functions_differentiate_to_second_order(f):
    check_gradients(f, [X64], order=2)


def test_sort_argsort_top_k_as_documented():
    a = [1, 10, 26.9, 2.8, 166.32, 62.3]
    np.testing.assert_allclose(mt.sort(a).numpy(), [1.0, 2.8, 10.0, 26.9, 62.3, 166.32], rtol=1e-6)
    np.testing.assert_allclose(
        mt.sort(a, direction="DESCENDING").numpy(), [166.32, 62.3, 26.9, 10.0, 2.8, 1.0], rtol=1e-6
    )
    order = mt.argsort(a)
    assert order.numpy().tolist() == [0, 3, 1, 2, 5, 4] and order.dtype == mt.int32
    values, indices = mt.math.top_k(mt.constant([1, 3, 3, 2]), k=2)
    assert values.numpy().tolist() == [3, 3] and indices.numpy().tolist() == [1, 2]  # ties: the lower index first
    rows = mt.math.top_k(mt.constant([[0.1, 0.7, 0.2], [0.5, 0.1, 0.4]]), k=2)
    assert rows.indices.numpy().tolist() == [[1, 2], [0, 2]]
    assert mt.argsort(mt.constant([[3, 1], [2, 4]]), axis=0).numpy().tolist() == [[1, 0], [0, 1]]
    with pytest.raises(ValueError, match="axis 2"):
        mt.sort(mt.ones((2, 2)), axis=2)
    with pytest.raises(ValueError, match="k=4"):
        mt.math.top_k(mt.ones(3), k=4)


def test_sorted_values_carry_gradients():
    x = mt.constant(np.random.default_rng(2).normal(size=(3, 5)))
    check_gradients(lambda t: mt.sort(t, axis=0) ** 2, [x], order=2)
    check_gradients(lambda t: mt.math.top_k(t, k=2).values ** 3, [x], order=2)


def test_gather_nd_as_documented():
    params = mt.constant([[0.0, 1.0], [2.0, 3.0]])
    assert mt.gather_nd(params, [[0, 0], [1, 1]]).numpy().tolist() == [0.0, 3.0]
    assert mt.gather_nd(params, [[1], [0]]).numpy().tolist() == [[2.0, 3.0], [0.0, 1.0]]
    assert mt.gather_nd(params, [[[0, 1]], [[1, 0]]]).numpy().tolist() == [[1.0], [2.0]]
    with pytest.raises(ValueError, match=r"index \[1, -1\] is out of range"):
        mt.gather_nd(params, [[1, -1]])
    check_gradients(lambda t: mt.gather_nd(t, [[0, 1], [0, 1], [2, 3]]) ** 2, [X64], order=2)


def test_slice_and_the_scatters_give_the_tensor_slicing_guides_values():
    t1 = mt.constant([0, 1, 2, 3, 4, 5, 6, 7])
    assert mt.slice(t1, begin=[1], size=[3]).numpy().tolist() == [1, 2, 3]
    t3 = mt.constant([[[1, 3, 5, 7], [9, 11, 13, 15]], [[17, 19, 21, 23], [25, 27, 29, 31]]])
    assert mt.slice(t3, begin=[1, 1, 0], size=[1, 1, 2]).numpy().tolist() == [[[25, 27]]]
    assert mt.slice(t3, [0, 1, 2], [-1, -1, -1]).shape == (2, 1, 2)
    t11 = mt.constant([[2, 7, 0], [9, 0, 1], [0, 3, 8]])
    square = mt.tensor_scatter_nd_add(t11, indices=[[0, 2], [1, 1], [2, 0]], updates=[6, 5, 4])
    assert square.numpy().tolist() == [[2, 7, 6], [9, 5, 1], [4, 3, 8]] and square.dtype == mt.int32
    identity = mt.tensor_scatter_nd_sub(
        t11, [[0, 0], [0, 1], [1, 0], [1, 1], [1, 2], [2, 1], [2, 2]], [1, 7, 9, -1, 1, 3, 7]
    )
    assert identity.numpy().tolist() == [[1, 0, 0], [0, 1, 0], [0, 0, 1]]
    t14 = mt.constant([[-2, -7, 0], [-9, 0, 1], [0, -3, -8]])
    low = mt.tensor_scatter_nd_min(t14, indices=[[0, 2], [1, 1], [2, 0]], updates=[-6, -5, -4])
    high = mt.tensor_scatter_nd_max(t14, indices=[[0, 2], [1, 1], [2, 0]], updates=[6, 5, 4])
    assert low.numpy().tolist() == [[-2, -7, -6], [-9, -5, 1], [-4, -3, -8]]
    assert high.numpy().tolist() == [[-2, -7, 6], [-9, 5, 1], [4, -3, -8]]
    assert mt.scatter_nd([[1], [3], [5], [7], [9]], [2, 4, 6, 8, 10], mt.constant([10])).numpy().tolist() == [
        0,
        2,
        0,
        4,
        0,
        6,
        0,
        8,
        0,
        10,
    ]
    rows = mt.tensor_scatter_nd_update(mt.zeros((3, 2)), [[2], [0]], [[1.0, 2.0], [3.0, 4.0]])
    assert rows.numpy().tolist() == [[3.0, 4.0], [0.0, 0.0], [1.0, 2.0]]


def test_a_scatter_max_tie_shares_the_gradient_as_tensorflow_does():
    x, u = mt.constant([1.0, 5.0, 2.0]), mt.constant([5.0, 3.0])
    with mt.GradientTape(persistent=True) as tape:
        tape.watch([x, u])
        y = mt.tensor_scatter_nd_max(x, [[1], [2]], u)  # 5 meets 5 at position 1; 3 beats 2 at position 2
    assert y.numpy().tolist() == [1.0, 5.0, 3.0]
    dx, du = tape.gradient(y, [x, u])
    assert dx.numpy().tolist() == [1.0, 0.5, 0.0] and du.numpy().tolist() == [0.5, 1.0]


def test_slice_and_scatter_say_which_index_or_shape_is_wrong():
    t = mt.zeros((4, 5))
    with pytest.raises(mt.errors.InvalidArgumentError, match=r"index \[4, 0\] does not index into shape \[4, 5\]"):
        mt.tensor_scatter_nd_add(t, [[4, 0]], [1.0])
    with pytest.raises(
        mt.errors.InvalidArgumentError, match=r"updates of shape \[2\] do not fit.*take updates of shape \[1, 5\]"
    ):
        mt.tensor_scatter_nd_update(t, [[1]], [1.0, 2.0])
    with pytest.raises(mt.errors.InvalidArgumentError, match=r"indices must be integers"):
        mt.tensor_scatter_nd_add(t, [[0.5, 1.0]], [1.0])
    with pytest.raises(mt.errors.InvalidArgumentError, match=r"TensorScatterAdd.*float32.*int32"):
        mt.tensor_scatter_nd_add(t, [[0, 0]], mt.constant([1]))
    with pytest.raises(mt.errors.InvalidArgumentError, match=r"slice: on axis 1 \(size 5\) begin 3 and size 3"):
        mt.slice(t, [0, 3], [1, 3])
    with pytest.raises(mt.errors.InvalidArgumentError, match=r"one entry per axis"):
        mt.slice(t, [0], [1])


def test_gather_nd_and_scatter_take_empty_index_lists():
    params = mt.constant([[1.0, 2.0], [3.0, 4.0]])
    assert mt.gather_nd(params, np.zeros((0, 2), np.int64)).shape == (0,)
    assert mt.gather_nd(params, np.zeros((2, 0), np.int64)).shape == (2, 2, 2)
    unchanged = mt.tensor_scatter_nd_add(params, np.zeros((0, 2), np.int64), np.zeros((0,), np.float32))
    assert unchanged.numpy().tolist() == [[1.0, 2.0], [3.0, 4.0]]


def test_tf_version_names_minitapes_version():
    # tutorials begin with print(tf.version.VERSION)
    assert mt.version.VERSION == mt.__version__ and mt.version.GIT_VERSION == "v" + mt.__version__


def test_print_shows_as_many_digits_as_tensorflow(capsys):
    # TensorFlow 2.21 prints each line below exactly so: float32 and float16 with 6 significant digits when they
    # read back as the same float32, else 9; float64 with 15, else 17; booleans as 1 and 0
    special = [1.5, 2.0 / 3, 1e-8, float("nan"), float("inf"), -0.0, 100.0]
    for dtype in (mt.float16, mt.float32, mt.float64):
        mt.print(mt.constant(special, dtype), summarize=-1, output_stream=sys.stdout)
    mt.print(mt.constant([0.1, 1 / 7], mt.float64), mt.constant([True, False]), mt.constant(True), mt.constant(7))
    out, err = capsys.readouterr()
    assert out.splitlines() == [
        "[1.5 0.666503906 0 nan inf -0 100]",
        "[1.5 0.666666687 1e-08 nan inf -0 100]",
        "[1.5 0.66666666666666663 1e-08 nan inf -0 100]",
    ]
    assert err == "[0.1 0.14285714285714285] [1 0] 1 7\n"


def test_a_number_beyond_a_dtypes_range_converts_to_inf_without_a_numpy_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert mt.constant(1e20, mt.float16).numpy() == np.inf  # TensorFlow: inf, silently
        assert mt.constant([-1e40], mt.float32).numpy()[0] == -np.inf


def test_set_shape_checks_the_shape_and_changes_nothing_as_in_eager_tensorflow():
    t = mt.zeros((2, 3))
    t.set_shape([None, 3])  # the time-series tutorial's WindowGenerator does this to every batch
    t.set_shape(None)
    mt.Variable(t).set_shape([2, 3])
    assert t.shape == (2, 3)
    for wrong, text in [([2, 4], r"\(2, 4\)"), ([2], r"\(2,\)")]:
        with pytest.raises(ValueError, match=rf"Tensor's shape \(2, 3\) is not compatible with supplied shape {text}"):
            t.set_shape(wrong)


def test_tensorflows_short_names_for_keras_modules():
    # TensorFlow 2.21: tf.initializers, tf.optimizers, tf.losses and tf.metrics are Keras's modules
    assert (mt.initializers, mt.optimizers, mt.losses, mt.metrics) == (
        mt.keras.initializers,
        mt.keras.optimizers,
        mt.keras.losses,
        mt.keras.metrics,
    )
    assert mt.initializers.zeros()([2]).numpy().tolist() == [0.0, 0.0]  # the time-series tutorial's Dense init
