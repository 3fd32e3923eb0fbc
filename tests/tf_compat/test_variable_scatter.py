"""`Variable.scatter_nd_update`, `scatter_nd_add` and `scatter_nd_sub`; the IndexedSlices forms say what to use.

Values and messages as TensorFlow 2.21 gives them (comments)."""

import numpy as np
import pytest

import minitape as mt


def test_scatter_nd_update_add_and_sub():
    v = mt.Variable([1.0, 2.0, 3.0])
    assert v.scatter_nd_update([[0], [2]], [5.0, 6.0]) is v
    np.testing.assert_array_equal(v.numpy(), [5.0, 2.0, 6.0])
    v.scatter_nd_add([[1], [1]], [1.0, 2.0])  # repeated indices add up
    np.testing.assert_array_equal(v.numpy(), [5.0, 5.0, 6.0])
    v.scatter_nd_sub([[0]], [10.0])
    np.testing.assert_array_equal(v.numpy(), [-5.0, 5.0, 6.0])
    # TensorFlow 2.21, from [1., 2.]: scatter_nd_update([[0]], [5.]) -> [5., 2.]; then scatter_nd_add -> [10., 2.]
    w = mt.Variable([1.0, 2.0])
    np.testing.assert_array_equal(w.scatter_nd_update([[0]], [5.0]).numpy(), [5.0, 2.0])
    np.testing.assert_array_equal(w.scatter_nd_add([[0]], [5.0]).numpy(), [10.0, 2.0])


def test_scatter_rows_of_a_matrix():
    v = mt.Variable(np.zeros((3, 2), np.float32))
    v.scatter_nd_update([[2]], [[1.0, 2.0]])
    np.testing.assert_array_equal(v.numpy(), [[0, 0], [0, 0], [1, 2]])


def test_scatter_refuses_another_dtype_and_an_index_outside():
    v = mt.Variable([1.0, 2.0])
    # TensorFlow 2.21: ValueError "Tensor conversion requested dtype float32 for Tensor with dtype float64"
    with pytest.raises(ValueError, match="float32 and float64|float64 and float32"):
        v.scatter_nd_update([[0]], mt.constant([5.0], mt.float64))
    # TensorFlow 2.21: InvalidArgumentError "indices[0] = [5] does not index into shape [2]"
    with pytest.raises(mt.errors.InvalidArgumentError, match=r"index \[5\] does not index into shape \[2\]"):
        v.scatter_nd_update([[5]], [5.0])
    np.testing.assert_array_equal(v.numpy(), [1.0, 2.0])  # unchanged


def test_scatter_is_not_recorded_as_differentiable():
    v = mt.Variable([1.0, 2.0])
    with mt.GradientTape() as tape:
        v.scatter_nd_update([[0]], [3.0])
        y = v * 2.0
    np.testing.assert_array_equal(tape.gradient(y, v).numpy(), [2.0, 2.0])


@pytest.mark.parametrize("method", ["scatter_update", "scatter_add", "scatter_sub", "batch_scatter_update"])
def test_the_indexed_slices_forms_say_what_to_use(method):
    # TensorFlow 2.21: TypeError "Argument `sparse_delta` must be a `tf.IndexedSlices`. Received arg: [1]"
    with pytest.raises(TypeError, match=f"{method}.*IndexedSlices.*scatter_nd_update"):
        getattr(mt.Variable([1.0, 2.0]), method)([1])
