"""tf.TensorArray: TensorFlow 2.21's eager values and errors (the comments give what it prints for the same
calls), gradients through write/stack against finite differences, and writes at traced indices under mt.function."""

from __future__ import annotations

import numpy as np
import pytest

import minitape as tf
from minitape.aids.check_gradients import check_gradients

TA = tf.TensorArray


def test_write_returns_the_array_so_the_functional_style_and_the_bare_call_both_work():
    ta = TA(tf.float32, size=3)
    ta = ta.write(0, 1.0).write(2, tf.constant(3.0))
    assert ta.stack().numpy().tolist() == [1.0, 0.0, 3.0]  # TF 2.21: index 1, never written, stacks as zeros
    bare = TA(tf.float32, size=2)
    bare.write(0, 5.0)
    bare.write(1, 6.0)
    assert bare.stack().numpy().tolist() == [5.0, 6.0]


def test_properties_and_size():
    ta = TA("float32", size=2)
    assert ta.dtype == tf.float32 and ta.dynamic_size is False  # TF 2.21: tf.float32, False
    assert ta.element_shape == tf.TensorShape(None) and ta.element_shape.rank is None  # TF 2.21: TensorShape(None)
    ta.write(0, [1.0, 2.0])
    assert ta.element_shape == [2]  # TF 2.21: TensorShape([2]), inferred from the write
    assert TA(tf.float32, 2, element_shape=[None, 2]).element_shape.as_list() == [None, 2]
    assert TA(tf.float32, tf.constant(2)).size().numpy() == 2
    grown = TA(tf.float32, 0, dynamic_size=True).write(3, 1.0)
    size = grown.size()
    assert size.numpy() == 4 and size.dtype == tf.int32  # TF 2.21: 4, int32
    assert grown.stack().numpy().tolist() == [0.0, 0.0, 0.0, 1.0]  # TF 2.21: [0, 0, 0, 1]
    assert grown.identity() is grown
    assert grown.close() is None and grown.size().numpy() == 0


def test_values_as_tensorflow_gives_them():
    # TF 2.21's results for the same calls
    rows = TA(tf.float32, 3).unstack([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]).stack()
    assert rows.numpy().tolist() == [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]
    assert TA(tf.float32, 3).unstack([1.0, 2.0, 3.0]).gather([2, 0]).numpy().tolist() == [3.0, 1.0]
    assert TA(tf.float32, 3).unstack([1.0, 2.0, 3.0]).gather(tf.constant([2, 0])).numpy().tolist() == [3.0, 1.0]
    assert TA(tf.float32, 4).scatter([3, 0], [1.0, 2.0]).stack().numpy().tolist() == [2.0, 0.0, 0.0, 1.0]
    joined = TA(tf.float32, 2, infer_shape=False).write(0, [1.0]).write(1, [1.0, 2.0]).concat()
    assert joined.numpy().tolist() == [1.0, 1.0, 2.0]
    assert TA(tf.float32, 2).split([1.0, 2.0, 3.0], [1, 2]).read(1).numpy().tolist() == [2.0, 3.0]
    assert TA(tf.float32, 2).write(0, 1.0).write(0, 2.0).stack().numpy().tolist() == [2.0, 0.0]  # the last write
    assert TA(tf.float32, 2).write(0, 1).stack().dtype == tf.float32  # a Python int becomes the array's dtype
    assert TA(tf.float32, 1).write(0, np.array([1.0, 2.0])).stack().dtype == tf.float32
    assert TA(tf.float32, 3, element_shape=[3]).read(0).numpy().tolist() == [0.0, 0.0, 0.0]
    assert TA(tf.float32, 4).unstack([1.0, 2.0, 3.0]).size().numpy() == 3  # unstack replaces the elements
    assert TA(tf.int32, 2).unstack([1, 2]).stack().dtype == tf.int32
    empty = TA(tf.float32, 0).stack()
    assert empty.shape == [0] and empty.dtype == tf.float32  # TF 2.21: shape (0,)
    assert TA(tf.float32, 0, element_shape=[2]).stack().shape == [0, 2]  # TF 2.21: shape (0, 2)
    assert TA(tf.float32, 2, element_shape=[2]).write(0, tf.Variable([1.0, 2.0])).stack().shape == [2, 2]


