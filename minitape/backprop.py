"""Reverse mode: walk a tape's records backwards, applying each op's gradient rule.

The records are in execution order, a topological order of the graph, so one loop over them
in reverse suffices: no recursion, so tapes of any length work. This is the only backward
sweep in minitape: `explain()` and the visualizer listen to it through an observer.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minitape import registry
from minitape.context import state
from minitape.convert import convert_to_tensor
from minitape.ops.math_ops import add
from minitape.tensor import Tensor


class Observer:
    """What a listener hears from `backward`, in order. Subclass it and override what you need."""

    def rule(self, op: Any, upstream: list) -> None:
        """`op`'s rule is about to run; `upstream` holds the complete gradient of each of its outputs."""

    def no_gradient(self, op: Any) -> None:
        """A gradient reached `op`, which has no gradient (`no_gradient`, e.g. stop_gradient): it stops here."""

    def missing_rule(self, op: Any, error: LookupError) -> bool:
        """A gradient reached `op`, which has no registered rule. Return True to go on; False raises `error`."""
        return False

    def contribution(self, op: Any, slot: int, grad: Tensor, total: Tensor) -> None:
        """The rule gave `grad` for input `slot`; `total` is that input's running sum so far."""

    def complete(self, grads: dict[int, Tensor]) -> None:
        """The sweep is over: the gradient of every source a path reached, by id."""


def reachable_from(records: list, source_ids: set[int]) -> tuple[set[int], list]:
    """The ids that depend on a source, and the records on those paths, in tape order."""
    reached = set(source_ids)
    relevant = []
    for op in records:
        if not reached.isdisjoint(op.input_ids):
            relevant.append(op)
            reached.update(op.output_ids)
    return reached, relevant


def backward(records: list, seeds: dict[int, Tensor], source_ids: set[int], observer: Any = None) -> dict:
    """Propagate `seeds` (the gradient at each target, by id) back to `source_ids`; return their gradients."""
    reached, relevant = reachable_from(records, source_ids)
    grads: dict[int, Tensor] = dict(seeds)
    for op in reversed(relevant):
        # an output's gradient is complete here (all its consumers came later on the tape): pop it, so it is
        # freed once the rule has used it; a source's gradient stays, it is the answer
        upstream = [grads.get(i) if i in source_ids else grads.pop(i, None) for i in op.output_ids]
        missing = [k for k, g in enumerate(upstream) if g is None]
        if len(missing) == len(upstream):
            continue
        try:
            rule = op.grad_fn or registry.lookup(op.type)
        except LookupError as error:
            if observer is None or not observer.missing_rule(op, error):
                raise
            continue
        if rule is None:  # declared with no_gradient: the path is cut here
            if observer is not None:
                observer.no_gradient(op)
            continue
        for k in missing:  # an output nobody used: its gradient is zero
            upstream[k] = Tensor(np.zeros(op.output_shapes[k], op.output_dtypes[k].as_numpy_dtype))
        op.needs = tuple([i in reached for i in op.input_ids])
        if observer is not None:
            observer.rule(op, upstream)
        outer, state.backward_of = state.backward_of, op
        try:
            input_grads = checked(op, rule(op, *upstream))
        finally:
            state.backward_of = outer
        for slot, (i, g) in enumerate(zip(op.input_ids, input_grads)):
            if g is not None and i in reached:
                grads[i] = g if i not in grads else add(grads[i], g)
                if observer is not None:
                    observer.contribution(op, slot, g, grads[i])
    result = {i: grads[i] for i in source_ids if i in grads}
    if observer is not None:
        observer.complete(result)
    return result


def checked(op: Any, input_grads: Any) -> list | tuple:
    """A rule's result as one tensor (or None) per input, each of its input's shape."""
    if not isinstance(input_grads, (list, tuple)):
        input_grads = [input_grads]
    if len(input_grads) != len(op.input_ids):
        raise ValueError(
            f"the gradient function of {op.type} returned {len(input_grads)} gradient(s), "
            f"but {op.type} has {len(op.input_ids)} input(s): return one gradient (or None) per input"
        )
    out = list(input_grads)
    for k, (g, shape) in enumerate(zip(input_grads, op.input_shapes)):
        if g is None or (type(g) is Tensor and g._value.shape == shape):
            continue
        if not isinstance(g, Tensor):  # a rule may return a number, an array or a variable
            g = out[k] = convert_to_tensor(g, dtype_hint=op.input_dtypes[k])
        if g._value.shape != tuple(shape):
            raise ValueError(
                f"the gradient function of {op.type} returned a gradient of shape {tuple(g.shape)} "
                f"for input {k}, which has shape {tuple(shape)}"
            )
    return out
