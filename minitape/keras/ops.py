"""`keras.ops`: Keras 3's backend-agnostic ops, with Keras 3's names and numpy-style arguments (`axis`,
`keepdims`), computed by minitape's ops, so gradients flow wherever minitape's op has one.

A name Keras 3 has and this module leaves out raises an error saying so and what to use instead.
"""

from __future__ import annotations

from typing import Any

import minitape as mt
from minitape.keras import activations
from minitape.keras.unsupported import module_getattr

# the ops whose Keras 3 form is minitape's op under the same or another name, arguments in the same order
convert_to_tensor = mt.convert_to_tensor
cast = mt.cast
reshape = mt.reshape
expand_dims = mt.expand_dims
stack = mt.stack
zeros_like = mt.zeros_like
ones_like = mt.ones_like
where = mt.where
matmul = mt.matmul
einsum = mt.einsum
add, subtract, multiply, divide, power = mt.add, mt.subtract, mt.multiply, mt.divide, mt.pow
negative, abs, sqrt, square = mt.negative, mt.abs, mt.sqrt, mt.square  # noqa: A001 - Keras 3's names
exp, log, log1p, sin, cos, tanh = mt.exp, mt.math.log, mt.math.log1p, mt.sin, mt.cos, mt.tanh
relu, softplus, silu = mt.nn.relu, mt.nn.softplus, mt.nn.silu
sigmoid = activations.sigmoid  # its output linked to x for binary crossentropy, as Keras 3's is
maximum, minimum = mt.maximum, mt.minimum
equal, not_equal, greater, less = mt.equal, mt.not_equal, mt.greater, mt.less
greater_equal, less_equal = mt.greater_equal, mt.less_equal
logical_and, logical_or, logical_not = mt.logical_and, mt.logical_or, mt.logical_not
floor, round, sign = mt.floor, mt.round, mt.sign  # noqa: A001 - Keras 3's names
mod, floor_divide = mt.floormod, mt.floordiv
stop_gradient = mt.stop_gradient
erf, ceil = mt.math.erf, mt.math.ceil
vectorized_map = mt.vectorized_map


def shape(x: Any) -> tuple:
    """The static shape as a tuple of ints, as Keras 3."""
    return tuple(mt.convert_to_tensor(x).shape)


def transpose(x: Any, axes: Any = None) -> Any:
    return mt.transpose(x, perm=axes)


def squeeze(x: Any, axis: Any = None) -> Any:
    return mt.squeeze(x, axis=axis)


def concatenate(xs: Any, axis: int = 0) -> Any:
    return mt.concat(list(xs), axis=axis)


def zeros(shape: Any, dtype: Any = "float32") -> Any:
    return mt.zeros(shape, dtype=dtype)


def ones(shape: Any, dtype: Any = "float32") -> Any:
    return mt.ones(shape, dtype=dtype)


def full(shape: Any, fill_value: Any, dtype: Any = None) -> Any:
    value = mt.convert_to_tensor(fill_value, dtype=dtype)
    return mt.fill(shape, value)


def eye(N: int, M: int | None = None, k: int = 0, dtype: Any = "float32") -> Any:  # noqa: N803 - Keras 3's names
    if k:
        raise NotImplementedError("keras.ops.eye: k (an off-diagonal) is left out; use mt.linalg.diag with k")
    return mt.eye(N, M, dtype=dtype)


def clip(x: Any, x_min: Any, x_max: Any) -> Any:
    return mt.clip_by_value(x, x_min, x_max)


