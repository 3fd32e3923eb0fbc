"""The rest of `GradientTape`'s API: one-shot answers, pausing and resetting, jacobians, a read-only view.

`explain()`, `stats()` and viewers read a tape only through this view. None of it is needed to
compute a gradient: tape.py holds that.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

from minitape.engine import gradient_args
from minitape.engine.context import state
from minitape.engine.operation import Operation, released
from minitape.engine.tensor import _next_id
from minitape.engine.where import user_line
from minitape.values.tensor_like import TensorLike


class TapeAPI:
    """Methods `GradientTape` inherits; its state is set up in tape.py."""

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

    def begin_answer(self) -> None:
        """Before gradient() or jacobian(): refuse a used one-shot tape; a one-shot tape stops recording."""
        if self._used:
            gradient_args.refuse_used_tape()
        if self._recording:
            if self._persistent:
                gradient_args.warn_inside()
            else:
                self._stop("gradient")  # TensorFlow stops a one-shot tape here: nothing more to record

    def end_answer(self) -> None:
        """After the answer: a one-shot tape drops its saved tensors and keeps the structure for explain()."""
        if not self._persistent:
            self._used = True
            self._records = list(map(released, self._records))

    def reset(self) -> None:
        """Forget everything recorded and watched so far; keep recording if inside the block."""
        self._records, self._escapes = [], []
        self._watched, self._variables, self._alive = set(), {}, {}
        self._used = False

    def watched_variables(self) -> tuple:
        """The variables this tape watches, in the order it started watching them."""
        return tuple(self._variables.values())

    def jacobian(self, target: Any, sources: Any, unconnected_gradients: Any = "none", **unused: Any) -> Any:
        """d(target[i])/d(source[j]) for every element pair: shape target.shape + source.shape."""
        from minitape.ops.jacobian_ops import jacobian

        return jacobian(self, target, sources, unconnected_gradients)

    def batch_jacobian(self, target: Any, source: Any, unconnected_gradients: Any = "none", **unused: Any) -> Any:
        """Per-example Jacobians: result[i] = d target[i] / d source[i], for a batch along axis 0."""
        from minitape.ops.jacobian_ops import batch_jacobian

        return batch_jacobian(self, target, source, unconnected_gradients)

    @property
    def records(self) -> tuple:
        """The recorded ops (`Operation`s), in the order they ran."""
        return tuple([Operation(record, self._alive) for record in self._records])

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
        from minitape.aids.explain import explain

        return explain(self, target, sources)

    def stats(self) -> Any:
        """How many records this tape holds and how many bytes of tensors they keep alive."""
        from minitape.aids.explain import tape_stats

        return tape_stats(self)


def note_numpy_conversion(tensor: TensorLike) -> None:
    """Remember, on recording tapes that watch `tensor`, that its value left the library here."""
    for tape in state.tapes:
        if tensor._id in tape._watched:
            tape._escapes.append((tensor._id, user_line(), _next_id()))
