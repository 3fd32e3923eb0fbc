"""Keras 2's backend functions (`K.square`, `K.random_normal`, ...), as `tf.keras.backend` in TensorFlow 2.21 still
gives them (Keras 3 keeps them for `tf.keras` only, marked deprecated), written over minitape's ops.

Each does what TensorFlow 2.21's does, with its defaults: a `dtype` left out is `floatx()`, `mean`, `std` and
`var` of a bool tensor count it as floats, `sqrt` clips negative values to 0 first, `clip` with its bounds in
the wrong order clips to the lower one. Their Keras 3 spellings are `keras.ops.*` (and `keras.random.*`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

import minitape as _mt
from minitape.keras import backend as _backend

__all__ = [
    "abs", "all", "any", "arange", "argmax", "argmin", "batch_dot", "batch_flatten", "batch_get_value",
    "batch_normalization", "batch_set_value", "bias_add", "binary_crossentropy", "cast", "cast_to_floatx",
    "categorical_crossentropy", "clip", "concatenate", "constant", "cos", "count_params", "cumprod", "cumsum",
    "dot", "dropout", "dtype", "elu", "equal", "eval", "exp", "expand_dims", "eye", "flatten", "foldl", "foldr",
    "gather", "get_value", "greater", "greater_equal", "hard_sigmoid", "int_shape", "is_sparse", "l2_normalize",
    "less", "less_equal", "log", "map_fn", "max", "maximum", "mean", "min", "minimum", "moving_average_update",
    "name_scope", "ndim", "not_equal", "one_hot", "ones", "ones_like", "permute_dimensions", "pow", "prod",
    "random_bernoulli", "random_normal", "random_normal_variable", "random_uniform", "random_uniform_variable",
    "relu", "repeat", "repeat_elements", "reshape", "reverse", "round", "set_value", "shape", "sigmoid", "sign",
    "sin", "softmax", "softplus", "softsign", "sparse_categorical_crossentropy", "sqrt", "square", "squeeze",
    "stack", "std", "stop_gradient", "sum", "switch", "tanh", "temporal_padding", "tile", "to_dense", "transpose",
    "truncated_normal", "update", "update_add", "update_sub", "var", "variable", "zeros", "zeros_like",
]  # fmt: skip

_builtin_max = max


def _floats_if_bool(x: Any) -> Any:
    x = _mt.convert_to_tensor(x)
    return _mt.cast(x, _backend.floatx()) if x.dtype.is_bool else x


# element-wise and reductions: TensorFlow's ops under Keras 2's names
def abs(x: Any) -> Any:  # noqa: A001 - Keras' name
    return _mt.abs(x)


def all(x: Any, axis: Any = None, keepdims: bool = False) -> Any:  # noqa: A001
    return _mt.reduce_all(_mt.cast(x, "bool"), axis, keepdims)


def any(x: Any, axis: Any = None, keepdims: bool = False) -> Any:  # noqa: A001
    return _mt.reduce_any(_mt.cast(x, "bool"), axis, keepdims)


def argmax(x: Any, axis: int = -1) -> Any:
    return _mt.argmax(x, axis)


def argmin(x: Any, axis: int = -1) -> Any:
    return _mt.argmin(x, axis)


def max(x: Any, axis: Any = None, keepdims: bool = False) -> Any:  # noqa: A001
    return _mt.reduce_max(x, axis, keepdims)


def min(x: Any, axis: Any = None, keepdims: bool = False) -> Any:  # noqa: A001
    return _mt.reduce_min(x, axis, keepdims)


def sum(x: Any, axis: Any = None, keepdims: bool = False) -> Any:  # noqa: A001
    return _mt.reduce_sum(x, axis, keepdims)


def prod(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    return _mt.reduce_prod(x, axis, keepdims)


def mean(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    return _mt.reduce_mean(_floats_if_bool(x), axis, keepdims)


def std(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    return _mt.math.reduce_std(_floats_if_bool(x), axis=axis, keepdims=keepdims)


def var(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    return _mt.math.reduce_variance(_floats_if_bool(x), axis=axis, keepdims=keepdims)


def cumsum(x: Any, axis: int = 0) -> Any:
    return _mt.cumsum(x, axis=axis)


def cumprod(x: Any, axis: int = 0) -> Any:
    return _mt.math.cumprod(x, axis=axis)


def sqrt(x: Any) -> Any:
    """sqrt(max(x, 0)), as Keras 2 computes it: a negative value gives 0, not NaN."""
    x = _mt.convert_to_tensor(x)
    return _mt.sqrt(_mt.maximum(x, _mt.zeros((), dtype=x.dtype)))


def hard_sigmoid(x: Any) -> Any:
    """clip(0.2 x + 0.5, 0, 1): Keras 2's slope (Keras 3's `keras.ops.hard_sigmoid` uses 1/6)."""
    x = _mt.convert_to_tensor(x)
    return _mt.clip_by_value(x * 0.2 + 0.5, 0.0, 1.0)


def elu(x: Any, alpha: float = 1.0) -> Any:
    result = _mt.nn.elu(x)
    return result if alpha == 1 else _mt.where(_mt.convert_to_tensor(x) > 0, result, alpha * result)


def relu(x: Any, alpha: float = 0.0, max_value: Any = None, threshold: float = 0.0) -> Any:
    """Keras 2's relu: `alpha` is the slope below `threshold`, `max_value` caps the output."""
    x = _mt.convert_to_tensor(x)
    if alpha == 0 and max_value is None and threshold == 0:
        return _mt.nn.relu(x)
    below = _mt.nn.relu(threshold - x) if alpha else None
    out = x * _mt.cast(x > threshold, x.dtype) if threshold else _mt.nn.relu(x)
    if max_value is not None:
        out = _mt.clip_by_value(out, 0.0, max_value)
    return out - alpha * below if alpha else out


