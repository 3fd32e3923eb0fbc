"""What is active right now, in this thread: the recording tapes, the forward accumulators, name scopes, switches.

TensorFlow keeps this state per thread, and so does minitape: a tape opened in one thread
never records another thread's ops. Every op reads `state` once, so it stays a few plain fields.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from typing import Any

import numpy as np


class _ThreadState(threading.local):
    """Per-thread fields; each thread sees the defaults below until it sets its own."""

    def __init__(self) -> None:
        self.tapes: list[Any] = []  # GradientTapes whose `with` block is open and not paused
        self.accumulators: list[Any] = []  # ForwardAccumulators whose `with` block is open
        self.variable_watchers: list[list[Any]] = []  # custom_gradient collects the variables its function reads
        self.check_numerics = False  # set by mt.debugging.enable_check_numerics()
        self.scope = ""  # the path of the open mt.name_scope blocks, "model/dense": records and variables take it
        self.backward_of: Any = None  # the record whose gradient rule is running, for messages and viewers
        self.bare = False  # a backward pass nothing listens to is running: ops compute on numpy arrays (bare.py)
        # mt.function hook: the tracers recording this thread's ops into graphs (minitape/function/trace.py)
        self.tracers: list[Any] = []


state = _ThreadState()

# numpy keeps its floating-point error state in a context variable (per thread, as this state): setting it
# directly costs a tenth of `with np.errstate(all="ignore")`, which costs more than numpy takes for a small array
NUMPY_ERRORS = np._core._ufunc_config._extobj_contextvar
IGNORE_ALL = np._core._ufunc_config._make_extobj(all="ignore")


@contextlib.contextmanager
def paused(numerics: bool = True) -> Iterator[None]:
    """Run a block with no tape recording, no accumulator listening and (unless `numerics=False`) no numerics
    check, in this thread.

    Viewers use it to run the engine's own backward pass for display without leaving a trace.
    """
    saved = state.tapes, state.accumulators, state.check_numerics
    state.tapes, state.accumulators = [], []
    state.check_numerics = state.check_numerics and not numerics
    try:
        yield
    finally:
        state.tapes, state.accumulators, state.check_numerics = saved
