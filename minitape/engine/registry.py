"""The gradient registry: each op type's gradient rule, looked up by name when the backward pass reaches it.

A gradient rule has one fixed signature, as in TensorFlow: `rule(op, *output_grads)`
returns one gradient per input (None where there is none). `op` is the recorded
`Operation`. Rules are written with minitape's own ops, so the backward pass is
itself recorded by any tape still listening: that is what makes higher-order
derivatives work.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

GradFn = Callable[..., Any]

_MISSING = object()
_GRADIENTS: dict[str, GradFn | None] = {}  # None: registered as having no gradient


class RegisterGradient:
    """Decorator registering the gradient rule of an op type: `@mt.RegisterGradient("MyOp")`."""

    def __init__(self, op_type: str) -> None:
        if not isinstance(op_type, str):
            raise TypeError(f"op_type must be a string, not {type(op_type).__name__}")
        self._op_type = op_type

    def __call__(self, fn: GradFn) -> GradFn:
        _register(self._op_type, fn)
        return fn


def no_gradient(op_type: str) -> None:
    """Declare that `op_type` has no gradient: gradients through it are None, not an error."""
    _register(op_type, None)


def _register(op_type: str, fn: GradFn | None) -> None:
    if op_type in _GRADIENTS:
        raise KeyError(f"a gradient is already registered for op type {op_type!r}; each op type gets one rule")
    _GRADIENTS[op_type] = fn


def is_differentiable(op_type: str) -> bool:
    """False only for op types registered with `no_gradient`."""
    return _GRADIENTS.get(op_type, _MISSING) is not None


def lookup(op_type: str) -> GradFn | None:
    """The rule for `op_type`; None if it has no gradient; LookupError if nobody registered one."""
    fn = _GRADIENTS.get(op_type, _MISSING)
    if fn is _MISSING:
        raise LookupError(f"gradient registry has no entry for: {op_type}")
    return fn
