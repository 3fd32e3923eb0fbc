"""`mt.math`: elementwise math and reductions under TensorFlow's `tf.math` names."""

from typing import NoReturn

from minitape.ops import composite_ops
from minitape.ops.api import (  # noqa: F401
    add_n,
    argmax,
    argmin,
    multiply_no_nan,
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
    squared_difference,
)
from minitape.ops.composite_ops import (  # noqa: F401
    ceil,
    confusion_matrix,
    count_nonzero,
    cumprod,
    cumsum,
    divide_no_nan,
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
from minitape.ops.nn_ops import log_softmax, softmax  # noqa: F401
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
from minitape.ops.public import (  # noqa: F401 - TensorFlow's parameters
    abs,
    acos,
    acosh,
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
    negative,
    not_equal,
    reciprocal,
    round,
    rsqrt,
    sigmoid,
    sign,
    sin,
    sinh,
    softplus,
    sqrt,
    square,
    tan,
    tanh,
    unary,
)
from minitape.ops.segment_ops import (  # noqa: F401
    bincount,
    segment_max,
    segment_mean,
    segment_min,
    segment_prod,
    segment_sum,
    unsorted_segment_max,
    unsorted_segment_mean,
    unsorted_segment_min,
    unsorted_segment_prod,
    unsorted_segment_sqrt_n,
    unsorted_segment_sum,
)
from minitape.ops.sort_ops import top_k  # noqa: F401
from minitape.ops.special_ops import digamma, lgamma, polygamma  # noqa: F401

mod = floormod
# fmt: off
erf    = unary(composite_ops.erf, "erf")  # TensorFlow's parameters: (x, name=None)
erfc   = unary(composite_ops.erfc, "erfc")
expm1  = unary(composite_ops.expm1, "expm1")
is_inf = unary(composite_ops.is_inf, "is_inf")
# fmt: on


def __getattr__(name: str) -> NoReturn:
    from minitape.namespaces import missing

    missing.raise_missing("tf.math", name, missing.MATH)
