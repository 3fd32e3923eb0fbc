"""mt.random validates, shapes and types as TensorFlow 2.21's tf.random (the expected dtypes, shapes and errors
below are what TensorFlow gives); the numbers themselves are numpy's PCG64 stream by design."""

import numpy as np
import pytest

import minitape as tf


def test_shuffle_converts_lists_as_constant_and_keeps_scalars():
    assert tf.random.shuffle([1.0, 2.0]).dtype == tf.float32  # TensorFlow: float32
    assert int(tf.random.shuffle(tf.constant(1))) == 1
    assert sorted(tf.random.shuffle(tf.range(10)).numpy().tolist()) == list(range(10))


def test_dtypes_tensorflow_refuses():
    with pytest.raises(TypeError, match="Cannot convert 0.0 to Tensor of dtype int32"):
        tf.random.normal([2], dtype=tf.int32)
    with pytest.raises(TypeError, match="dtype int32"):
        tf.random.truncated_normal([2], dtype=tf.int32)
    with pytest.raises(ValueError, match="Accepted dtypes"):
        tf.random.uniform([2], dtype=tf.bool)
    with pytest.raises(TypeError, match="Cannot convert 0.0"):
        tf.random.uniform([2], 0.0, 3.0, dtype=tf.int32)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Need minval < maxval"):
        tf.random.uniform([2], 3, 3, dtype=tf.int32)


def test_shapes_are_checked():
    with pytest.raises(tf.errors.InvalidArgumentError, match="vector"):
        tf.random.uniform(3)
    with pytest.raises(tf.errors.InvalidArgumentError, match="integers"):
        tf.random.uniform([2.0])
    with pytest.raises(tf.errors.InvalidArgumentError, match="-1 must be >= 0"):
        tf.random.uniform([-1])
    assert tf.random.uniform(tf.constant([2, 3])).shape == [2, 3] and tf.random.normal(()).shape == []


def test_reversed_bounds_and_negative_stddev_compute():
    u = tf.random.uniform([1000], 5.0, 1.0)  # TensorFlow: minval + (maxval - minval) * U, so in (1, 5]
    assert u.dtype == tf.float32 and 1.0 <= u.numpy().min() and u.numpy().max() <= 5.0
    n = tf.random.normal([1000], stddev=-1.0, seed=1)
    assert n.dtype == tf.float32 and 0.8 < n.numpy().std() < 1.2


def test_stateless_categorical_split_fold_in():
    a = tf.random.stateless_categorical([[0.0, 0.0]], 4, seed=[1, 1])
    assert a.dtype == tf.int64 and a.shape == [1, 4]
    assert np.array_equal(a.numpy(), tf.random.stateless_categorical([[0.0, 0.0]], 4, seed=[1, 1]).numpy())
    seeds = tf.random.split(tf.constant([1, 2]), 3)
    assert seeds.dtype == tf.int32 and seeds.shape == [3, 2]  # TensorFlow: int32, (3, 2)
    folded = tf.random.experimental.stateless_fold_in([1, 2], 3)
    assert folded.dtype == tf.int32 and folded.shape == [2]
    assert not np.array_equal(folded.numpy(), tf.random.fold_in([1, 2], 4).numpy())
    with pytest.raises(tf.errors.InvalidArgumentError, match="shape \\[2\\]"):
        tf.random.stateless_normal([2], seed=[1])


def test_generator_state_round_trip():
    g = tf.random.Generator.from_seed(1)
    g.normal([3])
    state = g.state
    assert isinstance(state, tf.Variable) and state.dtype == tf.int64  # TensorFlow: an int64 Variable
    resumed = tf.random.Generator.from_state(state)
    assert np.array_equal(g.normal([4]).numpy(), resumed.normal([4]).numpy())
    assert tf.random.Generator.from_state([1, 2, 3], "philox").normal([1]).dtype == tf.float32


def test_poisson_gamma_and_left_out_names():
    assert tf.random.poisson([2], [1.0, 2.0]).shape == [2, 2] and tf.random.poisson([2], 1.0).dtype == tf.float32
    g = tf.random.gamma([3], alpha=[1.0, 2.0])
    assert g.shape == [3, 2] and (g.numpy() > 0).all()
    with pytest.raises(AttributeError, match="no tf.random.stateless_binomial"):
        tf.random.stateless_binomial  # noqa: B018


def test_variable_constraint_is_stored_and_applied_by_keras_optimizers():
    v = tf.Variable([2.0, -1.0], constraint=lambda w: tf.clip_by_value(w, 0.0, 1.0))
    assert v.constraint is not None and v.numpy().tolist() == [2.0, -1.0]  # the variable does not apply it
    assert tf.Variable(1.0).constraint is None
    tf.keras.optimizers.SGD(0.1).apply_gradients([(tf.constant([0.0, 0.0]), v)])
    assert v.numpy().tolist() == [1.0, 0.0]  # Keras optimizers apply variable.constraint after the update
    with pytest.raises(ValueError, match="must be a callable"):
        tf.Variable(1.0, constraint=3)
