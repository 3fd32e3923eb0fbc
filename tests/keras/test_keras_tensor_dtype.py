"""keras.Input's dtype is a string, as Keras 3's KerasTensor has it (the Functional API guide displays it)."""

import numpy as np
import pytest

import minitape as mt
from minitape import keras

pytestmark = pytest.mark.usefixtures("keras_session")


def test_a_keras_tensors_dtype_is_the_dtypes_name_as_in_keras_3():
    inputs = keras.Input(shape=(784,))
    # TensorFlow 2.21 (Keras 3.15.1): inputs.dtype is 'float32', a str; int inputs give 'int32'
    assert inputs.dtype == "float32" and type(inputs.dtype) is str
    assert inputs.dtype == mt.float32  # and still equal to the DType
    assert keras.Input(shape=(2,), dtype="int32").dtype == "int32"
    assert repr(inputs).startswith("<KerasTensor shape=(None, 784), dtype=float32, sparse=False,")
    outputs = keras.layers.Dense(3)(inputs)
    assert outputs.dtype == "float32"


def test_an_int_input_still_feeds_its_layers_ints():
    tokens = keras.Input(shape=(None,), dtype="int32")
    embedded = keras.layers.Embedding(10, 4)(tokens)
    model = keras.Model(tokens, embedded)
    config = model.get_config()
    assert keras.Model.from_config(config).count_params() == 40
    out = model(np.array([[1, 2, 3]]))
    assert out.shape == (1, 3, 4) and out.dtype == mt.float32
