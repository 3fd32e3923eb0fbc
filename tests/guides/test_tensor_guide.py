"""Port of TensorFlow's guide "Introduction to Tensors" (site/en/guide/tensor).

The guide's cells run unchanged but for `import minitape as tf`, in order, and each test compares what its cells
print with what TensorFlow 2.21 prints for them, character for character, with one deliberate difference:
minitape calls its tensors `mt.Tensor` where TensorFlow prints `tf.Tensor` (`_tf` below swaps the name and
nothing else). Cell numbers count the notebook's code cells from 1 (the licence cell).

Three kinds of cell cannot run here, because minitape's tensors are dense, rectangular arrays of numbers:
ragged tensors (cells 41-42), string tensors and `tf.strings` (cells 43-50) and sparse tensors (cell 51).
Their tests check that minitape's error names the missing feature and says what to do instead, then do that
and check it gives the numbers TensorFlow prints for the cell.
"""

import numpy as np
import pytest

import minitape as tf


def _tf(printed: str) -> str:
    """What TensorFlow prints, with minitape's name for its tensors: the one difference the tests allow."""
    return printed.replace("tf.Tensor", "mt.Tensor")


# the guide's cells 5 and 6 (kept at module level: later cells use them)
rank_2_tensor = tf.constant([[1, 2], [3, 4], [5, 6]], dtype=tf.float16)
rank_3_tensor = tf.constant(
    [
        [[0, 1, 2, 3, 4], [5, 6, 7, 8, 9]],
        [[10, 11, 12, 13, 14], [15, 16, 17, 18, 19]],
        [[20, 21, 22, 23, 24], [25, 26, 27, 28, 29]],
    ]
)
# TensorFlow 2.21 prints rank_3_tensor (cells 6 and 30) as
RANK_3_PRINTED = """tf.Tensor(
[[[ 0  1  2  3  4]
  [ 5  6  7  8  9]]

 [[10 11 12 13 14]
  [15 16 17 18 19]]

 [[20 21 22 23 24]
  [25 26 27 28 29]]], shape=(3, 2, 5), dtype=int32)
"""


def test_cells_03_to_06_tensors_of_rank_0_to_3(capsys):
    # This will be an int32 tensor by default; see "dtypes" below.
    rank_0_tensor = tf.constant(4)
    print(rank_0_tensor)
    # Let's make this a float tensor.
    rank_1_tensor = tf.constant([2.0, 3.0, 4.0])
    print(rank_1_tensor)
    print(rank_2_tensor)
    print(rank_3_tensor)
    # TensorFlow 2.21 prints:
    assert capsys.readouterr().out == _tf(
        "tf.Tensor(4, shape=(), dtype=int32)\n"
        "tf.Tensor([2. 3. 4.], shape=(3,), dtype=float32)\n"
        "tf.Tensor(\n[[1. 2.]\n [3. 4.]\n [5. 6.]], shape=(3, 2), dtype=float16)\n" + RANK_3_PRINTED
    )


def test_cells_07_08_to_numpy():
    # TensorFlow 2.21 shows both as array([[1., 2.], [3., 4.], [5., 6.]], dtype=float16)
    expected = "array([[1., 2.],\n       [3., 4.],\n       [5., 6.]], dtype=float16)"
    assert repr(np.array(rank_2_tensor)) == expected
    assert repr(rank_2_tensor.numpy()) == expected


def test_cells_09_10_elementwise_and_matrix_products_as_ops_and_operators(capsys):
    a = tf.constant([[1, 2], [3, 4]])
    b = tf.constant([[1, 1], [1, 1]])  # Could have also said `tf.ones([2,2], dtype=tf.int32)`

    print(tf.add(a, b), "\n")
    print(tf.multiply(a, b), "\n")
    print(tf.matmul(a, b), "\n")
    cell_09 = capsys.readouterr().out

    print(a + b, "\n")  # element-wise addition
    print(a * b, "\n")  # element-wise multiplication
    print(a @ b, "\n")  # matrix multiplication
    cell_10 = capsys.readouterr().out

    # TensorFlow 2.21 prints, for each cell:
    three = (
        "tf.Tensor(\n[[2 3]\n [4 5]], shape=(2, 2), dtype=int32) \n\n"
        "tf.Tensor(\n[[1 2]\n [3 4]], shape=(2, 2), dtype=int32) \n\n"
        "tf.Tensor(\n[[3 3]\n [7 7]], shape=(2, 2), dtype=int32) \n\n"
    )
    assert cell_09 == cell_10 == _tf(three)


