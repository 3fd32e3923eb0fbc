"""Ops given what TensorFlow refuses: a clear error naming the op, never a silent answer nor numpy's own words.

Each case was run in TensorFlow 2.21; the comments give its exception and the words its message starts with.
"""

import numpy as np
import pytest

import minitape as mt

InvalidArgumentError = mt.errors.InvalidArgumentError

X = mt.constant([1.0, 4.0])


# ---- values that are not numbers ------------------------------------------------------------------------
NOT_NUMBERS = {  # TensorFlow: ValueError "Attempt to convert a value (...) with an unsupported type (...)"
    "None": (None, "NoneType", "returned nothing"),
    "dict": ({"a": 1.0}, "dict", "values"),
    "set": ({1.0, 2.0}, "set", "sorted"),
    "generator": ((i for i in range(3)), "generator", "list"),
    "None in a list": ([1.0, None], "NoneType", "returned nothing"),
}


@pytest.mark.parametrize("name", sorted(NOT_NUMBERS))
@pytest.mark.parametrize("entry", ["constant", "convert_to_tensor", "add", "sqrt", "shape", "size", "where", "concat"])
def test_values_that_are_not_numbers_are_named_with_their_type(name, entry):
    value, type_name, hint = NOT_NUMBERS[name]
    calls = {
        "constant": lambda v: mt.constant(v),
        "convert_to_tensor": lambda v: mt.convert_to_tensor(v),
        "add": lambda v: mt.add(X, v),
        "sqrt": lambda v: mt.sqrt(v),
        "shape": lambda v: mt.shape(v),
        "size": lambda v: mt.size(v),
        "where": lambda v: mt.where(v),
        "concat": lambda v: mt.concat([v, v], 0),
    }
    with pytest.raises((ValueError, TypeError), match=f"unsupported type.*{type_name}.*{hint}"):
        calls[entry](value)


def test_a_list_mixing_bools_and_numbers_is_refused():
    # TensorFlow 2.21: tf.constant([True, 2]) raises ValueError "Can't convert Python sequence with mixed types"
    for value in ([True, 2], [[True], [2.5]], [np.bool_(True), 2]):
        with pytest.raises(ValueError, match="mixed types"):
            mt.constant(value)
    assert mt.constant([True, False]).dtype == mt.bool
    assert mt.constant([1, 2.5]).dtype == mt.float32  # ints and floats mix, as in TensorFlow
    # next to a float32 tensor the list takes its dtype, as in TensorFlow 2.21: tf.add(x, [True, 2]) -> [2. 4.]
    np.testing.assert_array_equal(mt.add(mt.constant([1.0, 2.0]), [True, 2]).numpy(), [2.0, 4.0])


def test_softmax_of_an_empty_tensor_is_empty():
    # TensorFlow 2.21: tf.nn.softmax(tf.zeros([0])) -> an empty float32 tensor (numpy's max would fail)
    result = mt.nn.softmax(mt.zeros([0]))
    assert result.shape == (0,) and result.dtype == mt.float32


RAGGED = [[1.0, 2.0], [3.0]]
RAGGED_CASES = {  # TensorFlow 2.21: ValueError "Can't convert non-rectangular Python sequence to Tensor."
    "transpose": lambda v: mt.transpose(v),
    "shape": lambda v: mt.shape(v),
    "size": lambda v: mt.size(v),
    "expand_dims": lambda v: mt.expand_dims(v, 0),
    "stack": lambda v: mt.stack([v, v]),
    "divide": lambda v: mt.divide(v, v),
    "gather": lambda v: mt.gather(v, [0]),
    "where": lambda v: mt.where(v, v, v),
    "sort": lambda v: mt.sort(v),
    "top_k": lambda v: mt.math.top_k(v, 1),
    "softmax": lambda v: mt.nn.softmax(v),
    "one_hot": lambda v: mt.one_hot(v, 3),
    "boolean_mask": lambda v: mt.boolean_mask(v, [True, False]),
    "pad": lambda v: mt.pad(v, [[1, 1], [0, 0]]),
    "einsum": lambda v: mt.einsum("ij->", v),
    "tensordot": lambda v: mt.tensordot(v, v, 1),
    "norm": lambda v: mt.norm(v),
    "split": lambda v: mt.split(v, 2),
    "random.normal": lambda v: mt.random.normal(v),
}


