"""`GradientTape`: records the ops run inside its `with` block, then differentiates them in reverse."""

from __future__ import annotations

import itertools
import weakref
from typing import Any

import numpy as np

from minitape.engine import backprop
from minitape.engine.backprop import Observer
from minitape.engine.context import state
from minitape.engine.gradient_args import UnconnectedGradients, as_unconnected, check_sources, seeds_for, watchable
from minitape.engine.tape_api import TapeAPI
from minitape.engine.tensor import Tensor, _next_id
from minitape.values import nest

ENTERING = itertools.count(1)  # the order in which tapes and accumulators enter their blocks: their nesting


class GradientTape(TapeAPI):
    """Record operations for automatic differentiation.

    Inside `with GradientTape() as tape:`, every op with a watched input is recorded.
    Trainable variables are watched when read (unless `watch_accessed_variables=False`);
    tensors must be watched with `tape.watch(x)`. `tape.gradient(target, sources)` then
    runs the records backwards. A tape that is not `persistent` answers once and then
    drops its saved tensors.
    """

    def __init__(self, persistent: bool = False, watch_accessed_variables: bool = True) -> None:
        self._persistent, self._watch_accessed_variables = persistent, watch_accessed_variables
        self._recording = self._used = False  # used: a one-shot tape that has given its answer
        self._records: list = []  # tuples (record.py), in the order the ops ran
        self._watched: set[int] = set()
        self._alive: dict = {}  # tensor id -> weak reference, for the values no recorded op computed
        self._variables: dict[int, Any] = {}
        self._escapes: list = []  # (tensor id, (file, line), id counter) of values converted to numpy
        self._timeline: list = []  # (event, id counter): when recording started, paused, resumed, ended
        self._stack, self._entered = [], 0  # the entering thread's open tapes (state.tapes); when, by ENTERING

    def __enter__(self) -> GradientTape:
        if self._recording:
            raise ValueError(
                "this tape is already recording: a GradientTape cannot be entered again inside its own block; "
                "create a new GradientTape for a nested block"
            )
        self._start("enter")
        return self

    def __exit__(self, *exc: Any) -> None:
        if self._recording:
            self._stop("exit")

    def _start(self, event: str) -> None:
        if event == "enter":  # the entering thread's stack; a resume (stop_recording) returns to the same one
            self._stack = state.tapes  # the tape records the ops of the thread that entered it, only
            self._entered = next(ENTERING)  # nesting with accumulators is the order of entering (forward.py)
        self._stack.append(self)
        self._recording = True
        self._timeline.append((event, _next_id()))

    def _stop(self, event: str) -> None:
        # from the opening thread's stack, whichever thread stops it: the opening thread stops recording
        self._stack.remove(self)
        self._recording = False
        self._timeline.append((event, _next_id()))

    def watch(self, tensor: Any) -> None:
        """Make the tape record ops on `tensor` (a tensor, variable, or nested structure of them); as in
        TensorFlow, not from a thread where nothing records (another thread than the one that opened it, say)."""
        flat = watchable(nest.flatten(tensor))  # checked everywhere: a wrong argument is refused
        for t in flat if state.tapes or state.accumulators else ():
            if isinstance(t, Tensor):
                self._watched.add(t._id)
                self._alive[t._id] = weakref.ref(t)
                self._timeline.append(("watch", _next_id()))  # when: explain() tells "computed before watch"
            else:
                self.watch_variable(t)

    def add_record(self, record: tuple, inputs: list, followed: Any) -> None:
        """Keep `record`; follow the floating tensors of `followed` (a differentiable op's outputs) forward."""
        self._records.append(record)
        for t in inputs:  # a value no recorded op computed (a constant, a variable): viewers show it while alive
            if t._id not in self._watched and t._id not in self._alive:
                self._alive[t._id] = weakref.ref(t)
        for t in followed:
            if t._value.dtype.kind == "f":
                self._watched.add(t._id)

    def watch_variable(self, variable: Any) -> None:
        if variable._id not in self._watched:
            self._watched.add(variable._id)
            self._variables[variable._id] = variable
            self._alive[variable._id] = weakref.ref(variable)

    def gradient(
        self,
        target: Any,
        sources: Any,
        output_gradients: Any = None,
        unconnected_gradients: UnconnectedGradients | str = UnconnectedGradients.NONE,
        observer: Observer | None = None,
    ) -> Any:
        """d(sum of targets)/d(source) for every source, in the structure of `sources`.

        `output_gradients` weights each target (the vector in a vector-Jacobian product);
        `observer` (a `backprop.Observer`) hears each rule the backward sweep applies.
        """
        self.begin_answer()
        flat = nest.flatten(sources)
        grads = self.backward(nest.flatten(target), flat, seeds_for(target, output_gradients), observer)
        if as_unconnected(unconnected_gradients) is UnconnectedGradients.ZERO:  # of any dtype, as in TensorFlow
            grads = [_zeros_like(s) if g is None else g for s, g in zip(flat, grads)]
        self.end_answer()
        return nest.pack_sequence_as(sources, grads)

    def backward(self, targets: list, sources: list, seeds: list, observer: Any = None) -> list:
        """One backward sweep from `targets` (with `seeds`) to `sources`: a gradient or None per source."""
        floating = check_sources(sources)
        by_id: dict[int, Tensor] = {}
        for t, seed in zip(targets, seeds):
            if t._array().dtype.kind == "f":  # an integer or bool target has no gradient, as in TensorFlow
                by_id[t._id] = seed if t._id not in by_id else by_id[t._id] + seed
        # a source the tape never watched has no gradient (as in TensorFlow), unless it is a target itself
        ids = {s._id for s, ok in zip(sources, floating) if ok and (s._id in self._watched or s._id in by_id)}
        found = backprop.backward(self._records, by_id, ids, observer)
        return [found.get(s._id) if ok else None for s, ok in zip(sources, floating)]


def _zeros_like(t: Any) -> Tensor:
    return Tensor(np.zeros_like(t._array()))
