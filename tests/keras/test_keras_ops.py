"""keras.ops: Keras 3's names and numpy-style arguments over minitape ops. Expected numbers are Keras 3's (TF 2.21)."""

from __future__ import annotations

import numpy as np
import pytest

import minitape as mt
from minitape.aids.check_gradients import check_gradients

ops = mt.keras.ops
keras = mt.keras
X = np.array([[1.0, -2.0, 3.0], [0.5, 4.0, -1.0]], "float32")


def test_values_and_dtypes_match_keras_3():
    assert int(ops.argmax(X)) == 4 and ops.argmax(X).dtype == mt.int32  # Keras 3: 4, int32 (over the flat array)
    np.testing.assert_array_equal(ops.argmax(X, axis=1), [2, 1])
    np.testing.assert_allclose(ops.std(X), 2.0899894, rtol=1e-6)
    np.testing.assert_allclose(ops.logsumexp(X, axis=-1), [3.1328452, 4.0362697], rtol=1e-6)
    np.testing.assert_allclose(  # Keras 3's default gelu is the tanh approximation
        ops.gelu(X), [[0.84119, -0.0454, 2.99636], [0.34571, 3.99993, -0.15881]], atol=1e-5
    )
    np.testing.assert_allclose(ops.binary_crossentropy([1.0, 0.0], [0.9, 0.2]), [0.10536052, 0.22314355], rtol=1e-5)
    assert ops.shape(X) == (2, 3)
    assert ops.sum(X, axis=1, keepdims=True).shape == (2, 1)
    assert ops.concatenate([X, X], axis=0).shape == (4, 3)
    np.testing.assert_array_equal(ops.cumsum([[1, 2], [3, 4]]), [1, 3, 6, 10])  # axis None: flattened, as numpy


def test_gradients_flow_through_the_ops():
    x = np.array([[0.3, -1.2, 2.0], [0.7, 1.5, -0.4]])
    for fn in (
        lambda t: ops.sum(ops.square(t) * ops.sigmoid(t), axis=1),
        lambda t: ops.logsumexp(t, axis=-1),
        lambda t: ops.mean(ops.log_softmax(t)) + ops.std(t),
        lambda t: ops.matmul(t, ops.transpose(t)),
        lambda t: ops.gelu(t) + ops.silu(t) + ops.softplus(t),
        lambda t: ops.concatenate([ops.expand_dims(t, 0), ops.expand_dims(ops.tanh(t), 0)], axis=0),
    ):
        check_gradients(fn, [mt.constant(x, dtype="float64")])


def test_left_out_ops_say_so_and_what_to_use():
    with pytest.raises(AttributeError, match="minitape has no keras.ops.fft"):
        _ = ops.fft


def test_control_flow_ops_give_keras_values():
    # Keras 3.15 on TensorFlow 2.21: 1, 2, 5, (5, 32.0), 3, 6.0
    assert ops.cond(mt.constant(True), lambda: 1, lambda: 2) == 1
    assert ops.cond(False, lambda: 1, lambda: 2) == 2
    assert ops.while_loop(lambda i: i < 5, lambda i: i + 1, 0).numpy() == 5
    i, s = ops.while_loop(lambda i, s: i < 5, lambda i, s: (i + 1, s * 2), [0, 1.0])
    assert (i.numpy(), s.numpy()) == (5, 32.0)
    assert ops.while_loop(lambda i: i < 10, lambda i: i + 1, 0, maximum_iterations=3).numpy() == 3
    total = ops.fori_loop(0, 4, lambda i, v: v + i, 0.0)
    assert total.numpy() == 6.0 and total.dtype == mt.float32


