"""The smaller `tf.math` / `tf.nn` / `tf` functions tutorials call, and the errors for what minitape leaves out.
Expected values are the examples of TensorFlow's API documentation."""

import numpy as np
import pytest

import minitape as mt
from minitape.test_util import check_gradients


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
        (lambda: mt.saved_model, "np.save"),
        (lambda: mt.distribute, "one process"),
        (lambda: mt.io, "numpy"),
        (lambda: mt.lite, "deployment"),
        (lambda: mt.estimator, "GradientTape"),
        (lambda: mt.TensorArray, "mt.stack"),
        (lambda: mt.SparseTensor, "dense"),
        (lambda: mt.RaggedTensor, "mt.pad"),
        (lambda: mt.strings, "numbers only"),
        (lambda: mt.linalg.svd, "ord=2"),
        (lambda: mt.math.top_k, "argsort"),
    ],
)
def test_what_is_left_out_says_so_and_what_to_use(lookup, hint):
    with pytest.raises(AttributeError, match="minitape has no tf") as info:
        lookup()
    assert hint in str(info.value)


def test_an_unknown_name_is_a_plain_attribute_error():
    with pytest.raises(AttributeError, match="module 'minitape.linalg' has no attribute 'nonsense'"):
        mt.linalg.nonsense  # noqa: B018