def softmax(x: Any, axis: int = -1) -> Any:
    x = _mt.convert_to_tensor(x)
    if len(x.shape) <= 1:
        raise ValueError(f"Cannot apply softmax to a tensor that is 1D. Received input: {x}")
    return _mt.nn.softmax(x, axis=axis)


def l2_normalize(x: Any, axis: Any = None) -> Any:
    return _mt.math.l2_normalize(x, axis=axis)


def clip(x: Any, min_value: Any, max_value: Any) -> Any:
    """Bounds in the wrong order clip to `min_value`, and None is no bound, as in Keras 2."""
    numbers = (int, float)
    if isinstance(min_value, numbers) and isinstance(max_value, numbers) and max_value < min_value:
        max_value = min_value
    return _mt.clip_by_value(x, -np.inf if min_value is None else min_value, np.inf if max_value is None else max_value)


def stop_gradient(variables: Any) -> Any:
    if isinstance(variables, (list, tuple)):
        return [_mt.stop_gradient(v) for v in variables]
    return _mt.stop_gradient(variables)


# Keras 2 names for TensorFlow ops, same arguments
square = _mt.square
pow = _mt.pow
exp = _mt.exp
log = _mt.math.log
round = _mt.round
sign = _mt.sign
sin = _mt.sin
cos = _mt.cos
tanh = _mt.tanh
sigmoid = _mt.sigmoid
softplus = _mt.math.softplus
softsign = _mt.math.softsign
equal = _mt.equal
not_equal = _mt.not_equal
greater = _mt.greater
greater_equal = _mt.greater_equal
less = _mt.less
less_equal = _mt.less_equal
maximum = _mt.maximum
minimum = _mt.minimum
reshape = _mt.reshape
transpose = _mt.transpose
gather = _mt.gather
cast = _mt.cast
name_scope = _mt.name_scope


# shapes and arrays
def shape(x: Any) -> Any:
    return _mt.shape(x)


def int_shape(x: Any) -> tuple:
    """The static shape as a tuple of ints."""
    return tuple(_mt.convert_to_tensor(x).shape)


def ndim(x: Any) -> int:
    return len(_mt.convert_to_tensor(x).shape)


def dtype(x: Any) -> str:
    return _mt.convert_to_tensor(x).dtype.name


def count_params(x: Any) -> int:
    return int(np.prod(tuple(x.shape), dtype=np.int64))


def flatten(x: Any) -> Any:
    return _mt.reshape(x, [-1])


def batch_flatten(x: Any) -> Any:
    """(batch, ...) to (batch, everything else)."""
    x = _mt.convert_to_tensor(x)
    return _mt.reshape(x, (-1, int(np.prod(tuple(x.shape)[1:], dtype=np.int64))))


def permute_dimensions(x: Any, pattern: Any) -> Any:
    return _mt.transpose(x, perm=pattern)


def expand_dims(x: Any, axis: int = -1) -> Any:
    return _mt.expand_dims(x, axis)


