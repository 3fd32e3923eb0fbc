"""reshape's -1 as TensorFlow infers it, and its error when no shape fits, in TensorFlow's words."""

import pytest

import minitape as mt


@pytest.mark.parametrize(
    ("input_shape", "sizes", "expected"),
    [  # what TensorFlow 2.21 gives; numpy refuses each -1 beside a 0 size
        ((0, 3), [-1, 0], (3, 0)),
        ((0, 3), [0, -1], (0, 3)),
        ((0, 3), [2, -1], (2, 0)),
        ((0, 3), [0, 7, -1], (0, 7, 0)),
        ((2, 0), [0, -1], (0, 2)),
    ],
)
def test_an_empty_tensor_infers_minus_one_beside_a_zero_as_tensorflow(input_shape, sizes, expected):
    assert mt.reshape(mt.zeros(input_shape), sizes).shape == expected
    assert mt.function(lambda x: mt.reshape(x, sizes))(mt.zeros(input_shape)).shape == expected


def test_an_empty_list_reshapes_as_its_tensor_would():
    assert mt.reshape([[], []], [-1, 0]).shape == (2, 0)  # TensorFlow 2.21: (2, 0)


def test_the_gradient_of_an_inferred_empty_reshape_has_the_input_shape():
    x = mt.Variable(mt.zeros([0, 3]))
    with mt.GradientTape() as tape:
        y = mt.reduce_sum(mt.reshape(x, [-1, 0]))
    assert tape.gradient(y, x).shape == (0, 3)


@pytest.mark.parametrize(
    ("sizes", "wants"),
    [  # TensorFlow 2.21: "Input to reshape is a tensor with 30 values, but the requested shape ..."
        ([7, -1], "requires a multiple of 7"),
        ([5, 7], "has 35"),
        ([0, -1], "has 0"),
        ([-1, 0], "has 0"),
    ],
)
def test_values_that_fit_no_requested_shape_are_refused_in_tensorflows_words(sizes, wants):
    with pytest.raises(mt.errors.InvalidArgumentError) as caught:
        mt.reshape(mt.zeros([3, 2, 5]), sizes)
    message = str(caught.value)
    assert "Input to reshape is a tensor with 30 values (shape (3, 2, 5))" in message
    assert message.endswith(f"but the requested shape {tuple(sizes)} {wants}")
