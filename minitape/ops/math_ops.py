"""Elementwise math. Each row: name, numpy forward, gradient rule `(op, dy) -> dx`, and what it keeps.

In the rules, x and y are the inputs, z the output, dy the gradient arriving at z.
Broadcasting: a binary op's gradient is summed back to each input's shape (`unbroadcast`).
"""

from __future__ import annotations

import numpy as np

from minitape.errors import InvalidArgumentError
from minitape.registry import defop
from minitape.tensor import Tensor


def x(op):  # the first input
    return op.inputs[0]


def z(op):  # the output
    return op.outputs[0]


# ---- shape plumbing for broadcasting -------------------------------------------------------------
def _sum_to(a, shape):
    lead = a.ndim - len(shape)
    axes = tuple(range(lead)) + tuple(i + lead for i, n in enumerate(shape) if n == 1 and a.shape[i + lead] != 1)
    # np.add.reduce is what np.sum calls, without np.sum's Python wrapper (a third of the time on small arrays)
    return np.add.reduce(a, axis=axes, keepdims=True).reshape(shape) if axes else a.reshape(shape)


def _broadcast_to(a, shape):
    shape = tuple(shape)
    if a.ndim <= len(shape):  # filling a new array broadcasts as np.broadcast_to does, at an eighth of the cost
        try:
            out = np.empty(shape, a.dtype)
            out[...] = a
            return out
        except ValueError:
            pass  # shapes that do not broadcast: np.broadcast_to below says so in its own words
    return np.broadcast_to(a, shape).copy()


# sum_to_shape undoes broadcast_to, and the other way round
sum_to_shape = defop("SumToShape", _sum_to, lambda op, dy: broadcast_to(dy, shape=op.input_shapes[0]), keep="nothing")
broadcast_to = defop(
    "BroadcastTo", _broadcast_to, lambda op, dy: sum_to_shape(dy, shape=op.input_shapes[0]), keep="nothing"
)
broadcast_to.__doc__ = "Repeat x along new or size-1 axes to `shape`; the gradient sums them back."


def unbroadcast(grad, shape):
    """Sum `grad` over the axes that broadcasting added, so it matches an input of `shape`."""
    return grad if grad._array().shape == tuple(shape) else sum_to_shape(grad, shape=tuple(shape))


def _binary_rule(dx_fn, dy_fn):
    """A binary rule from two local rules, each reduced to its input's shape; skips inputs no source needs."""

    def rule(op, g):
        sx, sy = op.input_shapes
        return (
            unbroadcast(dx_fn(op, g), sx) if op.needs[0] else None,
            unbroadcast(dy_fn(op, g), sy) if op.needs[1] else None,
        )

    return rule


def _a(op):
    return op.inputs[0]


def _b(op):
    return op.inputs[1]


BIN = dict(same_dtype=(0, 1))


_NO_BROADCAST = (
    "shapes {} and {} do not broadcast: aligned from the right, each pair of dimensions must be equal or one of "
    "them 1; reshape, slice or mt.expand_dims one operand to fit"
)


def _broadcasting(np_fn):
    """`np_fn(a, b)`, with an error that says how broadcasting works when the shapes do not fit."""

    def forward(a, b):
        try:
            return np_fn(a, b)
        except ValueError:
            raise ValueError(_NO_BROADCAST.format(list(a.shape), list(b.shape))) from None

    forward.__name__, forward.__doc__ = np_fn.__name__, np_fn.__doc__
    return forward


def _arithmetic(np_fn):
    """`_broadcasting(np_fn)` that also refuses bool tensors (numpy would compute a logical or/and; TensorFlow
    has no bool kernel for arithmetic). One function, not two wrappers: this runs for every `x * y`."""

    def forward(a, b):
        if a.dtype.kind == "b" or b.dtype.kind == "b":
            raise TypeError(
                f"{np_fn.__name__} is not defined for bool tensors (TensorFlow has no bool kernel for it); "
                "use mt.logical_or / mt.logical_and, or mt.cast(x, mt.int32) first to count"
            )
        try:
            return np_fn(a, b)
        except ValueError:
            raise ValueError(_NO_BROADCAST.format(list(a.shape), list(b.shape))) from None

    forward.__name__, forward.__doc__ = np_fn.__name__, np_fn.__doc__
    return forward


