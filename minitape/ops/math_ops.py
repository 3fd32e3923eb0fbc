"""Elementwise math: one row per op, its numpy forward beside its gradient rule `(op, g) -> dx`.

In a rule, `g` is the gradient arriving at the output, `op.x` and `op.y` are the inputs and
`op.z` the output (the tensors the op keeps: `keep`). Rules are written in minitape ops, so
the backward pass is itself differentiable. A binary op's gradient is summed back to each
input's shape, undoing broadcasting (`unbroadcast`).
"""

from __future__ import annotations

import math

import numpy as np

from minitape.engine.opdef import defop
from minitape.engine.tensor import Tensor
from minitape.values.convert import as_array
from minitape.values.errors import InvalidArgumentError

# ---- shape plumbing for broadcasting -------------------------------------------------------------
_BLAS_SUM_ROWS = 128  # from this many rows, a product with ones sums faster than np.add.reduce (5-10x at 2,000)


def _sum_to(a, shape):
    lead = a.ndim - len(shape)
    if lead and a.shape[lead:] == shape:  # a bias's gradient: only leading axes to sum, nothing to reshape
        rows = math.prod(a.shape[:lead])
        if shape and rows >= _BLAS_SUM_ROWS and a.dtype.char in "fd":
            # a convolution's bias: thousands of pixel rows, which np.add.reduce adds one row at a time; BLAS's
            # matrix-vector product sums them in blocks (as accurately: within float rounding of the exact sum)
            return (np.ones(rows, a.dtype) @ a.reshape(rows, -1)).reshape(shape)
        return np.add.reduce(a, axis=tuple(range(lead)))
    axes = tuple(range(lead)) + tuple(i + lead for i, n in enumerate(shape) if n == 1 and a.shape[i + lead] != 1)
    # np.add.reduce is what np.sum calls, without np.sum's Python wrapper (a third of the time on small arrays)
    return np.add.reduce(a, axis=axes, keepdims=True).reshape(shape) if axes else a.reshape(shape)


def _broadcast_to(a, shape):
    out = np.empty(tuple(shape), a.dtype)  # np.copyto broadcasts as np.broadcast_to does, at a third of its cost
    try:
        np.copyto(out, a)
    except ValueError:  # numpy's words name its arrays; TensorFlow's name the shapes, then say what fits
        raise ValueError(
            f"Incompatible shapes: {list(a.shape)} vs. {list(shape)}: aligned from the right, each size of the "
            "input must equal the target's or be 1 (new axes go in front); reshape the input to fit"
        ) from None
    return out


# sum_to_shape undoes broadcast_to, and the other way round
# fmt: off
sum_to_shape = defop("SumToShape",  _sum_to,       lambda op, g: broadcast_to(g, shape=op.input_shapes[0]),
                     keep="nothing")
broadcast_to = defop("BroadcastTo", _broadcast_to, lambda op, g: sum_to_shape(g, shape=op.input_shapes[0]),
                     keep="nothing")
# fmt: on
broadcast_to.__doc__ = "Repeat x along new or size-1 axes to `shape`; the gradient sums them back."


def unbroadcast(grad, shape):
    """Sum `grad` over the axes that broadcasting added, so it matches an input of `shape`."""
    current = grad._value.shape if type(grad) is Tensor else np.shape(grad)  # a tensor, or a number
    return grad if current == shape else sum_to_shape(grad, shape=tuple(shape))


def binary(dx, dy):
    """A binary op's rule from its two local rules, each summed back to its input's shape.

    An input no source depends on (`op.needs`) gets no gradient computed at all.
    """

    def rule(op, g):
        sx, sy = op.input_shapes
        dx_ = unbroadcast(dx(op, g), sx) if op.needs[0] else None
        return dx_, unbroadcast(dy(op, g), sy) if op.needs[1] else None

    return rule


def _sigmoid(a):
    """1/(1+e^-x) without overflow, and accurate far into the negative tail (where it is e^x/(1+e^x))."""
    e = np.exp(-np.abs(a))
    return np.where(a >= 0, 1 / (1 + e), e / (1 + e))