def _reduction(name: str, fn: Any) -> Any:
    def reduce(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
        return fn(x, axis=axis, keepdims=keepdims)

    reduce.__name__ = name
    reduce.__doc__ = f"keras.ops.{name}(x, axis=None, keepdims=False), numpy style."
    return reduce


sum = _reduction("sum", mt.reduce_sum)  # noqa: A001 - Keras 3's names
mean = _reduction("mean", mt.reduce_mean)
max = _reduction("max", mt.reduce_max)  # noqa: A001
min = _reduction("min", mt.reduce_min)  # noqa: A001
prod = _reduction("prod", mt.reduce_prod)
std = _reduction("std", mt.math.reduce_std)
var = _reduction("var", mt.math.reduce_variance)
logsumexp = _reduction("logsumexp", mt.math.reduce_logsumexp)
all = _reduction("all", mt.reduce_all)  # noqa: A001
any = _reduction("any", mt.reduce_any)  # noqa: A001


def argmax(x: Any, axis: int | None = None, keepdims: bool = False) -> Any:
    flat = axis is None
    result = mt.argmax(mt.reshape(x, [-1]) if flat else x, axis=0 if flat else axis, output_type=mt.int32)
    return mt.expand_dims(result, axis) if keepdims and not flat else result


def argmin(x: Any, axis: int | None = None, keepdims: bool = False) -> Any:
    return argmax(-mt.convert_to_tensor(x), axis, keepdims)


def softmax(x: Any, axis: int = -1) -> Any:
    """Keras 3's softmax, its output linked to x for the crossentropies (see kept_logits)."""
    return activations.softmax(x, axis=axis)


def log_softmax(x: Any, axis: int = -1) -> Any:
    return mt.nn.log_softmax(x, axis=axis)


def gelu(x: Any, approximate: bool = True) -> Any:
    """Keras 3's gelu is the tanh approximation unless approximate=False."""
    return mt.nn.gelu(x, approximate=approximate)


def one_hot(x: Any, num_classes: int, axis: int = -1, dtype: Any = "float32") -> Any:
    return mt.one_hot(mt.cast(x, "int32"), num_classes, axis=axis, dtype=dtype)


def cumsum(x: Any, axis: int | None = None) -> Any:
    return mt.cumsum(mt.reshape(x, [-1]) if axis is None else x, axis=0 if axis is None else axis)


def top_k(x: Any, k: int, sorted: bool = True) -> Any:  # noqa: A002 - Keras 3's name
    return mt.math.top_k(x, k=k, sorted=sorted)


def moments(x: Any, axes: Any, keepdims: bool = False) -> Any:
    return mt.nn.moments(x, axes=axes, keepdims=keepdims)


def categorical_crossentropy(target: Any, output: Any, from_logits: bool = False, axis: int = -1) -> Any:
    from minitape.keras import losses

    return losses.categorical_crossentropy(target, output, from_logits=from_logits, axis=axis)


def sparse_categorical_crossentropy(target: Any, output: Any, from_logits: bool = False, axis: int = -1) -> Any:
    from minitape.keras import losses

    return losses.sparse_categorical_crossentropy(target, output, from_logits=from_logits, axis=axis)


def binary_crossentropy(target: Any, output: Any, from_logits: bool = False) -> Any:
    """Elementwise, as Keras 3's op (the loss function averages over the last axis)."""
    from minitape.keras import losses

    target, output = mt.convert_to_tensor(target), mt.convert_to_tensor(output)
    return losses.binary_crossentropy_elements(mt.cast(target, output.dtype), output, from_logits)


def arange(start: Any, stop: Any = None, step: Any = 1, dtype: Any = None) -> Any:
    """numpy's arange: int32 for whole numbers, float32 if any is a float (Keras 3's defaults)."""
    return mt.range(start, stop, step, dtype=dtype)


def linspace(start: Any, stop: Any, num: int = 50, endpoint: bool = True, dtype: Any = None, axis: int = 0) -> Any:
    if not endpoint:  # num points from start, stepping as if stop were the (num + 1)-th
        stop = start + (stop - start) * (num - 1) / num
    values = mt.linspace(start, stop, num, axis=axis)
    return mt.cast(values, dtype or "float32")


def split(x: Any, indices_or_sections: Any, axis: int = 0) -> list:
    """numpy's split: a number of equal parts, or the indices where a part starts (tf.split takes sizes)."""
    if isinstance(indices_or_sections, int):
        return mt.split(x, indices_or_sections, axis=axis)
    size = mt.convert_to_tensor(x).shape[axis]
    bounds = [0, *indices_or_sections, size]
    return mt.split(x, [b - a for a, b in zip(bounds, bounds[1:])], axis=axis)


def take(x: Any, indices: Any, axis: int | None = None) -> Any:
    """Entries of x at `indices` along `axis` (of the flattened x if axis is None)."""
    return mt.gather(mt.reshape(x, [-1]) if axis is None else x, indices, axis=axis or 0)


def dot(x1: Any, x2: Any) -> Any:
    """numpy's dot: the product over x1's last axis and x2's second-to-last (its only one if 1-D)."""
    x1, x2 = mt.convert_to_tensor(x1), mt.convert_to_tensor(x2)
    if x1.ndim == 0 or x2.ndim == 0:
        return x1 * x2
    return mt.tensordot(x1, x2, axes=[[x1.ndim - 1], [x2.ndim - 2 if x2.ndim > 1 else 0]])


def sort(x: Any, axis: int = -1) -> Any:
    return mt.sort(x, axis=axis)


def norm(x: Any, ord: Any = None, axis: Any = None, keepdims: bool = False) -> Any:  # noqa: A002 - Keras 3's name
    """The 2-norm by default (of all entries if axis is None); `ord` as mt.norm takes it."""
    return mt.norm(x, ord="euclidean" if ord is None else ord, axis=axis, keepdims=keepdims)


def tile(x: Any, repeats: Any) -> Any:
    return mt.tile(x, repeats)


def repeat(x: Any, repeats: Any, axis: int | None = None) -> Any:
    return mt.repeat(mt.reshape(x, [-1]) if axis is None else x, repeats, axis=axis or 0)


def pad(x: Any, pad_width: Any, mode: str = "constant", constant_values: Any = None) -> Any:
    return mt.pad(x, pad_width, mode=mode.upper(), constant_values=constant_values or 0)


def flip(x: Any, axis: Any = None) -> Any:
    x = mt.convert_to_tensor(x)
    axes = list(range(x.ndim)) if axis is None else [axis] if isinstance(axis, int) else list(axis)
    return mt.reverse(x, axes)


def cond(pred: Any, true_fn: Any, false_fn: Any) -> Any:
    """`true_fn()` if `pred` holds, else `false_fn()`: tf.cond (a Python bool is fine too)."""
    return mt.cond(pred, true_fn, false_fn)


def while_loop(cond: Any, body: Any, loop_vars: Any, maximum_iterations: Any = None) -> Any:
    """tf.while_loop, as Keras 3 calls it: a tuple or list of loop variables comes back as a tuple, a single one
    (which the body returns bare) as itself."""
    spread = isinstance(loop_vars, (tuple, list))
    loop_vars = tuple(loop_vars) if spread else (loop_vars,)
    step = (lambda *args: tuple(body(*args))) if spread else (lambda *args: (body(*args),))
    outputs = mt.while_loop(cond, step, loop_vars, maximum_iterations=maximum_iterations)
    return outputs if spread else outputs[0]


def fori_loop(lower: Any, upper: Any, body_fun: Any, init_val: Any) -> Any:
    """`val = body_fun(i, val)` for i from lower up to upper, as Keras 3's eager TensorFlow backend runs it: `i`
    stays a Python int when `lower` is one, so `val + i` works for a float `val`."""
    val = init_val
    i = lower
    while i < upper:  # bool() of a traced tensor: under mt.function, a guard on the trip count
        val = body_fun(i, val)
        i = i + 1
    return mt.nest.map_structure(mt.convert_to_tensor, val)


__getattr__ = module_getattr("keras.ops")  # a left-out name says what to use instead