def _power(a, b):
    """a ** b; an integer raised to a negative integer power is refused, as in TensorFlow."""
    if a.dtype.kind in "iu" and b.dtype.kind in "iu" and np.any(b < 0):
        raise TypeError(
            f"integers to negative integer powers are not allowed (exponent {int(np.min(b))}); "
            "use a float base, e.g. mt.constant(2.0) ** -1 or mt.cast(x, mt.float32) ** -1"
        )
    return _checked_power(a, b)


_checked_power = _arithmetic(np.power)


def _integer_division(np_fn, what):
    """Floor division or modulo; an integer division by zero raises, as in TensorFlow (numpy gives 0)."""

    divide = _broadcasting(np_fn)

    def forward(a, b):
        if a.dtype.kind == "b" or b.dtype.kind == "b":
            raise TypeError(f"{what} is not defined for bool tensors; cast them first, e.g. mt.cast(x, mt.int32)")
        if b.dtype.kind in "iu" and not np.all(b):
            raise InvalidArgumentError(
                f"integer division by zero in {what}: the divisor holds a 0; "
                "guard it first, e.g. mt.where(d == 0, 1, d), or divide floats (x / d gives inf)"
            )
        return divide(a, b)

    forward.__name__ = what
    return forward


def _floating(np_fn):
    """`np_fn(a)`, refusing integer and bool input (numpy would compute in float, then the int result truncates)."""

    def forward(a):  # one argument, no *args: this wraps the hottest ops
        if a.dtype.kind == "f":
            return np_fn(a)
        raise TypeError(_NOT_FLOATING.format(a.dtype.name))

    forward.__name__, forward.__doc__ = getattr(np_fn, "__name__", "forward"), np_fn.__doc__
    return forward


def _numeric(np_fn):
    """`np_fn(a)` refusing bool tensors: numpy would give a bool (abs(True) is True), TensorFlow has no kernel."""

    def forward(a):
        if a.dtype.kind == "b":
            raise TypeError(f"{np_fn.__name__} is not defined for bool tensors; cast first, e.g. mt.cast(x, mt.int32)")
        return np_fn(a)

    forward.__name__, forward.__doc__ = np_fn.__name__, np_fn.__doc__
    return forward


_NOT_FLOATING = "needs a floating-point tensor, not {}: convert it first, e.g. mt.cast(x, mt.float32)"


_floor_divide = _integer_division(np.floor_divide, "floordiv")
_floor_mod = _integer_division(np.mod, "floormod")


def _sigmoid(a):
    """1/(1+e^-x) without overflow, and accurate far into the negative tail (where it is e^x/(1+e^x))."""
    e = np.exp(-np.abs(a))
    return np.where(a >= 0, 1 / (1 + e), e / (1 + e))


# fmt: off
# ---- binary --------------------------------------------------------------------------------------
add      = defop("AddV2",   _arithmetic(np.add),      _binary_rule(lambda op, g: g,       lambda op, g: g),        keep="nothing", **BIN)  # d(a+b) = da + db
subtract = defop("Sub",     _arithmetic(np.subtract), _binary_rule(lambda op, g: g,       lambda op, g: -g),       keep="nothing", **BIN)  # d(a-b) = da - db
multiply = defop("Mul",     _arithmetic(np.multiply), _binary_rule(lambda op, g: g * _b(op), lambda op, g: g * _a(op)), keep="inputs", **BIN)  # d(ab) = b da + a db
real_div = defop("RealDiv", _arithmetic(np.divide),   _binary_rule(lambda op, g: g / _b(op), lambda op, g: -g * _a(op) / square(_b(op))), keep="inputs", **BIN)  # d(a/b) = da/b - a db/b^2
maximum  = defop("Maximum", _arithmetic(np.maximum),  _binary_rule(lambda op, g: g * cast(_a(op) >= _b(op), g.dtype), lambda op, g: g * cast(_a(op) < _b(op), g.dtype)), keep="inputs", **BIN)
minimum  = defop("Minimum", _arithmetic(np.minimum),  _binary_rule(lambda op, g: g * cast(_a(op) <= _b(op), g.dtype), lambda op, g: g * cast(_a(op) > _b(op), g.dtype)), keep="inputs", **BIN)
# d(a^b) = b a^(b-1) da + a^b log(a) db; log(a) taken as 0 where a <= 0, as TensorFlow does
pow      = defop("Pow",     _power,    _binary_rule(lambda op, g: g * _b(op) * _a(op) ** (_b(op) - 1), lambda op, g: g * z(op) * where(_a(op) > 0, log(where(_a(op) > 0, _a(op), 1)), 0)), keep="both", **BIN)