def test_numpy_style_array_ops_match_numpy_and_carry_gradients():
    x = np.arange(12.0).reshape(3, 4)
    pairs = [
        (ops.arange(5), np.arange(5)),
        (ops.arange(0.0, 1.0, 0.25), np.arange(0, 1, 0.25)),
        (ops.linspace(0, 1, 4, endpoint=False), np.linspace(0, 1, 4, endpoint=False)),
        (ops.split(x, [1, 3], axis=1)[1], np.split(x, [1, 3], axis=1)[1]),  # numpy's split points, not sizes
        (ops.take(x, [0, 5]), np.take(x, [0, 5])),
        (ops.take(x, [2, 0], axis=1), np.take(x, [2, 0], axis=1)),
        (ops.dot(np.ones((2, 3, 4)), np.ones((5, 4, 2))), np.dot(np.ones((2, 3, 4)), np.ones((5, 4, 2)))),
        (ops.dot(x, np.ones(4)), x.dot(np.ones(4))),
        (ops.sort(np.array([3.0, 1, 2])), np.sort([3.0, 1, 2])),
        (ops.norm(x, axis=1), np.linalg.norm(x, axis=1)),
        (ops.repeat(x, 2), np.repeat(x, 2)),
        (ops.pad(x, [[1, 1], [1, 1]], mode="reflect"), np.pad(x, [[1, 1], [1, 1]], mode="reflect")),
        (ops.flip(x), np.flip(x)),
        (ops.ceil(np.array([1.2, -1.2])), np.ceil([1.2, -1.2])),
    ]
    for got, want in pairs:
        assert got.shape == want.shape
        np.testing.assert_allclose(got.numpy(), want)
    assert ops.arange(5).dtype == mt.int32 and ops.linspace(0, 1, 5).dtype == mt.float32  # Keras 3's dtypes
    w = np.random.default_rng(0).normal(size=(3, 4))
    check_gradients(lambda a: ops.dot(a, mt.constant(np.ones((4, 2)))) * ops.take(a, [1, 2], axis=1)[:, :1], [w])
    check_gradients(
        lambda a: ops.flip(ops.pad(a, [[1, 1], [2, 0]], mode="reflect"), 1) * ops.tile(a[:1], [1, 2])[0, 0], [w]
    )
    check_gradients(lambda a: ops.repeat(a, 2, axis=0) * ops.norm(a), [w])


def test_keras_random_draws_reproducibly_from_an_int_seed_or_a_seed_generator():
    kr = keras.random
    assert kr.normal((2, 3), seed=1).numpy().tolist() == kr.normal((2, 3), seed=1).numpy().tolist()  # an int: same
    stream = kr.SeedGenerator(3)
    first, second = kr.uniform((4,), seed=stream), kr.uniform((4,), seed=stream)
    assert first.dtype == mt.float32 and not np.array_equal(first.numpy(), second.numpy())  # a generator: new draws
    again = kr.SeedGenerator(3)
    np.testing.assert_array_equal(kr.uniform((4,), seed=again).numpy(), first.numpy())
    ints = kr.randint((50,), 0, 3, seed=2)
    assert ints.dtype == mt.int32 and set(ints.numpy().tolist()) <= {0, 1, 2}
    dropped = kr.dropout(mt.ones((200,)), 0.5, seed=1).numpy()
    assert set(np.unique(dropped).tolist()) == {0.0, 2.0}  # kept entries scaled by 1 / (1 - rate)
    assert sorted(kr.shuffle(mt.range(6), seed=1).numpy().tolist()) == list(range(6))
    assert set(kr.categorical(mt.constant([[0.0, 30.0, 0.0]]), 5, seed=1).numpy().ravel().tolist()) == {1}
    with pytest.raises(ValueError, match="seed must be an int, a keras.random.SeedGenerator or None"):
        kr.normal((2,), seed="x")
    with pytest.raises(AttributeError, match="minitape has no keras.random.beta"):
        _ = kr.beta


def test_global_pooling_over_the_steps_of_a_sequence_and_utilities_left_out():
    x = np.arange(12.0, dtype=np.float32).reshape(1, 4, 3)
    np.testing.assert_allclose(keras.layers.GlobalAveragePooling1D()(x).numpy(), x.mean(axis=1))
    assert keras.layers.GlobalMaxPooling1D(keepdims=True)(x).numpy().tolist() == [[[9.0, 10.0, 11.0]]]
    with pytest.raises(
        ValueError, match=r"3-D input \(batch, steps, channels\).*add the channels axis: x\[..., None\]"
    ):
        keras.layers.GlobalAveragePooling1D()(np.ones((2, 3)))
    with pytest.raises(AttributeError, match="no keras.utils.plot_model: there is no model plot; print model.summary"):
        _ = keras.utils.plot_model