def test_cell_11_reduce_max_argmax_softmax(capsys):
    c = tf.constant([[4.0, 5.0], [10.0, 1.0]])

    # Find the largest value
    print(tf.reduce_max(c))
    # Find the index of the largest value
    print(tf.math.argmax(c))
    # Compute the softmax
    print(tf.nn.softmax(c))
    lines = capsys.readouterr().out.splitlines()
    # TensorFlow 2.21 prints the first two lines as they are here
    assert (
        lines[:2]
        == _tf("tf.Tensor(10.0, shape=(), dtype=float32)\ntf.Tensor([1 0], shape=(2,), dtype=int64)").splitlines()
    )
    # and the softmax as [[2.6894143e-01 7.3105854e-01] [9.9987662e-01 1.2339458e-04]]: its own float32 exp
    # differs from numpy's in the last bit, so minitape's text shows 2.6894140e-01 7.3105860e-01 in the first row
    assert lines[2] == "mt.Tensor(" and lines[4].endswith("], shape=(2, 2), dtype=float32)")
    np.testing.assert_allclose(
        tf.nn.softmax(c).numpy(), [[2.6894143e-01, 7.3105854e-01], [9.9987662e-01, 1.2339458e-04]], rtol=1e-6
    )


def test_cells_12_to_14_python_and_numpy_values_convert(capsys):
    # TensorFlow 2.21 shows the cells' results as
    # <tf.Tensor: shape=(3,), dtype=int32, numpy=array([1, 2, 3], dtype=int32)>,
    # <tf.Tensor: shape=(), dtype=int32, numpy=3> and <tf.Tensor: shape=(), dtype=int64, numpy=3>
    assert repr(tf.convert_to_tensor([1, 2, 3])) == _tf(
        "<tf.Tensor: shape=(3,), dtype=int32, numpy=array([1, 2, 3], dtype=int32)>"
    )
    assert repr(tf.reduce_max([1, 2, 3])) == _tf("<tf.Tensor: shape=(), dtype=int32, numpy=3>")
    assert repr(tf.reduce_max(np.array([1, 2, 3]))) == _tf("<tf.Tensor: shape=(), dtype=int64, numpy=3>")


def test_cells_15_to_18_shape_attributes_rank_size_and_shape(capsys):
    rank_4_tensor = tf.zeros([3, 2, 4, 5])

    print("Type of every element:", rank_4_tensor.dtype)
    print("Number of axes:", rank_4_tensor.ndim)
    print("Shape of tensor:", rank_4_tensor.shape)
    print("Elements along axis 0 of tensor:", rank_4_tensor.shape[0])
    print("Elements along the last axis of tensor:", rank_4_tensor.shape[-1])
    print("Total number of elements (3*2*4*5): ", tf.size(rank_4_tensor).numpy())
    # TensorFlow 2.21 prints (a dtype prints as <dtype: 'float32'>, while its repr is tf.float32):
    assert capsys.readouterr().out == (
        "Type of every element: <dtype: 'float32'>\n"
        "Number of axes: 4\n"
        "Shape of tensor: (3, 2, 4, 5)\n"
        "Elements along axis 0 of tensor: 3\n"
        "Elements along the last axis of tensor: 5\n"
        "Total number of elements (3*2*4*5):  120\n"
    )
    assert repr(rank_4_tensor.dtype) == "mt.float32"  # TensorFlow's repr, tf.float32, with minitape's name

    # TensorFlow 2.21 shows <tf.Tensor: shape=(), dtype=int32, numpy=4> and
    # <tf.Tensor: shape=(4,), dtype=int32, numpy=array([3, 2, 4, 5], dtype=int32)>
    assert repr(tf.rank(rank_4_tensor)) == _tf("<tf.Tensor: shape=(), dtype=int32, numpy=4>")
    assert repr(tf.shape(rank_4_tensor)) == _tf(
        "<tf.Tensor: shape=(4,), dtype=int32, numpy=array([3, 2, 4, 5], dtype=int32)>"
    )


