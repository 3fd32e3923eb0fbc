"""Segment reductions (tf.math.segment_*, unsorted_segment_*) and tf.math.bincount: TensorFlow 2.21's values,
empty-segment fills, dtypes and errors, gradients against finite differences (second order too), mt.function."""

from __future__ import annotations

import numpy as np
import pytest

import minitape as mt
from minitape.aids.check_gradients import check_gradients

DATA = mt.constant([[1.0, 2], [3, 4], [5, 6], [7, 8]])
rng = np.random.default_rng(7)


# ---- values as TensorFlow 2.21 gives them ------------------------------------------------------------------------
@pytest.mark.parametrize(
    "name, expected",  # TF 2.21: tf.math.<name>(DATA, [0, 0, 2, 2]); segment 1 is empty
    [
        ("segment_sum", [[4, 6], [0, 0], [12, 14]]),
        ("segment_mean", [[2, 3], [0, 0], [6, 7]]),
        ("segment_max", [[3, 4], [0, 0], [7, 8]]),
        ("segment_min", [[1, 2], [0, 0], [5, 6]]),
        ("segment_prod", [[3, 8], [1, 1], [35, 48]]),
    ],
)
def test_sorted_segments_have_max_id_plus_one_rows_and_tensorflows_fill(name, expected):
    out = getattr(mt.math, name)(DATA, [0, 0, 2, 2])
    assert out.dtype == mt.float32 and out.numpy().tolist() == expected


def test_sorted_mean_of_integers_truncates_towards_zero_in_the_data_dtype():
    # TF 2.21: segment_mean([-3, -4, 0], [0, 0, 0]) -> [-2] (int32); [-3, 0] -> [-1]; uint8 stays uint8
    assert mt.math.segment_mean([-3, -4, 0], [0, 0, 0]).numpy().tolist() == [-2]
    assert mt.math.segment_mean([-3, 0], [0, 0]).numpy().tolist() == [-1]
    out = mt.math.segment_mean(mt.constant([1, 2], mt.uint8), [0, 2])
    assert out.dtype == mt.uint8 and out.numpy().tolist() == [1, 0, 2]


def test_sorted_segments_of_no_rows_and_of_many_axes():
    empty = mt.math.segment_max(mt.zeros([0, 2]), mt.zeros([0], mt.int32))
    assert empty.shape == (0, 2)
    out = mt.math.segment_max(mt.reshape(mt.range(12.0), [3, 2, 2]), [0, 1, 1])  # TF 2.21's values
    assert out.numpy().tolist() == [[[0, 1], [2, 3]], [[8, 9], [10, 11]]]


@pytest.mark.parametrize(
    "name, expected",  # TF 2.21: tf.math.<name>(DATA, [2, 0, 2, 0], 4)
    [
        ("unsorted_segment_sum", [[10, 12], [0, 0], [6, 8], [0, 0]]),
        ("unsorted_segment_mean", [[5, 6], [0, 0], [3, 4], [0, 0]]),
        ("unsorted_segment_prod", [[21, 32], [1, 1], [5, 12], [1, 1]]),
        ("unsorted_segment_max", [[7, 8], [-3.4028235e38] * 2, [5, 6], [-3.4028235e38] * 2]),
        ("unsorted_segment_min", [[3, 4], [3.4028235e38] * 2, [1, 2], [3.4028235e38] * 2]),
    ],
)
def test_unsorted_segments_and_their_empty_fills(name, expected):
    out = getattr(mt.math, name)(DATA, [2, 0, 2, 0], 4)
    np.testing.assert_allclose(out.numpy(), np.array(expected, np.float32))


def test_unsorted_sqrt_n_divides_by_the_root_of_the_count():
    out = mt.math.unsorted_segment_sqrt_n(DATA, [2, 0, 2, 0], 4)  # TF 2.21: [[7.071068, 8.485282], [0, 0], ...]
    np.testing.assert_allclose(out.numpy(), [[7.071068, 8.485282], [0, 0], [4.242641, 5.656854], [0, 0]], rtol=1e-6)