def test_clear_after_read():
    ta = TA(tf.float32, 2).write(0, 1.0)
    assert ta.read(0).numpy() == 1.0
    # TF 2.21's message
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Could not read index 0 twice because it was cleared"):
        ta.read(0)
    kept = TA(tf.float32, 2, clear_after_read=False).write(0, 1.0)
    assert kept.read(0).numpy() == kept.read(0).numpy() == 1.0


@pytest.mark.parametrize(
    "call, error, words",
    [
        # TF 2.21 eager's messages
        (lambda: TA(tf.float32), ValueError, "Size must be declared for TensorArrays when eager execution is enabled."),
        (lambda: TA(tf.float32, 2).write(0, 1.0).read(5), tf.errors.OutOfRangeError,
         "Tried to read from index 5 but array size is: 2"),
        (lambda: TA(tf.float32, 2).read(-1), tf.errors.OutOfRangeError,
         "Reading from negative indices (index -1) is not allowed."),
        (lambda: TA(tf.float32, 2).write(2, 1.0), tf.errors.OutOfRangeError,
         "Tried to write to index 2 but array is not resizeable and size is: 2"),
        (lambda: TA(tf.float32, 2).write(-1, 1.0), tf.errors.OutOfRangeError,
         "Writing to negative indices (index -1) is not allowed."),
        (lambda: TA(tf.float32, 2).write(0, tf.constant(1)), tf.errors.InvalidArgumentError,
         "TensorArray dtype is float32 but Op is trying to write dtype int32"),
        (lambda: TA(tf.float32, 2).write(0, tf.constant(1.0, tf.float64)), tf.errors.InvalidArgumentError,
         "TensorArray dtype is float32 but Op is trying to write dtype float64"),
        (lambda: TA(tf.float32, 2).write(0, [1.0]).write(1, [1.0, 2.0]), ValueError,
         "Incompatible shape for value ((2,)), expected ((1,))"),
        (lambda: TA(tf.float32, 2, element_shape=[2]).write(0, [1.0]), ValueError,
         "Incompatible shape for value ((1,)), expected ((2,))"),
        (lambda: TA(tf.float32, 2).unstack([1.0, 2.0, 3.0]), ValueError,
         "Cannot unstack 3 tensors into a TensorArray of static size 2"),
        (lambda: TA(tf.float32, 2).scatter([3, 0], [1.0, 2.0]), tf.errors.OutOfRangeError,
         "Tried to write to index 3 but array is not resizeable"),
        (lambda: TA(tf.float32, 2).write(0, 1.0).write(1, 2.0).concat(), tf.errors.InvalidArgumentError,
         "Concat saw a scalar shape at index 0 but requires at least vectors."),
        (lambda: TA(tf.float32, 2).split([1.0, 2.0, 3.0], [1, 1]), tf.errors.InvalidArgumentError,
         "Expected sum of lengths to be equal to values.shape[0], but sum of lengths is 2"),
        (lambda: TA(tf.float32, 3).split([1.0, 2.0, 3.0], [1, 2]), tf.errors.InvalidArgumentError,
         "TensorArray's size is not equal to the size of lengths (3 vs. 2)"),
        (lambda: TA(tf.float32, 2).grad("x"), NotImplementedError, "TensorArray.grad is not supported"),
        # where TensorFlow 2.21's message is a side effect (a shape it cannot convert, a Python list's index), the
        # error names the index and what to do; TensorFlow's graph mode words these two as the tests match
        (lambda: TA(tf.float32, 2).read(0), ValueError, "Trying to read an uninitialized tensor"),
        (lambda: TA(tf.float32, 2).stack(), ValueError, "element_shape=..."),
        (lambda: TA(tf.float32, 3).unstack([1.0, 2.0, 3.0]).gather([5]), tf.errors.InvalidArgumentError,
         "Index 5 out of range; list only has 3 elements."),
        (lambda: TA(tf.float32, 3).unstack([1.0, 2.0, 3.0]).gather([-1]), tf.errors.InvalidArgumentError,
         "Index -1 out of range"),
        (lambda: TA(tf.float32, 3).write(1.0, 2.0), TypeError, "must be an integer"),
        (lambda: TA(tf.float32, 3).scatter([0, 1], [2.0]), tf.errors.InvalidArgumentError, "2 indices"),
    ],
)  # fmt: skip
def test_refuses_what_tensorflow_refuses(call, error, words):
    with pytest.raises(error) as info:
        call()
    assert words in str(info.value)