def test_cells_19_to_21_single_axis_indexing(capsys):
    rank_1_tensor = tf.constant([0, 1, 1, 2, 3, 5, 8, 13, 21, 34])
    print(rank_1_tensor.numpy())

    print("First:", rank_1_tensor[0].numpy())
    print("Second:", rank_1_tensor[1].numpy())
    print("Last:", rank_1_tensor[-1].numpy())

    print("Everything:", rank_1_tensor[:].numpy())
    print("Before 4:", rank_1_tensor[:4].numpy())
    print("From 4 to the end:", rank_1_tensor[4:].numpy())
    print("From 2, before 7:", rank_1_tensor[2:7].numpy())
    print("Every other item:", rank_1_tensor[::2].numpy())
    print("Reversed:", rank_1_tensor[::-1].numpy())
    # TensorFlow 2.21 prints:
    assert capsys.readouterr().out == (
        "[ 0  1  1  2  3  5  8 13 21 34]\n"
        "First: 0\nSecond: 1\nLast: 34\n"
        "Everything: [ 0  1  1  2  3  5  8 13 21 34]\n"
        "Before 4: [0 1 1 2]\n"
        "From 4 to the end: [ 3  5  8 13 21 34]\n"
        "From 2, before 7: [1 2 3 5 8]\n"
        "Every other item: [ 0  1  3  8 21]\n"
        "Reversed: [34 21 13  8  5  3  2  1  1  0]\n"
    )


def test_cells_22_to_25_multi_axis_indexing(capsys):
    print(rank_2_tensor.numpy())
    # Pull out a single value from a 2-rank tensor
    print(rank_2_tensor[1, 1].numpy())
    # Get row and column tensors
    print("Second row:", rank_2_tensor[1, :].numpy())
    print("Second column:", rank_2_tensor[:, 1].numpy())
    print("Last row:", rank_2_tensor[-1, :].numpy())
    print("First item in last column:", rank_2_tensor[0, -1].numpy())
    print("Skip the first row:")
    print(rank_2_tensor[1:, :].numpy(), "\n")
    print(rank_3_tensor[:, :, 4])
    # TensorFlow 2.21 prints:
    assert capsys.readouterr().out == _tf(
        "[[1. 2.]\n [3. 4.]\n [5. 6.]]\n"
        "4.0\n"
        "Second row: [3. 4.]\n"
        "Second column: [2. 4. 6.]\n"
        "Last row: [5. 6.]\n"
        "First item in last column: 2.0\n"
        "Skip the first row:\n"
        "[[3. 4.]\n [5. 6.]] \n\n"
        "tf.Tensor(\n[[ 4  9]\n [14 19]\n [24 29]], shape=(3, 2), dtype=int32)\n"
    )


def test_cells_26_to_29_shape_as_list_and_reshape(capsys):
    # Shape returns a `TensorShape` object that shows the size along each axis
    x = tf.constant([[1], [2], [3]])
    print(x.shape)
    # You can convert this object into a Python list, too
    print(x.shape.as_list())
    # You can reshape a tensor to a new shape.
    # Note that you're passing in a list
    reshaped = tf.reshape(x, [1, 3])
    print(x.shape)
    print(reshaped.shape)
    # TensorFlow 2.21 prints:
    assert capsys.readouterr().out == "(3, 1)\n[3, 1]\n(3, 1)\n(1, 3)\n"
    assert repr(x.shape) == "TensorShape([3, 1])"  # TensorFlow's repr