def squeeze(x: Any, axis: int) -> Any:
    return _mt.squeeze(x, [axis])


def stack(x: Any, axis: int = 0) -> Any:
    return _mt.stack(x, axis=axis)


def concatenate(tensors: Any, axis: int = -1) -> Any:
    return _mt.concat(list(tensors), axis)


def tile(x: Any, n: Any) -> Any:
    return _mt.tile(x, [n] if isinstance(n, int) else n)


def repeat(x: Any, n: int) -> Any:
    """(batch, features) to (batch, n, features), as the RepeatVector layer."""
    x = _mt.convert_to_tensor(x)
    if len(x.shape) != 2:
        raise ValueError(f"Expected input `x` to have rank 2. Received: rank(x)={len(x.shape)}")
    return _mt.tile(_mt.expand_dims(x, 1), [1, n, 1])


def repeat_elements(x: Any, rep: int, axis: int) -> Any:
    """Each slice along `axis` repeated `rep` times in place, as numpy's repeat."""
    return _mt.repeat(x, rep, axis=axis)


def reverse(x: Any, axes: Any) -> Any:
    return _mt.reverse(x, [axes] if isinstance(axes, int) else list(axes))


def one_hot(indices: Any, num_classes: int) -> Any:
    return _mt.one_hot(indices, depth=num_classes, axis=-1)


def temporal_padding(x: Any, padding: Any = (1, 1)) -> Any:
    """Pad the middle (time) axis of a (batch, steps, features) tensor with zeros."""
    if len(padding) != 2:
        raise ValueError(f"Expected `padding` to be a tuple of 2 integers. Received: padding={padding}")
    return _mt.pad(x, [[0, 0], list(padding), [0, 0]])


def dot(x: Any, y: Any) -> Any:
    """Keras 2's dot: x's last axis against y's second-to-last (its only one for a vector), as numpy's dot."""
    x, y = _mt.convert_to_tensor(x), _mt.convert_to_tensor(y)
    if len(x.shape) <= 2 and len(y.shape) <= 2:
        return _mt.matmul(x, y)
    return _mt.tensordot(x, y, axes=[[len(x.shape) - 1], [_builtin_max(len(y.shape) - 2, 0)]])


def batch_dot(x: Any, y: Any, axes: Any = None) -> Any:
    """Per example of the batch, the dot product over `axes` (default: x's last with y's second-to-last)."""
    x, y = _mt.convert_to_tensor(x), _mt.convert_to_tensor(y)
    if len(x.shape) < 2 or len(y.shape) < 2:
        raise ValueError(
            "Cannot do batch_dot on inputs with rank < 2. "
            f"Received inputs with tf.shapes {tuple(x.shape)} and {tuple(y.shape)}."
        )
    if axes is None:
        axes = (len(x.shape) - 1, len(y.shape) - 2 if len(y.shape) > 2 else 1)
    axes = (axes, axes) if isinstance(axes, int) else tuple(axes)
    a = axes[0] % len(x.shape)
    b = axes[1] % len(y.shape)
    letters = "bcdefghijklmnopqrstuvw"
    x_sub = "a" + letters[: len(x.shape) - 1]
    y_sub = "a" + letters[len(x.shape) - 1 : len(x.shape) + len(y.shape) - 2]
    y_sub = y_sub[:b] + x_sub[a] + y_sub[b + 1 :]
    out = "".join(c for c in x_sub if c != x_sub[a]) + "".join(c for c in y_sub[1:] if c != x_sub[a])
    result = _mt.einsum(f"{x_sub},{y_sub}->{out}", x, y)
    return _mt.expand_dims(result, 1) if len(result.shape) == 1 else result


def switch(condition: Any, then_expression: Any, else_expression: Any) -> Any:
    """`then_expression` where `condition` holds, else `else_expression` (callables are called first)."""
    then_value = then_expression() if callable(then_expression) else then_expression
    else_value = else_expression() if callable(else_expression) else else_expression
    return _mt.where(_mt.cast(condition, "bool"), then_value, else_value)


def map_fn(fn: Any, elems: Any, name: Any = None, dtype: Any = None) -> Any:
    return _mt.map_fn(fn, elems)


def foldl(fn: Any, elems: Any, initializer: Any = None, name: Any = None) -> Any:
    """`fn(...fn(fn(initializer, x0), x1)..., xn)` over `elems`' first axis: `tf.foldl`."""
    return _mt.foldl(fn, elems, initializer=initializer)


