"""How the two `keras3_*.weights.h5` files here were made, with real Keras (3.15, TensorFlow 2.21 backend):

    python tests/data/write_keras3_weights.py tests/data

It trains two small models a little (so that the weights and BatchNormalization's moving statistics are not
their initial values), saves their weights, and prints their predictions for the inputs `inputs()` makes, which
tests/keras/test_saving.py compares with minitape's after it loads the files. Not a test: it needs Keras.
The same architectures are written out again, for minitape, in tests/keras/test_saving.py.
"""

from __future__ import annotations

import sys

import numpy as np


def functional(keras):  # noqa: ANN001, ANN201
    """Two inputs: a 6x6 image (Conv2D, BatchNormalization) and 4 tokens (Embedding), joined by Dense layers."""
    layers = keras.layers
    image = keras.Input((6, 6, 1))
    tokens = keras.Input((4,), dtype="int32")
    x = layers.Flatten()(layers.BatchNormalization()(layers.Conv2D(3, 3, activation="relu")(image)))
    t = layers.Flatten()(layers.Embedding(12, 2)(tokens))
    h = layers.Dense(4, activation="tanh")(layers.Concatenate()([x, t]))
    return keras.Model([image, tokens], layers.Dense(1)(h))


def subclassed(keras):  # noqa: ANN001, ANN201
    """A subclassed model; its `out` sorts after 'layers', so Keras files it under 'layers/dense_3'."""
    layers = keras.layers

    class Net(keras.Model):
        def __init__(self) -> None:
            super().__init__()
            self.stem = layers.Dense(4, activation="relu")
            self.blocks = [layers.Dense(4, activation="relu"), layers.Dense(4, activation="relu")]
            self.norm = layers.BatchNormalization()
            self.out = layers.Dense(2)

        def call(self, x, training=False):  # noqa: ANN001, ANN201
            x = self.stem(x)
            for block in self.blocks:
                x = block(x)
            return self.out(self.norm(x, training=training))

    model = Net()
    model(np.zeros((1, 3), "float32"))
    return model


def inputs() -> dict:
    rng = np.random.default_rng(7)
    return {
        "functional": [rng.normal(size=(3, 6, 6, 1)).astype("float32"), rng.integers(0, 12, (3, 4)).astype("int32")],
        "subclassed": rng.normal(size=(3, 3)).astype("float32"),
    }


def main(folder: str) -> None:
    import keras

    keras.utils.set_random_seed(0)
    rng = np.random.default_rng(0)
    for name, make in (("functional", functional), ("subclassed", subclassed)):
        model = make(keras)
        x = inputs()[name]
        train_x = (
            [rng.normal(size=(16, 6, 6, 1)).astype("float32"), rng.integers(0, 12, (16, 4)).astype("int32")]
            if name == "functional"
            else rng.normal(size=(16, 3)).astype("float32")
        )
        train_y = rng.normal(size=(16, 1 if name == "functional" else 2)).astype("float32")
        model.compile(keras.optimizers.Adam(0.05), "mse")
        model.fit(train_x, train_y, epochs=3, batch_size=8, verbose=0)
        model.save_weights(f"{folder}/keras3_{name}.weights.h5")
        print(name, np.array2string(model.predict(x, verbose=0), precision=8, separator=", "))


if __name__ == "__main__":
    main(sys.argv[1])