def test_unsorted_fills_follow_the_dtype():
    ints = mt.constant([1, 2, 3, 4])
    # TF 2.21: int32 max fills -2147483648, min 2147483647; uint8 max 0, min 255; float64 min 1.79769313e+308
    assert mt.math.unsorted_segment_max(ints, [2, 0, 2, 0], 4).numpy().tolist() == [4, -(2**31), 3, -(2**31)]
    assert mt.math.unsorted_segment_min(ints, [2, 0, 2, 0], 4).numpy().tolist() == [2, 2**31 - 1, 1, 2**31 - 1]
    small = mt.constant([1, 2, 3, 4], mt.uint8)
    assert mt.math.unsorted_segment_max(small, [2, 0, 2, 0], 4).numpy().tolist() == [4, 0, 3, 0]
    assert mt.math.unsorted_segment_min(small, [2, 0, 2, 0], 4).numpy().tolist() == [2, 255, 1, 255]
    wide = mt.math.unsorted_segment_min(mt.constant([1.0, 2.0], mt.float64), [0, 0], 2)
    assert wide.numpy()[1] == np.finfo(np.float64).max


def test_unsorted_mean_of_integers_is_a_float_as_tensorflow_divides():
    # TF 2.21: int32 data gives float64 [3, 0, 2, 0]; uint8 gives float32
    out = mt.math.unsorted_segment_mean(mt.constant([1, 2, 3, 4]), [2, 0, 2, 0], 4)
    assert out.dtype == mt.float64 and out.numpy().tolist() == [3, 0, 2, 0]
    assert mt.math.unsorted_segment_mean(mt.constant([1, 2], mt.uint8), [0, 0], 1).dtype == mt.float32


def test_unsorted_drops_negative_ids_and_takes_ids_of_many_axes():
    out = mt.math.unsorted_segment_sum(DATA, [-1, 0, 2, 0], 4)  # TF 2.21: row 0 is left out
    assert out.numpy().tolist() == [[10, 12], [0, 0], [5, 6], [0, 0]]
    cube = mt.reshape(mt.range(8.0), [2, 2, 2])
    assert mt.math.unsorted_segment_min(cube, [[0, 1], [1, 0]], 2).numpy().tolist() == [[0, 1], [2, 3]]
    assert mt.math.unsorted_segment_prod(cube, [[0, 1], [1, 0]], 2).numpy().tolist() == [[0, 7], [8, 15]]
    assert mt.math.unsorted_segment_sum(1.0, 0, 1).numpy().tolist() == [1.0]  # a scalar with a scalar id
    assert mt.math.unsorted_segment_sum(DATA, [0, 1, 1, 0], mt.constant(2, mt.int64)).shape == (2, 2)
    assert mt.math.unsorted_segment_max(DATA, [-1] * 4, 0).shape == (0, 2)


def test_a_nan_makes_its_max_or_min_segment_nan_as_reduce_max():
    data = [1.0, np.nan, 2.0, 3.0]
    # TF 2.21's segment kernels give [2, 3] here (the value compared after the NaN wins) but [nan, 3] for
    # [1, 2, nan, 3]; its reduce_max gives nan for both. minitape gives NaN wherever a NaN is, as reduce_max
    for op in (mt.math.unsorted_segment_max, mt.math.unsorted_segment_min):
        out = op(data, [0, 0, 0, 1], 2).numpy()
        assert np.isnan(out[0]) and out[1] == 3
    for op in (mt.math.segment_max, mt.math.segment_min):
        out = op(data, [0, 0, 0, 1]).numpy()
        assert np.isnan(out[0]) and out[1] == 3
    assert np.isnan(mt.reduce_max(data[:3]).numpy())