def _squares_by_tensor_array(t):
    ta = TA(t.dtype, size=t.shape[0])
    for i in range(t.shape[0]):
        ta = ta.write(i, t[i] * t[i] * t[0])
    return ta.stack()


def test_gradients_flow_through_write_and_stack_read_gather_and_concat():
    check_gradients(_squares_by_tensor_array, [np.array([0.5, -1.5, 2.0])], order=2)
    check_gradients(
        lambda t: TA(t.dtype, 3).unstack(t).gather([2, 0]) * TA(t.dtype, 3).unstack(t).read(1),
        [np.array([0.3, 1.1, -0.7])],
    )
    check_gradients(lambda t: TA(t.dtype, 2).split(t, [1, 2]).concat() ** 2, [np.array([0.3, 1.1, -0.7])])


def test_a_tensor_array_in_a_while_loop_collects_each_iteration_with_its_gradient():
    def powers(t):
        def body(i, p, ta):
            return i + 1, p * t, ta.write(i, p * t)

        return tf.while_loop(lambda i, p, ta: i < 4, body, (0, tf.ones_like(t), TA(t.dtype, size=4)))[2].stack()

    got = powers(tf.constant(2.0))
    assert got.numpy().tolist() == [2.0, 4.0, 8.0, 16.0]
    check_gradients(powers, [np.array(1.3)], order=2)


def test_writes_at_traced_indices_replay_with_each_calls_indices():
    @tf.function
    def doubled(x):
        ta = TA(tf.float32, size=0, dynamic_size=True)
        for i in tf.range(tf.shape(x)[0]):
            ta = ta.write(i, x[i] * 2)
        return ta.stack()

    assert doubled(tf.constant([1.0, 2.0])).numpy().tolist() == [2.0, 4.0]
    assert doubled(tf.constant([3.0, 4.0])).numpy().tolist() == [6.0, 8.0]
    assert doubled(tf.constant([1.0, 2.0, 3.0])).numpy().tolist() == [2.0, 4.0, 6.0]

    @tf.function
    def put(i, v):
        return TA(tf.float32, size=3).write(i, v).stack()

    got = [put(tf.constant(k), tf.constant(5.0)).numpy().tolist() for k in (0, 2, 0)]
    assert got == [[5.0, 0.0, 0.0], [0.0, 0.0, 5.0], [5.0, 0.0, 0.0]]


def test_a_traced_function_returning_a_tensor_array_says_to_return_its_tensors():
    @tf.function
    def f(x):
        return TA(tf.float32, 2).write(0, x)

    with pytest.raises(TypeError, match=r"cannot return a TensorArray.*ta\.stack\(\)"):
        f(tf.constant(1.0))


def test_a_while_loop_whose_body_returns_a_tensor_for_its_tensor_array_says_so():
    with pytest.raises(TypeError, match=r"enters the loop as a TensorArray but is a Tensor"):
        tf.while_loop(lambda i, ta: i < 2, lambda i, ta: (i + 1, ta.write(i, 1.0).stack()), (0, TA(tf.float32, 2)))


def test_a_traced_while_loop_fills_a_tensor_array_for_each_calls_trip_count():
    @tf.function
    def powers(t, n):
        def body(i, p, ta):
            return i + 1, p * t, ta.write(i, p * t)

        empty = TA(tf.float32, size=0, dynamic_size=True)
        return tf.while_loop(lambda i, p, ta: i < n, body, (0, tf.ones_like(t), empty))[2].stack()

    two, three = tf.constant(2.0), tf.constant(3.0)
    got = [powers(t, tf.constant(n)).numpy().tolist() for t, n in ((two, 3), (three, 3), (two, 4))]
    assert got == [[2.0, 4.0, 8.0], [3.0, 9.0, 27.0], [2.0, 4.0, 8.0, 16.0]]
    assert powers.experimental_get_tracing_count() == 2  # the second call replays; the third runs 4 iterations
