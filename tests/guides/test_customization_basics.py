"""Port of TensorFlow's tutorial "Customization basics: tensors and operations" (tutorials/customization/basics).

The tutorial's cells run unchanged but for `import minitape as tf`, in order, and the tests check what they
print. Cell numbers count the notebook's code cells from 1 (the licence cell). The notebook is stored without
outputs; the expected values are TensorFlow's (int32 for Python ints, float64 for a numpy float64 array).
"""

import os
import re

import pytest

import minitape as tf

pytestmark = pytest.mark.usefixtures("keras_session")


def _values_and_dtypes(out: str) -> list[tuple[str, str]]:
    """(value, dtype) of every tensor printed as `<prefix>.Tensor(value, shape=..., dtype=...)`."""
    return [(v.strip(), d) for v, d in re.findall(r"Tensor\((.*?), shape=\([\d, ]*\), dtype=(\w+)\)", out, re.S)]


def test_cell_03_ops_on_python_values(capsys):
    print(tf.math.add(1, 2))
    print(tf.math.add([1, 2], [3, 4]))
    print(tf.math.square(5))
    print(tf.math.reduce_sum([1, 2, 3]))

    # Operator overloading is also supported
    print(tf.math.square(2) + tf.math.square(3))

    printed = _values_and_dtypes(capsys.readouterr().out)
    assert printed == [("3", "int32"), ("[4 6]", "int32"), ("25", "int32"), ("6", "int32"), ("13", "int32")]


def test_cell_04_shape_and_dtype(capsys):
    x = tf.linalg.matmul([[1]], [[2, 3]])
    print(x)
    print(x.shape)
    print(x.dtype)

    tensor, shape, dtype = capsys.readouterr().out.rsplit("\n", 3)[:3]
    assert _values_and_dtypes(tensor) == [("[[2 3]]", "int32")]
    assert shape == "(1, 2)"
    assert "int32" in dtype


def test_cell_05_numpy_compatibility(capsys):
    import numpy as np

    ndarray = np.ones([3, 3])

    print("TensorFlow operations convert numpy arrays to Tensors automatically")
    tensor = tf.math.multiply(ndarray, 42)
    print(tensor)

    print("And NumPy operations convert Tensors to NumPy arrays automatically")
    print(np.add(tensor, 1))

    print("The .numpy() method explicitly converts a Tensor to a numpy array")
    print(tensor.numpy())

    assert tensor.dtype == tf.float64  # the numpy array's dtype wins; 42 follows it
    np.testing.assert_array_equal(tensor.numpy(), np.full((3, 3), 42.0))
    out = capsys.readouterr().out
    assert "dtype=float64" in out
    assert out.count("[[43. 43. 43.]") == 1 and out.count("[[42. 42. 42.]") == 2


def test_cell_06_devices(capsys):
    x = tf.random.uniform([3, 3])

    (print("Is there a GPU available: "),)
    print(tf.config.list_physical_devices("GPU"))

    (print("Is the Tensor on GPU #0:  "),)
    print(x.device.endswith("GPU:0"))

    assert capsys.readouterr().out.splitlines()[1::2] == ["[]", "False"]


def test_cell_07_placing_ops_on_the_cpu(capsys):
    import time

    def time_matmul(x):
        start = time.time()
        for loop in range(10):  # noqa: B007 - the tutorial's loop, kept as written
            tf.linalg.matmul(x, x)

        result = time.time() - start

        print("10 loops: {:0.2f}ms".format(1000 * result))  # noqa: UP032 - as the tutorial writes it

    # Force execution on CPU
    print("On CPU:")
    with tf.device("CPU:0"):
        x = tf.random.uniform([1000, 1000])
        assert x.device.endswith("CPU:0")
        time_matmul(x)

    # Force execution on GPU #0 if available
    if tf.config.list_physical_devices("GPU"):
        print("On GPU:")
        with tf.device("GPU:0"):  # Or GPU:1 for the 2nd GPU, GPU:2 for the 3rd etc.
            x = tf.random.uniform([1000, 1000])
            assert x.device.endswith("GPU:0")
            time_matmul(x)

    out = capsys.readouterr().out.splitlines()
    assert out[0] == "On CPU:" and re.fullmatch(r"10 loops: \d+\.\d\dms", out[1]) and len(out) == 2


def test_cells_08_10_a_dataset_from_tensor_slices(capsys):
    ds_tensors = tf.data.Dataset.from_tensor_slices([1, 2, 3, 4, 5, 6])

    ds_tensors = ds_tensors.map(tf.math.square).shuffle(2).batch(2)

    print("Elements of ds_tensors:")
    for x in ds_tensors:
        print(x)

    batches = _values_and_dtypes(capsys.readouterr().out)
    assert len(batches) == 3 and all(dtype == "int32" for _, dtype in batches)
    elements = [int(n) for value, _ in batches for n in value.strip("[]").split()]
    assert sorted(elements) == [1, 4, 9, 16, 25, 36]
    # a shuffle buffer of 2 moves an element at most one batch away from where it started
    assert set(elements[:2]) <= {1, 4, 9}


def test_cells_08_10_a_text_line_dataset_is_not_there():
    # Create a CSV file
    import tempfile

    _, filename = tempfile.mkstemp()

    with open(filename, "w") as f:
        f.write("""Line 1
Line 2
Line 3
  """)

    # TensorFlow reads the lines as string tensors, [b'Line 1' b'Line 2'] then [b'Line 3' b'  '] in batches of
    # two; minitape's tensors hold numbers only, so the dataset must say that it is missing
    try:
        with pytest.raises(AttributeError, match="minitape has no tf.data.TextLineDataset"):
            ds_file = tf.data.TextLineDataset(filename)

            ds_file = ds_file.batch(2)
    finally:
        os.remove(filename)
