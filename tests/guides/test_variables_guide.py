"""Port of TensorFlow's guide "Introduction to Variables" (site/en/guide/variable).

The guide's cells run unchanged but for `import minitape as tf`, in order, and each test checks what its cells
print against the text TensorFlow 2.21 printed for the same cells (run on a CPU-only machine, 2026-11-28). Cell
numbers count the notebook's code cells from 1 (the licence cell). minitape's reprs name themselves `mt.` where
TensorFlow's say `tf.` (`mt.Tensor(...)`, `<mt.Variable ...>`); `_from_tf` makes that one change to TensorFlow's
text and nothing else. What differs, and why:
- cell 3's complex variable: minitape has no complex dtypes, so that line fails with an error that says so and
  what to do instead; the cell's other variables are made as the guide makes them;
- cell 6's shape mismatch: minitape's message is TensorFlow's sentence (without its stray space and missing one)
  followed by the op and the fix;
- cell 2's commented-out `tf.debugging.set_log_device_placement(True)` is accepted and logs nothing (there is only
  the CPU to place ops on);
- cell 11's `tf.device('GPU:0')`: TensorFlow without a GPU places the product on the CPU and says nothing;
  minitape, which has only the CPU, computes the same product and warns once that there is no GPU.
"""

import numpy as np
import pytest

import minitape as tf


def _from_tf(text: str) -> str:
    """TensorFlow's printed text as minitape prints it: its reprs say `mt.` where TensorFlow's say `tf.`."""
    return text.replace("tf.Tensor", "mt.Tensor").replace("tf.Variable", "mt.Variable")


def _cell_03_without_the_complex_variable():
    my_tensor = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    my_variable = tf.Variable(my_tensor)

    # Variables can be all kinds of types, just like tensors
    bool_variable = tf.Variable([False, False, False, True])
    return my_tensor, my_variable, bool_variable


def test_cell_02_device_placement_logging_is_accepted(capsys):
    # the cell's commented-out line, run: TensorFlow then logs each op's device; minitape has only the CPU
    tf.debugging.set_log_device_placement(True)
    try:
        placed = tf.Variable([1.0]) * 2.0
    finally:
        tf.debugging.set_log_device_placement(False)
    assert placed.device == "/job:localhost/replica:0/task:0/device:CPU:0"  # TensorFlow 2.21's name on a CPU
    assert capsys.readouterr().out == ""


def test_cell_03_variables_of_several_types_and_no_complex_numbers():
    my_tensor, my_variable, bool_variable = _cell_03_without_the_complex_variable()
    assert bool_variable.dtype == tf.bool and bool_variable.numpy().tolist() == [False, False, False, True]
    assert my_variable.numpy().tolist() == my_tensor.numpy().tolist() == [[1.0, 2.0], [3.0, 4.0]]

    with pytest.raises(TypeError, match=r"complex128 is not supported by minitape \(no complex numbers: keep the real"):
        complex_variable = tf.Variable([5 + 4j, 6 + 1j])  # noqa: F841 - the guide's name


def test_cell_04_shape_dtype_and_numpy(capsys):
    _, my_variable, _ = _cell_03_without_the_complex_variable()

    print("Shape: ", my_variable.shape)
    print("DType: ", my_variable.dtype)
    print("As NumPy: ", my_variable.numpy())

    # TensorFlow 2.21 prints these four lines
    assert capsys.readouterr().out == "Shape:  (2, 2)\nDType:  <dtype: 'float32'>\nAs NumPy:  [[1. 2.]\n [3. 4.]]\n"
    assert repr(my_variable.dtype) == "mt.float32"  # TensorFlow's repr is tf.float32: a name to type, as here


def test_cell_05_a_variable_read_as_a_tensor(capsys):
    _, my_variable, _ = _cell_03_without_the_complex_variable()

    print("A variable:", my_variable)
    print("\nViewed as a tensor:", tf.convert_to_tensor(my_variable))
    print("\nIndex of highest value:", tf.math.argmax(my_variable))

    # This creates a new tensor; it does not reshape the variable.
    print("\nCopying and reshaping: ", tf.reshape(my_variable, [1, 4]))

    # what TensorFlow 2.21 prints
    assert capsys.readouterr().out == _from_tf(
        "A variable: <tf.Variable 'Variable:0' shape=(2, 2) dtype=float32, numpy=\n"
        "array([[1., 2.],\n"
        "       [3., 4.]], dtype=float32)>\n"
        "\n"
        "Viewed as a tensor: tf.Tensor(\n"
        "[[1. 2.]\n"
        " [3. 4.]], shape=(2, 2), dtype=float32)\n"
        "\n"
        "Index of highest value: tf.Tensor([1 1], shape=(2,), dtype=int64)\n"
        "\n"
        "Copying and reshaping:  tf.Tensor([[1. 2. 3. 4.]], shape=(1, 4), dtype=float32)\n"
    )
    assert my_variable.shape == (2, 2)  # reshape made a new tensor


