"""An op given only Python values converts them in order, as TensorFlow does: a later one takes the dtype of the
first where it can (`tf.maximum(0., [1, -1])` is float32), and where it cannot the op's dtype check names both."""

import pytest

import minitape as mt


def test_a_list_of_ints_after_a_float_becomes_float32():
    # TF 2.21: tf.Tensor([1. 0.], shape=(2,), dtype=float32) and tf.Tensor([ 1. -1.], shape=(2,), dtype=float32)
    assert str(mt.maximum(0.0, [1, -1])) == "mt.Tensor([1. 0.], shape=(2,), dtype=float32)"
    assert str(mt.add(0.0, [1, -1])) == "mt.Tensor([ 1. -1.], shape=(2,), dtype=float32)"


def test_a_float_after_an_int_is_refused_as_tensorflow_refuses_it():
    # TF 2.21 raises InvalidArgumentError for tf.add(1, 2.5): AddV2's input #1 was expected to be int32
    with pytest.raises(
        mt.errors.InvalidArgumentError, match="AddV2 cannot combine tensors of dtypes float32 and int32"
    ):
        mt.add(1, 2.5)
    with pytest.raises(mt.errors.InvalidArgumentError, match="Maximum cannot combine"):
        mt.maximum([1, -1], 0.5)
