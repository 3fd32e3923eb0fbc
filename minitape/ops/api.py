"""The public ops with TensorFlow's names and signatures, gathered from the op tables."""

from __future__ import annotations

import sys

import numpy as np

from minitape.engine.backprop import add_n as _add_n
from minitape.engine.tape_api import note_numpy_conversion  # noqa: F401 - used by Tensor.__array__ and .numpy()
from minitape.engine.tensor import Tensor
from minitape.function.trace import runs_each_call
from minitape.namespaces import bitwise  # noqa: F401 - `x & y` on integer tensors (operators.py)
from minitape.ops import reduce_ops as _r
from minitape.ops.array_ops import (
    as_shape as _as_shape,
)
from minitape.ops.array_ops import (  # noqa: F401
    concat,
    expand_dims,
    gather,
    pad,
    reshape,
    squeeze,
    stack,
    stop_gradient,
    strided_slice,
    tile,
    transpose,
    unstack,
)
from minitape.ops.creation import eye, fill, linspace, ones, ones_like, range, zeros, zeros_like  # noqa: F401
from minitape.ops.einsum_ellipsis import einsum  # noqa: F401
from minitape.ops.einsum_ops import tensordot  # noqa: F401
from minitape.ops.math_ops import (  # noqa: F401
    abs,
    acos,
    acosh,
    add,
    asin,
    asinh,
    atan,
    atan2,
    atanh,
    cast,
    cos,
    cosh,
    divide,
    equal,
    exp,
    floor,
    floordiv,
    floormod,
    greater,
    greater_equal,
    identity,
    is_finite,
    is_nan,
    less,
    less_equal,
    log,
    log1p,
    logical_and,
    logical_not,
    logical_or,
    logical_xor,
    maximum,
    minimum,
    multiply,
    multiply_no_nan,
    negative,
    not_equal,
    pow,
    reciprocal,
    round,
    rsqrt,
    sigmoid,
    sign,
    sin,
    sinh,
    sqrt,
    square,
    subtract,
    tan,
    tanh,
    transpose_last,
)
from minitape.ops.math_ops import (
    broadcast_to as _broadcast_to,
)
from minitape.ops.math_ops import (
    matmul as _matmul,
)
from minitape.ops.math_ops import (
    where as _where,
)
from minitape.ops.options import only_default
from minitape.values import tensor_like
from minitape.values.convert import as_array as _as_array
from minitape.values.convert import convert_to_tensor
from minitape.values.dtypes import as_dtype, int32, int64
from minitape.values.errors import InvalidArgumentError
from minitape.values.shape import TensorShape
from minitape.values.tensor_like import TensorLike


def _axis_value(axis):
    """An axis argument as the ops take it: a tensor's value as numbers (the op checks them), else as given."""
    return axis._array().tolist() if isinstance(axis, TensorLike) else axis


def _reduction(op, doc):
    def reduce(input_tensor, axis=None, keepdims=False, name=None):
        if axis is None or type(axis) is int:  # the common forms: nothing to convert
            return op(input_tensor, axis=axis, keepdims=bool(keepdims))
        axis = _axis_value(axis)
        axis = tuple(axis) if isinstance(axis, (list, tuple)) else axis
        return op(input_tensor, axis=axis, keepdims=bool(keepdims))

    reduce.__doc__ = doc
    reduce.__name__ = op.name
    return reduce


reduce_sum = _reduction(_r.reduce_sum, "Sum over `axis` (all axes if None).")
reduce_mean = _reduction(_r.reduce_mean, "Mean over `axis` (all axes if None).")
reduce_max = _reduction(_r.reduce_max, "Maximum over `axis`; the gradient goes to the maximal elements.")
reduce_min = _reduction(_r.reduce_min, "Minimum over `axis`; the gradient goes to the minimal elements.")
reduce_prod = _reduction(_r.reduce_prod, "Product over `axis`.")
reduce_logsumexp = _reduction(_r.reduce_logsumexp, "log(sum(exp(x))) over `axis`, computed without overflow.")
reduce_all = _reduction(_r.reduce_all, "Logical and over `axis`.")
reduce_any = _reduction(_r.reduce_any, "Logical or over `axis`.")


def reduce_variance(input_tensor, axis=None, keepdims=False, name=None):
    """Mean squared distance from the mean over `axis`; floating-point input only, as in TensorFlow."""
    if not isinstance(input_tensor, TensorLike):
        input_tensor = convert_to_tensor(input_tensor)
    if not input_tensor.dtype.is_floating:  # an integer mean truncates: the variance would be wrong
        raise TypeError(
            f"reduce_variance / reduce_std: input must be floating-point, not {input_tensor.dtype.name}; "
            "cast it first, e.g. mt.cast(x, mt.float32)"
        )
    centred = input_tensor - reduce_mean(input_tensor, axis=axis, keepdims=True)
    return reduce_mean(square(centred), axis=axis, keepdims=keepdims)


