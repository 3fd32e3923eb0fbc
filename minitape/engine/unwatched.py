"""A shortcut a reader can skip: the ops of a backward pass that nothing watches.

Gradient rules run their ops through the op path, like any code, so that a tape still recording can
see them. When nothing can (no tape recording, no forward accumulator, no listener, no observer), what
the op path does besides computing buys nothing there: converting inputs that are tensors already,
switching numpy's warnings off per op (the sweep does it once), asking who listens. `backward` then
marks the sweep unwatched, and `execute.apply` sends each op here: the same forward, the same tensors
out (`OpDef.outputs`), nothing else. This halves the backward pass (benchmarks/README.md). Anything
unusual goes the full way, with its checks and messages: a number among the inputs, dtypes that differ,
a rule that opens a tape of its own.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

from minitape.engine.context import state
from minitape.engine.record import VALUE
from minitape.engine.tensor import Tensor


@contextlib.contextmanager
def sweep(observer: Any) -> Iterator[None]:
    """Mark the backward sweep in this block unwatched if nothing can see its ops."""
    outer = state.unwatched
    state.unwatched = observer is None and not (state.tapes or state.accumulators or state.listeners or state.tracers)
    try:
        yield
    finally:
        state.unwatched = outer


def run(op: Any, args: tuple, attrs: dict) -> list[Tensor] | None:
    """`op`'s outputs on tensors: numpy's result, wrapped; None for anything unusual (it goes the full way)."""
    first = args[0] if type(args[0]) is Tensor else None
    if first is None or len(args) > 2 or state.tapes or state.accumulators:
        return None  # a number or a variable to convert, an op of many inputs, a rule that opened a tape
    if op.floating and first._value.dtype.kind != "f":
        return None
    if len(args) == 2 and (
        type(args[1]) is not Tensor or (op.same_dtype and args[1]._value.dtype is not first._value.dtype)
    ):
        return None
    arrays = list(map(VALUE, args))
    try:
        return op.outputs(arrays, op.forward(*arrays, **attrs))
    except Exception:  # the full way raises the same failure with a message that names the op
        return None