@pytest.mark.parametrize("name", sorted(RAGGED_CASES))
def test_a_ragged_list_is_refused_in_our_words_not_numpys(name):
    with pytest.raises(ValueError, match="non-rectangular"):
        RAGGED_CASES[name](RAGGED)


def test_argmax_of_an_empty_axis_is_refused_in_tensorflows_words():
    # TensorFlow 2.21: InvalidArgumentError "Reduction axis 0 is empty in shape [0]"
    for op in (mt.argmax, mt.argmin):
        with pytest.raises(mt.errors.InvalidArgumentError, match=r"Reduction axis 0 is empty in shape \[0\]"):
            op(mt.zeros([0]))


# ---- ops that have no kernel for a dtype --------------------------------------------------------------------
BOOL = mt.constant([True, False])
BOOL_CASES = {  # TensorFlow 2.21: InvalidArgumentError "Value for attr 'T' of bool is not in the list ..."
    "matmul": lambda: mt.matmul(mt.constant([[True]]), mt.constant([[True]])),
    "tensordot": lambda: mt.tensordot(BOOL, BOOL, 1),
    "einsum": lambda: mt.einsum("i,i->", BOOL, BOOL),  # TensorFlow: NotFoundError (no bool Einsum kernel)
    "round": lambda: mt.round(BOOL),
    "less": lambda: mt.less(BOOL, BOOL),
    "greater_equal": lambda: mt.greater_equal(BOOL, BOOL),
    "relu": lambda: mt.nn.relu(BOOL),
    "sort": lambda: mt.sort(BOOL),
    "top_k": lambda: mt.math.top_k(BOOL, 1),
    "linspace": lambda: mt.linspace(BOOL, BOOL, 3),
}


@pytest.mark.parametrize("name", sorted(BOOL_CASES))
def test_bool_tensors_are_refused_where_tensorflow_has_no_bool_kernel(name):
    with pytest.raises((TypeError, ValueError), match="bool"):
        BOOL_CASES[name]()


def test_equality_of_bools_stays_allowed():
    np.testing.assert_array_equal(mt.equal(BOOL, BOOL).numpy(), [True, True])


# ---- shapes and sizes ---------------------------------------------------------------------------------------
def test_reshape_refuses_negative_sizes_other_than_one_minus_one():
    # TensorFlow 2.21: InvalidArgumentError "Size 0 must be non-negative, not -2"
    with pytest.raises(InvalidArgumentError, match="Size 0 must be non-negative, not -2"):
        mt.reshape(X, [-2])
    # TensorFlow 2.21: InvalidArgumentError "Only one input size may be -1, not both 0 and 1"
    with pytest.raises(InvalidArgumentError, match="Only one input size may be -1, not both 0 and 1"):
        mt.reshape(X, [-1, -1])
    assert mt.reshape(X, [-1, 1]).shape == (2, 1)


def test_float_sizes_are_refused_but_whole_numpy_floats_convert():
    # TensorFlow 2.21: InvalidArgumentError "Value for attr 'Tshape' of float is not in the list ... int32, int64"
    for shape in ([2.0], mt.constant([2.0])):
        with pytest.raises(InvalidArgumentError, match="integer sizes"):
            mt.reshape(X, shape)
    with pytest.raises(InvalidArgumentError, match="integer sizes"):
        mt.fill([2.0], 1.0)  # TensorFlow: InvalidArgumentError (attr 'index_type' of float)
    with pytest.raises(TypeError, match="integer sizes"):
        mt.zeros([2.5])  # TensorFlow: TypeError "Cannot convert [2.5] to EagerTensor of dtype int32"
    with pytest.raises(InvalidArgumentError, match="integer sizes"):
        mt.zeros(mt.constant([2], mt.uint8))  # TensorFlow: attr 'index_type' of uint8 is not in the list
    # TensorFlow 2.21 converts a numpy array of whole floats: both give shape (2,)
    assert mt.reshape(X, np.array([2.0])).shape == (2,)
    assert mt.zeros(np.array([2.0])).shape == (2,)