def _rsqrt(a):
    return 1 / np.sqrt(a)


def multiply_no_nan(x, y, name=None):
    """x * y, but 0 where y is 0 even if x is inf or NaN.

    TensorFlow's Sqrt, Rsqrt and Reciprocal gradients are this, with y the upstream gradient: so
    `mt.where(x > 0, mt.sqrt(x), 0.0)` has the gradient 0 where x <= 0, not NaN (0 * inf).
    """
    return where(equal(y, 0), zeros_like(x), x) * y  # x is replaced before multiplying: inf * 0 would be NaN


def _log_or_zero(x):  # log(x) where x > 0, else 0: the Pow rule's d/dy, as TensorFlow takes it
    return where(x > 0, log(where(x > 0, x, 1)), 0)


# ---- forward functions that refuse what numpy would compute without a word, but wrongly ----------
# Each is one plain function around the numpy call (no wrapper of a wrapper): `x * y` runs one of them.
_BOOL = np.dtype(bool)


def _arithmetic(np_fn):
    """`np_fn(a, b)` refusing bool tensors: numpy would compute a logical or/and, TensorFlow has no bool kernel."""

    def forward(a, b):
        if a.dtype is _BOOL or b.dtype is _BOOL:  # numpy's bool dtype is one object: `is` is the cheapest test
            raise TypeError(
                f"{np_fn.__name__} is not defined for bool tensors (TensorFlow has no bool kernel for it); "
                "use mt.logical_or / mt.logical_and, or mt.cast(x, mt.int32) first to count"
            )
        return np_fn(a, b)

    forward.__name__, forward.__doc__ = np_fn.__name__, np_fn.__doc__
    forward.replay = np_fn  # a traced graph's dtypes were checked at tracing: its replays call numpy alone
    return forward


def _integer_division(np_fn, what):
    """Floor division or modulo; an integer division by zero raises, as in TensorFlow (numpy gives 0)."""

    def forward(a, b):
        if a.dtype.kind == "b" or b.dtype.kind == "b":
            raise TypeError(f"{what} is not defined for bool tensors; cast them first, e.g. mt.cast(x, mt.int32)")
        if b.dtype.kind in "iu" and not np.all(b):
            raise InvalidArgumentError(
                f"integer division by zero in {what}: the divisor holds a 0; "
                "guard it first, e.g. mt.where(d == 0, 1, d), or divide floats (x / d gives inf)"
            )
        if a.dtype.kind == "f" and np_fn is np.floor_divide:  # TensorFlow's floor(x / y): inf // 2 is inf, not NaN
            return np.floor(np.divide(a, b))
        return np_fn(a, b)

    forward.__name__ = what
    return forward


def _only(np_fn, kinds, what, hint):
    """`np_fn` on tensors of the dtype kinds `kinds` only, which numpy would take others for without a word."""

    def forward(*arrays):
        for a in arrays:
            if a.dtype.kind not in kinds:
                raise TypeError(f"{np_fn.__name__} needs {what} tensors, not {a.dtype.name}: {hint}")
        return np_fn(*arrays)

    forward.__name__, forward.__doc__ = np_fn.__name__, np_fn.__doc__
    forward.replay = np_fn  # a traced graph's dtypes were checked at tracing: its replays call numpy alone
    return forward


def _logical(np_fn):  # numpy takes any number as true; TensorFlow has only a bool kernel
    return _only(np_fn, "b", "bool", "compare first (x > 0), or use mt.bitwise for the bits of integers")


def _bitwise(np_fn):  # the bits of a float or a bool are not what anyone means
    return _only(np_fn, "iu", "integer", "for bool tensors use mt.logical_and, _or, _xor or _not")


def _numeric(np_fn):  # numpy would give a bool (abs(True) is True); TensorFlow has no bool kernel
    return _only(np_fn, "iuf", "numeric (not bool)", "cast first, e.g. mt.cast(x, mt.int32)")


def _signed(np_fn):  # numpy would wrap -1 round to 255; TensorFlow has no unsigned kernel
    return _only(np_fn, "if", "signed", "cast first, e.g. mt.cast(x, mt.int32) (numpy would wrap negatives round)")


