"""tf.roll, tf.unique, tf.unique_with_counts and tf.searchsorted: TensorFlow 2.21's values, dtypes and errors,
roll's gradient against finite differences, the others' missing gradients as TensorFlow's, and mt.function."""

from __future__ import annotations

import numpy as np
import pytest

import minitape as mt
from minitape.aids.check_gradients import check_gradients


# ---- roll --------------------------------------------------------------------------------------------------------
def test_roll_as_tensorflow():
    # TF 2.21's values, the docstring's examples among them
    assert mt.roll([1, 2, 3, 4, 5], 2, 0).numpy().tolist() == [4, 5, 1, 2, 3]
    assert mt.roll([1, 2, 3, 4, 5], -2, 0).numpy().tolist() == [3, 4, 5, 1, 2]
    assert mt.roll([1, 2, 3], 7, 0).numpy().tolist() == [3, 1, 2]
    t = mt.reshape(mt.range(10), [2, 5])
    assert mt.roll(t, [1, -2], [0, 1]).numpy().tolist() == [[7, 8, 9, 5, 6], [2, 3, 4, 0, 1]]
    assert mt.roll(t, [2, -3], [1, 1]).numpy().tolist() == [[1, 2, 3, 4, 0], [6, 7, 8, 9, 5]]  # shifts add up
    assert mt.roll([[1, 2, 3], [4, 5, 6]], 1, -1).numpy().tolist() == [[3, 1, 2], [6, 4, 5]]
    assert mt.roll([True, False, False], 1, 0).numpy().tolist() == [False, True, False]
    assert mt.roll(mt.zeros([0, 3]), 1, 0).shape == (0, 3)
    shifted = mt.roll([1, 2, 3], mt.constant(1, mt.int64), mt.constant(0))
    assert shifted.dtype == mt.int32 and shifted.numpy().tolist() == [3, 1, 2]


@pytest.mark.parametrize(
    "x, shift, axis, words",
    [
        ([[1, 2, 3]], 1, 2, "axis 2 is out of range for a tensor of rank 2"),
        ([[1, 2, 3]], 1, -3, "axis -3 is out of range for a tensor of rank 2"),
        ([[1, 2, 3]], [1, 2], [0], "shift and axis must have the same size"),
        ([[1, 2, 3]], 1, [0, 1], "shift and axis must have the same size"),
        (5, 1, 0, "input must be 1-D or higher"),
        ([1, 2, 3], 1.0, 0, "Value for attr 'Tshift' of float32 is not in the list of allowed values: int32, int64"),
        ([1, 2, 3], [[1]], [[0]], r"shift must be a scalar or a 1-D vector. Found: \[1, 1\]"),
    ],
)
def test_roll_refuses_as_tensorflow(x, shift, axis, words):
    with pytest.raises(mt.errors.InvalidArgumentError, match=words):
        mt.roll(x, shift, axis)


def test_roll_gradient_rolls_back_to_every_order():
    x = np.random.default_rng(3).normal(size=(3, 4))
    check_gradients(lambda t: mt.roll(t, [1, -2], [0, 1]) ** 3, [x], order=2)
    v = mt.Variable([1.0, 2.0, 3.0, 4.0])
    with mt.GradientTape() as tape:
        y = mt.roll(v, 1, 0) * mt.constant([1.0, 2.0, 3.0, 4.0])
    assert tape.gradient(y, v).numpy().tolist() == [2, 3, 4, 1]  # TF 2.21's values


def test_traced_roll_takes_each_calls_shift():
    rolled = mt.function(lambda x, k: mt.roll(x, k, 0))
    x = mt.constant([1, 2, 3, 4])
    for k in (1, 3, -1):
        assert rolled(x, mt.constant(k)).numpy().tolist() == mt.roll(x, k, 0).numpy().tolist()


# ---- unique ------------------------------------------------------------------------------------------------------
def test_unique_keeps_the_order_of_first_appearance():
    y, idx = mt.unique([3, 1, 3, 2, 1])  # TF 2.21: y [3, 1, 2], idx [0, 1, 0, 2, 1] (numpy would sort: [1, 2, 3])
    assert y.numpy().tolist() == [3, 1, 2] and idx.numpy().tolist() == [0, 1, 0, 2, 1]
    assert idx.dtype == mt.int32 and type(mt.unique([1])).__name__ == "Unique"
    assert mt.unique([3, 1, 3], out_idx=mt.int64).idx.dtype == mt.int64
    counted = mt.unique_with_counts([3, 1, 3, 2, 1], out_idx=mt.int64)
    assert type(counted).__name__ == "UniqueWithCounts" and counted._fields == ("y", "idx", "count")
    assert counted.count.dtype == mt.int64 and counted.count.numpy().tolist() == [2, 2, 1]
    assert mt.unique([True, False, True]).y.numpy().tolist() == [True, False]
    empty = mt.unique(mt.zeros([0]))
    assert empty.y.shape == (0,) and empty.idx.shape == (0,) and empty.y.dtype == mt.float32


def test_unique_treats_each_nan_apart_and_keeps_the_first_of_equal_zeros():
    y, idx = mt.unique([3.0, 1.0, 3.0, np.nan, np.nan, -0.0, 0.0])
    # TF 2.21: y [3, 1, nan, nan, -0.], idx [0, 1, 0, 2, 3, 4, 4]
    np.testing.assert_array_equal(y.numpy(), [3, 1, np.nan, np.nan, 0])
    assert np.signbit(y.numpy()[-1]) and idx.numpy().tolist() == [0, 1, 0, 2, 3, 4, 4]


