"""`keras.preprocessing`, as far as TensorFlow 2.x tutorials still use it in Keras 3: `sequence.pad_sequences`."""

from __future__ import annotations

from types import SimpleNamespace

from minitape.keras import unsupported
from minitape.keras.utils import pad_sequences

sequence = SimpleNamespace(pad_sequences=pad_sequences)  # keras.preprocessing.sequence.pad_sequences

__getattr__ = unsupported.module_getattr("keras.preprocessing")  # image, text, ...: what to use instead
