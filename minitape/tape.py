"""`GradientTape`: records the ops run inside its `with` block, then differentiates them in reverse."""

from __future__ import annotations

import contextlib
import enum
import warnings
from collections.abc import Iterator
from typing import Any

import numpy as np

from minitape import backprop, context, nest
from minitape.execute import convert_to_tensor
from minitape.ops.array_ops import reshape, stack, strided_slice
from minitape.tensor import Tensor, TensorLike, _next_id

JACOBIAN_WARN_BYTES = 1 << 30  # a jacobian larger than this warns before it starts


def _warn_if_huge(n_rows: int, sources: list) -> None:
    size = sum(n_rows * int(np.prod(s.shape)) * s.dtype.as_numpy_dtype().itemsize for s in sources)
    if size > JACOBIAN_WARN_BYTES:
        warnings.warn(
            f"jacobian: the result will take {size / 2**30:.1f} GiB ({n_rows} target elements times the sources' "
            "elements) and needs one backward pass per target element; reduce the target first, or use "
            "batch_jacobian or a ForwardAccumulator for a Jacobian-vector product",
            ResourceWarning,
            stacklevel=3,
        )


class UnconnectedGradients(enum.Enum):
    """What `gradient` returns for a source the target does not depend on."""

    NONE = "none"
    ZERO = "zero"


_warned_inside_context = False


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
        self._escapes: list = []  # (tensor id, (file, line)) of values converted to numpy while recording
        self._timeline: list = []  # (event, id counter) marks: when recording started, paused, resumed, ended

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
        context.recording_tapes.append(self)
        self._recording = True
        self._timeline.append((event, _next_id()))

    def _stop(self, event: str) -> None:
        context.recording_tapes.remove(self)
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
                self._watch_variable(t)

    def _watch_variable(self, variable: Any) -> None:
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
    ) -> Any:
        """d(sum of targets)/d(source) for every source, in the structure of `sources`.

        `output_gradients` weights each target (the vector in a vector-Jacobian product).
        """
        unconnected = _unconnected(unconnected_gradients)
        self._check_usable()
        if self._recording:
            if self._persistent:
                _warn_inside_context()
            else:
                self._stop("gradient")  # TensorFlow stops a one-shot tape here: nothing more to record
        flat_sources = nest.flatten(sources)
        result = self._gradient(nest.flatten(target), flat_sources, _seeds(target, output_gradients), unconnected)
        self._release()
        return nest.pack_sequence_as(sources, result)

    def _check_usable(self) -> None:
        if self._used:
            raise RuntimeError(
                "A non-persistent GradientTape can only be used to compute one set of gradients (or jacobians): "
                "it released its records after the first call. To ask it several times, create it with "
                "GradientTape(persistent=True) (and `del tape` when done, to free its memory)."
            )

    def _release(self) -> None:
        if not self._persistent:
            self._used = True
            self._records = [op.without_tensors() for op in self._records]  # keep only the structure for explain()

    def _gradient(self, targets: list, sources: list, seeds: list, unconnected: UnconnectedGradients) -> list:
        for s in sources:
            if not isinstance(s, TensorLike):
                raise ValueError(
                    f"sources must be tensors or variables (or nested structures of them), not {type(s).__name__}"
                )
        is_floating = [s.dtype.is_floating for s in sources]
        for s, ok in zip(sources, is_floating):
            if not ok:
                warnings.warn(
                    f"The dtype of the source tensor must be floating (e.g. mt.float32) when calling "
                    f"GradientTape.gradient, got {s.dtype!r}: its gradient is None",
                    stacklevel=3,
                )
        seed_by_id: dict[int, Tensor] = {}
        for t, seed in zip(targets, seeds):
            if not t.dtype.is_floating:
                continue  # an integer or bool target has no gradient, as in TensorFlow
            seed_by_id[t._id] = seed if t._id not in seed_by_id else seed_by_id[t._id] + seed
        found = backprop.backward(self._records, seed_by_id, {s._id for s, ok in zip(sources, is_floating) if ok})
        out = []
        for s, ok in zip(sources, is_floating):
            g = found.get(s._id) if ok else None
            if g is None and unconnected is UnconnectedGradients.ZERO and ok:
                g = Tensor(np.zeros(s.shape, s.dtype.as_numpy_dtype))
            out.append(g)
        return out

    def jacobian(
        self,
        target: Any,
        sources: Any,
        unconnected_gradients: UnconnectedGradients | str = UnconnectedGradients.NONE,
        parallel_iterations: Any = None,
        experimental_use_pfor: bool = True,
    ) -> Any:
        """d(target[i])/d(source[j]) for every element pair: shape target.shape + source.shape."""
        unconnected = _unconnected(unconnected_gradients)
        self._check_usable()
        if self._recording and not self._persistent:
            self._stop("gradient")
        target = convert_to_tensor(target) if not isinstance(target, TensorLike) else target
        flat_sources = nest.flatten(sources)
        n = int(np.prod(target.shape))
        _warn_if_huge(n, flat_sources)
        if n == 0:  # an empty target: no rows, but a connected source still gets a (0, ...) result, as in TensorFlow
            empty = self._gradient(
                [target], flat_sources, [Tensor(np.zeros(target.shape, target.dtype.as_numpy_dtype))], unconnected
            )
            self._release()
            result = [
                None if g is None else Tensor(np.zeros(tuple(target.shape) + tuple(s.shape), s.dtype.as_numpy_dtype))
                for g, s in zip(empty, flat_sources)
            ]
            return nest.pack_sequence_as(sources, result)
        rows = []
        for k in range(n):
            seed = np.zeros(n, target.dtype.as_numpy_dtype)
            seed[k] = 1
            rows.append(self._gradient([target], flat_sources, [Tensor(seed.reshape(target.shape))], unconnected))
        self._release()
        result = []
        for j, s in enumerate(flat_sources):
            column = [row[j] for row in rows]
            if all(g is None for g in column):
                result.append(None)
                continue
            zero = Tensor(np.zeros(s.shape, s.dtype.as_numpy_dtype))
            column = [zero if g is None else g for g in column]  # rows that do not depend on this source
            result.append(reshape(stack(column), tuple(target.shape) + tuple(s.shape)))
        return nest.pack_sequence_as(sources, result)

    def batch_jacobian(
        self,
        target: Any,
        source: Any,
        unconnected_gradients: UnconnectedGradients | str = UnconnectedGradients.NONE,
        parallel_iterations: Any = None,
        experimental_use_pfor: bool = True,
    ) -> Any:
        """Per-example Jacobians: result[i] = d target[i] / d source[i], for a batch along axis 0."""
        if len(target.shape) < 2 or len(source.shape) < 2 or target.shape[0] != source.shape[0]:
            raise ValueError(
                f"batch_jacobian needs a target and a source of rank 2 or more with the same first (batch) dimension, "
                f"got shapes {tuple(target.shape)} and {tuple(source.shape)}; reshape a vector to (batch, 1)"
            )
        full = self.jacobian(target, source, unconnected_gradients)
        if full is None:  # unconnected: zeros of the target's dtype, as TensorFlow's batch_jacobian gives
            shape = tuple(target.shape) + tuple(source.shape[1:])
            return Tensor(np.zeros(shape, target.dtype.as_numpy_dtype))
        rank_t = len(target.shape)
        return stack([strided_slice(full, (i,) + (slice(None),) * (rank_t - 1) + (i,)) for i in range(target.shape[0])])

    # ---- teaching aids -------------------------------------------------------------------------------
    def explain(self, target: Any, sources: Any) -> Any:
        """Say, per source, whether its gradient is None and why. See `minitape.explain`."""
        from minitape.explain import explain

        return explain(self, target, sources)

    def stats(self) -> Any:
        """How many records this tape holds and how many bytes of tensors they keep alive."""
        from minitape.explain import tape_stats

        return tape_stats(self)


