"""Session state shared by all layers: the default float type, layer-name counters, the training flag."""

from __future__ import annotations

import collections
import contextlib
import re
import threading
import weakref
from collections.abc import Iterator
from typing import Any

import numpy as np

from minitape.values.dtypes import as_dtype

_floatx = "float32"
_name_counts: collections.Counter = collections.Counter()


class _CallState(threading.local):
    """Per thread: a `training=True` call in one thread must not switch another thread's layers to training."""

    def __init__(self) -> None:
        self.stack: list[bool | None] = []  # the `training` flag of the enclosing calls, innermost last (None: unsaid)
        self.depth = 0  # how many layer calls are running: 0 means the next call is an outermost one
        self.loss_owners: list = []  # layers holding add_loss losses, cleared when an outermost call starts


_training = _CallState()


def floatx() -> str:
    """The dtype layers create their weights in unless given `dtype=`: 'float32', as in Keras."""
    return _floatx


def set_floatx(value: str) -> None:
    """Change the default weight dtype, e.g. to 'float64' for gradient checks."""
    global _floatx
    _floatx = as_dtype(value).name


_epsilon = 1e-7


def epsilon() -> float:
    """The fuzz factor of losses and optimizers (Keras' 1e-7 unless `set_epsilon` changed it)."""
    return _epsilon


def set_epsilon(value: float) -> None:
    global _epsilon
    _epsilon = float(value)


def image_data_format() -> str:
    """'channels_last': the only layout minitape's convolution and pooling layers take."""
    return "channels_last"


class ChannelsFirstError(NotImplementedError, ValueError):
    """A layer asked for data_format='channels_first': a layout Keras has and minitape leaves out."""


def check_channels_last(data_format: Any, layer: str) -> None:
    """Refuse any data_format but channels_last (or None, which means it), saying how to move the channels."""
    if data_format not in (None, "channels_last"):
        raise ChannelsFirstError(
            f"{layer}: data_format={data_format!r} is not supported; minitape's layers take channels_last images "
            "(batch, height, width, channels) and sequences (batch, steps, channels): move the channels last, e.g. "
            "images with mt.transpose(x, [0, 2, 3, 1])"
        )


def set_image_data_format(data_format: str) -> None:
    if data_format != "channels_last":
        raise ValueError(
            f"set_image_data_format: minitape has only 'channels_last' (NHWC), not {data_format!r}; transpose "
            "channels-first arrays with np.moveaxis(x, 1, -1)"
        )


def backend() -> str:
    """The name Keras 3 gives TensorFlow's backend: code that asks which backend runs takes TensorFlow's branch."""
    return "tensorflow"


def is_keras_tensor(x: Any) -> bool:
    """Is `x` a symbolic tensor of the functional API (from keras.Input)?"""
    from minitape.keras.symbolic import KerasTensor

    return isinstance(x, KerasTensor)


def get_uid(prefix: str = "") -> int:
    """1, 2, 3, ... per prefix, until `clear_session()` (the counter layer names use)."""
    _name_counts[prefix] += 1
    return _name_counts[prefix]


def standardize_dtype(dtype: Any) -> str:
    return as_dtype(dtype or _floatx).name


def is_float_dtype(dtype: Any) -> bool:
    return as_dtype(dtype).is_floating


def is_int_dtype(dtype: Any) -> bool:
    return as_dtype(dtype).is_integer


def result_type(*dtypes: Any) -> str:
    """The dtype numpy promotes these to (Keras 3's rules agree for the dtypes minitape has)."""
    return np.result_type(*[np.dtype(as_dtype(d).as_numpy_dtype) for d in dtypes]).name


def clear_session() -> None:
    """Restart layer naming (the next Dense is 'dense' again), as `tf.keras.backend.clear_session()` does."""
    _name_counts.clear()


def snake_case(name: str) -> str:
    """'MaxPooling2D' -> 'max_pooling2d', 'MyModel' -> 'my_model': Keras' default layer names."""
    name = re.sub(r"(.)([A-Z][a-z]+)", r"\1_\2", name)
    return re.sub(r"([a-z])([A-Z])", r"\1_\2", name).lower()


def unique_name(base: str) -> str:
    """'dense', then 'dense_1', 'dense_2', ... until `clear_session()`."""
    count = _name_counts[base]
    _name_counts[base] += 1
    return base if count == 0 else f"{base}_{count}"


@contextlib.contextmanager
def training_scope(training: bool) -> Iterator[None]:
    stack = _training.stack
    stack.append(training)
    try:
        yield
    finally:
        stack.pop()


def call_state() -> _CallState:
    """This thread's layer-call state: the training flags, the call depth, the layers holding losses."""
    return _training


_layer_weights: weakref.WeakValueDictionary = weakref.WeakValueDictionary()  # id -> a weight add_weight made


def note_layer_weight(variable: Any) -> None:
    _layer_weights[id(variable)] = variable


def describe_variable(variable: Any) -> str:
    """A variable as Keras 3's messages show it: a layer's weight by its path, shape and dtype (its values could fill
    the screen); a variable made by hand as its repr, as TensorFlow's tf.Variable prints."""
    if _layer_weights.get(id(variable)) is not variable:
        return repr(variable)
    path = variable.name.removesuffix(":0")
    return f"<Variable path={path}, shape={tuple(variable.shape)}, dtype={variable.dtype.name}>"


_regularized_weights = 0  # how many weights with a regularizer were ever made: 0 lets `layer.losses` skip its walk


def note_regularized_weight() -> None:
    global _regularized_weights
    _regularized_weights += 1


def losses_may_exist() -> bool:
    """Could any layer hold a loss (a regularized weight anywhere, or an add_loss in this thread)?"""
    return bool(_regularized_weights or _training.loss_owners)


def note_loss_owner(layer: object) -> None:
    _training.loss_owners.append(layer)


def clear_call_losses(layer: Any) -> None:
    """Forget the losses that `layer` and its sublayers added in their previous call, as Keras does."""
    owners = _training.loss_owners
    if not owners:  # the usual case: nothing to walk
        return
    tree = layer._self_and_sublayers()
    keep = []
    for owner in owners:
        if any(owner is member for member in tree):
            owner.clear_losses()
        else:
            keep.append(owner)
    _training.loss_owners = keep


def current_training() -> bool | None:
    """The `training` flag of the innermost enclosing layer call in this thread, or None outside any call."""
    stack = _training.stack
    return stack[-1] if stack else None


def to_numpy(value: object) -> np.ndarray:
    """A plain numpy array from a tensor, variable, list or array (read through numpy's array protocol)."""
    return np.asarray(value)


def __getattr__(name: str) -> Any:
    """Keras 2's backend functions (`K.square`, ...) come from legacy_backend (kept apart: their names, `sum`, `any`,
    `max`, ..., would hide Python's own here); one minitape leaves out says what to write instead."""
    from minitape.keras import legacy_backend

    if name in legacy_backend.__all__:
        return getattr(legacy_backend, name)
    if name in legacy_backend.LEFT_OUT:
        raise AttributeError(f"minitape has no keras.backend.{name}: {legacy_backend.LEFT_OUT[name]}.")
    raise AttributeError(f"module 'keras.backend' has no attribute {name!r}")
