"""Port of TensorFlow's tutorial "Custom layers" (site/en/tutorials/customization/custom_layers).

The tutorial's cells run unchanged but for `import minitape as tf`, in order, and the tests check what they show.
Cell numbers count the notebook's code cells from 1 (the licence cell). The notebook is stored without outputs;
the parameter counts below are worked out from the layers' shapes (a BatchNormalization of c channels has
4c weights, of which the 2c moving statistics are not trainable).
"""

import re

import numpy as np
import pytest

import minitape as tf

pytestmark = pytest.mark.usefixtures("keras_session")


def _params(summary: str, kind: str) -> int:
    found = re.search(rf"{kind} params: ([\d,]+)", summary)
    assert found, f"no '{kind} params' line in:\n{summary}"
    return int(found.group(1).replace(",", ""))


def test_cell_03_no_gpu(capsys):
    print(tf.config.list_physical_devices("GPU"))
    assert capsys.readouterr().out == "[]\n"


def test_cells_04_07_a_dense_layer():
    # In the tf.keras.layers package, layers are objects. To construct a layer,
    # simply construct the object. Most layers take as a first argument the number
    # of output dimensions / channels.
    layer = tf.keras.layers.Dense(100)
    # The number of input dimensions is often unnecessary, as it can be inferred
    # the first time the layer is used, but it can be provided if you want to
    # specify it manually, which is useful in some complex models.
    layer = tf.keras.layers.Dense(10, input_shape=(None, 5))

    # To use a layer, simply call it.
    result = layer(tf.zeros([10, 5]))
    assert result.shape == (10, 10)
    np.testing.assert_array_equal(result.numpy(), np.zeros((10, 10)))  # zero input, zero bias

    # Layers have many useful methods. For example, you can inspect all variables
    # in a layer using `layer.variables` and trainable variables using
    # `layer.trainable_variables`. In this case a fully-connected layer
    # will have variables for weights and biases.
    assert [v.shape for v in layer.variables] == [(5, 10), (10,)]

    # The variables are also accessible through nice accessors
    kernel, bias = layer.kernel, layer.bias
    assert kernel is layer.variables[0] and bias is layer.variables[1]


class MyDenseLayer(tf.keras.layers.Layer):
    def __init__(self, num_outputs):
        super(MyDenseLayer, self).__init__()  # noqa: UP008 - the tutorial's spelling
        self.num_outputs = num_outputs

    def build(self, input_shape):
        self.kernel = self.add_weight("kernel", shape=[int(input_shape[-1]), self.num_outputs])

    def call(self, inputs):
        return tf.matmul(inputs, self.kernel)


def test_cells_08_10_add_weight_with_a_positional_name(capsys):
    layer = MyDenseLayer(10)

    _ = layer(tf.zeros([10, 5]))  # Calling the layer `.builds` it.

    print([var.name for var in layer.trainable_variables])

    # Keras 3 prints ['kernel']; Keras 2 printed ['my_dense_layer/kernel:0']
    (name,) = re.findall(r"'([^']*)'", capsys.readouterr().out)
    assert "kernel" in name
    assert layer.kernel.shape == (5, 10)


class ResnetIdentityBlock(tf.keras.Model):
    def __init__(self, kernel_size, filters):
        super(ResnetIdentityBlock, self).__init__(name="")  # noqa: UP008 - the tutorial's spelling
        filters1, filters2, filters3 = filters

        self.conv2a = tf.keras.layers.Conv2D(filters1, (1, 1))
        self.bn2a = tf.keras.layers.BatchNormalization()

        self.conv2b = tf.keras.layers.Conv2D(filters2, kernel_size, padding="same")
        self.bn2b = tf.keras.layers.BatchNormalization()

        self.conv2c = tf.keras.layers.Conv2D(filters3, (1, 1))
        self.bn2c = tf.keras.layers.BatchNormalization()

    def call(self, input_tensor, training=False):
        x = self.conv2a(input_tensor)
        x = self.bn2a(x, training=training)
        x = tf.nn.relu(x)

        x = self.conv2b(x)
        x = self.bn2b(x, training=training)
        x = tf.nn.relu(x)

        x = self.conv2c(x)
        x = self.bn2c(x, training=training)

        x += input_tensor
        return tf.nn.relu(x)


def test_cells_11_15_a_resnet_block_as_a_model(capsys):
    block = ResnetIdentityBlock(1, [1, 2, 3])

    _ = block(tf.zeros([1, 2, 3, 3]))

    layers = block.layers
    assert [type(layer).__name__ for layer in layers] == ["Conv2D", "BatchNormalization"] * 3

    assert len(block.variables) == 18  # three convolutions with a kernel and a bias, three norms with four

    block.summary()
    summary = capsys.readouterr().out
    # conv 3·1+1, norm 4·1, conv 1·2+2, norm 4·2, conv 2·3+3, norm 4·3
    assert _params(summary, "Total") == 41
    assert _params(summary, "Trainable") == 29
    assert _params(summary, "Non-trainable") == 12


def test_cells_16_17_the_same_block_as_a_sequential(capsys):
    my_seq = tf.keras.Sequential(
        [
            tf.keras.layers.Conv2D(1, (1, 1), input_shape=(None, None, 3)),
            tf.keras.layers.BatchNormalization(),
            tf.keras.layers.Conv2D(2, 1, padding="same"),
            tf.keras.layers.BatchNormalization(),
            tf.keras.layers.Conv2D(3, (1, 1)),
            tf.keras.layers.BatchNormalization(),
        ]
    )
    result = my_seq(tf.zeros([1, 2, 3, 3]))
    assert result.shape == (1, 2, 3, 3)
    np.testing.assert_array_equal(result.numpy(), np.zeros((1, 2, 3, 3)))  # zero biases, fresh statistics

    my_seq.summary()
    summary = capsys.readouterr().out
    assert _params(summary, "Total") == 41
    assert _params(summary, "Trainable") == 29
    assert _params(summary, "Non-trainable") == 12