def foldr(fn: Any, elems: Any, initializer: Any = None, name: Any = None) -> Any:
    """foldl from the last element to the first: `tf.foldr`."""
    return _mt.foldr(fn, elems, initializer=initializer)


# creation, variables and values
def constant(value: Any, dtype: Any = None, shape: Any = None, name: Any = None) -> Any:
    return _mt.constant(value, dtype=dtype or _backend.floatx(), shape=shape, name=name)


def cast_to_floatx(x: Any) -> Any:
    """A tensor or variable cast to floatx(); anything else becomes a numpy array of floatx()."""
    if isinstance(x, (_mt.Tensor, _mt.Variable)):
        return _mt.cast(x, _backend.floatx())
    return np.asarray(x, dtype=_backend.floatx())


def arange(start: Any, stop: Any = None, step: Any = 1, dtype: Any = "int32") -> Any:
    if stop is None and start < 0:
        start = 0
    result = _mt.range(start, stop, step) if stop is not None else _mt.range(start, delta=step)
    return result if dtype == "int32" else _mt.cast(result, dtype)


def variable(value: Any, dtype: Any = None, name: Any = None, constraint: Any = None) -> Any:
    return _mt.Variable(value, dtype=dtype or _backend.floatx(), name=name)


def zeros(shape: Any, dtype: Any = None, name: Any = None) -> Any:
    """A Variable of zeros (a tensor if a size is 0), as Keras 2 makes it."""
    return _filled(_mt.zeros, shape, dtype, name)


def ones(shape: Any, dtype: Any = None, name: Any = None) -> Any:
    return _filled(_mt.ones, shape, dtype, name)


def _filled(make: Any, shape: Any, dtype: Any, name: Any) -> Any:
    value = make(shape, dtype=dtype or _backend.floatx())
    return variable(value, dtype=value.dtype, name=name) if np.prod(tuple(value.shape)) else value


def eye(size: Any, dtype: Any = None, name: Any = None) -> Any:
    return variable(_mt.eye(size, dtype=dtype or _backend.floatx()), dtype, name)


def zeros_like(x: Any, dtype: Any = None, name: Any = None) -> Any:
    return _mt.zeros_like(x, dtype=dtype)


def ones_like(x: Any, dtype: Any = None, name: Any = None) -> Any:
    return _mt.ones_like(x, dtype=dtype)


def get_value(x: Any) -> Any:
    return x.numpy() if hasattr(x, "numpy") else x


def eval(x: Any) -> Any:  # noqa: A001 - Keras' name
    return get_value(x)


def batch_get_value(tensors: Any) -> list:
    return [get_value(x) for x in tensors]


def set_value(x: Any, value: Any) -> None:
    x.assign(np.asarray(value, dtype=x.dtype.name))


def batch_set_value(tuples: Any) -> None:
    for x, value in tuples:
        set_value(x, value)


def update(x: Any, new_x: Any) -> Any:
    return x.assign(new_x)


def update_add(x: Any, increment: Any) -> Any:
    return x.assign_add(increment)


def update_sub(x: Any, decrement: Any) -> Any:
    return x.assign_sub(decrement)


def moving_average_update(x: Any, value: Any, momentum: float) -> Any:
    """x -= (x - value) (1 - momentum)."""
    value = _mt.cast(value, x.dtype)
    return x.assign_sub((x - value) * (1 - momentum))


def is_sparse(tensor: Any) -> bool:
    return False  # minitape has no sparse tensors


def to_dense(tensor: Any) -> Any:
    return tensor


# random numbers (numpy's stream: TensorFlow's own numbers differ)
def random_normal(shape: Any, mean: float = 0.0, stddev: float = 1.0, dtype: Any = None, seed: Any = None) -> Any:
    return _mt.random.normal(shape, mean=mean, stddev=stddev, dtype=dtype or _backend.floatx(), seed=seed)


def random_uniform(shape: Any, minval: float = 0.0, maxval: float = 1.0, dtype: Any = None, seed: Any = None) -> Any:
    return _mt.random.uniform(shape, minval=minval, maxval=maxval, dtype=dtype or _backend.floatx(), seed=seed)


def truncated_normal(shape: Any, mean: float = 0.0, stddev: float = 1.0, dtype: Any = None, seed: Any = None) -> Any:
    return _mt.random.truncated_normal(shape, mean, stddev, dtype=dtype or _backend.floatx(), seed=seed)