@pytest.mark.parametrize(
    "call",
    [lambda: mt.eye(-1), lambda: mt.zeros((-1, 3)), lambda: mt.ones([-1]), lambda: mt.fill([-1], 1.0)],
    ids=["eye", "zeros", "ones", "fill"],
)
def test_negative_sizes_are_refused_in_tensorflows_words(call):
    # TensorFlow 2.21: InvalidArgumentError "Dimension -1 must be >= 0" (numpy: "negative dimensions are not allowed")
    with pytest.raises(InvalidArgumentError, match="Dimension -1 must be >= 0"):
        call()


def test_range_refuses_a_zero_step_and_a_step_of_the_wrong_sign():
    # TensorFlow 2.21: InvalidArgumentError "Requires delta != 0: 0" (numpy: ZeroDivisionError "division by zero")
    with pytest.raises(InvalidArgumentError, match="Requires delta != 0"):
        mt.range(0, 5, 0)
    # TensorFlow 2.21: InvalidArgumentError "Requires start >= limit when delta < 0: 0/5" (numpy: an empty range)
    with pytest.raises(InvalidArgumentError, match="start >= limit when delta < 0"):
        mt.range(0, 5, -1)
    with pytest.raises(InvalidArgumentError, match="start <= limit when delta > 0"):
        mt.range(5, 0)
    np.testing.assert_array_equal(mt.range(5, 0, -2).numpy(), [5, 3, 1])
    assert mt.range(0).shape == (0,)


def test_linspace_refuses_a_negative_count():
    with pytest.raises(InvalidArgumentError, match="linspace"):
        mt.linspace(0.0, 1.0, -1)
    assert mt.linspace(0.0, 1.0, 0).shape == (0,)  # TensorFlow 2.21: an empty float32 tensor


# ---- indexing -----------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "key", [np.array([0, 1]), mt.constant([0, 1]), (0, np.array([0, 1]))], ids=["numpy", "tensor", "in-a-tuple"]
)
def test_an_integer_array_index_is_refused_as_in_tensorflow(key):
    # TensorFlow 2.21: TypeError "Only integers, slices (`:`), ellipsis (`...`), tf.newaxis (`None`) and scalar
    # tf.int32/tf.int64 tensors are valid indices, got array([0, 1])"
    x = mt.ones([2, 3])
    with pytest.raises(TypeError, match=r"Only integers, slices.*mt.gather"):
        x[key]


def test_indices_tensorflow_takes_still_work():
    x = mt.constant([1.0, 2.0, 3.0])
    assert x[np.int32(1)].numpy() == 2.0 and x[np.array(1)].numpy() == 2.0  # TensorFlow 2.21: 2.0 for both
    np.testing.assert_array_equal(x[mt.constant([True, False, True])].numpy(), [1.0, 3.0])  # a mask: [1. 3.]
    assert x[None].shape == (1, 3)


def test_a_bool_scalar_index_is_refused():
    # TensorFlow 2.21: ValueError "mask cannot be scalar." (numpy would read True as the index 1)
    with pytest.raises(ValueError, match="mask cannot be scalar"):
        mt.constant([1.0, 2.0, 3.0])[True]


def test_a_float_index_is_refused():
    with pytest.raises(TypeError, match="float"):
        mt.constant([1.0, 2.0, 3.0])[1.5]


