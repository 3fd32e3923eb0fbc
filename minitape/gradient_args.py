"""The arguments of `gradient()` and `jacobian()` checked as TensorFlow checks them, with messages that teach."""

from __future__ import annotations

import enum
import warnings
from typing import Any

import numpy as np

from minitape import nest
from minitape.convert import convert_to_tensor
from minitape.tensor import Tensor, TensorLike


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
        floating.append(s.dtype.is_floating)
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
        return [Tensor(np.ones(t.shape, t.dtype.as_numpy_dtype)) for t in targets]
    flat = nest.flatten(output_gradients)
    if len(flat) != len(targets):
        raise ValueError(
            f"output_gradients must have the structure of target: {len(targets)} target(s) but "
            f"{len(flat)} output gradient(s). A list is read as one gradient per target: for a single "
            "target, pass its weights as one tensor, e.g. mt.constant([...])"
        )
    seeds = []
    for t, g in zip(targets, flat):
        if g is None:
            seeds.append(Tensor(np.ones(t.shape, t.dtype.as_numpy_dtype)))
            continue
        g = convert_to_tensor(g, dtype_hint=t.dtype)
        if tuple(g.shape) != tuple(t.shape):
            raise ValueError(
                f"output_gradients: a gradient of shape {tuple(g.shape)} was given for a target of shape "
                f"{tuple(t.shape)}; they must match"
            )
        seeds.append(g)
    return seeds


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
    """A rule's result as one tensor or array (or None) per input, each of its input's shape."""
    kind = type(input_grads)
    if kind is not tuple and kind is not list:
        input_grads = (input_grads,)
    if len(input_grads) != len(op.input_ids):
        raise ValueError(
            f"the gradient function of {op.type} returned {len(input_grads)} gradient(s), "
            f"but {op.type} has {len(op.input_ids)} input(s): return one gradient (or None) per input"
        )
    for g, shape in zip(input_grads, op.input_shapes):
        kind = type(g)
        if not (g is None or (kind is np.ndarray and g.shape == shape) or (kind is Tensor and g._value.shape == shape)):
            return _converted(op, input_grads)  # a number, a variable, a numpy scalar, or a wrong shape
    return input_grads


def _converted(op: Any, input_grads: list | tuple) -> list:
    out = list(input_grads)
    for k, (g, shape) in enumerate(zip(input_grads, op.input_shapes)):
        if g is not None and type(g) is not Tensor and type(g) is not np.ndarray:
            g = out[k] = convert_to_tensor(g, dtype_hint=op.input_dtypes[k])
        if g is not None and np.shape(g) != tuple(shape):
            raise ValueError(
                f"the gradient function of {op.type} returned a gradient of shape {tuple(np.shape(g))} "
                f"for input {k}, which has shape {tuple(shape)}"
            )
    return out


def watchable(items: list) -> list:
    """The floating tensors and variables of `items` (what watch() can follow); refuses others, warns on ints."""
    out = []
    for t in items:
        if not isinstance(t, TensorLike):
            raise ValueError(
                f"watch() takes tensors or variables (or lists, tuples, dicts of them), not "
                f"{type(t).__name__} {t!r}; make it a tensor first with mt.constant(...)"
            )
        if t.dtype.is_floating:
            out.append(t)
        else:
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
