"""The primitive ops as the public namespaces show them: with TensorFlow's parameter names and positions.

An op (`OpDef`) takes any number of tensors, so `mt.sqrt(x, mt.float32)` would read the dtype as a second
input. TensorFlow's second parameter is `name`: these functions take exactly TensorFlow's parameters
(`sqrt(x, name=None)`, `equal(x, y, name=None)`, `relu(features, name=None)`), keywords included, and
call the op. minitape's own code calls the ops directly.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from minitape.engine.opdef import OpDef
from minitape.engine.tensor import Tensor
from minitape.ops import math_ops, nn_ops


def _named(run: Callable, op: OpDef, public_name: str) -> Callable:
    run.__name__ = run.__qualname__ = public_name
    run.__doc__ = op.__doc__
    return run


def unary(op: OpDef, public_name: str) -> Callable[..., Tensor]:
    """`public_name(x, name=None)`: the op on one tensor."""

    def run(x: Any, name: str | None = None) -> Tensor:
        return op(x)

    return _named(run, op, public_name)


def binary(op: OpDef, public_name: str) -> Callable[..., Tensor]:
    """`public_name(x, y, name=None)`: the op on two tensors."""

    def run(x: Any, y: Any, name: str | None = None) -> Tensor:
        return op(x, y)

    return _named(run, op, public_name)


def activation(op: OpDef, public_name: str) -> Callable[..., Tensor]:
    """`public_name(features, name=None)`: TensorFlow calls an activation's input `features`."""

    def run(features: Any, name: str | None = None) -> Tensor:
        return op(features)

    return _named(run, op, public_name)


def atan2(y: Any, x: Any, name: str | None = None) -> Tensor:
    """The angle of the point (x, y), elementwise: y comes first, as in TensorFlow (and C)."""
    return math_ops.atan2(y, x)


def identity(input: Any, name: str | None = None) -> Tensor:
    """A tensor with the value of `input`; the gradient passes through unchanged."""
    return math_ops.identity(input)


def matrix_transpose(a: Any, name: str = "matrix_transpose", conjugate: bool = False) -> Tensor:
    """The transpose of the last two axes (real tensors only, so `conjugate` changes nothing)."""
    return math_ops.transpose_last(a)


# fmt: off
__all__ = [  # what `from minitape.ops.public import *` gives the namespaces
    "abs",
    "acos",
    "acosh",
    "asin",
    "asinh",
    "atan",
    "atan2",
    "atanh",
    "bitwise_and",
    "bitwise_or",
    "bitwise_xor",
    "cos",
    "cosh",
    "elu",
    "equal",
    "exp",
    "floor",
    "greater",
    "greater_equal",
    "identity",
    "invert",
    "is_finite",
    "is_nan",
    "left_shift",
    "less",
    "less_equal",
    "log",
    "log1p",
    "logical_and",
    "logical_not",
    "logical_or",
    "logical_xor",
    "matrix_transpose",
    "negative",
    "not_equal",
    "reciprocal",
    "relu",
    "right_shift",
    "round",
    "rsqrt",
    "sigmoid",
    "sign",
    "sin",
    "sinh",
    "softplus",
    "sqrt",
    "square",
    "tan",
    "tanh",
]

abs           = unary(math_ops.abs, "abs")
acos          = unary(math_ops.acos, "acos")
acosh         = unary(math_ops.acosh, "acosh")
asin          = unary(math_ops.asin, "asin")
asinh         = unary(math_ops.asinh, "asinh")
atan          = unary(math_ops.atan, "atan")
atanh         = unary(math_ops.atanh, "atanh")
cos           = unary(math_ops.cos, "cos")
cosh          = unary(math_ops.cosh, "cosh")
exp           = unary(math_ops.exp, "exp")
floor         = unary(math_ops.floor, "floor")
is_finite     = unary(math_ops.is_finite, "is_finite")
is_nan        = unary(math_ops.is_nan, "is_nan")
log           = unary(math_ops.log, "log")
log1p         = unary(math_ops.log1p, "log1p")
logical_not   = unary(math_ops.logical_not, "logical_not")
negative      = unary(math_ops.negative, "negative")
reciprocal    = unary(math_ops.reciprocal, "reciprocal")
round         = unary(math_ops.round, "round")
rsqrt         = unary(math_ops.rsqrt, "rsqrt")
sigmoid       = unary(math_ops.sigmoid, "sigmoid")
sign          = unary(math_ops.sign, "sign")
sin           = unary(math_ops.sin, "sin")
sinh          = unary(math_ops.sinh, "sinh")
sqrt          = unary(math_ops.sqrt, "sqrt")
square        = unary(math_ops.square, "square")
tan           = unary(math_ops.tan, "tan")
tanh          = unary(math_ops.tanh, "tanh")
invert        = unary(math_ops.invert, "invert")
equal         = binary(math_ops.equal, "equal")
greater       = binary(math_ops.greater, "greater")
greater_equal = binary(math_ops.greater_equal, "greater_equal")
less          = binary(math_ops.less, "less")
less_equal    = binary(math_ops.less_equal, "less_equal")
logical_and   = binary(math_ops.logical_and, "logical_and")
logical_or    = binary(math_ops.logical_or, "logical_or")
logical_xor   = binary(math_ops.logical_xor, "logical_xor")
not_equal     = binary(math_ops.not_equal, "not_equal")
bitwise_and   = binary(math_ops.bitwise_and, "bitwise_and")
bitwise_or    = binary(math_ops.bitwise_or, "bitwise_or")
bitwise_xor   = binary(math_ops.bitwise_xor, "bitwise_xor")
left_shift    = binary(math_ops.left_shift, "left_shift")
right_shift   = binary(math_ops.right_shift, "right_shift")
relu          = activation(nn_ops.relu, "relu")
elu           = activation(nn_ops.elu, "elu")
softplus      = activation(nn_ops.softplus, "softplus")
# fmt: on