def test_cells_30_to_32_reshape_keeps_the_order_of_the_values(capsys):
    print(rank_3_tensor)
    # A `-1` passed in the `shape` argument says "Whatever fits".
    print(tf.reshape(rank_3_tensor, [-1]))
    print(tf.reshape(rank_3_tensor, [3 * 2, 5]), "\n")
    print(tf.reshape(rank_3_tensor, [3, -1]))
    # TensorFlow 2.21 prints (numpy's line width breaks the flat tensor after 24 values):
    assert capsys.readouterr().out == _tf(
        RANK_3_PRINTED + "tf.Tensor(\n[ 0  1  2  3  4  5  6  7  8  9 10 11 12 13 14 15 16 17 18 19 20 21 22 23\n"
        " 24 25 26 27 28 29], shape=(30,), dtype=int32)\n"
        "tf.Tensor(\n[[ 0  1  2  3  4]\n [ 5  6  7  8  9]\n [10 11 12 13 14]\n [15 16 17 18 19]\n"
        " [20 21 22 23 24]\n [25 26 27 28 29]], shape=(6, 5), dtype=int32) \n\n"
        "tf.Tensor(\n[[ 0  1  2  3  4  5  6  7  8  9]\n [10 11 12 13 14 15 16 17 18 19]\n"
        " [20 21 22 23 24 25 26 27 28 29]], shape=(3, 10), dtype=int32)\n"
    )


def test_cell_33_bad_reshapes_and_the_one_that_fails(capsys):
    # Bad examples: don't do this

    # You can't reorder axes with reshape.
    print(tf.reshape(rank_3_tensor, [2, 3, 5]), "\n")

    # This is a mess
    print(tf.reshape(rank_3_tensor, [5, 6]), "\n")

    # This doesn't work at all
    try:
        tf.reshape(rank_3_tensor, [7, -1])
    except Exception as e:
        print(f"{type(e).__name__}: {e}")
    out = capsys.readouterr().out
    # TensorFlow 2.21 prints the two tensors as here
    assert out.startswith(
        _tf(
            "tf.Tensor(\n[[[ 0  1  2  3  4]\n  [ 5  6  7  8  9]\n  [10 11 12 13 14]]\n\n"
            " [[15 16 17 18 19]\n  [20 21 22 23 24]\n  [25 26 27 28 29]]], shape=(2, 3, 5), dtype=int32) \n\n"
            "tf.Tensor(\n[[ 0  1  2  3  4  5]\n [ 6  7  8  9 10 11]\n [12 13 14 15 16 17]\n [18 19 20 21 22 23]\n"
            " [24 25 26 27 28 29]], shape=(5, 6), dtype=int32) \n\n"
        )
    )
    # and then "InvalidArgumentError: {{function_node __wrapped__Reshape_device_/job:localhost/replica:0/task:0/
    # device:CPU:0}} Input to reshape is a tensor with 30 values, but the requested shape requires a multiple of 7
    # [Op:Reshape]": minitape names the op with its input in place of TensorFlow's device
    last = out.splitlines()[-1]
    assert last.startswith("InvalidArgumentError: Reshape(int32[3, 2, 5], shape=(7, -1)) failed: ")
    assert "Input to reshape is a tensor with 30 values" in last
    assert last.endswith("but the requested shape (7, -1) requires a multiple of 7")


def test_reshape_without_minus_one_says_how_many_values_the_shape_has():
    # TensorFlow 2.21: "Input to reshape is a tensor with 30 values, but the requested shape has 35"
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"30 values .*requested shape \(5, 7\) has 35$"):
        tf.reshape(rank_3_tensor, [5, 7])
    # TensorFlow 2.21: "... but the requested shape has 0" (a zero size leaves nothing for -1 to divide)
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"requested shape \(0, -1\) has 0$"):
        tf.reshape(rank_3_tensor, [0, -1])


def test_cell_34_casting_drops_the_fractions(capsys):
    the_f64_tensor = tf.constant([2.2, 3.3, 4.4], dtype=tf.float64)
    the_f16_tensor = tf.cast(the_f64_tensor, dtype=tf.float16)
    # Now, cast to an uint8 and lose the decimal precision
    the_u8_tensor = tf.cast(the_f16_tensor, dtype=tf.uint8)
    print(the_u8_tensor)
    # TensorFlow 2.21 prints:
    assert capsys.readouterr().out == _tf("tf.Tensor([2 3 4], shape=(3,), dtype=uint8)\n")