# ---- unary: z = f(x), dx = dy * f'(x) ------------------------------------------------------------
negative   = defop("Neg",        _numeric(np.negative), lambda op, g: -g,                        keep="nothing")  # (-x)' = -1
exp        = defop("Exp",        _floating(np.exp),        lambda op, g: g * z(op),                 keep="outputs")  # (e^x)' = e^x
log        = defop("Log",        _floating(np.log),        lambda op, g: g / x(op),                 keep="inputs")   # (log x)' = 1/x
log1p      = defop("Log1p",      _floating(np.log1p),      lambda op, g: g / (1 + x(op)),           keep="inputs")   # (log(1+x))' = 1/(1+x)
sin        = defop("Sin",        _floating(np.sin),        lambda op, g: g * cos(x(op)),            keep="inputs")   # sin' = cos
cos        = defop("Cos",        _floating(np.cos),        lambda op, g: -g * sin(x(op)),           keep="inputs")   # cos' = -sin
tan        = defop("Tan",        _floating(np.tan),        lambda op, g: g * (1 + square(z(op))),   keep="outputs")  # tan' = 1 + tan^2
tanh       = defop("Tanh",       _floating(np.tanh),       lambda op, g: g * (1 - square(z(op))),   keep="outputs")  # tanh' = 1 - tanh^2
sigmoid    = defop("Sigmoid",    _floating(_sigmoid),
                                                lambda op, g: g * z(op) * (1 - z(op)),   keep="outputs")  # s' = s(1-s)
square     = defop("Square",     _numeric(np.square), lambda op, g: g * 2 * x(op),             keep="inputs")   # (x^2)' = 2x
sqrt       = defop("Sqrt",       _floating(np.sqrt),       lambda op, g: g * 0.5 / z(op),           keep="outputs")  # (sqrt x)' = 1/(2 sqrt x)
rsqrt      = defop("Rsqrt",      _floating(lambda a: 1 / np.sqrt(a)), lambda op, g: g * -0.5 * z(op) ** 3, keep="outputs")  # (x^-1/2)' = -x^-3/2 / 2
abs        = defop("Abs",        _numeric(np.abs), lambda op, g: g * sign(x(op)),           keep="inputs")   # |x|' = sign x
reciprocal = defop("Reciprocal", _numeric(np.reciprocal), lambda op, g: -g * square(z(op)),        keep="outputs")  # (1/x)' = -1/x^2
identity   = defop("Identity",   np.copy,       lambda op, g: g,                         keep="nothing")  # x' = 1

# ---- no gradient: piecewise constant, or not a number --------------------------------------------
sign          = defop("Sign",          _numeric(np.sign), None)
floor         = defop("Floor",         np.floor,         None)
round         = defop("Round",         np.round,         None)
floordiv      = defop("FloorDiv",      _floor_divide,  None, **BIN)
floormod      = defop("FloorMod",      _floor_mod,       None, **BIN)
less          = defop("Less",          np.less,          None, dtype_from=None, **BIN)
less_equal    = defop("LessEqual",     np.less_equal,    None, dtype_from=None, **BIN)
greater       = defop("Greater",       np.greater,       None, dtype_from=None, **BIN)
greater_equal = defop("GreaterEqual",  np.greater_equal, None, dtype_from=None, **BIN)
equal         = defop("Equal",         np.equal,         None, dtype_from=None, **BIN)
not_equal     = defop("NotEqual",      np.not_equal,     None, dtype_from=None, **BIN)
logical_and   = defop("LogicalAnd",    np.logical_and,   None, **BIN)
logical_or    = defop("LogicalOr",     np.logical_or,    None, **BIN)
logical_not   = defop("LogicalNot",    np.logical_not,   None)
is_nan        = defop("IsNan",         np.isnan,         None, dtype_from=None)
is_finite     = defop("IsFinite",      np.isfinite,      None, dtype_from=None)
# fmt: on


# TensorFlow's truediv table: small integers divide in float32, 32- and 64-bit ones in float64
_TRUEDIV_DTYPE = {"int8": "float32", "uint8": "float32", "int16": "float32", "uint16": "float32"}


