"""A shortcut a reader can skip: the ops of a backward pass that nothing watches.

Gradient rules run their ops through the op path, like any code, so that a tape still recording can
see them. When nothing can (no tape recording, no forward accumulator, no listener, no observer), what
the op path does besides converting and computing buys nothing there: switching numpy's warnings off
per op (the sweep does it once), telling the listeners, asking the tapes. `backward` then
marks the sweep unwatched, and `execute.apply`, once it has the inputs as tensors (`as_inputs`, the
same checks as ever), sends each op here: the same forward, the same tensors out (`OpDef.outputs`),
nothing else (benchmarks/README.md has what it saves). A forward that fails goes the full way, to be
reported with the op's name, and so does every op of a rule that opens a tape of its own.
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


def run(op: Any, inputs: list, attrs: dict) -> list[Tensor] | None:
    """`op`'s outputs: numpy's result on the inputs (tensors already), wrapped; None to go the full way."""
    if state.tapes or state.accumulators:
        return None  # a rule that opened a tape of its own: its ops are recorded
    arrays = list(map(VALUE, inputs))
    try:
        return op.outputs(arrays, op.forward(*arrays, **attrs))
    except Exception:  # the full way raises the same failure with a message that names the op
        return None