def _unconnected(value: UnconnectedGradients | str) -> UnconnectedGradients:
    if value is UnconnectedGradients.NONE:  # the default, answered without the enum's lookup by value
        return value
    try:
        return UnconnectedGradients(value.value if isinstance(value, UnconnectedGradients) else value)
    except ValueError:
        raise ValueError(
            f"unconnected_gradients must be 'none' or 'zero' (or mt.UnconnectedGradients.NONE / .ZERO), not {value!r}"
        ) from None


def _seeds(target: Any, output_gradients: Any) -> list[Tensor]:
    """The gradient to start from at each target: ones (so non-scalar targets give the gradient of their sum)."""
    targets = nest.flatten(target)
    for t in targets:
        if not isinstance(t, TensorLike):
            raise ValueError(f"targets must be tensors or variables, not {type(t).__name__} {t!r}")
    if output_gradients is None:
        return [Tensor(np.ones(t.shape, t.dtype.as_numpy_dtype)) for t in targets]
    flat = nest.flatten(output_gradients)
    if len(flat) != len(targets):
        raise ValueError(
            f"output_gradients must have the structure of target: {len(targets)} target(s) but "
            f"{len(flat)} output gradient(s). A list is read as one gradient per target: for a single "
            "target, pass its weights as one tensor, e.g. mt.constant([...])"
        )
    seeds = []
    for t, g in zip(targets, flat):
        if g is None:
            seeds.append(Tensor(np.ones(t.shape, t.dtype.as_numpy_dtype)))
            continue
        g = convert_to_tensor(g, dtype_hint=t.dtype)
        if tuple(g.shape) != tuple(t.shape):
            raise ValueError(
                f"output_gradients: a gradient of shape {tuple(g.shape)} was given for a target of shape "
                f"{tuple(t.shape)}; they must match"
            )
        seeds.append(g)
    return seeds


def _warn_inside_context() -> None:
    global _warned_inside_context
    if not _warned_inside_context:
        _warned_inside_context = True
        warnings.warn(
            "gradient() was called on a persistent tape inside its own with block, so the backward pass is "
            "recorded on the tape too: this costs time and memory. Call it after the block, unless you want "
            "this recording to take a higher-order derivative.",
            stacklevel=3,
        )