# ---- attributes spelled in another case -----------------------------------------------------------------
@pytest.mark.parametrize(
    "call",
    [
        lambda: mt.nn.conv2d(mt.ones([1, 3, 3, 1]), mt.ones([2, 2, 1, 1]), 1, padding="same"),
        lambda: mt.nn.conv1d(mt.ones([1, 3, 1]), mt.ones([2, 1, 1]), 1, padding="same"),
        lambda: mt.nn.max_pool2d(mt.ones([1, 3, 3, 1]), 2, 1, padding="same"),
        lambda: mt.nn.avg_pool2d(mt.ones([1, 3, 3, 1]), 2, 1, padding="valid"),
    ],
    ids=["conv2d", "conv1d", "max_pool2d", "avg_pool2d"],
)
def test_tf_nn_padding_must_be_in_capitals(call):
    # TensorFlow 2.21: InvalidArgumentError 'Value for attr 'padding' of "same" is not in the list of allowed
    # values: "SAME", "VALID", "EXPLICIT"' (Keras layers take "same"; tf.nn does not)
    with pytest.raises(InvalidArgumentError, match=r'padding must be "SAME" or "VALID".*write'):
        call()


# ---- conversions that follow TensorFlow's order ---------------------------------------------------------
def test_clip_by_value_converts_its_tensor_first():
    # TensorFlow 2.21: tf.clip_by_value([1., 2.], 0, 1) -> [1. 1.] float32
    clipped = mt.clip_by_value([1.0, 2.0], 0, 1)
    assert clipped.dtype == mt.float32
    np.testing.assert_array_equal(clipped.numpy(), [1.0, 1.0])


def test_one_hot_refuses_a_python_list_of_floats_but_takes_numpy_whole_floats():
    # TensorFlow 2.21: InvalidArgumentError "Value for attr 'TI' of float is not in the list ..." for [1., 2.]
    with pytest.raises(TypeError, match="one_hot: indices must be integers"):
        mt.one_hot([1.0, 2.0], 3)
    # ... and for np.array([1., 2.]) the one-hot rows [[0, 1, 0], [0, 0, 1]]
    np.testing.assert_array_equal(mt.one_hot(np.array([1.0, 2.0]), 3).numpy(), [[0, 1, 0], [0, 0, 1]])


def test_ceil_of_a_list_is_computed():
    np.testing.assert_array_equal(mt.math.ceil([1.2, -1.5]).numpy(), [2.0, -1.0])


def test_where_refuses_a_scalar_condition():
    # TensorFlow 2.21: InvalidArgumentError "WhereOp : Unhandled input dimensions: 0"
    with pytest.raises(InvalidArgumentError, match="at least one axis"):
        mt.where(mt.constant(True))


# ---- output_gradients of another dtype ----------------------------------------------------------------------
@pytest.mark.parametrize(
    "seed", [mt.constant([1.0, 2.0], mt.float64), mt.constant([1, 2]), np.array([1.0, 2.0])], ids=["f64", "i32", "np"]
)
def test_output_gradients_of_another_dtype_are_refused(seed):
    # TensorFlow 2.21: InvalidArgumentError "cannot compute Mul as input #1(zero-based) was expected to be a double
    # tensor but is a float tensor" (int32: "... a int32 tensor ..."); minitape used to cast silently
    x = mt.constant([1.0, 4.0])
    with mt.GradientTape() as tape:
        tape.watch(x)
        y = x * 2.0
    with pytest.raises(InvalidArgumentError, match=r"output_gradients: a gradient of dtype \w+ .* float32"):
        tape.gradient(y, x, output_gradients=seed)


def test_output_gradients_of_the_targets_dtype_and_python_numbers_work():
    x = mt.constant([1.0, 4.0])
    for seed in (mt.constant([1.0, 2.0]), np.array([1.0, 2.0], np.float32)):
        with mt.GradientTape() as tape:
            tape.watch(x)
            y = x * 2.0
        np.testing.assert_array_equal(tape.gradient(y, x, output_gradients=seed).numpy(), [2.0, 4.0])


