"""What is active right now, in this thread: the recording tapes, the forward accumulators, name scopes, listeners.

TensorFlow keeps this state per thread, and so does minitape: a tape opened in one thread
never records another thread's ops. Every op reads `state` once, so it stays a few plain fields.
"""

from __future__ import annotations

import contextlib
import functools
import threading
from collections.abc import Iterator
from typing import Any

import numpy as np


class _ThreadState(threading.local):
    """Per-thread fields; each thread sees the defaults below until it sets its own."""

    def __init__(self) -> None:
        self.tapes: list[Any] = []  # GradientTapes whose `with` block is open and not paused
        self.accumulators: list[Any] = []  # ForwardAccumulators whose `with` block is open
        self.listeners: list[Any] = []  # hear every op the op path runs: `op_ran(op, inputs, attrs, outputs)`
        self.variable_watchers: list[list[Any]] = []  # custom_gradient collects the variables its function reads
        self.scope = ""  # the path of the open mt.name_scope blocks, "model/dense": records and variables take it
        self.backward_of: Any = None  # the record whose gradient rule is running, for messages and viewers
        self.unwatched = False  # a backward sweep nothing can see is running: its ops take a shortcut (unwatched.py)
        self.tracers: list[Any] = []  # mt.function's tracers, recording this thread's ops into graphs (function/)


state = _ThreadState()


@contextlib.contextmanager
def paused(keep_listeners: bool = False) -> Iterator[None]:
    """Run a block with no tape recording, no accumulator and (unless `keep_listeners`) no listener, in this thread.
    (mt.function's tracers stay: `init_scope` pauses them itself.)

    Viewers use it to run the engine's own backward pass for display without leaving a trace.
    """
    saved = state.tapes, state.accumulators, state.listeners
    state.tapes, state.accumulators = [], []
    state.listeners = state.listeners if keep_listeners else []
    try:
        yield
    finally:
        state.tapes, state.accumulators, state.listeners = saved


# NaN and inf are values, as in TensorFlow: numpy's warnings about them are switched off around each op.
# numpy keeps that setting in a context variable (per thread, like `state`); setting the variable directly
# costs a third of `with np.errstate(all="ignore")`, which costs more than numpy takes for a small array. It is
# numpy's private API, so the public `np.errstate` takes over wherever it is missing (tests/engine check both).
def _errstate_quiet() -> Any:
    errstate = np.errstate(all="ignore")
    errstate.__enter__()
    return errstate


def _errstate_restore(errstate: Any) -> None:
    errstate.__exit__(None, None, None)


try:
    from numpy._core._ufunc_config import _extobj_contextvar, _make_extobj

    quiet_numpy = functools.partial(_extobj_contextvar.set, _make_extobj(all="ignore"))
    restore_numpy = _extobj_contextvar.reset
except (ImportError, AttributeError, TypeError):  # another numpy: the public way
    quiet_numpy, restore_numpy = _errstate_quiet, _errstate_restore
