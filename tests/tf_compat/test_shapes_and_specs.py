"""TensorShape and TensorSpec behave as TensorFlow 2.21's: the expected values below are what TensorFlow gives."""

import numpy as np
import pytest

import minitape as tf


def test_shape_equals_lists_and_tuples_both_ways():
    s = tf.zeros([2, 3]).shape
    # TensorFlow: all True
    assert s == [2, 3] and [2, 3] == s and s == (2, 3) and (2, 3) == s and s == tf.TensorShape([2, 3])
    assert s != [2, 4] and not (s != [2, 3])
    assert tf.TensorShape([2, None]) == [2, None]  # TensorFlow: True (None equals None)
    assert tf.TensorShape([]) != tf.TensorShape(None) and tf.TensorShape(None) == tf.TensorShape(None)


def test_shape_keeps_tuple_behaviour_and_hash():
    s = tf.zeros([2, 3]).shape
    assert tuple(s) == (2, 3) and type(tuple(s)) is tuple
    a, b = s
    assert (a, b) == (2, 3)
    assert hash(s) == hash(tf.TensorShape([2, 3])) and {s: 1}[tf.TensorShape([2, 3])] == 1
    assert np.zeros(s).shape == (2, 3) and s[0] * s[1] == 6


def test_slices_and_concatenation_are_tensorshapes():
    s = tf.TensorShape([2, None, 3])
    assert isinstance(s[1:], tf.TensorShape) and s[1:].as_list() == [None, 3]
    assert s[::-1] == [3, None, 2] and s[0] == 2 and s[1] is None
    t = tf.zeros([2, 3]).shape
    for result, expected in [(t + (4,), [2, 3, 4]), ((4,) + t, [4, 2, 3]), (t + [4], [2, 3, 4])]:
        assert isinstance(result, tf.TensorShape) and result.as_list() == expected
    assert tf.TensorShape([1]).concatenate(tf.TensorShape([None, 4])).as_list() == [1, None, 4]
    assert tf.TensorShape([1]).concatenate(None).rank is None


def test_merge_rank_compatibility_helpers():
    assert tf.TensorShape([None, 3]).merge_with([2, None]).as_list() == [2, 3]
    with pytest.raises(ValueError, match="not compatible"):  # TensorFlow: ValueError
        tf.TensorShape([2, 3]).merge_with([3, 3])
    assert tf.TensorShape([1, 2]).with_rank(2) == [1, 2]
    with pytest.raises(ValueError, match="must have rank 3"):
        tf.TensorShape([1, 2]).with_rank(3)
    with pytest.raises(ValueError, match="incompatible"):
        tf.TensorShape([1, 2]).assert_is_compatible_with([1, 3])
    tf.TensorShape([None, 2]).assert_is_compatible_with([1, 2])
    assert tf.TensorShape([1, 2]).most_specific_compatible_shape([1, 3]).as_list() == [1, None]
    assert tf.TensorShape([2, None]).dims == [2, None]


def test_unknown_rank_shape():
    u = tf.TensorShape(None)
    assert u[0] is None and not bool(u) and u.rank is None and str(u) == "<unknown>"  # TensorFlow: None, False
    assert bool(tf.TensorShape([0]))


def test_bad_dimensions_are_refused_as_tensorflow_does():
    with pytest.raises(ValueError, match="-1 must be >= 0"):
        tf.TensorShape([-1, 2])
    with pytest.raises(TypeError, match="must be integer"):
        tf.TensorShape([2.0])
    assert tf.TensorShape([np.int64(2)]).as_list() == [2] and type(tf.TensorShape([np.int64(2)])[0]) is int


def test_tensorspec_from_tensor_from_spec_and_unknown_shape():
    spec = tf.TensorSpec.from_tensor(tf.constant([[1, 2]]))
    assert repr(spec) == "TensorSpec(shape=(1, 2), dtype=mt.int32, name=None)"
    spec = tf.TensorSpec.from_spec(tf.TensorSpec([1], tf.int64, name="a"))
    assert repr(spec) == "TensorSpec(shape=(1,), dtype=mt.int64, name='a')"
    assert repr(tf.TensorSpec(None, tf.float32)) == "TensorSpec(shape=<unknown>, dtype=mt.float32, name=None)"
    assert tf.TensorSpec(None).is_compatible_with(tf.zeros([2, 2]))
    merged = tf.TensorSpec([1, 2]).most_specific_common_supertype([tf.TensorSpec([1, 3])])
    assert merged == tf.TensorSpec([1, None])
    with pytest.raises(TypeError, match="takes a tensor"):
        tf.TensorSpec.from_tensor([1, 2])


def test_a_shape_of_known_rank_is_true_even_a_scalars():
    # TensorFlow: True, False, True, True (a tuple would make the scalar's [] false)
    assert [bool(tf.TensorShape(d)) for d in ([], None, [0], [None])] == [True, False, True, True]
    assert bool(tf.constant(1.0).shape) and not tf.constant(1.0).shape.as_list()