# ---- integer parameters given as floats ---------------------------------------------------------------------
M = mt.ones([2, 2])
FLOAT_INTEGERS = {  # TensorFlow 2.21: TypeError "Cannot convert 1.0 to EagerTensor of dtype int32" (or, for
    # perm, paddings and multiples, InvalidArgumentError "Value for attr 'Tperm' of float is not in the list")
    "expand_dims": lambda: mt.expand_dims(M, 1.0),
    "concat": lambda: mt.concat([M, M], 0.0),
    "transpose": lambda: mt.transpose(M, [1.0, 0.0]),
    "gather": lambda: mt.gather(M, [0], axis=1.0),
    "one_hot": lambda: mt.one_hot([0, 1], 2.5),
    "top_k": lambda: mt.math.top_k(mt.ones([3]), 1.0),
    "cumsum": lambda: mt.math.cumsum(M, 0.0),
    "softmax": lambda: mt.nn.softmax(M, 0.0),
    "split": lambda: mt.split(M, 2.0),
    "pad": lambda: mt.pad(M, [[1.0, 1.0], [0, 0]]),
    "tile": lambda: mt.tile(M, [2.0, 1.0]),
    "broadcast_to": lambda: mt.broadcast_to(mt.ones([2]), [2.0, 2.0]),
}


@pytest.mark.parametrize("name", sorted(FLOAT_INTEGERS))
def test_a_float_where_an_integer_belongs_is_refused_not_truncated(name):
    with pytest.raises((TypeError, ValueError), match=f"{name}: .*(must be an integer|integer sizes)"):
        FLOAT_INTEGERS[name]()


def test_integer_parameters_take_numpy_ints_and_int_tensors():
    assert mt.expand_dims(M, np.int64(1)).shape == (2, 1, 2)
    assert mt.concat([M, M], mt.constant(1)).shape == (2, 4)
    assert mt.math.top_k(mt.constant([3.0, 1.0, 2.0]), np.int32(2)).values.numpy().tolist() == [3.0, 2.0]
    assert mt.stack([M, M], 1.0).shape == (2, 2, 2)  # TensorFlow 2.21 takes a float axis for stack: (2, 2, 2)


# ---- bare Python errors that used to reach the user --------------------------------------------------------
BARE_ERRORS = {  # each used to raise ZeroDivisionError, StopIteration, IndexError or numpy's words
    "conv2d strides 0": (lambda: mt.nn.conv2d(mt.ones([1, 4, 4, 1]), mt.ones([2, 2, 1, 1]), 0, "SAME"), "strides"),
    "max_pool2d ksize 0": (lambda: mt.nn.max_pool2d(mt.ones([1, 4, 4, 1]), 0, 1, "SAME"), "ksize"),
    "add_n of nothing": (lambda: mt.add_n([]), "at least one tensor"),  # TensorFlow 2.21: ValueError, same words
    "tile by -1": (lambda: mt.tile(mt.ones([3]), [-1]), "non-negative"),
    "assign None": (lambda: mt.Variable([1.0, 2.0]).assign(None), "unsupported type"),
    "assign text": (lambda: mt.Variable([1.0, 2.0]).assign("ab"), "str"),
}


@pytest.mark.parametrize("name", sorted(BARE_ERRORS))
def test_misuse_that_used_to_give_a_bare_python_error(name):
    call, words = BARE_ERRORS[name]
    with pytest.raises((ValueError, TypeError), match=words):
        call()


def test_integer_tensors_are_refused_where_tensorflow_has_no_integer_kernel():
    # TensorFlow 2.21: InvalidArgumentError "Value for attr 'T' of int32 is not in the list of allowed values"
    with pytest.raises(TypeError, match="l2_loss needs a floating-point tensor, not int32"):
        mt.nn.l2_loss(mt.constant([1, 2]))
    with pytest.raises(TypeError, match="l2_normalize needs a floating-point tensor"):
        mt.math.l2_normalize(mt.constant([1, 2]))
    assert mt.nn.l2_loss([3.0, 4.0]).numpy() == 12.5


def test_stack_of_nothing_is_an_empty_float32_tensor():
    empty = mt.stack([])  # TensorFlow 2.21: shape (0,), float32
    assert empty.shape == (0,) and empty.dtype == mt.float32
