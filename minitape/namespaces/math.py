"""`mt.math`: elementwise math and reductions under TensorFlow's `tf.math` names."""

from typing import NoReturn

from minitape.ops.api import (  # noqa: F401
    abs,
    acos,
    acosh,
    add_n,
    argmax,
    argmin,
    asin,
    asinh,
    atan,
    atan2,
    atanh,
    cos,
    cosh,
    equal,
    exp,
    floor,
    greater,
    greater_equal,
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
    multiply_no_nan,
    negative,
    not_equal,
    reciprocal,
    reduce_all,
    reduce_any,
    reduce_logsumexp,
    reduce_max,
    reduce_mean,
    reduce_min,
    reduce_prod,
    reduce_std,
    reduce_sum,
    reduce_variance,
    round,
    rsqrt,
    sigmoid,
    sign,
    sin,
    sinh,
    sqrt,
    square,
    squared_difference,
    tan,
    tanh,
)
from minitape.ops.composite_ops import (  # noqa: F401
    ceil,
    confusion_matrix,
    count_nonzero,
    cumprod,
    cumsum,
    divide_no_nan,
    erf,
    erfc,
    expm1,
    is_inf,
    l2_normalize,
    log_sigmoid,
    reciprocal_no_nan,
    reduce_euclidean_norm,
    scalar_mul,
    softsign,
    truediv,
    xdivy,
    xlog1py,
    xlogy,
)
from minitape.ops.nn_ops import log_softmax, softmax, softplus  # noqa: F401
from minitape.ops.operands import (  # noqa: F401
    add,
    divide,
    floordiv,
    floormod,
    maximum,
    minimum,
    multiply,
    pow,
    subtract,
)
from minitape.ops.sort_ops import top_k  # noqa: F401

mod = floormod


def __getattr__(name: str) -> NoReturn:
    from minitape.namespaces import missing

    missing.raise_missing("tf.math", name, missing.MATH)
