"""tf.broadcast_static_shape and tf.broadcast_dynamic_shape: the shape two shapes broadcast to, and
broadcast_to's error when a tensor does not fit its target."""

import pytest

import minitape as mt

S = mt.TensorShape


@pytest.mark.parametrize(
    ("x", "y", "expected"),
    [  # what TensorFlow 2.21 gives
        ([3, 1], [1, 4], [3, 4]),
        ([None, 1], [4], [None, 4]),
        ([None], [None], [None]),
        ([None], [5], [5]),
        ([None], [1], [None]),
        ([], [2, 3], [2, 3]),
    ],
)
def test_broadcast_static_shape_as_tensorflow(x, y, expected):
    result = mt.broadcast_static_shape(S(x), S(y))
    assert isinstance(result, mt.TensorShape) and result.as_list() == expected
    assert mt.broadcast_static_shape(S(y), S(x)).as_list() == expected  # the order does not matter


def test_broadcast_static_shape_of_an_unknown_rank_is_unknown():
    assert repr(mt.broadcast_static_shape(S([None, 1]), S(None))) == "TensorShape(None)"  # TensorFlow 2.21's


def test_broadcast_static_shape_refuses_in_tensorflows_words():
    # TensorFlow 2.21's message, word for word
    with pytest.raises(ValueError) as caught:
        mt.broadcast_static_shape(S([3]), S([2]))
    assert str(caught.value) == (
        "Incompatible shapes for broadcasting. Two shapes are compatible if for each dimension pair they are "
        "either equal or one of them is 1. Received: (3,) and (2,)."
    )


def test_broadcast_dynamic_shape_as_tensorflow():
    # TensorFlow 2.21: [3 4] int32; [2 4 3] int32; [2] int32; [3 4] int64 (a list takes the tensor's dtype)
    assert repr(mt.broadcast_dynamic_shape([3, 1], [1, 4])) == (
        "<mt.Tensor: shape=(2,), dtype=int32, numpy=array([3, 4], dtype=int32)>"
    )
    shape = mt.broadcast_dynamic_shape(mt.shape(mt.zeros([2, 1, 3])), mt.shape(mt.zeros([4, 1])))
    assert shape.dtype == mt.int32 and shape.numpy().tolist() == [2, 4, 3]
    assert mt.broadcast_dynamic_shape([], [2]).numpy().tolist() == [2]
    wide = mt.broadcast_dynamic_shape(mt.constant([3, 1], mt.int64), [4])
    assert wide.dtype == mt.int64 and wide.numpy().tolist() == [3, 4]


def test_broadcast_dynamic_shape_refuses_with_the_shapes():
    # TensorFlow 2.21: "Incompatible shapes: [3] vs. [2] [Op:BroadcastArgs]"
    with pytest.raises(mt.errors.InvalidArgumentError, match=r"^Incompatible shapes: \[3\] vs. \[2\]$"):
        mt.broadcast_dynamic_shape([3], [2])
    # TensorFlow 2.21 refuses an int64 shape beside an int32 one, and a matrix ("In[0] must be a vector")
    with pytest.raises(mt.errors.InvalidArgumentError, match="1-D tensors of one integer dtype .*int64.1. and int32"):
        mt.broadcast_dynamic_shape(mt.constant([2], mt.int64), mt.constant([2]))
    with pytest.raises(mt.errors.InvalidArgumentError, match=r"got int32\[1, 1\] and int32\[1\]; pass mt.shape"):
        mt.broadcast_dynamic_shape([[2]], [2])


def test_broadcast_to_names_both_shapes_and_the_rule():
    # TensorFlow 2.21: "Incompatible shapes: [3] vs. [2,4] [Op:BroadcastTo]"
    with pytest.raises(mt.errors.InvalidArgumentError) as caught:
        mt.broadcast_to(mt.constant([1, 2, 3]), [2, 4])
    message = str(caught.value)
    assert message.startswith("BroadcastTo(int32[3], shape=(2, 4)) failed: Incompatible shapes: [3] vs. [2, 4]: ")
    assert "each size of the input must equal the target's or be 1" in message
