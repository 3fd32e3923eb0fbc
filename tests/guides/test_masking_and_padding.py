"""Port of keras-io's guide "Understanding masking & padding" (guides/understanding_masking_and_padding.py, its
Keras 3 version), cell by cell in the guide's order.

Its code runs with `import minitape as tf`, `from minitape import keras`, `from minitape.keras import ops` and
`from minitape.keras import layers`. The printed masks are asserted as TensorFlow 2.21 (Keras 3.15) prints them;
outputs of randomly initialised layers are checked by shape, and by what the mask must make of them.
What differs, and why:
- the last cell calls its model on the token ids alone: with a second array, `model(ids, array)`, Keras 3.15
  fails ("Functional.call() got multiple values for argument 'training'");
- a KerasTensor's repr has no "ragged=False" (minitape has no ragged tensors).
"""

import numpy as np
import pytest

import minitape as tf
from minitape import keras
from minitape.keras import layers, ops

pytestmark = pytest.mark.usefixtures("keras_session")

PADDED = [[711, 632, 71, 0, 0, 0], [73, 8, 3215, 55, 927, 0], [83, 91, 1, 645, 1253, 927]]  # TensorFlow prints these
MASK = [[True, True, True, False, False, False], [True, True, True, True, True, False], [True] * 6]


def padded_inputs_cell():
    raw_inputs = [
        [711, 632, 71],
        [73, 8, 3215, 55, 927],
        [83, 91, 1, 645, 1253, 927],
    ]

    # By default, this will pad using 0s; it is configurable via the
    # "value" parameter.
    # Note that you could use "pre" padding (at the beginning) or
    # "post" padding (at the end).
    # We recommend using "post" padding when working with RNN layers
    # (in order to be able to use the
    # CuDNN implementation of the layers).
    padded_inputs = keras.utils.pad_sequences(raw_inputs, padding="post")
    print(padded_inputs)
    return padded_inputs


def test_padding_sequence_data(capsys):
    padded_inputs = padded_inputs_cell()
    assert capsys.readouterr().out == (
        "[[ 711  632   71    0    0    0]\n [  73    8 3215   55  927    0]\n [  83   91    1  645 1253  927]]\n"
    )
    np.testing.assert_array_equal(padded_inputs, PADDED)


def masking_cell(padded_inputs):
    embedding = layers.Embedding(input_dim=5000, output_dim=16, mask_zero=True)
    masked_output = embedding(padded_inputs)

    print(masked_output._keras_mask)

    masking_layer = layers.Masking()
    # Simulate the embedding lookup by expanding the 2D input to 3D,
    # with embedding dimension of 10.
    unmasked_embedding = ops.cast(ops.tile(ops.expand_dims(padded_inputs, axis=-1), [1, 1, 10]), dtype="float32")

    masked_embedding = masking_layer(unmasked_embedding)
    print(masked_embedding._keras_mask)
    return masked_output, masked_embedding


def test_masking(capsys):
    masked_output, masked_embedding = masking_cell(padded_inputs_cell())
    capsys.readouterr()
    for mask in (masked_output._keras_mask, masked_embedding._keras_mask):
        assert mask.dtype == tf.bool and mask.shape == (3, 6)
        np.testing.assert_array_equal(mask.numpy(), MASK)
    assert masked_output.shape == (3, 6, 16) and masked_embedding.shape == (3, 6, 10)


def test_mask_propagation_in_the_functional_api_and_sequential_api():
    model = keras.Sequential(
        [
            layers.Embedding(input_dim=5000, output_dim=16, mask_zero=True),
            layers.LSTM(32),
        ]
    )
    sequential_model = model

    inputs = keras.Input(shape=(None,), dtype="int32")
    x = layers.Embedding(input_dim=5000, output_dim=16, mask_zero=True)(inputs)
    outputs = layers.LSTM(32)(x)

    model = keras.Model(inputs, outputs)

    # what the cell only builds: the LSTMs skip the padding, so padding more changes no output
    for built in (sequential_model, model):
        padded = np.array(PADDED)
        longer = np.concatenate([padded, np.zeros((3, 4), padded.dtype)], axis=1)
        np.testing.assert_allclose(built(longer).numpy(), built(padded).numpy(), rtol=1e-5, atol=1e-6)
        assert built(padded).shape == (3, 32)


def test_passing_mask_tensors_directly_to_layers():
    class MyLayer(layers.Layer):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.embedding = layers.Embedding(input_dim=5000, output_dim=16, mask_zero=True)
            self.lstm = layers.LSTM(32)

        def call(self, inputs):
            x = self.embedding(inputs)
            # Note that you could also prepare a `mask` tensor manually.
            # It only needs to be a boolean tensor
            # with the right shape, i.e. (batch_size, timesteps).
            mask = self.embedding.compute_mask(inputs)
            output = self.lstm(x, mask=mask)  # The layer will ignore the masked values
            return output

    layer = MyLayer()
    x = np.random.random((32, 10)) * 100
    x = x.astype("int32")
    out = layer(x)
    assert out.shape == (32, 32)  # TensorFlow's shape
    # the mask computed by hand is the one the Embedding attaches to its output
    np.testing.assert_array_equal(layer.embedding.compute_mask(x).numpy(), x != 0)


