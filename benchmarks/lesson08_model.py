"""Lesson 08's digits CNN, layer for layer, for the benchmarks that time its training step.

Import it after the benchmark has fixed its thread count: it loads minitape, and with it numpy's BLAS.
"""

from __future__ import annotations

from minitape import keras


class DigitsCNN(keras.Model):
    """Conv2D(8) -> MaxPool2D -> Conv2D(16) -> MaxPool2D -> Flatten -> Dense(64, relu) -> Dense(10), as lesson 08."""

    def __init__(self) -> None:
        super().__init__()
        self.conv1 = keras.layers.Conv2D(8, 3, padding="same", activation="relu")
        self.pool1 = keras.layers.MaxPool2D()
        self.conv2 = keras.layers.Conv2D(16, 3, padding="same", activation="relu")
        self.pool2 = keras.layers.MaxPool2D()
        self.flatten = keras.layers.Flatten()
        self.hidden = keras.layers.Dense(64, activation="relu")
        self.logits = keras.layers.Dense(10)

    def call(self, x, training=False):
        x = self.pool1(self.conv1(x))
        x = self.pool2(self.conv2(x))
        return self.logits(self.hidden(self.flatten(x)))
