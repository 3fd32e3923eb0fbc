"""`mt.keras.layers`: the layers, built lazily on their first call."""

from typing import Any

from minitape.keras.layers.activation import ELU, Identity, LeakyReLU, Softmax
from minitape.keras.layers.attention import AdditiveAttention, Attention
from minitape.keras.layers.base import Layer
from minitape.keras.layers.bidirectional import Bidirectional
from minitape.keras.layers.convolutional import (
    AveragePooling2D,
    AvgPool2D,
    Conv2D,
    Conv2DTranspose,
    GlobalAveragePooling1D,
    GlobalAveragePooling2D,
    GlobalAvgPool1D,
    GlobalAvgPool2D,
    GlobalMaxPool1D,
    GlobalMaxPool2D,
    GlobalMaxPooling1D,
    GlobalMaxPooling2D,
    MaxPool2D,
    MaxPooling2D,
)
from minitape.keras.layers.convolutional1d import (
    AveragePooling1D,
    AvgPool1D,
    Conv1D,
    Convolution1D,
    MaxPool1D,
    MaxPooling1D,
)
from minitape.keras.layers.core import Activation, Dense, Dropout, Flatten, Lambda, Masking, ReLU, Reshape
from minitape.keras.layers.depthwise import (
    DepthwiseConv1D,
    DepthwiseConv2D,
    SeparableConv1D,
    SeparableConv2D,
    SeparableConvolution1D,
    SeparableConvolution2D,
)
from minitape.keras.layers.embedding import Embedding
from minitape.keras.layers.image_preprocessing import (
    CenterCrop,
    RandomBrightness,
    RandomContrast,
    RandomCrop,
    RandomFlip,
    RandomRotation,
    RandomTranslation,
    RandomZoom,
    Resizing,
)
from minitape.keras.layers.merging import (
    Add,
    Average,
    Concatenate,
    Maximum,
    Minimum,
    Multiply,
    Subtract,
    add,
    average,
    concatenate,
    multiply,
    subtract,
)
from minitape.keras.layers.merging import maximum_ as maximum
from minitape.keras.layers.merging import minimum_ as minimum
from minitape.keras.layers.multi_head_attention import MultiHeadAttention
from minitape.keras.layers.normalization import BatchNormalization, LayerNormalization
from minitape.keras.layers.preprocessing import Normalization, Rescaling
from minitape.keras.layers.recurrent import GRU, LSTM, RNN, SimpleRNN
from minitape.keras.layers.recurrent_cells import GRUCell, LSTMCell, SimpleRNNCell
from minitape.keras.layers.reshaping import (
    Cropping1D,
    Cropping2D,
    Permute,
    RepeatVector,
    UpSampling1D,
    UpSampling2D,
    ZeroPadding1D,
    ZeroPadding2D,
)
from minitape.keras.layers.time_distributed import TimeDistributed
from minitape.keras.models import Input, InputLayer
from minitape.namespaces import missing

Convolution2D = Conv2D
Convolution2DTranspose = Conv2DTranspose


def __getattr__(name: str) -> Any:
    """Layers Keras has and minitape leaves out: an error that says so and what to use instead."""
    from minitape.keras.unsupported import has_hint
    from minitape.keras.unsupported import missing as keras_missing

    if has_hint("keras.layers", name):
        raise keras_missing("keras.layers", name)
    missing.raise_missing("tf.keras.layers", name, missing.LAYERS)
