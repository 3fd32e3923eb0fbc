"""minitape: a small automatic-differentiation engine with TensorFlow 2's GradientTape API.

Where things live: engine/ is the tape and its reverse and forward sweeps (its __init__ gives the
reading order); ops/ the op tables, which register into the engine; values/ TensorFlow's value rules
(dtypes, shapes, conversion, nest, errors); namespaces/ TensorFlow's namespaces (math, nn, data, ...);
aids/ the teaching aids (explain, the numerics check, check_gradients); keras/ `mt.keras`.
"""

from __future__ import annotations

from minitape.engine.tensor import Tensor  # the engine first: the op tables register into it
from minitape.ops import api as _op_tables  # noqa: F401 - loads every op; binds the tensor's operators
from minitape.values.shape import TensorShape

__version__ = "0.1.0"

import contextlib
import functools
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from minitape.engine import context
from minitape.engine.custom_gradient import custom_gradient
from minitape.engine.gradient_args import UnconnectedGradients
from minitape.engine.opdef import RegisterGradient, defop, no_gradient
from minitape.engine.tape import GradientTape
from minitape.engine.variables import Variable
from minitape.function import executing_eagerly, function, init_scope, inside_function, py_function
from minitape.namespaces import (
    autodiff,
    bitwise,
    config,
    data,
    debugging,
    image,
    linalg,
    math,
    missing,
    nn,
    random,
    version,
)
from minitape.namespaces.config import device
from minitape.namespaces.control_flow import case, cond, foldl, foldr, scan, switch_case, while_loop
from minitape.namespaces.printing import print
from minitape.namespaces.tensor_array import TensorArray
from minitape.ops import public as _public  # noqa: E402
from minitape.ops.api import *  # noqa: F403 - the op namespace, as tf.*
from minitape.ops.composite_ops import (
    clip_by_global_norm,
    cumsum,
    map_fn,
    saturate_cast,
    scalar_mul,
    truediv,
    vectorized_map,
)
from minitape.ops.mask_ops import boolean_mask
from minitape.ops.nn_ops import one_hot
from minitape.ops.operands import add, divide, floordiv, floormod, maximum, minimum, multiply, pow, subtract
from minitape.ops.scatter_ops import (
    scatter_nd,
    tensor_scatter_nd_add,
    tensor_scatter_nd_max,
    tensor_scatter_nd_min,
    tensor_scatter_nd_sub,
    tensor_scatter_nd_update,
)
from minitape.ops.sequence_ops import roll, searchsorted, unique, unique_with_counts
from minitape.ops.shape_ops import ensure_shape, gather_nd, meshgrid, repeat, reverse, split, strided_slice
from minitape.ops.shape_ops import slice_ as slice
from minitape.ops.sort_ops import argsort, sort
from minitape.values import dtypes, errors, nest
from minitape.values.convert import constant, convert_to_tensor
from minitape.values.dtypes import (
    DType,
    as_dtype,
    bool,
    float16,
    float32,
    float64,
    int8,
    int16,
    int32,
    int64,
    uint8,
    uint16,
    uint32,
    uint64,
)
from minitape.values.tensor_spec import TensorSpec

# the primitive ops api gives bare (any number of inputs) take TensorFlow's parameters here: `mt.sqrt(x, name=None)`
globals().update({name: getattr(_public, name) for name in _public.__all__ if name in globals()})

newaxis = None

NotDifferentiable = no_gradient


@contextlib.contextmanager
def name_scope(name: str) -> Iterator[str]:
    """Label the ops and name the variables made inside: "model/dense" prefixes both, and viewers group by it.

    As in TensorFlow, the block gets the scope with a trailing slash ("model/dense/"); a name that ends in
    "/" (such a scope, say) is taken whole instead of nested under the current one, and "" goes back to the top.
    """
    if not isinstance(name, str):
        raise ValueError(f"name_scope needs a string name, e.g. mt.name_scope('layer1'), not {type(name).__name__}")
    state = context.state
    outer = state.scope
    state.scope = name[:-1] if name.endswith("/") or not name else f"{outer}/{name}" if outer else name
    try:
        yield state.scope + "/" if state.scope else ""
    finally:
        state.scope = outer


def get_current_name_scope() -> str:
    """The scope the ops and variables made here are prefixed with: "outer/inner", or "" outside every scope."""
    return context.state.scope


def is_tensor(x: Any) -> builtins_bool:
    return isinstance(x, (Tensor, Variable))


_numpy_function = defop(
    "NumpyFunction",
    lambda *arrays, func, dtype: np.asarray(func(*arrays), dtype=dtype.as_numpy_dtype),
    None,
    dtype_from=None,
)


def numpy_function(
    func: Callable, inp: list, Tout: Any, stateful: builtins_bool = True, name: str | None = None
) -> Tensor:  # noqa: N803
    """Run a numpy function on tensors' values. Tapes see it as an op with no gradient."""
    return _numpy_function(*inp, func=func, dtype=as_dtype(Tout))


import builtins as _builtins  # noqa: E402

builtins_bool = _builtins.bool

from minitape.aids import check_gradients as test_util  # noqa: E402,F401 - uses the namespace above


def __getattr__(name: str) -> Any:
    """`mt.keras` loads on first use, so `import minitape` stays light; a name TensorFlow has says it is missing."""
    if name == "keras" or name in _KERAS_ALIASES:  # tf.optimizers is tf.keras.optimizers, and so on
        import importlib

        return importlib.import_module("minitape.keras" + ("" if name == "keras" else "." + name))
    missing.raise_missing("tf", name, _NOT_IMPLEMENTED)


# tf.dtypes also holds two functions, and says what it leaves out (dtypes.py holds the types themselves)
dtypes.cast, dtypes.saturate_cast = cast, saturate_cast  # noqa: F405 - cast comes with the op namespace
dtypes.__getattr__ = functools.partial(missing.raise_missing, "tf.dtypes", table=missing.DTYPES)

_KERAS_ALIASES = ("initializers", "optimizers", "losses", "metrics")  # TensorFlow 2's short names for them
_NOT_IMPLEMENTED = missing.TOP_LEVEL  # what TensorFlow has and minitape leaves out, with what to use instead

from minitape.namespaces import train  # noqa: E402 - tf.train's checkpoints track Modules
from minitape.namespaces.init_ops import (  # noqa: E402 - TensorFlow's top-level initializers
    constant_initializer,
    ones_initializer,
    random_normal_initializer,
    random_uniform_initializer,
    zeros_initializer,
)
from minitape.namespaces.module import Module  # noqa: E402 - tf.Module; needs name_scope above
