"""`mt.keras.layers`: the layers, built lazily on their first call."""

from minitape.keras.layers.base import Layer
from minitape.keras.layers.convolutional import Conv2D, MaxPool2D, MaxPooling2D
from minitape.keras.layers.core import Activation, Dense, Dropout, Flatten, ReLU
from minitape.keras.layers.normalization import BatchNormalization

Convolution2D = Conv2D
