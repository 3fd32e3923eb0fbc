"""What an op is: a numpy forward function (`OpDef`), and its gradient rule, kept in the registry by op type.

A gradient rule has one fixed signature, as in TensorFlow: `rule(op, *output_grads)` returns one
gradient per input (None where there is none). `op` is the recorded `Operation` (operation.py):
its tensors, shapes and attributes. Rules are written with minitape's own ops, so the backward
pass is itself recorded by any tape still listening: that is what makes higher derivatives work.
The op tables (minitape/ops/) register their ops here with `defop`; calling an op runs it: execute.py.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from minitape.engine.tensor import Tensor

GradFn = Callable[..., Any]

OPS: dict[str, OpDef] = {}  # every defined op by name: viewers replay a record's forward with it
_GRADIENTS: dict[str, GradFn | None] = {}  # op type -> its rule; None: declared to have no gradient
_MISSING = object()


class OpDef:
    """A primitive op: calling it runs `forward` on numpy arrays and records the call on listening tapes.

    keep        which tensors the gradient rule reads: "inputs", "outputs", "both" or "nothing"
    same_dtype  input positions that must share one dtype, or "all" (Python numbers are converted to it)
    dtype_from  the input whose dtype the output takes (numpy may widen it), or None
    n_outputs   how many arrays `forward` returns
    floating    the first input must be floating (numpy would compute ints in float, then truncate)
    """

    def __init__(
        self,
        name: str,
        forward: Callable[..., Any],
        *,
        keep: str = "both",
        same_dtype: tuple[int, ...] | str | None = None,
        dtype_from: int | None = 0,
        n_outputs: int = 1,
        floating: bool = False,
    ) -> None:
        if keep not in ("inputs", "outputs", "both", "nothing"):
            raise ValueError(f"keep must be 'inputs', 'outputs', 'both' or 'nothing', not {keep!r}")
        self.name, self.forward, self.keep, self.floating = name, forward, keep, floating
        self.same_dtype, self.dtype_from, self.n_outputs = same_dtype, dtype_from, n_outputs
        self.__doc__ = forward.__doc__
        OPS[name] = self

    def outputs(self, inputs: list[np.ndarray], result: Any) -> list[Tensor]:
        """What `forward` returned, as tensors of the op's dtype (numpy returns scalars and may widen dtypes)."""
        dtype = inputs[self.dtype_from].dtype if self.dtype_from is not None else None
        if self.n_outputs == 1:
            exact = type(result) is np.ndarray and result.dtype is dtype
            return [Tensor(result if exact else np.asarray(result, dtype))]
        return [Tensor(np.asarray(r, dtype)) for r in result]

    def __repr__(self) -> str:
        return f"<minitape op {self.name}>"


def defop(name: str, forward: Callable[..., Any], grad: GradFn | None | object = _MISSING, **options: Any) -> OpDef:
    """Define a primitive op from a numpy function, and register its gradient rule if given.

    `forward(*arrays, **attrs)` gets numpy arrays and returns an array. `grad=None`
    declares the op non-differentiable (like `no_gradient`); leaving `grad` out leaves
    the registry without an entry, so `gradient()` raises LookupError when it reaches
    the op, until `@RegisterGradient(name)` supplies one.
    """
    op = OpDef(name, forward, **options)
    if grad is not _MISSING:
        register(name, grad)  # type: ignore[arg-type]
    return op


class RegisterGradient:
    """Decorator registering the gradient rule of an op type: `@mt.RegisterGradient("MyOp")`."""

    def __init__(self, op_type: str) -> None:
        if not isinstance(op_type, str):
            raise TypeError(f"op_type must be a string, not {type(op_type).__name__}")
        self._op_type = op_type

    def __call__(self, fn: GradFn) -> GradFn:
        register(self._op_type, fn)
        return fn


def no_gradient(op_type: str) -> None:
    """Declare that `op_type` has no gradient: gradients through it are None, not an error."""
    register(op_type, None)


def register(op_type: str, fn: GradFn | None) -> None:
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


from minitape.engine.execute import apply  # noqa: E402 - execute.py needs OpDef, defined above

OpDef.__call__ = apply  # calling an op is running it: `mt.sin(x)` is `apply(sin_op, x)`