# ---- errors: TensorFlow's types and words ------------------------------------------------------------------------
@pytest.mark.parametrize(
    "ids, words",
    [
        ([0, 1, 0, 2], r"segment ids are not increasing: segment_ids\[2\] = 0 comes after 1"),
        ([1, 0, 0, 0], "segment ids are not increasing"),
        ([-2, 0, 0, 0], r"Segment id -2 out of range \[0, 1\), possibly because 'segment_ids' input is not sorted"),
        ([-1, -1, -1, -1], "segment ids must be >= 0"),
        ([0, 0, 1], "segment_ids should be the same size as dimension 0 of input"),
        ([[0, 0], [1, 1]], "segment_ids should be a vector"),
        ([0.0, 0.0, 1.0, 1.0], "Value for attr 'Tindices' of float32 is not in the list of allowed values"),
        (mt.constant([0, 0, 1, 1], mt.int16), "Tindices' of int16"),
    ],
)
def test_sorted_segments_refuse_bad_ids_as_tensorflow(ids, words):
    for name in ("segment_sum", "segment_mean", "segment_max", "segment_min", "segment_prod"):
        with pytest.raises(mt.errors.InvalidArgumentError, match=words):
            getattr(mt.math, name)(DATA, ids)


def test_sorted_segments_refuse_bool_and_scalar_data():
    with pytest.raises(mt.errors.InvalidArgumentError, match="Value for attr 'T' of bool"):
        mt.math.segment_sum([True, False], [0, 0])
    with pytest.raises(mt.errors.InvalidArgumentError, match="input must be at least rank 1"):
        mt.math.segment_sum(3.0, [0])


@pytest.mark.parametrize(
    "ids, num_segments, words",
    [
        ([4, 0, 2, 0], 4, r"segment_ids\[0\] = 4 is out of range \[0, 4\)"),
        ([0, 1, 1], 2, r"data.shape = \[4, 2\] does not start with segment_ids.shape = \[3\]"),
        ([[0, 1], [1, 0]], 2, r"does not start with segment_ids.shape = \[2, 2\]"),
        ([0, 1, 1, 0], -1, "Input num_segments == -1 must not be negative"),
        ([0, 1, 1, 0], [2], r"num_segments should be a scalar, not shape \[1\]"),
        ([0, 1, 1, 0], 2.0, "num_segments of float.* is not in the list of allowed values: int32, int64"),
    ],
)
def test_unsorted_segments_refuse_as_tensorflow(ids, num_segments, words):
    for name in ("sum", "mean", "max", "min", "prod", "sqrt_n"):
        with pytest.raises(mt.errors.InvalidArgumentError, match=words):
            getattr(mt.math, f"unsorted_segment_{name}")(DATA, ids, num_segments)


def test_unsorted_sqrt_n_refuses_integers():
    # TF 2.21 fails in its Sqrt: "Value for attr 'T' of int32 is not in the list of allowed values: ..."
    with pytest.raises(mt.errors.InvalidArgumentError, match="floating-point.*int32"):
        mt.math.unsorted_segment_sqrt_n(mt.constant([1, 2]), [0, 0], 1)


# ---- gradients ---------------------------------------------------------------------------------------------------
def _distinct(*shape):
    n = int(np.prod(shape))
    return (rng.permutation(n) * 0.37 + 0.4).reshape(shape) * rng.choice([-1.0, 1.0], shape)


SORTED_IDS = [0, 0, 1, 3, 3, 3]  # segment 2 is empty
UNSORTED_IDS = [3, 0, -1, 3, 0, 1]  # segment 2 is empty; entry 2 is dropped


@pytest.mark.parametrize("kind", ["sum", "mean", "max", "min", "prod"])
def test_sorted_segment_gradients_first_and_second_order(kind):
    op = getattr(mt.math, f"segment_{kind}")
    check_gradients(lambda x: op(x, SORTED_IDS) ** 2, [_distinct(6, 2)], order=2)


