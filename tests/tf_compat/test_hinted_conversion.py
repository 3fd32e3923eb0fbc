"""Conversion with a dtype asked for or hinted, as in TensorFlow: an empty list takes it (it has no number to lose),
a float keeps its own dtype beside an integer hint, and an op's input is refused where a fraction would be lost."""

import pytest

import minitape as mt


def test_an_empty_list_takes_the_dtype_asked_for():
    # TensorFlow 2.21: shape (0,) bool and shape (1, 0) uint8
    assert (mt.constant([], mt.bool).dtype, mt.constant([], mt.bool).shape) == (mt.bool, (0,))
    assert (mt.constant([[]], mt.uint8).dtype, mt.constant([[]], mt.uint8).shape) == (mt.uint8, (1, 0))


def test_an_empty_list_takes_the_dtype_hinted():
    # TensorFlow 2.21: int32 (0,), int64 (1, 0) and bool (0,); with no hint, float32
    for value, hint, shape in (([], mt.int32, (0,)), ([[]], mt.int64, (1, 0)), ([], mt.bool, (0,))):
        t = mt.convert_to_tensor(value, dtype_hint=hint)
        assert (t.dtype, t.shape) == (hint, shape)
    assert mt.convert_to_tensor([]).dtype == mt.float32


def test_a_float_given_an_integer_hint_keeps_its_own_dtype():
    # TensorFlow 2.21: float32 [2.5] and float32 2.0: a hint is dropped where the value does not fit it
    assert mt.convert_to_tensor([2.5], dtype_hint=mt.int32).numpy().tolist() == [2.5]
    assert mt.convert_to_tensor(2.0, dtype_hint=mt.int32).dtype == mt.float32
    assert mt.convert_to_tensor([2], dtype_hint=mt.float32).dtype == mt.float32  # an int takes a float hint


def test_an_op_input_still_refuses_a_lost_fraction_and_a_number_as_bool():
    # TensorFlow 2.21: TypeError "Cannot convert 2.5 to EagerTensor of dtype int32"
    with pytest.raises(TypeError, match="Mul: input 1: cannot convert 2.5 to a tensor of dtype int32"):
        mt.constant([1, 2]) * 2.5
    with pytest.raises(TypeError, match="cannot convert 2 to a tensor of dtype bool"):  # TensorFlow refuses it too
        mt.constant(2, mt.bool)
