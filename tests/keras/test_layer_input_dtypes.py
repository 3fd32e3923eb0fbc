"""What a layer's `call` receives: Keras 3 casts floating inputs to the layer's dtype and leaves integers and
bools as they are, so a `call` you write can use integer inputs as indices (keras-io's masking guide's
CustomEmbedding: `tf.nn.embedding_lookup(self.embeddings, inputs)`). minitape's own layers cast integers too,
as Keras 3's built-in layers do inside their calls (Dense on integer data gives float32)."""

import numpy as np
import pytest

import minitape as tf
from minitape import keras


class Seen(keras.layers.Layer):
    def call(self, x):
        self.dtype_seen = x.dtype
        return x


@pytest.mark.parametrize(
    "value, expected",
    [  # Keras 3.15 (TF 2.21) prints, in call: int32, int64, float32, int32, bool
        (np.array([[1, 2]], dtype="int32"), tf.int32),
        (np.array([[1, 2]], dtype="int64"), tf.int64),
        (np.array([[1.0, 2.0]], dtype="float64"), tf.float32),
        (tf.constant([[1, 2]]), tf.int32),
        (np.array([[True]]), tf.bool),
    ],
)
def test_a_call_you_write_gets_integers_and_bools_as_they_are_and_floats_cast(value, expected):
    layer = Seen()
    layer(value)
    assert layer.dtype_seen == expected


def test_integer_inputs_are_indices_in_a_custom_embedding_and_dense_still_takes_integers():
    class CustomEmbedding(keras.layers.Layer):  # keras-io's masking guide, TensorFlow edition
        def __init__(self, input_dim, output_dim, **kwargs):
            super().__init__(**kwargs)
            self.input_dim, self.output_dim = input_dim, output_dim

        def build(self, input_shape):
            self.embeddings = self.add_weight(shape=(self.input_dim, self.output_dim), initializer="random_normal")

        def call(self, inputs):
            return tf.nn.embedding_lookup(self.embeddings, inputs)

    ids = np.array([[0, 3, 0, 5], [1, 0, 2, 0]], dtype="int32")
    layer = CustomEmbedding(10, 4)
    out = layer(ids)
    assert out.shape == (2, 4, 4) and out.dtype == tf.float32
    np.testing.assert_array_equal(out.numpy()[0, 1], layer.embeddings.numpy()[3])
    # Keras 3.15: Dense(2) of an int64 array and of an int32 tensor gives float32
    assert keras.layers.Dense(2)(np.array([[1, 2]])).dtype == tf.float32
    assert keras.layers.Dense(2)(tf.constant([[1, 2]])).dtype == tf.float32


def test_a_custom_layer_multiplying_integers_by_float_weights_fails_as_in_keras():
    class MatMul(keras.layers.Layer):
        def build(self, shape):
            self.w = self.add_weight(shape=(2, 2))

        def call(self, x):
            return tf.matmul(x, self.w)

    # Keras 3.15 (TF 2.21): InvalidArgumentError "cannot compute MatMul as input #1(zero-based) was expected to be
    # a int64 tensor but is a float tensor"
    with pytest.raises(tf.errors.InvalidArgumentError, match="MatMul"):
        MatMul()(np.array([[1, 2]]))
    assert MatMul()(np.array([[1.0, 2.0]])).dtype == tf.float32