def random_bernoulli(shape: Any, p: float = 0.0, dtype: Any = None, seed: Any = None) -> Any:
    dtype = dtype or _backend.floatx()
    draws = random_uniform(shape, dtype=dtype, seed=seed)
    return _mt.where(draws <= p, _mt.ones(shape, dtype=dtype), _mt.zeros(shape, dtype=dtype))


def random_normal_variable(
    shape: Any, mean: float, scale: float, dtype: Any = None, name: Any = None, seed: Any = None
) -> Any:
    return variable(random_normal(shape, mean, scale, dtype, seed), dtype, name)


def random_uniform_variable(
    shape: Any, low: float, high: float, dtype: Any = None, name: Any = None, seed: Any = None
) -> Any:
    return variable(random_uniform(shape, low, high, dtype, seed), dtype, name)


def dropout(x: Any, level: float, noise_shape: Any = None, seed: Any = None) -> Any:
    return _mt.nn.dropout(x, rate=level, noise_shape=noise_shape, seed=seed)


# neural-network pieces
def bias_add(x: Any, bias: Any, data_format: Any = None) -> Any:
    if data_format not in (None, "channels_last"):
        raise ValueError(f"bias_add: minitape has only data_format='channels_last', not {data_format!r}")
    return _mt.nn.bias_add(x, bias)


def batch_normalization(
    x: Any, mean: Any, var: Any, beta: Any, gamma: Any, axis: int = -1, epsilon: float = 1e-3
) -> Any:
    return _mt.nn.batch_normalization(x, mean, var, beta, gamma, epsilon)


def binary_crossentropy(target: Any, output: Any, from_logits: bool = False) -> Any:
    """Per element (not averaged), probabilities clipped to [eps, 1 - eps] first."""
    from minitape.keras.losses import binary_crossentropy_elements

    return binary_crossentropy_elements(target, output, from_logits)


def categorical_crossentropy(target: Any, output: Any, from_logits: bool = False, axis: int = -1) -> Any:
    from minitape.keras.losses import categorical_crossentropy as loss

    return loss(target, output, from_logits=from_logits, axis=axis)


def sparse_categorical_crossentropy(target: Any, output: Any, from_logits: bool = False, axis: int = -1) -> Any:
    from minitape.keras.losses import sparse_categorical_crossentropy as loss

    return loss(target, output, from_logits=from_logits, axis=axis)


# the rest of Keras 2's backend: what to write instead
LEFT_OUT = {
    **dict.fromkeys(
        ("ctc_batch_cost", "ctc_decode", "ctc_label_dense_to_sparse"), "there is no CTC: minitape has no such loss"
    ),
    **dict.fromkeys(
        ("conv3d", "pool3d", "resize_volumes", "spatial_3d_padding"),
        "minitape has 1-D and 2-D layers only; for 2-D use keras.ops.conv / keras.layers",
    ),
    **dict.fromkeys(
        ("conv1d", "conv2d", "conv2d_transpose", "pool2d"),
        "use mt.nn.conv1d, mt.nn.conv2d, mt.nn.conv2d_transpose, mt.nn.max_pool2d or mt.nn.avg_pool2d "
        "(TensorFlow's own ops; Keras 3 spells them keras.ops.conv, keras.ops.max_pool, ...)",
    ),
    **dict.fromkeys(
        ("depthwise_conv2d", "separable_conv2d"),
        "use mt.nn.depthwise_conv2d or mt.nn.separable_conv2d (TensorFlow's own ops, strides as [1, s, s, 1]), "
        "or keras.layers.DepthwiseConv2D / SeparableConv2D",
    ),
    "resize_images": "use keras.layers.UpSampling2D",
    "spatial_2d_padding": "use keras.layers.ZeroPadding2D, or mt.pad",
    "rnn": "use keras.layers.RNN with a cell, or a Python loop over the steps",
    "gradients": "use mt.GradientTape: with tape: ...; tape.gradient(loss, variables)",
    "in_top_k": "compare mt.math.top_k(predictions, k).indices with the targets",
    "binary_focal_crossentropy": "use keras.losses.BinaryCrossentropy (minitape has no focal loss)",
    "categorical_focal_crossentropy": "use keras.losses.CategoricalCrossentropy (minitape has no focal loss)",
}
