"""`GradientTape`: records the ops run inside its `with` block, then differentiates them in reverse."""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Iterator
from typing import Any

import numpy as np

from minitape import backprop, nest
from minitape.context import state
from minitape.gradient_args import UnconnectedGradients, as_unconnected, check_sources, seeds_for, warn_inside
from minitape.operation import user_line
from minitape.tensor import Tensor, TensorLike, _next_id


class GradientTape:
    """Record operations for automatic differentiation.

    Inside `with GradientTape() as tape:`, every op with a watched input is recorded.
    Trainable variables are watched when read (unless `watch_accessed_variables=False`);
    tensors must be watched with `tape.watch(x)`. `tape.gradient(target, sources)` then
    runs the records backwards. A tape that is not `persistent` answers once and then
    drops its saved tensors.
    """

    def __init__(self, persistent: bool = False, watch_accessed_variables: bool = True) -> None:
        self._persistent = persistent
        self._watch_accessed_variables = watch_accessed_variables
        self._recording = False
        self._used = False
        self._records: list = []
        self._watched: set[int] = set()
        self._variables: dict[int, Any] = {}
        self._escapes: list = []  # (tensor id, (file, line), id counter) of values converted to numpy
        self._timeline: list = []  # (event, id counter): when recording started, paused, resumed, ended

    # ---- the recording window ------------------------------------------------------------------------
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
        state.tapes.append(self)
        self._recording = True
        self._timeline.append((event, _next_id()))

    def _stop(self, event: str) -> None:
        state.tapes.remove(self)
        self._recording = False
        self._timeline.append((event, _next_id()))

    @contextlib.contextmanager
    def stop_recording(self) -> Iterator[None]:
        """Ops run inside this block are not recorded on this tape."""
        if not self._recording:
            raise ValueError("stop_recording() only works while the tape is recording: use it inside its with block")
        self._stop("stop_recording")
        try:
            yield
        finally:
            self._start("resume")

    def reset(self) -> None:
        """Forget everything recorded and watched so far; keep recording if inside the block."""
        self._records, self._escapes = [], []
        self._watched, self._variables = set(), {}
        self._used = False

    # ---- what is watched -----------------------------------------------------------------------------
    def watch(self, tensor: Any) -> None:
        """Make the tape record ops on `tensor` (a tensor, variable, or nested structure of them)."""
        for t in nest.flatten(tensor):
            if not isinstance(t, TensorLike):
                raise ValueError(
                    f"watch() takes tensors or variables (or lists, tuples, dicts of them), not "
                    f"{type(t).__name__} {t!r}; make it a tensor first with mt.constant(...)"
                )
            if not t.dtype.is_floating:
                warnings.warn(
                    f"The dtype of the watched tensor must be floating (e.g. mt.float32), got {t.dtype!r}: "
                    "its gradient will be None",
                    stacklevel=2,
                )
            elif isinstance(t, Tensor):
                self._watched.add(t._id)
                self._timeline.append(("watch", _next_id()))  # when: explain() tells "computed before watch"
            else:
                self.watch_variable(t)

    def watch_variable(self, variable: Any) -> None:
        if variable._id not in self._watched:
            self._watched.add(variable._id)
            self._variables[variable._id] = variable

    def watched_variables(self) -> tuple:
        """The variables this tape watches, in the order it started watching them."""
        return tuple(self._variables.values())

    # ---- differentiation -----------------------------------------------------------------------------
    def gradient(
        self,
        target: Any,
        sources: Any,
        output_gradients: Any = None,
        unconnected_gradients: UnconnectedGradients | str = UnconnectedGradients.NONE,
        observer: backprop.Observer | None = None,
    ) -> Any:
        """d(sum of targets)/d(source) for every source, in the structure of `sources`.

        `output_gradients` weights each target (the vector in a vector-Jacobian product);
        `observer` (a `backprop.Observer`) hears each rule the backward sweep applies.
        """
        self.begin_answer()
        flat = nest.flatten(sources)
        grads = self.backward(nest.flatten(target), flat, seeds_for(target, output_gradients), observer)
        if as_unconnected(unconnected_gradients) is UnconnectedGradients.ZERO:
            grads = [_zeros_like(s) if g is None and s.dtype.is_floating else g for s, g in zip(flat, grads)]
        self.end_answer()
        return nest.pack_sequence_as(sources, grads)

    def backward(self, targets: list, sources: list, seeds: list, observer: Any = None) -> list:
        """One backward sweep from `targets` (with `seeds`) to `sources`: a gradient or None per source."""
        floating = check_sources(sources)
        by_id: dict[int, Tensor] = {}
        for t, seed in zip(targets, seeds):
            if t.dtype.is_floating:  # an integer or bool target has no gradient, as in TensorFlow
                by_id[t._id] = seed if t._id not in by_id else by_id[t._id] + seed
        ids = {s._id for s, ok in zip(sources, floating) if ok}
        found = backprop.backward(self._records, by_id, ids, observer)
        return [found.get(s._id) if ok else None for s, ok in zip(sources, floating)]

    def begin_answer(self) -> None:
        """Before gradient() or jacobian(): refuse a used one-shot tape; a one-shot tape stops recording."""
        if self._used:
            raise RuntimeError(
                "A non-persistent GradientTape can only be used to compute one set of gradients (or jacobians): "
                "it released its records after the first call. To ask it several times, create it with "
                "GradientTape(persistent=True) (and `del tape` when done, to free its memory)."
            )
        if self._recording:
            if self._persistent:
                warn_inside()
            else:
                self._stop("gradient")  # TensorFlow stops a one-shot tape here: nothing more to record

    def end_answer(self) -> None:
        """After the answer: a one-shot tape drops its saved tensors and keeps the structure for explain()."""
        if not self._persistent:
            self._used = True
            self._records = [op.release() for op in self._records]

    def jacobian(self, target: Any, sources: Any, unconnected_gradients: Any = "none", **unused: Any) -> Any:
        """d(target[i])/d(source[j]) for every element pair: shape target.shape + source.shape."""
        from minitape.jacobians import jacobian

        return jacobian(self, target, sources, unconnected_gradients)

    def batch_jacobian(self, target: Any, source: Any, unconnected_gradients: Any = "none", **unused: Any) -> Any:
        """Per-example Jacobians: result[i] = d target[i] / d source[i], for a batch along axis 0."""
        from minitape.jacobians import batch_jacobian

        return batch_jacobian(self, target, source, unconnected_gradients)

    # ---- a read-only view, for explain(), stats() and viewers ---------------------------------------
    @property
    def records(self) -> tuple:
        """The recorded ops (`Operation`s), in the order they ran."""
        return tuple(self._records)

    @property
    def watched_ids(self) -> frozenset:
        """Ids of every watched tensor and variable, and of every recorded op's floating outputs."""
        return frozenset(self._watched)

    @property
    def persistent(self) -> bool:
        return self._persistent

    @property
    def released(self) -> bool:
        """True once a one-shot tape has answered and dropped its saved tensors."""
        return self._used

    @property
    def watches_accessed_variables(self) -> bool:
        return self._watch_accessed_variables

    @property
    def timeline(self) -> tuple:
        """(event, id counter) pairs: enter, watch, stop_recording, resume, gradient, exit."""
        return tuple(self._timeline)

    @property
    def numpy_escapes(self) -> tuple:
        """(tensor id, (file, line), id counter) of every watched value converted to numpy while recording."""
        return tuple(self._escapes)

    def explain(self, target: Any, sources: Any) -> Any:
        """Say, per source, whether its gradient is None and why. See `minitape.explain`."""
        from minitape.explain import explain

        return explain(self, target, sources)

    def stats(self) -> Any:
        """How many records this tape holds and how many bytes of tensors they keep alive."""
        from minitape.explain import tape_stats

        return tape_stats(self)


def _zeros_like(t: Any) -> Tensor:
    return Tensor(np.zeros(t.shape, t.dtype.as_numpy_dtype))


def note_numpy_conversion(tensor: TensorLike) -> None:
    """Remember, on recording tapes that watch `tensor`, that its value left the library here."""
    for tape in state.tapes:
        if tensor._id in tape._watched:
            tape._escapes.append((tensor._id, user_line(), _next_id()))