def test_cells_35_to_38_broadcasting(capsys):
    x = tf.constant([1, 2, 3])

    y = tf.constant(2)
    z = tf.constant([2, 2, 2])
    # All of these are the same computation
    print(tf.multiply(x, 2))
    print(x * y)
    print(x * z)

    # These are the same computations
    x = tf.reshape(x, [3, 1])
    y = tf.range(1, 5)
    print(x, "\n")
    print(y, "\n")
    print(tf.multiply(x, y))

    x_stretch = tf.constant([[1, 1, 1, 1], [2, 2, 2, 2], [3, 3, 3, 3]])

    y_stretch = tf.constant([[1, 2, 3, 4], [1, 2, 3, 4], [1, 2, 3, 4]])

    print(x_stretch * y_stretch)  # Again, operator overloading

    print(tf.broadcast_to(tf.constant([1, 2, 3]), [3, 3]))
    # TensorFlow 2.21 prints:
    table = "tf.Tensor(\n[[ 1  2  3  4]\n [ 2  4  6  8]\n [ 3  6  9 12]], shape=(3, 4), dtype=int32)\n"
    assert capsys.readouterr().out == _tf(
        "tf.Tensor([2 4 6], shape=(3,), dtype=int32)\n" * 3
        + "tf.Tensor(\n[[1]\n [2]\n [3]], shape=(3, 1), dtype=int32) \n\n"
        + "tf.Tensor([1 2 3 4], shape=(4,), dtype=int32) \n\n"
        + table * 2
        + "tf.Tensor(\n[[1 2 3]\n [1 2 3]\n [1 2 3]], shape=(3, 3), dtype=int32)\n"
    )


ragged_list = [[0, 1, 2, 3], [4, 5], [6, 7, 8], [9]]  # cell 39


def test_cell_40_rows_of_different_lengths_are_refused(capsys):
    try:
        tensor = tf.constant(ragged_list)  # noqa: F841 (the cell's own line)
    except Exception as e:
        print(f"{type(e).__name__}: {e}")
    # TensorFlow 2.21: "ValueError: Can't convert non-rectangular Python sequence to Tensor."
    out = capsys.readouterr().out
    assert out.startswith("ValueError: can't convert a non-rectangular Python sequence to a tensor: ")
    assert "has rows of different lengths. Pad the rows to one length" in out


def test_cells_41_42_ragged_tensors_are_missing_and_padded_rows_stand_in(capsys):
    # TensorFlow 2.21 prints <tf.RaggedTensor [[0, 1, 2, 3], [4, 5], [6, 7, 8], [9]]>, then its shape (4, None)
    with pytest.raises(AttributeError, match="minitape has no tf.ragged: tensors are rectangular: pad the rows"):
        ragged_tensor = tf.ragged.constant(ragged_list)
        print(ragged_tensor)
    with pytest.raises(AttributeError, match="minitape has no tf.RaggedTensor: .* e.g. with mt.pad"):
        tf.RaggedTensor.from_row_lengths([0, 1, 2, 3, 4, 5, 6, 7, 8, 9], [4, 2, 3, 1])
    # what the message says to do: pad each row to the longest, here with mt.pad
    padded = tf.stack([tf.pad(row, [[0, 4 - len(row)]]) for row in ragged_list])
    assert padded.shape == (4, 4)
    assert padded.numpy().tolist() == [[0, 1, 2, 3], [4, 5, 0, 0], [6, 7, 8, 0], [9, 0, 0, 0]]


STRINGS_ERROR = "dtype string is not supported by minitape .tensors hold numbers and booleans, not text: process"


def test_cells_43_to_45_string_tensors_are_refused_with_what_to_do():
    # TensorFlow 2.21 prints tf.Tensor(b'Gray wolf', shape=(), dtype=string) for cell 43,
    # tf.Tensor([b'Gray wolf' b'Quick brown fox' b'Lazy dog'], shape=(3,), dtype=string) for cell 44
    # and <tf.Tensor: shape=(), dtype=string, numpy=b'\xf0\x9f\xa5\xb3\xf0\x9f\x91\x8d'> for cell 45
    with pytest.raises(TypeError, match=STRINGS_ERROR):
        tf.constant("Gray wolf")
    with pytest.raises(TypeError, match=STRINGS_ERROR):
        tf.constant(["Gray wolf", "Quick brown fox", "Lazy dog"])
    with pytest.raises(TypeError, match=STRINGS_ERROR):
        tf.constant("🥳👍")