def test_unique_refuses_as_tensorflow():
    for f in (mt.unique, mt.unique_with_counts):
        with pytest.raises(mt.errors.InvalidArgumentError, match="unique expects a 1D vector"):
            f([[1, 2], [1, 2]])
        with pytest.raises(mt.errors.InvalidArgumentError, match="unique expects a 1D vector"):
            f(3)
        with pytest.raises(mt.errors.InvalidArgumentError, match="'out_idx' of float32 is not in the list"):
            f([1, 2], out_idx=mt.float32)


def test_unique_has_no_gradient_as_tensorflow():
    x = mt.Variable([3.0, 1.0, 3.0, 2.0])
    for f, op_type in ((mt.unique, "Unique"), (mt.unique_with_counts, "UniqueWithCounts")):
        with mt.GradientTape() as tape:
            y = mt.reduce_sum(f(x).y)
        with pytest.raises(LookupError, match=f"gradient registry has no entry for: {op_type}$"):  # TF 2.21's words
            tape.gradient(y, x)
    with mt.GradientTape() as tape:
        s = mt.reduce_sum(mt.cast(mt.unique(x).idx, mt.float32))
    assert tape.gradient(s, x) is None  # TF 2.21: None through the integer indices


def test_traced_unique_retraces_when_the_number_of_values_changes():
    @mt.function
    def distinct(x):
        y, idx = mt.unique(x)
        return y * 10, idx, mt.shape(y)[0]

    for values in ([3, 1, 3, 2], [5, 5, 5, 5], [1, 2, 3, 4], [4, 4, 1, 1]):
        x = mt.constant(values)
        y, idx, n = distinct(x)
        eager = mt.unique(x)
        assert y.numpy().tolist() == (eager.y * 10).numpy().tolist()
        assert idx.numpy().tolist() == eager.idx.numpy().tolist() and int(n) == eager.y.shape[0]


# ---- searchsorted ------------------------------------------------------------------------------------------------
def test_searchsorted_as_tensorflow():
    seq = [0.0, 1.0, 3.0, 3.0, 5.0]
    # TF 2.21's values, the docstring's examples among them
    assert mt.searchsorted(seq, [3.0, -1.0, 6.0, 2.0]).numpy().tolist() == [2, 0, 5, 2]
    assert mt.searchsorted(seq, [3.0, -1.0, 6.0, 2.0], side="right").numpy().tolist() == [4, 0, 5, 2]
    assert mt.searchsorted([-1, 3.3, 9.1, 10.0], [0.0, 4.1, 12.0]).numpy().tolist() == [1, 2, 4]
    rows = mt.searchsorted([[0.0, 3, 8, 9, 10], [1, 2, 3, 4, 5]], [[9.8, 2.1, 4.3], [0.1, 6.6, 4.5]])
    assert rows.dtype == mt.int32 and rows.numpy().tolist() == [[4, 1, 2], [0, 5, 4]]
    cube = mt.searchsorted(mt.reshape(mt.range(12), [2, 2, 3]), [[[1], [5]], [[6], [11]]])
    assert cube.numpy().tolist() == [[[1], [2]], [[0], [2]]]
    assert mt.searchsorted(seq, [3.0], out_type=mt.int64).dtype == mt.int64
    assert mt.searchsorted(mt.zeros([2, 0]), mt.zeros([2, 3])).numpy().tolist() == [[0, 0, 0]] * 2
    assert mt.searchsorted([1.0, 2.0], mt.zeros([0])).shape == (0,)
    assert mt.searchsorted([3, 1, 2], [2]).numpy().tolist() == [2]  # unsorted: not checked, TF gives 2 too
    nan = mt.constant([np.nan])
    assert mt.searchsorted([0.0, 1, 2], nan).numpy().tolist() == [0]  # TF 2.21: a NaN goes first on the left
    assert mt.searchsorted([0.0, 1, 2], nan, side="right").numpy().tolist() == [3]  # and last on the right


def test_searchsorted_refuses_as_tensorflow():
    with pytest.raises(ValueError, match=r"Argument `side` must be either 'right' or 'left'. Received: `side` ="):
        mt.searchsorted([0.0, 1.0], [0.5], side="middle")
    with pytest.raises(mt.errors.InvalidArgumentError, match="'out_type' of float32 is not in the list"):
        mt.searchsorted([0.0, 1.0], [0.5], out_type=mt.float32)
    with pytest.raises(mt.errors.InvalidArgumentError, match="Leading dim_size of both tensors must match"):
        mt.searchsorted([[0, 1, 2], [3, 4, 5]], [[1, 5]])
    with pytest.raises(mt.errors.InvalidArgumentError, match="need at least one axis"):
        mt.searchsorted([0, 1, 2], 1)
    with pytest.raises(mt.errors.InvalidArgumentError, match="float32 and int32"):
        mt.searchsorted(mt.constant([0.0, 1, 2]), mt.constant([1]))
    with pytest.raises(mt.errors.NotFoundError, match="Could not find device for node: LowerBound"):  # TF 2.21's
        mt.searchsorted([False, True], [True])


def test_searchsorted_gives_no_gradient():
    seq, values = mt.Variable([0.0, 1.0, 2.0]), mt.Variable([1.5])
    with mt.GradientTape() as tape:
        found = mt.cast(mt.searchsorted(seq, values), mt.float32)
    assert tape.gradient(found, [seq, values]) == [None, None]  # TF 2.21: [None, None]


def test_traced_searchsorted_equals_eager():
    find = mt.function(lambda s, v: mt.searchsorted(s, v, side="right"))
    for seq, values in (([0.0, 1, 2], [0.5, 2.0]), ([5.0, 6, 7], [9.0, 0.0])):
        s, v = mt.constant(seq), mt.constant(values)
        assert find(s, v).numpy().tolist() == mt.searchsorted(s, v, side="right").numpy().tolist()
