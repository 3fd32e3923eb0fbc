"""get_config / from_config and keras.utils.to_categorical as Keras 3 defines them (values written in from Keras 3)."""

from __future__ import annotations

import numpy as np
import pytest

import minitape as mt

keras = mt.keras

pytestmark = pytest.mark.usefixtures("keras_session")


class Linear(keras.layers.Layer):
    """The custom-layers guide's layer with a config."""

    def __init__(self, units=32, **kwargs):
        super().__init__(**kwargs)
        self.units = units

    def get_config(self):
        config = super().get_config()
        config.update({"units": self.units})
        return config


def test_a_layer_config_has_keras_3_base_keys_and_from_config_calls_cls_with_it():
    layer = Linear(64, name="lin")
    config = layer.get_config()
    # Keras 3: {'name', 'trainable', 'dtype', 'activity_regularizer', 'autocast'} (dtype there is a policy dict)
    assert config == {"name": "lin", "trainable": True, "dtype": "float32", "activity_regularizer": None, "units": 64}
    clone = Linear.from_config(config)
    assert isinstance(clone, Linear) and clone.units == 64 and clone.name == "lin"


def test_from_config_explains_an_init_that_does_not_take_the_config():
    class Strict(keras.layers.Layer):
        def __init__(self, units):
            super().__init__()
            self.units = units

    with pytest.raises(TypeError, match=r"cls\(\*\*config\).*\*\*kwargs"):
        Strict.from_config(Strict(3).get_config())


def test_model_config_for_a_subclassed_model_has_keras_3s_base_keys():
    class Custom(keras.Model):
        def call(self, x):
            return x

    assert Custom(name="m").get_config() == {
        "name": "m",
        "trainable": True,
        "dtype": "float32",
        "activity_regularizer": None,
    }


def test_to_categorical_as_keras_3():
    one_hot = keras.utils.to_categorical([0, 2, 1])
    assert one_hot.dtype == np.float64  # Keras 3 gives float64 for lists and arrays
    np.testing.assert_array_equal(one_hot, np.eye(3)[[0, 2, 1]])
    assert keras.utils.to_categorical(np.array([[1], [0]]), 3).shape == (2, 3)  # as Keras 3
    tensor = keras.utils.to_categorical(mt.constant([1, 0]), 3)
    assert isinstance(tensor, mt.Tensor) and tensor.dtype == mt.float32  # Keras 3: a float32 tensor
    with pytest.raises(ValueError, match=r"in \[0, 2\)"):
        keras.utils.to_categorical([0, 2], 2)