_add, _subtract, _multiply = _arithmetic(np.add), _arithmetic(np.subtract), _arithmetic(np.multiply)
_divide, _maximum, _minimum = _arithmetic(np.divide), _arithmetic(np.maximum), _arithmetic(np.minimum)
_checked_power = _arithmetic(np.power)
_floor_divide, _floor_mod = _integer_division(np.floor_divide, "floordiv"), _integer_division(np.mod, "floormod")
_negative, _abs, _sign = _signed(np.negative), _signed(np.abs), _signed(np.sign)
_square, _reciprocal = _numeric(np.square), np.reciprocal  # Reciprocal is floating-only (F): 1/0 is no int


def _power(a, b):
    """a ** b; an integer raised to a negative integer power is refused, as in TensorFlow, and so are unsigned ones."""
    if a.dtype.kind == "u":
        raise TypeError(
            f"pow is not defined for {a.dtype.name} tensors (TensorFlow has no kernel; numpy would wrap round); "
            "cast first, e.g. mt.cast(x, mt.int32) ** 2"
        )
    if a.dtype.kind in "iu" and b.dtype.kind in "iu" and np.any(b < 0):
        raise TypeError(
            f"integers to negative integer powers are not allowed (exponent {int(np.min(b))}); "
            "use a float base, e.g. mt.constant(2.0) ** -1 or mt.cast(x, mt.float32) ** -1"
        )
    out = _checked_power(a, b)
    if b.size == 1 and a.dtype.kind == "f" and b == 0.5:  # numpy takes sqrt: NaN at -inf, -0 at -0; C's pow, +inf, +0
        out = np.where(np.isneginf(a), np.inf, out).astype(out.dtype) + out.dtype.type(0)
    return out


BIN = dict(same_dtype=(0, 1))  # both inputs share one dtype; a Python number takes the other's
F = dict(floating=True)  # an integer input would be computed in float, then truncated: refused

# fmt: off
# ---- binary: z = f(x, y) -------------------------------------------------------------------------
add      = defop("AddV2",   _add,       binary(lambda op, g: g, lambda op, g: g), keep="nothing", **BIN)
subtract = defop("Sub",     _subtract,  binary(lambda op, g: g, lambda op, g: -g), keep="nothing", **BIN)
multiply = defop("Mul",     _multiply,  binary(lambda op, g: g * op.y,              # d(xy) = y dx + x dy
                                                lambda op, g: g * op.x), keep="inputs", **BIN)
real_div = defop("RealDiv", _divide,    binary(lambda op, g: g / op.y,              # d(x/y) = dx/y - x dy/y^2
                                                lambda op, g: -g * op.x / square(op.y)), keep="inputs", **BIN)
# TensorFlow's rule: dy is where x >= y fails, so a NaN on one side sends the gradient to the other input
maximum  = defop("Maximum", _maximum,   binary(lambda op, g: where(op.x >= op.y, g, zeros_like(g)),
                                                lambda op, g: where(op.x >= op.y, zeros_like(g), g)),
                   keep="inputs", **BIN)
minimum  = defop("Minimum", _minimum,   binary(lambda op, g: where(op.x <= op.y, g, zeros_like(g)),
                                                lambda op, g: where(op.x <= op.y, zeros_like(g), g)),
                   keep="inputs", **BIN)
pow      = defop("Pow",     _power,     binary(lambda op, g: g * op.y * op.x ** (op.y - 1),  # y x^(y-1) dx
                                                lambda op, g: g * op.z * _log_or_zero(op.x)), keep="both", **BIN)

