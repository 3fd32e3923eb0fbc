"""Forward mode: `ForwardAccumulator` pushes tangents forward alongside the values (Jacobian-vector products).

No op needs a forward-mode rule of its own: the JVP of an op is derived from its
reverse-mode rule. That rule computes u -> J^T u, which is linear in u, so
J t = d/du <J^T u, t>: one small backward pass over the rule itself.
"""

from __future__ import annotations

import contextlib
import weakref
from collections.abc import Iterator
from typing import Any

import numpy as np

from minitape.engine.context import state
from minitape.engine.gradient_args import UnconnectedGradients, as_unconnected, checked
from minitape.engine.opdef import lookup
from minitape.engine.operation import Operation
from minitape.engine.tape import ENTERING, GradientTape
from minitape.engine.tensor import Tensor
from minitape.values import nest
from minitape.values.convert import convert_to_tensor
from minitape.values.tensor_like import TensorLike


class ForwardAccumulator:
    """Inside `with ForwardAccumulator(primals, tangents) as acc:`, `acc.jvp(y)` is dy/dprimals · tangents.

    `observer(op, input_tangents, output_tangents)`, if given, hears each JVP as it is computed;
    `acc.records` keeps the ops that carried a tangent, in order (for viewers).
    """

    def __init__(self, primals: Any, tangents: Any, observer: Any = None) -> None:
        flat_p, flat_t = nest.flatten(primals), nest.flatten(tangents)
        if len(flat_p) != len(flat_t):
            raise ValueError(
                f"ForwardAccumulator got {len(flat_p)} primal(s) but {len(flat_t)} tangent(s): tangents must have "
                "the structure of primals (a list is read as one tangent per primal; give a tensor's tangent as "
                "one tensor, e.g. mt.constant([...]))"
            )
        self._tangents: dict[int, Tensor] = {}
        if len({id(p) for p in flat_p}) != len(flat_p):
            raise ValueError(
                "ForwardAccumulator: a tensor was given as a primal more than once; "
                "watch it once, with the sum of its tangents"
            )
        for p, t in zip(flat_p, flat_t):
            if not isinstance(p, TensorLike):
                raise ValueError(f"primals must be tensors or variables, not {type(p).__name__}")
            t = convert_to_tensor(t, dtype_hint=p.dtype)
            if t._array().shape != p._array().shape or t.dtype != p.dtype:
                raise ValueError(
                    f"a tangent must match its primal: got {t.dtype.name}{list(t.shape)} for a primal "
                    f"of {p.dtype.name}{list(p._array().shape)}"
                )
            self._tangents[p._id] = t
        self._observer = observer
        self._stack: list = []  # the open accumulators of the thread that entered this one (context.py's state)
        self._entered = 0  # when the block was entered, counted by tape.py's ENTERING (as tapes are)
        self._records: list = []
        self._alive: dict = {}  # tensor id -> weak reference: the values its records read and made, while alive

    def __enter__(self) -> ForwardAccumulator:
        if self in state.accumulators or self in self._stack:
            raise ValueError("this ForwardAccumulator is already recording: it cannot be entered again inside itself")
        self._stack = state.accumulators  # this thread's: it follows the ops of the thread that entered it
        self._stack.append(self)
        self._entered = next(ENTERING)  # nesting (outer or inner) is the order of entering, as in TensorFlow
        return self

    def __exit__(self, *exc: Any) -> None:
        if self in self._stack:  # from the opening thread's stack, whichever thread leaves the block
            self._stack.remove(self)

    @property
    def records(self) -> tuple:
        """The ops that carried a tangent, in the order they ran."""
        return tuple(self._records)

    def tangent_of(self, tensor_id: int) -> Any:
        """The tangent of the tensor with this id, or None."""
        return self._tangents.get(tensor_id)

    def propagate(self, record: tuple, inputs: list, outputs: list) -> None:
        """Called by every op run inside the block: give its outputs tangents if an input has one."""
        op = Operation(record, self._alive)
        tangents = [self._tangents.get(i) for i in op.input_ids]
        if all(t is None for t in tangents):
            return
        self._alive.update((t._id, weakref.ref(t)) for t in (*inputs, *outputs))
        rule = op.grad_fn or lookup(op.type)
        if rule is None or not any(d.is_floating for d in op.output_dtypes):
            return  # no gradient, or only integer/bool outputs: they carry no tangent
        with self._outer_only():
            jvps = _jvps(op, rule, tangents)
        for i, j in zip(op.output_ids, jvps):
            if j is not None:
                self._tangents[i] = j
        self._records.append(op)
        if self._observer is not None:
            self._observer(op, tangents, jvps)

    @contextlib.contextmanager
    def _outer_only(self) -> Iterator[None]:
        """While this accumulator computes a JVP, only the tapes and accumulators entered before it follow.

        TensorFlow's nesting: an outer tape or accumulator sees the JVP computations (a tape outside takes
        gradients of tangents, an accumulator outside takes higher derivatives); an inner one, entered after
        this accumulator, does not (nor does this accumulator itself), so it keeps nothing of them.
        """
        saved = state.tapes, state.accumulators
        state.tapes = [t for t in saved[0] if t._entered < self._entered]
        state.accumulators = [a for a in saved[1] if a._entered < self._entered]
        try:
            yield
        finally:
            state.tapes, state.accumulators = saved

    def carry(self, originals: list, copies: list) -> None:
        """Give each of `copies` the tangent of the tensor it copies (custom_gradient's outputs)."""
        for original, copy in zip(originals, copies):
            if original._id in self._tangents:
                self._tangents[copy._id] = self._tangents[original._id]

    def jvp(self, primals: Any, unconnected_gradients: UnconnectedGradients | str = UnconnectedGradients.NONE) -> Any:
        """The tangent of each of `primals`: its Jacobian with respect to the watched primals times their tangents."""
        unconnected = as_unconnected(unconnected_gradients)

        def tangent(p: Any) -> Any:
            if not isinstance(p, TensorLike):
                raise ValueError(
                    f"jvp() takes tensors computed inside the accumulator's block, not {type(p).__name__} {p!r}"
                )
            t = self._tangents.get(p._id)
            if t is None and unconnected is UnconnectedGradients.ZERO:
                t = Tensor(np.zeros_like(p._array()))
            return t

        return nest.map_structure(tangent, primals)


def _jvps(op: Operation, rule: Any, tangents: list) -> list:
    """The tangent of each output of `op` (None for a non-floating one), from its reverse-mode rule."""
    # any u serves a linear rule; ones, not zeros: a rule that is 0 where u is 0 (Sqrt's, as TensorFlow's)
    # is linear everywhere else, but flat at exactly u = 0
    dummies = [Tensor(np.ones(s, d.as_numpy_dtype)) for s, d in zip(op.output_shapes, op.output_dtypes)]
    with GradientTape() as helper:
        helper.watch([d for d in dummies if d.dtype.is_floating])
        op.needs = [t is not None for t in tangents]
        vjps = checked(op, rule(op, *dummies))
    pairs = [(v, t) for v, t in zip(vjps, tangents) if v is not None and t is not None]
    floating = [d for d in dummies if d.dtype.is_floating]
    # J t = d/du <J^T u, t>: the gradient of the VJPs with the tangents as their output gradients
    targets, weights = [v for v, _ in pairs], [t for _, t in pairs]
    found = iter(helper.gradient(targets, floating, weights) if pairs else [None] * len(floating))
    return [next(found) if d.dtype.is_floating else None for d in dummies]