def test_cells_46_to_48_tf_strings_is_missing_and_python_splits_the_text(capsys):
    scalar_string_tensor = "Gray wolf"  # cell 43's tensor cannot be made; Python's string stands in
    tensor_of_strings = ["Gray wolf", "Quick brown fox", "Lazy dog"]
    # TensorFlow 2.21 prints tf.Tensor([b'Gray' b'wolf'], shape=(2,), dtype=string) and
    # <tf.RaggedTensor [[b'Gray', b'wolf'], [b'Quick', b'brown', b'fox'], [b'Lazy', b'dog']]>
    for cell in (
        lambda: tf.strings.split(scalar_string_tensor, sep=" "),
        lambda: tf.strings.split(tensor_of_strings),
    ):
        with pytest.raises(AttributeError, match="minitape has no tf.strings: .* process text in Python"):
            cell()
    with pytest.raises(TypeError, match=STRINGS_ERROR):
        text = tf.constant("1 10 100")
        print(tf.strings.to_number(tf.strings.split(text, " ")))
    # what the messages say to do: split and parse in Python, convert the numbers; TensorFlow 2.21 prints
    # tf.Tensor([  1.  10. 100.], shape=(3,), dtype=float32) for cell 48
    print(tf.constant([float(s) for s in "1 10 100".split(" ")]))
    assert capsys.readouterr().out == _tf("tf.Tensor([  1.  10. 100.], shape=(3,), dtype=float32)\n")


def test_cells_49_50_bytes_and_unicode_come_from_python(capsys):
    with pytest.raises(AttributeError, match="minitape has no tf.strings"):
        byte_strings = tf.strings.bytes_split(tf.constant("Duck"))
        print("Byte strings:", byte_strings)
    with pytest.raises(AttributeError, match="minitape has no tf.io: read files with numpy or Python"):
        tf.io.decode_raw(None, tf.uint8)
    with pytest.raises(TypeError, match=STRINGS_ERROR):
        tf.constant("アヒル 🦆")
    # the numbers, from Python's bytes and code points; TensorFlow 2.21 prints
    # "Bytes: tf.Tensor([ 68 117  99 107], shape=(4,), dtype=uint8)" and
    # "Unicode values: tf.Tensor([ 12450  12498  12523     32 129414], shape=(5,), dtype=int32)"
    print("Bytes:", tf.constant(list(b"Duck"), tf.uint8))
    print("Unicode values:", tf.constant([ord(c) for c in "アヒル 🦆"]))
    assert capsys.readouterr().out == _tf(
        "Bytes: tf.Tensor([ 68 117  99 107], shape=(4,), dtype=uint8)\n"
        "Unicode values: tf.Tensor([ 12450  12498  12523     32 129414], shape=(5,), dtype=int32)\n"
    )


def test_cell_51_sparse_tensors_are_missing_and_scatter_nd_builds_the_dense_one(capsys):
    with pytest.raises(AttributeError, match=r"minitape has no tf.sparse: .* mt.scatter_nd\(indices, values, dense"):
        # Sparse tensors store values by index in a memory-efficient manner
        sparse_tensor = tf.sparse.SparseTensor(indices=[[0, 0], [1, 2]], values=[1, 2], dense_shape=[3, 4])
        print(sparse_tensor, "\n")
    with pytest.raises(AttributeError, match=r"minitape has no tf.SparseTensor: .* mt.scatter_nd"):
        tf.SparseTensor(indices=[[0, 0], [1, 2]], values=[1, 2], dense_shape=[3, 4])
    # what the message says to do; TensorFlow 2.21 prints tf.sparse.to_dense(sparse_tensor) as
    print(tf.scatter_nd(indices=[[0, 0], [1, 2]], updates=[1, 2], shape=[3, 4]))
    assert capsys.readouterr().out == _tf(
        "tf.Tensor(\n[[1 0 0 0]\n [0 0 2 0]\n [0 0 0 0]], shape=(3, 4), dtype=int32)\n"
    )