def test_cell_06_assign_keeps_the_dtype_and_refuses_another_shape(capsys):
    a = tf.Variable([2.0, 3.0])
    # This will keep the same dtype, float32
    a.assign([1, 2])
    # Not allowed as it resizes the variable:
    try:
        a.assign([1.0, 2.0, 3.0])
    except Exception as e:
        print(f"{type(e).__name__}: {e}")

    assert a.dtype == tf.float32 and a.numpy().tolist() == [1.0, 2.0]
    # TensorFlow 2.21 prints "ValueError: Cannot assign value to variable ' Variable:0': Shape mismatch.The variable
    # shape (2,), and the assigned value shape (3,) are incompatible."
    assert capsys.readouterr().out == (
        "ValueError: Cannot assign value to variable 'Variable:0': Shape mismatch. The variable shape (2,), and the "
        "assigned value shape (3,) are incompatible (AssignVariableOp: reshape the value, or mt.broadcast_to it)\n"
    )


def test_cell_07_a_copy_and_the_other_assigns(capsys):
    a = tf.Variable([2.0, 3.0])
    # Create b based on the value of a
    b = tf.Variable(a)
    a.assign([5, 6])

    # a and b are different
    print(a.numpy())
    print(b.numpy())

    # There are other versions of assign
    print(a.assign_add([2, 3]).numpy())  # [7. 9.]
    print(a.assign_sub([7, 9]).numpy())  # [0. 0.]

    assert capsys.readouterr().out == "[5. 6.]\n[2. 3.]\n[7. 9.]\n[0. 0.]\n"  # as TensorFlow 2.21 prints


def test_cell_08_two_variables_with_one_name(capsys):
    my_tensor, _, _ = _cell_03_without_the_complex_variable()

    # Create a and b; they will have the same name but will be backed by
    # different tensors.
    a = tf.Variable(my_tensor, name="Mark")
    # A new variable with the same name, but different value
    # Note that the scalar add is broadcast
    b = tf.Variable(my_tensor + 1, name="Mark")

    # These are elementwise-unequal, despite having the same name
    print(a == b)

    # what TensorFlow 2.21 prints
    assert capsys.readouterr().out == _from_tf(
        "tf.Tensor(\n[[False False]\n [False False]], shape=(2, 2), dtype=bool)\n"
    )
    assert a.name == b.name == "Mark:0"  # TensorFlow 2.21's names for both


def test_cell_09_a_variable_left_out_of_training():
    step_counter = tf.Variable(1, trainable=False)

    assert not step_counter.trainable and step_counter.dtype == tf.int32  # as in TensorFlow 2.21
    holder = tf.Module()
    holder.step_counter = step_counter
    assert holder.trainable_variables == () and holder.variables == (step_counter,)  # left out of training


def test_cell_10_placed_on_the_cpu(capsys):
    with tf.device("CPU:0"):
        # Create some tensors
        a = tf.Variable([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
        b = tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
        c = tf.matmul(a, b)

    print(c)

    # what TensorFlow 2.21 prints
    assert capsys.readouterr().out == _from_tf("tf.Tensor(\n[[22. 28.]\n [49. 64.]], shape=(2, 2), dtype=float32)\n")


def test_cell_11_a_gpu_asked_for_runs_on_the_cpu(capsys):
    with tf.device("CPU:0"):
        a = tf.Variable([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
        b = tf.Variable([[1.0, 2.0, 3.0]])

    with pytest.warns(
        UserWarning, match=r"mt.device\('GPU:0'\): minitape has no GPU or TPU; everything runs on the CPU"
    ):
        with tf.device("GPU:0"):
            # Element-wise multiply
            k = a * b

    print(k)

    # what TensorFlow 2.21 prints on a machine without a GPU (it places the product on the CPU)
    assert capsys.readouterr().out == _from_tf(
        "tf.Tensor(\n[[ 1.  4.  9.]\n [ 4. 10. 18.]], shape=(2, 3), dtype=float32)\n"
    )


def test_variable_reprs_show_a_scalar_as_tensorflow_does():
    """Not a guide cell: TensorFlow's repr shows a scalar as the Python number it holds (float32's 27.3 is
    27.299999237060547), its str as numpy's shortest text; TensorFlow 2.21 prints each line below."""
    v = tf.Variable(27.3)
    assert repr(v) == _from_tf("<tf.Variable 'Variable:0' shape=() dtype=float32, numpy=27.299999237060547>")
    assert str(v) == repr(v)
    assert repr(tf.constant(0.1, tf.float16)) == _from_tf("<tf.Tensor: shape=(), dtype=float16, numpy=0.0999755859375>")
    assert str(tf.constant(0.1, tf.float16)) == _from_tf("tf.Tensor(0.1, shape=(), dtype=float16)")
    assert repr(tf.constant(3, tf.uint8)) == _from_tf("<tf.Tensor: shape=(), dtype=uint8, numpy=3>")
    assert repr(tf.constant(np.nan)) == _from_tf("<tf.Tensor: shape=(), dtype=float32, numpy=nan>")
    assert [str(d) for d in (tf.float32, tf.int64, tf.bool)] == [
        "<dtype: 'float32'>",
        "<dtype: 'int64'>",
        "<dtype: 'bool'>",
    ]
    assert f"{tf.float16}" == "<dtype: 'float16'>"