@pytest.mark.parametrize("kind", ["sum", "mean", "max", "min", "prod", "sqrt_n"])
def test_unsorted_segment_gradients_first_and_second_order(kind):
    op = getattr(mt.math, f"unsorted_segment_{kind}")
    filled = [0, 1, 3]  # the empty segment 2 of max and min holds the dtype's extreme: its square would overflow
    check_gradients(lambda x: mt.gather(op(x, UNSORTED_IDS, 4), filled) ** 2, [_distinct(6, 2)], order=2)


def test_max_gradient_is_shared_by_ties_and_prod_gradient_survives_zeros():
    x = mt.Variable([[1.0, 5.0], [5.0, 5.0], [2.0, 0.0]])
    with mt.GradientTape() as tape:
        y = mt.math.segment_max(x, [0, 0, 1])
    assert tape.gradient(y, x).numpy().tolist() == [[0, 0.5], [1, 0.5], [1, 1]]  # TF 2.21's values
    v = mt.Variable([2.0, 0.0, 3.0, 0.0, 0.0, 4.0])
    with mt.GradientTape() as tape:
        y = mt.math.unsorted_segment_prod(v, [0, 0, 0, 1, 1, 2], 3)
    assert tape.gradient(y, v).numpy().tolist() == [0, 6, 0, 0, 0, 1]  # TF 2.21's values


# ---- mt.function ------------------------------------------------------------------------------------------------
def test_traced_segments_give_what_eager_gives_as_the_ids_change():
    @mt.function
    def sums(data, ids):
        return mt.math.segment_sum(data, ids), mt.math.unsorted_segment_max(data, ids, 5)

    data = mt.constant(_distinct(4, 3))
    for ids in ([0, 0, 1, 1], [0, 2, 2, 4], [1, 1, 1, 1], [0, 1, 2, 3]):
        ids = mt.constant(ids)
        eagerly = mt.math.segment_sum(data, ids), mt.math.unsorted_segment_max(data, ids, 5)
        for traced, eager in zip(sums(data, ids), eagerly):
            assert traced.shape == eager.shape and np.array_equal(traced.numpy(), eager.numpy())
    with pytest.raises(mt.errors.InvalidArgumentError, match="segment ids are not increasing"):
        sums(data, mt.constant([1, 0, 0, 0]))  # a replay checks the ids too


def test_a_traced_num_segments_retraces_instead_of_keeping_the_old_count():
    @mt.function
    def by_count(data, ids, n):
        return mt.math.unsorted_segment_sum(data, ids, n)

    data = mt.constant([1.0, 2.0, 3.0])
    assert by_count(data, mt.constant([0, 1, 1]), mt.constant(2)).numpy().tolist() == [1, 5]
    assert by_count(data, mt.constant([0, 1, 3]), mt.constant(4)).numpy().tolist() == [1, 2, 0, 3]


def test_traced_gradient_of_a_segment_max_equals_eager():
    def grads(x, ids):
        with mt.GradientTape() as tape:
            tape.watch(x)
            y = mt.reduce_sum(mt.math.segment_max(x, ids) ** 2)
        return tape.gradient(y, x)

    traced = mt.function(grads)
    x = mt.constant(_distinct(5, 2))
    for ids in ([0, 0, 1, 1, 1], [0, 1, 1, 3, 3]):
        ids = mt.constant(ids)
        np.testing.assert_allclose(traced(x, ids).numpy(), grads(x, ids).numpy())