def reduce_std(input_tensor, axis=None, keepdims=False, name=None):
    """Standard deviation over `axis`: the square root of `reduce_variance`."""
    return sqrt(reduce_variance(input_tensor, axis=axis, keepdims=keepdims))


def squared_difference(x, y, name=None):
    """(x - y)^2, elementwise with broadcasting."""
    return square(subtract(x, y))


def argmax(input, axis=None, output_type=None, name=None):
    """The index of the largest entry along `axis` (default 0), as int64 unless output_type says otherwise."""
    result = _r.argmax(input, axis=0 if axis is None else _axis_value(axis))
    return result if output_type is None else cast(result, output_type)


def argmin(input, axis=None, output_type=None, name=None):
    """The index of the smallest entry along `axis` (default 0), as int64 unless output_type says otherwise."""
    result = _r.argmin(input, axis=0 if axis is None else _axis_value(axis))
    return result if output_type is None else cast(result, output_type)


def clip_by_value(t, clip_value_min, clip_value_max, name=None):
    """Values below the minimum become the minimum, above the maximum the maximum.

    The maximum is applied first, as in TensorFlow: with min > max, every value becomes the minimum.
    """
    t = t if isinstance(t, TensorLike) else convert_to_tensor(t)  # first: Python bounds then take its dtype
    return maximum(minimum(t, clip_value_max), clip_value_min)


@runs_each_call  # where the condition holds depends on its values: found again at every call of a graph
def _true_indices(condition):
    """The indices where `condition` holds, one row each, as int64 (where with neither x nor y)."""
    mask = condition._array() if isinstance(condition, TensorLike) else np.asarray(condition)
    return Tensor(np.argwhere(mask).astype(np.int64))


def where(condition, x=None, y=None, name=None):
    """x where condition holds, else y (broadcasting); with neither, the indices where it holds, as TensorFlow."""
    if x is None and y is None:
        mask = condition._array() if isinstance(condition, TensorLike) else convert_to_tensor(condition)._value
        if mask.ndim == 0 or mask.dtype == np.float16:
            raise InvalidArgumentError(  # as TensorFlow's Where: no scalar, no float16 kernel
                f"where: the condition must have at least one axis and be bool or a number type other than "
                f"float16, not a {mask.dtype.name} tensor of shape {list(mask.shape)}"
            )
        return _true_indices(condition)
    if x is None or y is None:
        raise ValueError("where needs both x and y, or neither (to get the indices where condition holds)")
    if _as_array(condition).dtype != np.bool_:
        raise TypeError(  # numpy would take any number's truth value
            "where: condition must be a bool tensor, not "
            f"{np.asarray(condition._array() if isinstance(condition, TensorLike) else condition).dtype}; "
            "compare first, e.g. mt.where(x > 0, a, b)"
        )
    return _where(condition, x, y)


def clip_by_norm(t, clip_norm, axes=None, name=None):
    """`t` scaled down so that its Euclidean norm (over `axes`) is at most `clip_norm`.

    As in TensorFlow, the norm goes through two `where`s so that an all-zero `t` has a finite gradient (1 per
    entry): sqrt is only ever differentiated at a positive sum, never at 0, where its slope is infinite.
    """
    l2sum = reduce_sum(square(t), axis=axes, keepdims=True)
    positive = greater(l2sum, 0)
    length = _where(positive, sqrt(_where(positive, l2sum, ones_like(l2sum))), l2sum)
    return t * clip_norm / maximum(length, clip_norm)


def matmul(
    a,
    b,
    transpose_a=False,
    transpose_b=False,
    adjoint_a=False,
    adjoint_b=False,
    a_is_sparse=False,
    b_is_sparse=False,
    output_type=None,
    grad_a=False,
    grad_b=False,
    name=None,
):
    """Matrix product over the last two axes (the leading axes broadcast as batch axes).

    The sparsity and grad_ hints change nothing here (they choose TensorFlow's kernel); `output_type` is
    TensorFlow's for int8 inputs, which minitape does not compute, so only None is taken.
    """
    only_default("matmul", "output_type", output_type, (None,), "the product has the inputs' dtype")
    if transpose_a or adjoint_a:
        a = transpose_last(a)
    if transpose_b or adjoint_b:
        b = transpose_last(b)
    return _matmul(a, b)


def broadcast_to(input, shape, name=None):
    """Repeat `input` along new or size-1 axes to `shape`; the gradient sums the copies back."""
    return _broadcast_to(input, shape=_as_shape(shape, "broadcast_to"))