def divide(x, y, name=None):
    """x / y. Integer tensors divide as floats, as in TensorFlow: uint8 / uint8 gives float32, int32 float64."""
    kind_x, kind_y = _integer_dtype(x), _integer_dtype(y)
    if kind_x and kind_y:
        if kind_x != kind_y and hasattr(x, "_array") and hasattr(y, "_array"):
            raise TypeError(
                f"divide: x and y must have the same dtype, got {kind_x} and {kind_y}; cast one, e.g. mt.cast(y, x.dtype)"
            )
        named = kind_x if hasattr(x, "_array") or not hasattr(y, "_array") else kind_y  # a tensor's dtype wins
        target = _TRUEDIV_DTYPE.get(named, "float64")
        x, y = cast(x, target), cast(y, target)
    return real_div(x, y)


def _integer_dtype(v):
    """The numpy dtype name of `v` if it holds integers, else None."""
    dtype = (v._array() if hasattr(v, "_array") else np.asarray(v)).dtype
    return dtype.name if dtype.kind in "iu" else None


# ---- dtype conversion ----------------------------------------------------------------------------
def _cast_rule(op, g):
    """The gradient goes back in the input's dtype; an integer input or output has none."""
    source = op.input_dtypes[0]
    return cast(g, source) if source.is_floating and op.output_dtypes[0].is_floating else None


_cast = defop("Cast", lambda a, dtype: a.astype(dtype.as_numpy_dtype), _cast_rule, keep="nothing", dtype_from=None)


def cast(x, dtype, name=None):
    """`x` converted to `dtype`; casting to an integer type cuts the gradient path."""
    from minitape.dtypes import as_dtype

    dtype = as_dtype(dtype)
    if getattr(x, "dtype", None) is dtype:
        return x if not hasattr(x, "_read") else x._read()
    return _cast(x, dtype=dtype)


# ---- where and matmul ----------------------------------------------------------------------------
def _where_rule(op, g):
    cond = op.inputs[0]
    zero = zeros_like(g)
    return (
        None,
        unbroadcast(where(cond, g, zero), op.input_shapes[1]) if op.needs[1] else None,
        unbroadcast(where(cond, zero, g), op.input_shapes[2]) if op.needs[2] else None,
    )


where = defop("SelectV2", np.where, _where_rule, keep="inputs", same_dtype=(1, 2), dtype_from=1)


def zeros_like(t):
    """A constant of zeros shaped like `t` (not recorded: it depends on nothing)."""
    return Tensor(np.zeros(t.shape, t.dtype.as_numpy_dtype))


def _matmul_forward(a, b, transpose_a=False, transpose_b=False):
    if a.ndim < 2 or b.ndim < 2:
        raise ValueError("matmul needs tensors of rank 2 or more; reshape a vector to (1, n) or (n, 1)")
    # the transposes are views: numpy hands the strides to BLAS, so they copy nothing
    a = np.swapaxes(a, -1, -2) if transpose_a else a
    b = np.swapaxes(b, -1, -2) if transpose_b else b
    if a.shape[-1] != b.shape[-2]:
        raise ValueError(
            f"inner dimensions differ: {a.shape[-1]} (last of a) != {b.shape[-2]} (second-last of b); "
            "a @ b needs a.shape[-1] == b.shape[-2]: transpose one of them (transpose_a=True or transpose_b=True)"
        )
    return np.matmul(a, b)


def _matmul_rule(op, g):
    """dA = dZ B^T, dB = A^T dZ, each one MatMul whose transpose flags say which operand to swap (as TensorFlow).

    With A^T or B^T in the forward product, the same identities give the four cases below.
    """
    a, b = op.inputs
    ta, tb = op.attrs.get("transpose_a", False), op.attrs.get("transpose_b", False)
    da = db = None
    if op.needs[0]:
        if ta:
            da = matmul(b, g, transpose_a=True, transpose_b=True) if tb else matmul(b, g, transpose_b=True)
        else:
            da = matmul(g, b) if tb else matmul(g, b, transpose_b=True)
    if op.needs[1]:
        if tb:
            db = matmul(g, a, transpose_a=True, transpose_b=True) if ta else matmul(g, a, transpose_a=True)
        else:
            db = matmul(a, g) if ta else matmul(a, g, transpose_a=True)
    return (
        unbroadcast(da, op.input_shapes[0]) if da is not None else None,
        unbroadcast(db, op.input_shapes[1]) if db is not None else None,
    )


matmul = defop("MatMul", _matmul_forward, _matmul_rule, keep="inputs", **BIN)

transpose_last = defop(
    "MatrixTranspose", lambda a: np.swapaxes(a, -1, -2), lambda op, g: transpose_last(g), keep="nothing"
)
