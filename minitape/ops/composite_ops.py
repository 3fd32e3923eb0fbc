"""Functions tutorials call from `tf.math`, `tf.nn` and `tf`: cumsum (a primitive), the rest built from ops."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from minitape.engine.opdef import defop
from minitape.engine.tensor import Tensor
from minitape.function.trace import runs_each_call
from minitape.ops.api import (
    abs,
    cast,
    clip_by_value,
    equal,
    exp,
    floor,
    gather,
    log,
    log1p,
    maximum,
    not_equal,
    ones_like,
    reduce_mean,
    reduce_sum,
    rsqrt,
    sqrt,
    square,
    squeeze,
    stack,
    tanh,
    unstack,
    where,
    zeros_like,
)
from minitape.ops.nn_ops import check_same_shape, elu, relu, softplus
from minitape.ops.options import integer
from minitape.values import nest
from minitape.values.convert import as_array as _plain
from minitape.values.convert import convert_to_tensor
from minitape.values.dtypes import as_dtype, int32, int64
from minitape.values.errors import InvalidArgumentError
from minitape.values.tensor_like import TensorLike


# ---- cumsum: the running sum; its gradient is the running sum taken from the other end -----------------
def _cumsum(a, axis, exclusive, reverse):
    if not -a.ndim <= axis < a.ndim:  # a scalar has no axis to run along, as in TensorFlow
        raise InvalidArgumentError(f"cumsum: axis {axis} is out of range for a tensor of rank {a.ndim}")
    if a.dtype.kind == "b":
        raise TypeError("cumsum of a bool tensor is not defined; cast it first, e.g. mt.cast(x, mt.int32)")
    a = np.flip(a, axis) if reverse else a
    out = np.cumsum(a, axis=axis, dtype=a.dtype)
    out = out - a if exclusive else out
    return np.flip(out, axis).copy() if reverse else out


cumsum_op = defop(
    "Cumsum",
    _cumsum,
    lambda op, g: cumsum_op(g, axis=op.attrs["axis"], exclusive=op.attrs["exclusive"], reverse=not op.attrs["reverse"]),
    keep="nothing",
)


def cumsum(x: Any, axis: int = 0, exclusive: bool = False, reverse: bool = False, name: str | None = None) -> Tensor:
    """Running sums along `axis`: [a, a + b, a + b + c]; exclusive starts at 0, reverse runs from the end."""
    return cumsum_op(x, axis=integer(axis, "cumsum", "axis"), exclusive=bool(exclusive), reverse=bool(reverse))


def cumprod(x: Any, axis: int = 0, exclusive: bool = False, reverse: bool = False, name: str | None = None) -> Tensor:
    """Running products along `axis`: [a, a b, a b c]; exclusive starts at 1, reverse runs from the end.

    A loop of multiplications, so its gradient is exact where an input is 0 (TensorFlow's divides by the
    input there and gives 0 for [2, 0, 3]'s middle entry, where the derivative of the sum is 8).
    """
    x = convert_to_tensor(x)
    axis = integer(axis, "cumprod", "axis")
    if not -x.ndim <= axis < x.ndim:
        raise InvalidArgumentError(f"cumprod: axis {axis} is out of range for a tensor of rank {x.ndim}")
    if x.shape[axis] == 0:
        return x * 1
    parts = unstack(x, axis=axis)
    parts = parts[::-1] if reverse else parts
    running = [ones_like(parts[0])] if exclusive else [parts[0]]
    for part in parts[:-1] if exclusive else parts[1:]:
        running.append(running[-1] * part)
    return stack(running[::-1] if reverse else running, axis=axis)


# ---- composites ---------------------------------------------------------------------------------------------
def l2_normalize(x: Any, axis: Any = None, epsilon: float = 1e-12, name: str | None = None, dim: Any = None) -> Tensor:
    """x / sqrt(max(sum(x^2), epsilon)) along `axis` (all axes if None)."""
    axis = dim if axis is None else axis
    x = x if isinstance(x, TensorLike) else convert_to_tensor(x)
    if not x.dtype.is_floating:  # TensorFlow's rsqrt has no integer kernel
        raise TypeError(f"l2_normalize needs a floating-point tensor, not {x.dtype.name}: cast it first")
    return x * rsqrt(maximum(reduce_sum(square(x), axis=axis, keepdims=True), epsilon))


def reduce_euclidean_norm(input_tensor: Any, axis: Any = None, keepdims: bool = False, name: str | None = None):
    """sqrt(sum(x^2)) over `axis`."""
    return sqrt(reduce_sum(square(input_tensor), axis=axis, keepdims=keepdims))


def count_nonzero(
    input: Any, axis: Any = None, keepdims: Any = None, dtype: Any = int64, name: str | None = None
) -> Tensor:
    """How many entries are not zero (not False) over `axis`, as int64 by default."""
    flags = not_equal(input, False) if _plain(input).dtype == np.bool_ else not_equal(input, 0)
    return reduce_sum(cast(flags, dtype), axis=axis, keepdims=bool(keepdims))


def log_sigmoid(x: Any, name: str | None = None) -> Tensor:
    """log(sigmoid(x)) = -softplus(-x), without overflow."""
    return -softplus(-x)


def truediv(x: Any, y: Any, name: str | None = None) -> Tensor:
    """x / y, with TensorFlow's rule for integers (see mt.divide)."""
    from minitape.ops.operands import divide

    return divide(x, y)


@runs_each_call  # counted from the values: a traced function counts again at every call
def confusion_matrix(
    labels: Any,
    predictions: Any,
    num_classes: int | None = None,
    weights: Any = None,
    dtype: Any = int32,
    name: str | None = None,
) -> Tensor:
    """counts[i, j] = how many examples have label i and prediction j (not differentiable)."""
    lab, pred = _plain(labels).ravel(), _plain(predictions).ravel()
    if lab.shape != pred.shape:
        raise ValueError(f"confusion_matrix: {lab.size} labels but {pred.size} predictions; give one of each")
    if lab.size and min(lab.min(), pred.min()) < 0:
        raise InvalidArgumentError("confusion_matrix: labels and predictions must be non-negative class indices")
    n = int(num_classes) if num_classes is not None else int(max(lab.max(initial=-1), pred.max(initial=-1)) + 1)
    if lab.size and max(lab.max(), pred.max()) >= n:
        raise InvalidArgumentError(f"confusion_matrix: a label or prediction is >= num_classes={n}")
    counts = np.zeros((n, n), as_dtype(dtype).as_numpy_dtype)
    np.add.at(counts, (lab.astype(np.int64), pred.astype(np.int64)), 1 if weights is None else _plain(weights).ravel())
    return Tensor(counts)


def map_fn(
    fn: Callable,
    elems: Any,
    dtype: Any = None,
    parallel_iterations: int | None = None,
    back_prop: bool = True,
    swap_memory: bool = False,
    infer_shape: bool = True,
    name: str | None = None,
    fn_output_signature: Any = None,
) -> Any:
    """fn applied to each slice of `elems` along axis 0, the results stacked; differentiable (a Python loop).

    The loop runs in Python, one slice at a time, so the while-loop settings (parallel_iterations, swap_memory,
    infer_shape) change nothing, and so does back_prop=False, as in TensorFlow 2.21's eager map_fn (deprecated
    there: wrap the result in mt.stop_gradient instead).
    """
    flat = nest.flatten(elems)
    if not flat:
        raise ValueError("map_fn needs at least one tensor in elems")
    slices = [unstack(t) for t in flat]
    if len({len(s) for s in slices}) > 1:
        raise ValueError("map_fn: every tensor in elems needs the same first dimension")
    results = [fn(nest.pack_sequence_as(elems, list(parts))) for parts in zip(*slices)]
    if not results:
        raise ValueError("map_fn over zero elements cannot infer the result's shape")
    columns = zip(*(nest.flatten(r) for r in results))
    return nest.pack_sequence_as(results[0], [stack(list(c)) for c in columns])


def vectorized_map(fn: Callable, elems: Any, fallback_to_while_loop: bool = True, warn: bool = True) -> Any:
    """As map_fn: minitape runs the loop in Python, with the same result."""
    return map_fn(fn, elems)


# ---- more elementwise primitives ----------------------------------------------------------------------------
_TWO_OVER_SQRT_PI = 2 / math.sqrt(math.pi)  # erf'(x) = 2/sqrt(pi) e^(-x^2)


def _erf(a):
    return np.vectorize(math.erf, otypes=[a.dtype])(a)  # numpy has no erf; lessons' tensors are small


def _erfc(a):
    return np.vectorize(math.erfc, otypes=[a.dtype])(a)  # 1 - erf(x) would lose the tail: erfc(10) is 2e-45


# fmt: off
expm1 = defop("Expm1", np.expm1, lambda op, g: g * (op.z + 1), keep="outputs", floating=True)  # (e^x - 1)' = e^x
erf   = defop("Erf",   _erf,     lambda op, g: g * _TWO_OVER_SQRT_PI * exp(-square(op.x)), keep="inputs", floating=True)
erfc  = defop("Erfc",  _erfc,    lambda op, g: -g * _TWO_OVER_SQRT_PI * exp(-square(op.x)), keep="inputs",
              floating=True)
is_inf = defop("IsInf", np.isinf, None, dtype_from=None, floating=True)
# fmt: on


def ceil(x: Any, name: str | None = None) -> Tensor:
    """The smallest integer not below x (no gradient: a step function)."""
    return -floor(-convert_to_tensor(x))


def divide_no_nan(x: Any, y: Any, name: str | None = None) -> Tensor:
    """x / y, but 0 where y is 0 (instead of inf or NaN), with a gradient that stays finite too."""
    zero = equal(y, 0)
    quotient = x / where(zero, 1, y)
    return where(zero, zeros_like(quotient), quotient)


def reciprocal_no_nan(x: Any, name: str | None = None) -> Tensor:
    """1 / x, but 0 where x is 0."""
    return divide_no_nan(1, x)


def _zero_where_x_is_0(x: Any, y: Any, f: Callable) -> Tensor:
    """f(x, y), and 0 where x is 0, whatever y is there (y is replaced first, so no NaN reaches the gradient)."""
    zero = equal(x, 0)
    return where(zero, zeros_like(x), f(x, where(zero, 1, y)))


def xlogy(x: Any, y: Any, name: str | None = None) -> Tensor:
    """x * log(y), and 0 where x is 0 (the convention entropy and cross-entropy need)."""
    return _zero_where_x_is_0(x, y, lambda x, y: x * log(y))


def xlog1py(x: Any, y: Any, name: str | None = None) -> Tensor:
    """x * log(1 + y), and 0 where x is 0."""
    return _zero_where_x_is_0(x, y, lambda x, y: x * log1p(y))


def xdivy(x: Any, y: Any, name: str | None = None) -> Tensor:
    """x / y, and 0 where x is 0."""
    return _zero_where_x_is_0(x, y, lambda x, y: x / y)


def scalar_mul(scalar: Any, x: Any, name: str | None = None) -> Tensor:
    """scalar * x."""
    return scalar * x


def softsign(features: Any, name: str | None = None) -> Tensor:
    """x / (1 + |x|)."""
    return features / (1 + abs(features))


def relu6(features: Any, name: str | None = None) -> Tensor:
    """min(max(x, 0), 6); the gradient is 0 at 0 and at 6, as in TensorFlow."""
    features = convert_to_tensor(features)
    return where(features >= 6, 6, relu(features))


_SELU_SCALE, _SELU_ALPHA = 1.0507009873554804934193349852946, 1.6732632423543772848170429916717


def selu(features: Any, name: str | None = None) -> Tensor:
    """scale * (x if x >= 0 else alpha (e^x - 1)), with TensorFlow's constants (the slope at 0 is scale)."""
    return _SELU_SCALE * where(features >= 0, features, _SELU_ALPHA * elu(features))


def gelu(features: Any, approximate: bool = False, name: str | None = None) -> Tensor:
    """x P(X <= x) for a standard normal X: 0.5 x (1 + erf(x / sqrt 2)); approximate=True uses the tanh form."""
    if approximate:
        return 0.5 * features * (1 + tanh(math.sqrt(2 / math.pi) * (features + 0.044715 * features**3)))
    return 0.5 * features * (1 + erf(features / math.sqrt(2)))


def moments(x: Any, axes: Any, shift: Any = None, keepdims: bool = False, name: str | None = None) -> tuple:
    """(mean, variance) over `axes`. TensorFlow stops the gradient at the mean inside the variance, which leaves
    first derivatives unchanged but makes second derivatives wrong; minitape differentiates it fully."""
    axes = [int(a) for a in np.asarray(_plain(axes)).ravel()]
    mean = reduce_mean(x, axis=axes, keepdims=True)
    variance = reduce_mean(square(x - mean), axis=axes, keepdims=True)
    if keepdims:
        return mean, variance
    return squeeze(mean, axis=axes), squeeze(variance, axis=axes)


def bias_add(value: Any, bias: Any, data_format: Any = None, name: str | None = None) -> Tensor:
    """value + bias along the last axis; the bias must be 1-D with one entry per channel."""
    shape, bias_shape = np.shape(_plain(value)), np.shape(_plain(bias))
    if len(bias_shape) != 1 or not shape or bias_shape[0] != shape[-1]:
        raise InvalidArgumentError(
            f"bias_add: bias of shape {list(bias_shape)} must be 1-D with as many entries as the last axis of the "
            f"value, whose shape is {list(shape)}"
        )
    if data_format not in (None, "NHWC", "N...C"):
        raise NotImplementedError("bias_add supports channels-last data only (data_format='NHWC')")
    return value + bias


def batch_normalization(
    x: Any, mean: Any, variance: Any, offset: Any, scale: Any, variance_epsilon: float, name: str | None = None
) -> Tensor:
    """(x - mean) / sqrt(variance + epsilon) * scale + offset, with mean and variance given (e.g. from
    mt.nn.moments); offset and scale may be None. Written as x * inv + (offset - mean * inv), as TensorFlow,
    which also casts both terms to x's dtype (so Python-number statistics work with a float64 x)."""
    x = convert_to_tensor(x)
    inv = rsqrt(variance + variance_epsilon)
    if scale is not None:
        inv = inv * scale
    shift = offset - mean * inv if offset is not None else -mean * inv
    return x * cast(inv, x.dtype) + cast(shift, x.dtype)


def weighted_cross_entropy_with_logits(labels: Any, logits: Any, pos_weight: Any, name: str | None = None) -> Tensor:
    """sigmoid_cross_entropy_with_logits with the positive term weighted by pos_weight (above 1: fewer false
    negatives), as (1 - z) x + (1 + (q - 1) z) (log(1 + e^-|x|) + max(-x, 0)), which never overflows."""
    check_same_shape("weighted_cross_entropy_with_logits", labels, logits)
    log_weight = 1 + (pos_weight - 1) * labels
    return (1 - labels) * logits + log_weight * (log1p(exp(-abs(logits))) + relu(-logits))


def embedding_lookup(params: Any, ids: Any, max_norm: Any = None, name: str | None = None) -> Tensor:
    """The rows of `params` at `ids` (a gather on axis 0)."""
    if max_norm is not None:
        raise NotImplementedError("embedding_lookup with max_norm is not supported by minitape")
    return gather(params, ids)


def global_norm(t_list: Any, name: str | None = None) -> Tensor:
    """sqrt(sum of the squares of every entry of every tensor in t_list); None entries are skipped."""
    present = [t for t in t_list if t is not None]
    return sqrt(sum((reduce_sum(square(t)) for t in present[1:]), reduce_sum(square(present[0]))))


def clip_by_global_norm(t_list: Any, clip_norm: Any, use_norm: Any = None, name: str | None = None) -> tuple:
    """Scale every tensor by clip_norm / max(global_norm, clip_norm), so that their joint norm is at most
    clip_norm; returns (clipped list, the global norm before clipping). None entries stay None.
    An infinite or NaN global norm makes every entry NaN, as TensorFlow documents: nothing can be scaled to it."""
    norm = global_norm(t_list) if use_norm is None else use_norm
    scale = clip_norm / maximum(norm, clip_norm) + (norm - norm)  # norm - norm: 0, or NaN for inf and NaN
    return [None if t is None else t * cast(scale, t.dtype) for t in t_list], norm


def saturate_cast(value: Any, dtype: Any, name: str | None = None) -> Tensor:
    """Cast to `dtype`, first clamping to the values it can hold (300. -> 255 for uint8), as TensorFlow does;
    `mt.cast` would wrap around instead. The clamp happens in the input's dtype, at the bounds that dtype
    can hold (float32's largest value up to 2**31 - 1 is 2147483520, which TensorFlow gives too)."""
    x = convert_to_tensor(value)
    target = as_dtype(dtype)
    if x.dtype.is_bool or target.is_bool:
        raise TypeError(f"saturate_cast takes numbers, not {x.dtype.name} to {target.name}; use mt.cast for bool")
    kind = x.dtype.as_numpy_dtype
    lows, highs = ([np.asarray(getattr(d, end)).item() for d in (target, x.dtype)] for end in ("min", "max"))
    low, high = _bound(max(lows), kind, np.inf), _bound(min(highs), kind, -np.inf)  # Python numbers compare exactly
    return cast(clip_by_value(x, low, high), target)


def _bound(limit: Any, kind: type, inward: float) -> Any:
    """`limit` as a value of numpy type `kind`, moved toward `inward` if rounding took it past the limit."""
    value = np.array(limit, kind)
    past = value.item() > limit if inward < 0 else value.item() < limit  # Python compares int and float exactly
    return Tensor(np.nextafter(value, kind(inward)) if past else value)