def _broadcast_dims(x, y, unknown_ok):
    """The broadcast of two shapes' sizes (None where unknown, if allowed), or None if they do not broadcast."""
    x, y = list(x), list(y)
    rank = max(len(x), len(y))
    x, y = [1] * (rank - len(x)) + x, [1] * (rank - len(y)) + y
    out = []
    for a, b in zip(x, y):
        if unknown_ok and (a is None or b is None):
            known = b if a is None else a
            out.append(None if known in (None, 1) else known)  # beside a 1 an unknown size stays unknown
        elif a != b and 1 not in (a, b):
            return None
        else:
            out.append(b if a == 1 else a)
    return out


def broadcast_static_shape(shape_x, shape_y) -> TensorShape:
    """The TensorShape two shapes broadcast to, as `x + y` would give it (sizes may be None: not known)."""
    shape_x, shape_y = TensorShape(shape_x), TensorShape(shape_y)
    if shape_x.rank is None or shape_y.rank is None:
        return TensorShape(None)
    dims = _broadcast_dims(shape_x, shape_y, unknown_ok=True)
    if dims is None:
        raise ValueError(
            "Incompatible shapes for broadcasting. Two shapes are compatible if for each dimension pair they are "
            f"either equal or one of them is 1. Received: {shape_x} and {shape_y}."
        )
    return TensorShape(dims)


def broadcast_dynamic_shape(shape_x, shape_y) -> Tensor:
    """The shape two shapes (1-D integer tensors or lists, as tf.shape gives them) broadcast to, as a tensor."""
    hint = next((s.dtype for s in (shape_x, shape_y) if isinstance(s, TensorLike)), int32)  # a list takes it
    x, y = convert_to_tensor(shape_x, dtype_hint=hint), convert_to_tensor(shape_y, dtype_hint=hint)
    if x.dtype != y.dtype or x.dtype not in (int32, int64) or x.ndim != 1 or y.ndim != 1:
        raise InvalidArgumentError(
            f"broadcast_dynamic_shape: the shapes must be 1-D tensors of one integer dtype (int32 or int64), got "
            f"{x.dtype.name}{list(x.shape)} and {y.dtype.name}{list(y.shape)}; pass mt.shape(a) and mt.shape(b)"
        )
    dims = _broadcast_dims(x.numpy().tolist(), y.numpy().tolist(), unknown_ok=False)
    if dims is None:
        raise InvalidArgumentError(f"Incompatible shapes: {x.numpy().tolist()} vs. {y.numpy().tolist()}")
    return Tensor(np.asarray(dims, x.dtype.as_numpy_dtype))


def shape(input, out_type=int32, name=None) -> Tensor:
    """The shape of `input` as a 1-D tensor of `out_type` (int32 or int64, as TensorFlow allows)."""
    dtype = as_dtype(out_type)
    if dtype not in (int32, int64):
        raise InvalidArgumentError(
            f"shape: out_type must be int32 or int64, not {dtype.name}; cast the result to get another dtype"
        )
    value = input._array() if isinstance(input, TensorLike) else convert_to_tensor(input)._value  # known sizes
    return Tensor(np.asarray(np.shape(value), dtype.as_numpy_dtype))


def size(input, out_type=int32, name=None) -> Tensor:
    """The number of entries of `input`, as a scalar of `out_type`."""
    count = np.size(input._array() if isinstance(input, TensorLike) else convert_to_tensor(input)._value)
    return Tensor(np.asarray(count, as_dtype(out_type).as_numpy_dtype))


def rank(input, name=None) -> Tensor:
    """The number of axes of `input`, as an int32 scalar (TensorFlow's rank has no out_type)."""
    return Tensor(
        np.asarray(
            np.ndim(input._array() if isinstance(input, TensorLike) else convert_to_tensor(input)._value), np.int32
        )
    )


def add_n(inputs, name=None):
    """The sum of tensors of one shape: TensorFlow's AddN does not broadcast ([3, 1] with [4] is refused)."""
    if not inputs:  # TensorFlow 2.21: ValueError "inputs must be a list of at least one Tensor..."
        raise ValueError("add_n: inputs must be a list of at least one tensor, all of one shape and dtype")
    shapes = [tuple(convert_to_tensor(t).shape) for t in inputs]
    if len(set(shapes)) > 1:
        raise InvalidArgumentError(f"add_n: inputs must all have one shape, got {shapes}; use mt.broadcast_to first")
    return _add_n(*inputs)  # the engine's own AddN, with which the backward pass sums gradients


def norm(tensor, ord="euclidean", axis=None, keepdims=None, name=None):
    """Vector and matrix norms as `tf.norm`; see `mt.linalg.norm`."""
    from minitape.namespaces.linalg import norm as linalg_norm  # linalg is built on this module, so it loads after

    return linalg_norm(tensor, ord=ord, axis=axis, keepdims=keepdims)


tensor_like.use_ops(sys.modules[__name__])  # `x * y` on tensors calls this module's multiply, and so on
