"""The arguments of `gradient()` and `jacobian()` checked as TensorFlow checks them, with messages that teach."""

from __future__ import annotations

import enum
import warnings
from typing import Any

import numpy as np

from minitape.engine.tensor import Tensor
from minitape.values import nest
from minitape.values.convert import convert_to_tensor
from minitape.values.errors import InvalidArgumentError
from minitape.values.tensor_like import TensorLike


class UnconnectedGradients(enum.Enum):
    """What `gradient` returns for a source the target does not depend on."""

    NONE = "none"
    ZERO = "zero"


def as_unconnected(value: UnconnectedGradients | str) -> UnconnectedGradients:
    if value is UnconnectedGradients.NONE:  # the default, answered without the enum's lookup by value
        return value
    try:
        return UnconnectedGradients(value.value if isinstance(value, UnconnectedGradients) else value)
    except ValueError:
        raise ValueError(
            f"unconnected_gradients must be 'none' or 'zero' (or mt.UnconnectedGradients.NONE / .ZERO), not {value!r}"
        ) from None


def check_sources(sources: list) -> list[bool]:
    """Per source: is it floating (only those get gradients)? Warns, as TensorFlow does, about the others."""
    floating = []
    for s in sources:
        if not isinstance(s, TensorLike):
            raise ValueError(
                f"sources must be tensors or variables (or nested structures of them), not {type(s).__name__}"
            )
        floating.append(s._array().dtype.kind == "f")  # is_floating, without building the DType
        if not floating[-1]:
            warnings.warn(
                f"The dtype of the source tensor must be floating (e.g. mt.float32) when calling "
                f"GradientTape.gradient, got {s.dtype!r}: its gradient is None",
                stacklevel=4,
            )
    return floating


def seeds_for(target: Any, output_gradients: Any) -> list[Tensor]:
    """The gradient to start from at each target: ones (so non-scalar targets give the gradient of their sum)."""
    targets = nest.flatten(target)
    for t in targets:
        if not isinstance(t, TensorLike):
            raise ValueError(f"targets must be tensors or variables, not {type(t).__name__} {t!r}")
    if output_gradients is None:
        return [_ones_like(t) for t in targets]
    flat = nest.flatten(output_gradients)
    if len(flat) != len(targets):
        raise ValueError(
            f"output_gradients must have the structure of target: {len(targets)} target(s) but "
            f"{len(flat)} output gradient(s). A list is read as one gradient per target: for a single "
            "target, pass its weights as one tensor, e.g. mt.constant([...])"
        )
    return [_ones_like(t) if g is None else _seed(t, g) for t, g in zip(targets, flat)]


def _seed(t: TensorLike, g: Any) -> Tensor:
    """`g` as the gradient to start from at target `t`: of t's dtype and shape, as TensorFlow needs it."""
    # a numpy array keeps its dtype (TensorFlow converts output_gradients with no hint); a number takes t's
    g = convert_to_tensor(g, dtype_hint=None if isinstance(g, (np.ndarray, np.generic)) else t.dtype)
    if g._value.dtype != t._array().dtype:  # TensorFlow's first gradient op refuses the pair: no silent cast
        raise InvalidArgumentError(
            f"output_gradients: a gradient of dtype {g.dtype.name} was given for a target of dtype "
            f"{t.dtype.name}; they must match (TensorFlow: 'cannot compute Mul as input #1(zero-based) was "
            f"expected to be a {g.dtype.name} tensor'); cast it first, e.g. mt.cast(g, mt.{t.dtype.name})"
        )
    if g._value.shape != t._array().shape:
        raise ValueError(
            f"output_gradients: a gradient of shape {g._value.shape} was given for a target of shape "
            f"{t._array().shape}; they must match"
        )
    return g


def _ones_like(t: TensorLike) -> Tensor:
    value = t._array()
    ones = np.empty(value.shape, value.dtype)  # and fill: half the time of np.ones, which is Python
    ones.fill(1)
    return Tensor(ones)


_warned_inside: list[bool] = []  # once per process, as TensorFlow's own warning


def warn_inside() -> None:
    if not _warned_inside:
        _warned_inside.append(True)
        warnings.warn(
            "gradient() was called on a persistent tape inside its own with block, so the backward pass is "
            "recorded on the tape too: this costs time and memory. Call it after the block, unless you want "
            "this recording to take a higher-order derivative.",
            stacklevel=4,
        )


def checked(op: Any, input_grads: Any) -> list | tuple:
    """A rule's result as one tensor (or None) per input, each of its input's shape."""
    return [g if g is None else checked_gradient(op, k, g) for k, g in enumerate(one_per_input(op, input_grads))]


def one_per_input(op: Any, input_grads: Any) -> list | tuple:
    """A rule's result as a sequence of one gradient (or None) per input: a lone gradient is wrapped."""
    if type(input_grads) is not tuple and type(input_grads) is not list:
        input_grads = (input_grads,)
    if len(input_grads) != len(op.input_ids):
        raise ValueError(
            f"the gradient function of {op.type} returned {len(input_grads)} gradient(s), "
            f"but {op.type} has {len(op.input_ids)} input(s): return one gradient (or None) per input"
        )
    return input_grads


def checked_gradient(op: Any, k: int, g: Any) -> Tensor:
    """Gradient `g` of input `k` as a tensor of that input's shape (a number or an array is converted)."""
    if type(g) is not Tensor:  # a number, an array, a variable
        g = convert_to_tensor(g, dtype_hint=op.input_dtypes[k])
    if g._value.shape != op.input_shapes[k]:
        raise ValueError(
            f"the gradient function of {op.type} returned a gradient of shape {tuple(g._value.shape)} "
            f"for input {k}, which has shape {tuple(op.input_shapes[k])}"
        )
    return g


def watchable(items: list) -> list:
    """The floating tensors and all variables of `items` (what watch() follows); refuses others, warns on ints.

    An int variable is kept, as TensorFlow keeps it: `watched_variables()` lists it (its gradient is None).
    """
    out = []
    for t in items:
        if not isinstance(t, TensorLike):
            raise ValueError(
                f"watch() takes tensors or variables (or lists, tuples, dicts of them), not "
                f"{type(t).__name__} {t!r}; make it a tensor first with mt.constant(...)"
            )
        if t.dtype.is_floating or not isinstance(t, Tensor):
            out.append(t)
        if not t.dtype.is_floating:
            warnings.warn(
                f"The dtype of the watched tensor must be floating (e.g. mt.float32), got {t.dtype!r}: "
                "its gradient will be None",
                stacklevel=3,
            )
    return out


def refuse_used_tape() -> None:
    raise RuntimeError(
        "A non-persistent GradientTape can only be used to compute one set of gradients (or jacobians): "
        "it released its records after the first call. To ask it several times, create it with "
        "GradientTape(persistent=True) (and `del tape` when done, to free its memory)."
    )