# ---- bincount ----------------------------------------------------------------------------------------------------
def test_bincount_as_tensorflow():
    # TF 2.21's values
    assert mt.math.bincount([1, 1, 3]).numpy().tolist() == [0, 2, 0, 1]
    assert mt.math.bincount([1, 1, 3], minlength=6).numpy().tolist() == [0, 2, 0, 1, 0, 0]
    assert mt.math.bincount([1, 1, 3], maxlength=2).numpy().tolist() == [0, 2]
    assert mt.math.bincount([1, 1, 3], minlength=5, maxlength=2).numpy().tolist() == [0, 2]
    assert mt.math.bincount([1, 1, 3], minlength=mt.constant(5)).shape == (5,)
    assert mt.math.bincount(mt.zeros([0], mt.int32)).shape == (0,)
    assert mt.math.bincount([[1, 2], [2, 2]]).numpy().tolist() == [0, 1, 3]
    assert mt.math.bincount([1.0, 2.0]).numpy().tolist() == [0, 1, 1]  # floats are cast to int32
    weighted = mt.math.bincount([1, 1, 3], weights=[0.5, 1.0, 2.0], dtype=mt.float64)
    assert weighted.dtype == mt.float32 and weighted.numpy().tolist() == [0, 1.5, 0, 2]  # weights' dtype wins
    assert mt.math.bincount([1, 1, 3], weights=[1, 2, 3]).numpy().tolist() == [0, 3, 0, 3]
    assert mt.math.bincount([1, 1, 3], dtype=mt.int64).dtype == mt.int64
    rows = mt.math.bincount([[1, 2], [2, 2]], weights=[[1.0, 2.0], [3.0, 4.0]], axis=-1)
    assert rows.numpy().tolist() == [[0, 1, 2], [0, 0, 7]]
    binary = mt.math.bincount([[1, 1], [3, 0]], binary_output=True, axis=-1)
    assert binary.dtype == mt.int32 and binary.numpy().tolist() == [[0, 1, 0, 0], [1, 0, 0, 1]]


def test_bincount_refuses_as_tensorflow():
    with pytest.raises(mt.errors.InvalidArgumentError, match="Input arr must be non-negative"):
        mt.math.bincount([1, -1, 3])
    with pytest.raises(ValueError, match="axis=1. Only 0 and -1 are currently supported"):
        mt.math.bincount([[1, 2]], axis=1)
    with pytest.raises(mt.errors.InvalidArgumentError, match="Shape must be at most rank 2 but is rank 3"):
        mt.math.bincount(mt.zeros([2, 2, 2], mt.int32), axis=-1)
    with pytest.raises(ValueError, match="`binary_output` and `weights` are mutually exclusive"):
        mt.math.bincount([1], weights=[1.0], binary_output=True)
    with pytest.raises(mt.errors.InvalidArgumentError, match=r"`weights` must be the same shape as `arr`"):
        mt.math.bincount([1, 1, 3], weights=[1.0, 2.0])
    with pytest.raises(mt.errors.InvalidArgumentError, match=r"size \(-1\) must be non-negative"):
        mt.math.bincount([1, 1, 3], maxlength=-1)
    with pytest.raises(mt.errors.InvalidArgumentError, match="'T' of bool"):
        mt.math.bincount([1], dtype=mt.bool)
    with pytest.raises(mt.errors.InvalidArgumentError, match="'Tidx' of uint8"):
        mt.math.bincount(mt.constant([1], mt.uint8))


def test_bincount_has_no_gradient_as_tensorflow():
    w = mt.Variable([0.5, 1.0, 2.0])
    with mt.GradientTape() as tape:
        y = mt.math.bincount([1, 1, 3], weights=w)
    with pytest.raises(LookupError, match="gradient registry has no entry for: DenseBincount"):  # TF 2.21's words
        tape.gradient(y, w)


def test_traced_bincount_counts_again_at_every_call():
    counts = mt.function(lambda arr: mt.math.bincount(arr, minlength=2))
    for arr in ([0, 1, 1], [4, 4, 0], [1, 1, 1], [0, 0, 6]):
        arr = mt.constant(arr)
        assert counts(arr).numpy().tolist() == mt.math.bincount(arr, minlength=2).numpy().tolist()
