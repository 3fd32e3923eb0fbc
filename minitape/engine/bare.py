"""The backward pass nobody listens to: minitape's own gradient rules computed on bare numpy arrays.

Gradient rules are written in minitape ops so that a tape still recording can see them (that is
what makes higher derivatives work). When nothing can see them (no tape recording, no forward
accumulator, no numerics check, no observer), wrapping each intermediate in a Tensor buys
nothing: `backprop.backward` then sets `state.bare`, and every op a rule calls comes here and
returns a numpy array. A rule's arithmetic on those arrays is numpy's own (`g * cos(x)` is one
numpy multiply). This halves the backward pass (measured in benchmarks/README.md).

Rules registered from outside minitape (RegisterGradient, defop in user code) and custom_gradient
functions may use Tensor methods, so they always get tensors: see `runs_bare` and backprop.py.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minitape.engine.context import state
from minitape.engine.tensor import Tensor
from minitape.values.convert import dtypes_agree, joined_positions

_ENGINE_MODULE = __name__.split(".", 1)[0] + "."


def runs_bare(rule: Any) -> bool:
    """Whether `rule` is one of minitape's own (written for tensors and arrays alike)."""
    known = _OWN_RULES.get(rule)
    if known is None:
        known = _OWN_RULES[rule] = (getattr(rule, "__module__", None) or "").startswith(_ENGINE_MODULE)
    return known


_OWN_RULES: dict[Any, bool] = {}


def apply(op: Any, args: tuple, attrs: dict) -> Any:
    """`op` on arrays and tensors, giving arrays; anything unusual goes the engine's way (its checks, its errors)."""
    arrays = args
    for arg in args:
        if type(arg) is not np.ndarray:  # a tensor, a numpy scalar: unwrap them all
            arrays = _unwrapped(args)
            break
    if arrays is None or (op.floating and arrays[0].dtype.kind != "f"):
        return engine_apply(op, args, attrs)
    if len(arrays) > 1 and op.same_dtype and (len(arrays) > 2 or arrays[0].dtype is not arrays[1].dtype):
        if not dtypes_agree(arrays, joined_positions(op, len(arrays))):  # two of one dtype: told by `is` above
            return engine_apply(op, args, attrs)
    try:
        result = op.forward(*arrays, **attrs)
    except Exception:  # the engine path raises the same failure with a message that names the op
        return engine_apply(op, args, attrs)
    dtype = arrays[op.dtype_from].dtype if op.dtype_from is not None else None
    if op.n_outputs == 1:
        return result if type(result) is np.ndarray and result.dtype is dtype else np.asarray(result, dtype)
    return [np.asarray(r, dtype) for r in result]


def _unwrapped(args: tuple) -> list | None:
    """The arguments as arrays; None if one is something only the engine converts (a number, a variable)."""
    arrays = []
    for arg in args:
        if type(arg) is np.ndarray:
            arrays.append(arg)
        elif type(arg) is Tensor:
            arrays.append(arg._value)
        elif isinstance(arg, np.generic):  # numpy's arithmetic on 0-d arrays gives these
            arrays.append(np.asarray(arg))
        else:
            return None
    return arrays


def engine_apply(op: Any, args: tuple, attrs: dict) -> Any:
    """`op` through the engine's full path (conversions, dtype checks, messages), its result unwrapped."""
    state.bare = False
    try:
        result = op(*[Tensor(np.asarray(a)) if isinstance(a, (np.ndarray, np.generic)) else a for a in args], **attrs)
    finally:
        state.bare = True
    return [t._value for t in result] if isinstance(result, list) else result._value


def tensor(gradient: Any) -> Tensor:
    """A gradient of a bare sweep (an array, or a tensor a rule made) as the tensor `gradient()` returns."""
    return gradient if type(gradient) is Tensor else Tensor(np.asarray(gradient))


def tensors(upstream: list) -> list:
    """The upstream gradients as tensors, for a rule that is not minitape's own (`runs_bare`)."""
    return [tensor(g) for g in upstream]