def test_supporting_masking_in_your_custom_layers(capsys):
    _, masked_embedding = masking_cell(padded_inputs_cell())
    capsys.readouterr()

    class TemporalSplit(keras.layers.Layer):
        """Split the input tensor into 2 tensors along the time dimension."""

        def call(self, inputs):
            # Expect the input to be 3D and mask to be 2D, split the input tensor into 2
            # subtensors along the time axis (axis 1).
            return ops.split(inputs, 2, axis=1)

        def compute_mask(self, inputs, mask=None):
            # Also split the mask into 2 if it presents.
            if mask is None:
                return None
            return ops.split(mask, 2, axis=1)

    first_half, second_half = TemporalSplit()(masked_embedding)
    print(first_half._keras_mask)
    print(second_half._keras_mask)
    out = capsys.readouterr().out
    # TensorFlow 2.21 prints these (its "tf.Tensor(" reads "mt.Tensor(" here)
    assert out == (
        "mt.Tensor(\n[[ True  True  True]\n [ True  True  True]\n [ True  True  True]], shape=(3, 3), dtype=bool)\n"
        "mt.Tensor(\n[[False False False]\n [ True  True False]\n [ True  True  True]], shape=(3, 3), dtype=bool)\n"
    )

    class CustomEmbedding(keras.layers.Layer):
        def __init__(self, input_dim, output_dim, mask_zero=False, **kwargs):
            super().__init__(**kwargs)
            self.input_dim = input_dim
            self.output_dim = output_dim
            self.mask_zero = mask_zero

        def build(self, input_shape):
            self.embeddings = self.add_weight(
                shape=(self.input_dim, self.output_dim),
                initializer="random_normal",
                dtype="float32",
            )

        def call(self, inputs):
            inputs = ops.cast(inputs, "int32")
            return ops.take(self.embeddings, inputs)

        def compute_mask(self, inputs, mask=None):
            if not self.mask_zero:
                return None
            return ops.not_equal(inputs, 0)

    layer = CustomEmbedding(10, 32, mask_zero=True)
    x = np.random.random((3, 10)) * 9
    x = x.astype("int32")

    y = layer(x)
    mask = layer.compute_mask(x)

    print(mask)
    out = capsys.readouterr().out
    assert out.startswith("mt.Tensor(\n[[") and out.endswith("shape=(3, 10), dtype=bool)\n")  # random ids
    np.testing.assert_array_equal(mask.numpy(), x != 0)
    np.testing.assert_array_equal(y._keras_mask.numpy(), x != 0)  # the layer's own compute_mask made it


def test_opting_in_to_mask_propagation_on_compatible_layers(capsys):
    class MyActivation(keras.layers.Layer):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            # Signal that the layer is safe for mask propagation
            self.supports_masking = True

        def call(self, inputs):
            return ops.relu(inputs)

    inputs = keras.Input(shape=(None,), dtype="int32")
    x = layers.Embedding(input_dim=5000, output_dim=16, mask_zero=True)(inputs)
    x = MyActivation()(x)  # Will pass the mask along
    print("Mask found:", x._keras_mask)
    outputs = layers.LSTM(32)(x)  # Will receive the mask

    model = keras.Model(inputs, outputs)
    y = model(np.random.randint(0, 5000, size=(32, 100)))
    out = capsys.readouterr().out
    # TensorFlow 2.21: "Mask found: <KerasTensor shape=(None, None), dtype=bool, sparse=False, ragged=False, ...>"
    assert out.startswith("Mask found: <KerasTensor shape=(None, None), dtype=bool, sparse=False, name=")
    assert y.shape == (32, 32)
    ids = np.array(PADDED) % 5000
    longer = np.concatenate([ids, np.zeros((3, 5), ids.dtype)], axis=1)
    np.testing.assert_allclose(model(longer).numpy(), model(ids).numpy(), rtol=1e-5, atol=1e-6)  # it got the mask


def test_writing_layers_that_need_mask_information():
    class TemporalSoftmax(keras.layers.Layer):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.supports_masking = True

        def call(self, inputs, mask=None):
            assert mask is not None
            broadcast_float_mask = ops.expand_dims(ops.cast(mask, "float32"), -1)
            inputs_exp = ops.exp(inputs) * broadcast_float_mask
            inputs_sum = ops.sum(inputs_exp * broadcast_float_mask, axis=-1, keepdims=True)
            return inputs_exp / inputs_sum

    inputs = keras.Input(shape=(None,), dtype="int32")
    x = layers.Embedding(input_dim=10, output_dim=32, mask_zero=True)(inputs)
    x = layers.Dense(1)(x)
    outputs = TemporalSoftmax()(x)

    model = keras.Model(inputs, outputs)
    ids = np.random.randint(0, 10, size=(32, 100))
    y = model(ids)
    # as in TensorFlow 2.21: a softmax over one value is 1 at the kept steps, 0/0 = nan at the padding
    assert y.shape == (32, 100, 1)
    np.testing.assert_allclose(y.numpy()[ids != 0], 1.0, rtol=1e-6)
    assert np.all(np.isnan(y.numpy()[ids == 0]))
    np.testing.assert_array_equal(y._keras_mask.numpy(), ids != 0)