# ---- unary: z = f(x), dx = g * f'(x) -------------------------------------------------------------
negative   = defop("Neg",        _negative,     lambda op, g: -g,                     keep="nothing")      # (-x)' = -1
exp        = defop("Exp",        np.exp,        lambda op, g: g * op.z,               keep="outputs", **F) # e^x
log        = defop("Log",        np.log,        lambda op, g: g / op.x,               keep="inputs", **F)  # 1/x
log1p      = defop("Log1p",      np.log1p,      lambda op, g: g / (1 + op.x),         keep="inputs", **F)  # 1/(1+x)
sin        = defop("Sin",        np.sin,        lambda op, g: g * cos(op.x),          keep="inputs", **F)  # cos x
cos        = defop("Cos",        np.cos,        lambda op, g: -g * sin(op.x),         keep="inputs", **F)  # -sin x
tan        = defop("Tan",        np.tan,        lambda op, g: g * (1 + square(op.z)), keep="outputs", **F) # 1 + tan^2
tanh       = defop("Tanh",       np.tanh,       lambda op, g: g * (1 - square(op.z)), keep="outputs", **F) # 1 - tanh^2
sigmoid    = defop("Sigmoid",    _sigmoid,      lambda op, g: g * op.z * (1 - op.z),  keep="outputs", **F) # s (1 - s)
square     = defop("Square",     _square,       lambda op, g: g * 2 * op.x,           keep="inputs")       # 2x
sqrt       = defop("Sqrt",       np.sqrt,       lambda op, g: multiply_no_nan(0.5 / op.z, g),   keep="outputs", **F)
rsqrt      = defop("Rsqrt",      _rsqrt,        lambda op, g: multiply_no_nan(-0.5 * op.z**3, g), keep="outputs", **F)
reciprocal = defop("Reciprocal", _reciprocal,   lambda op, g: multiply_no_nan(-square(op.z), g),  keep="outputs", **F)
abs        = defop("Abs",        _abs,          lambda op, g: g * sign(op.x),         keep="inputs")       # sign x
identity   = defop("Identity",   np.copy,       lambda op, g: g,                      keep="nothing")      # 1
asin       = defop("Asin",       np.arcsin,     lambda op, g: g * rsqrt(1 - square(op.x)), keep="inputs", **F)
acos       = defop("Acos",       np.arccos,     lambda op, g: -g * rsqrt(1 - square(op.x)), keep="inputs", **F)
atan       = defop("Atan",       np.arctan,     lambda op, g: g / (1 + square(op.x)), keep="inputs", **F)  # 1/(1+x^2)
sinh       = defop("Sinh",       np.sinh,       lambda op, g: g * cosh(op.x),         keep="inputs", **F)  # cosh x
cosh       = defop("Cosh",       np.cosh,       lambda op, g: g * sinh(op.x),         keep="inputs", **F)  # sinh x
asinh      = defop("Asinh",      np.arcsinh,    lambda op, g: g * rsqrt(square(op.x) + 1), keep="inputs", **F)
acosh      = defop("Acosh",      np.arccosh,    lambda op, g: g / sinh(op.z),         keep="outputs", **F) # 1/sinh z
atanh      = defop("Atanh",      np.arctanh,    lambda op, g: g / (1 - square(op.x)), keep="inputs", **F)  # 1/(1-x^2)
atan2      = defop("Atan2",      np.arctan2,    binary(lambda op, g: g * op.y / (square(op.x) + square(op.y)),  # y, x
                                                       lambda op, g: -g * op.x / (square(op.x) + square(op.y))),
                   keep="inputs", **BIN, **F)

# ---- no gradient: piecewise constant, or not a number --------------------------------------------
sign          = defop("Sign",          _sign,            lambda op, g: zeros_like(g), keep="nothing")  # 0, not None
floor         = defop("Floor",         np.floor,         None, **F)
round         = defop("Round",         _numeric(np.round), None)
floordiv      = defop("FloorDiv",      _floor_divide,    None, **BIN)
floormod      = defop("FloorMod",      _floor_mod,       binary(lambda op, g: g,  # x - floor(x/y) y
                                                               lambda op, g: -g * floordiv(op.x, op.y)),
                      keep="inputs", **BIN)
