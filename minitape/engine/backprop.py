"""Reverse mode: walk a tape's records backwards, applying each op's gradient rule.

The records are in execution order, a topological order of the graph, so one loop over them
in reverse suffices: no recursion, so tapes of any length work. This is the only backward
sweep in minitape: viewers listen to it through an `Observer`.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from minitape.engine import context, unwatched
from minitape.engine.context import state
from minitape.engine.gradient_args import checked_gradient, one_per_input
from minitape.engine.opdef import defop, lookup
from minitape.engine.operation import Operation
from minitape.engine.record import DTYPES, INPUT_IDS, INPUT_SHAPES, OUTPUT_IDS, OUTPUT_SHAPES
from minitape.engine.tensor import Tensor


def backward(records: list, seeds: dict[int, Tensor], source_ids: set[int], observer: Observer | None = None) -> dict:
    """Propagate `seeds` (the gradient at each target, by id) back to `source_ids`; return their gradients."""
    reached, relevant = reachable_from(records, source_ids)
    grads = dict(seeds)  # tensor id -> the sum of the gradients that reached it so far
    quiet = context.quiet_numpy()  # NaN and inf are values here, as in TensorFlow: no warnings
    try:
        with unwatched.sweep(observer):  # nothing sees the rules' ops? They take a shortcut (unwatched.py)
            for record in reversed(relevant):
                upstream = take_upstream(grads, record, source_ids)
                if upstream is None:
                    continue  # no gradient reached this record
                op = Operation(record, needs=tuple(map(reached.__contains__, record[INPUT_IDS])))
                input_grads = apply_rule(op, upstream, observer)
                add_contributions(grads, op, input_grads, reached, observer)
    finally:
        context.restore_numpy(quiet)
    result = {i: grads[i] for i in source_ids if i in grads}
    if observer is not None:
        observer.complete(result)
    return result


def reachable_from(records: list, source_ids: set[int]) -> tuple[set[int], list]:
    """The ids that depend on a source, and the records on those paths, in tape order."""
    reached = set(source_ids)
    relevant = []
    for record in records:
        if not reached.isdisjoint(record[INPUT_IDS]):
            relevant.append(record)
            reached.update(record[OUTPUT_IDS])
    return reached, relevant


def take_upstream(grads: dict, record: tuple, source_ids: set[int]) -> list | None:
    """The gradient of each of the record's outputs; None if no gradient reached any of them.

    Every op that used an output came later on the tape, so the output's gradient is complete here. It is
    taken out of `grads`, to be freed once the rule has used it; a source's gradient stays: it is the answer.
    """
    take = grads.pop if source_ids.isdisjoint(record[OUTPUT_IDS]) else grads.get
    upstream = [take(i, None) for i in record[OUTPUT_IDS]]
    if len(upstream) == 1:  # the common case, told without a scan
        return upstream if upstream[0] is not None else None
    if all(g is None for g in upstream):
        return None
    n_inputs = len(record[INPUT_IDS])
    for k, g in enumerate(upstream):
        if g is None:  # an output nobody used: its gradient is zero
            upstream[k] = Tensor(np.zeros(record[OUTPUT_SHAPES][k], record[DTYPES][n_inputs + k]))
    return upstream


def apply_rule(op: Operation, upstream: list, observer: Observer | None) -> Any:
    """The rule's gradient for each input of `op`; None where the path is cut (no gradient, or no rule)."""
    try:
        rule = op.grad_fn or lookup(op.type)
    except LookupError as error:
        if observer is not None and observer.missing_rule(op, error):
            return None
        raise
    if rule is None:  # declared with no_gradient (stop_gradient, say): the path is cut here
        if observer is not None:
            observer.no_gradient(op)
        return None
    if observer is not None:
        observer.rule(op, upstream)
    outer, state.backward_of = state.backward_of, op  # a tape recording the rule's ops learns whose they are
    try:
        input_grads = rule(op, *upstream)
    finally:
        state.backward_of = outer
    if type(input_grads) is tuple and len(input_grads) == len(op.record[INPUT_IDS]):
        return input_grads  # one per input, as a rule should give them
    return one_per_input(op, input_grads)  # a list, a lone gradient; a wrong count is refused


def add_contributions(grads: dict, op: Operation, input_grads: Any, reached: set, observer: Observer | None) -> None:
    """Add each input's gradient to the sum of those that reached it before (the chain rule's sum over paths)."""
    record = op.record
    for slot, (i, g) in enumerate(zip(record[INPUT_IDS], input_grads or ())):
        if g is None or i not in reached:
            continue
        if type(g) is not Tensor or g._value.shape != record[INPUT_SHAPES][slot]:
            g = checked_gradient(op, slot, g)  # a number or an array becomes a tensor; a wrong shape is refused
        grads[i] = g if i not in grads else add_n(grads[i], g)
        if observer is not None:
            observer.contribution(op, slot, g, grads[i])


# The sum of the gradients meeting at one tensor is an op like any other, so a tape that records the
# backward pass sees it (TensorFlow's tapes sum them with AddN too).
add_n = defop(
    "AddN",
    lambda *arrays: functools.reduce(np.add, arrays),
    lambda op, g: (g,) * len(op.input_ids),
    keep="nothing",
    same_dtype="all",
)


class Observer:
    """What a listener hears from `backward`, in order. Subclass it and override what you need.

    The visualizer's step model is one: it shows the numbers the engine computes, because it hears
    them from the engine's own sweep instead of computing them again.
    """

    def rule(self, op: Operation, upstream: list) -> None:
        """`op`'s rule is about to run; `upstream` holds the complete gradient of each of its outputs."""

    def no_gradient(self, op: Operation) -> None:
        """A gradient reached `op`, which has no gradient (`no_gradient`, e.g. stop_gradient): it stops here."""

    def missing_rule(self, op: Operation, error: LookupError) -> bool:
        """A gradient reached `op`, which has no registered rule. Return True to go on; False raises `error`."""
        return False

    def contribution(self, op: Operation, slot: int, grad: Tensor, total: Tensor) -> None:
        """The rule gave `grad` for input `slot`; `total` is that input's running sum so far."""

    def complete(self, grads: dict[int, Tensor]) -> None:
        """The sweep is over: the gradient of every source a path reached, by id."""
