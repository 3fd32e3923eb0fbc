"""`OpDef` and `defop`: a primitive op is a numpy forward function plus what the engine needs to know about it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from minitape.engine.registry import _MISSING, GradFn, _register

OPS: dict[str, OpDef] = {}  # every defined op by name: viewers replay a record's forward with it


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

    def __repr__(self) -> str:
        return f"<minitape op {self.name}>"


def defop(
    name: str,
    forward: Callable[..., Any],
    grad: GradFn | None | object = _MISSING,
    **options: Any,
) -> OpDef:
    """Define a primitive op from a numpy function, and register its gradient rule if given.

    `forward(*arrays, **attrs)` gets numpy arrays and returns an array. `grad=None`
    declares the op non-differentiable (like `no_gradient`); leaving `grad` out leaves
    the registry without an entry, so `gradient()` raises LookupError when it reaches
    the op, until `@RegisterGradient(name)` supplies one.
    """
    op = OpDef(name, forward, **options)
    if grad is not _MISSING:
        _register(name, grad)  # type: ignore[arg-type]
    return op


from minitape.engine.execute import apply  # noqa: E402 - execute needs this module loaded first

OpDef.__call__ = apply  # calling an op is running it: `mt.sin(x)` is `apply(sin_op, x)`