less          = defop("Less",          _numeric(np.less),          None, dtype_from=None, **BIN)
less_equal    = defop("LessEqual",     _numeric(np.less_equal),    None, dtype_from=None, **BIN)
greater       = defop("Greater",       _numeric(np.greater),       None, dtype_from=None, **BIN)
greater_equal = defop("GreaterEqual",  _numeric(np.greater_equal), None, dtype_from=None, **BIN)
equal         = defop("Equal",         np.equal,         None, dtype_from=None, **BIN)
not_equal     = defop("NotEqual",      np.not_equal,     None, dtype_from=None, **BIN)
logical_and   = defop("LogicalAnd",    _logical(np.logical_and), None, **BIN)
logical_or    = defop("LogicalOr",     _logical(np.logical_or),  None, **BIN)
logical_xor   = defop("LogicalXor",    _logical(np.logical_xor), None, **BIN)
logical_not   = defop("LogicalNot",    _logical(np.logical_not), None)
bitwise_and   = defop("BitwiseAnd",    _bitwise(np.bitwise_and), None, **BIN)
bitwise_or    = defop("BitwiseOr",     _bitwise(np.bitwise_or),  None, **BIN)
bitwise_xor   = defop("BitwiseXor",    _bitwise(np.bitwise_xor), None, **BIN)
invert        = defop("Invert",        _bitwise(np.invert),      None)
left_shift    = defop("LeftShift",     _bitwise(np.left_shift),  None, **BIN)
right_shift   = defop("RightShift",    _bitwise(np.right_shift), None, **BIN)
is_nan        = defop("IsNan",         np.isnan,         None, dtype_from=None, **F)
is_finite     = defop("IsFinite",      np.isfinite,      None, dtype_from=None, **F)
# fmt: on


# TensorFlow's truediv table: small integers divide in float32, 32- and 64-bit ones in float64
_TRUEDIV_DTYPE = {"int8": "float32", "uint8": "float32", "int16": "float32", "uint16": "float32"}


def divide(x, y, name=None):
    """x / y. Integer tensors divide as floats, as in TensorFlow: uint8 / uint8 gives float32, int32 float64."""
    kind_x, kind_y = _integer_dtype(x), _integer_dtype(y)
    if kind_x and kind_y:
        if kind_x != kind_y and hasattr(x, "_array") and hasattr(y, "_array"):
            raise TypeError(
                f"divide: x and y must have the same dtype, got {kind_x} and {kind_y}; "
                "cast one, e.g. mt.cast(y, x.dtype)"
            )
        named = kind_x if hasattr(x, "_array") or not hasattr(y, "_array") else kind_y  # a tensor's dtype wins
        target = _TRUEDIV_DTYPE.get(named, "float64")
        x, y = cast(x, target), cast(y, target)
    return real_div(x, y)


def _integer_dtype(v):
    """The numpy dtype name of `v` if it holds integers, else None."""
    dtype = as_array(v).dtype
    return dtype.name if dtype.kind in "iu" else None


# ---- dtype conversion ----------------------------------------------------------------------------
def _cast_rule(op, g):
    """The gradient goes back in the input's dtype; an integer input or output has none."""
    source = op.input_dtypes[0]
    return cast(g, source) if source.is_floating and op.output_dtypes[0].is_floating else None


_cast = defop("Cast", lambda a, dtype: a.astype(dtype.as_numpy_dtype), _cast_rule, keep="nothing", dtype_from=None)


def cast(x, dtype, name=None):
    """`x` converted to `dtype`; casting to an integer type cuts the gradient path."""
    from minitape.values.dtypes import as_dtype

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
    return Tensor(np.zeros_like(t._value))


def _matmul_forward(a, b, transpose_a=False, transpose_b=False):
    if a.ndim < 2 or b.ndim < 2:
        raise ValueError("matmul needs tensors of rank 2 or more; reshape a vector to (1, n) or (n, 1)")
    if a.dtype.kind == "b":  # TensorFlow has no bool MatMul kernel; numpy would compute or-of-ands
        raise TypeError("matmul needs numeric tensors, not bool: cast first, e.g. mt.cast(x, mt.float32)")
    # the transposes are views: numpy hands the strides to BLAS, so they copy nothing (the method: no wrapper)
    a = a.swapaxes(-1, -2) if transpose_a else a
    b = b.swapaxes(-1, -2) if transpose_b else b
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
    a, b, attrs = op.x, op.y, op.attrs
    ta, tb = attrs.get("transpose_a", False), attrs.get("transpose_b", False)
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
