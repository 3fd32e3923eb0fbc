"""Reverse mode: walk a tape's records backwards, applying each op's gradient rule.

The records are in execution order, a topological order of the graph, so one loop over them
in reverse suffices: no recursion, so tapes of any length work. This is the only backward
sweep in minitape: `explain()` and the visualizer listen to it through an observer.
"""

from __future__ import annotations

import itertools

import numpy as np

from minitape.engine import bare, registry
from minitape.engine.context import IGNORE_ALL, NUMPY_ERRORS, state
from minitape.engine.gradient_args import checked_gradient, one_per_input
from minitape.engine.observer import Observer
from minitape.engine.operation import Operation
from minitape.engine.record import DTYPES, GRAD_FN, INPUT_IDS, INPUT_SHAPES, OUTPUT_IDS, TYPE
from minitape.engine.tensor import Tensor
from minitape.ops.math_ops import add


def reachable_from(records: list, source_ids: set[int]) -> tuple[set[int], list]:
    """The ids that depend on a source, and the records on those paths, in tape order."""
    reached = set(source_ids)
    relevant = []
    for record in records:
        if not reached.isdisjoint(record[INPUT_IDS]):
            relevant.append(record)
            reached.update(record[OUTPUT_IDS])
    return reached, relevant


def backward(records: list, seeds: dict[int, Tensor], source_ids: set[int], observer: Observer | None = None) -> dict:
    """Propagate `seeds` (the gradient at each target, by id) back to `source_ids`; return their gradients."""
    reached, relevant = reachable_from(records, source_ids)
    is_reached = reached.__contains__  # bound once: binding it costs as much as asking it
    # see bare.py; mt.function hook: a tracer listens too, so a traced backward pass runs its rules' ops as tensors
    unseen = observer is None and not (state.tapes or state.accumulators or state.check_numerics or state.tracers)
    grads: dict = {i: g._value for i, g in seeds.items()} if unseen else dict(seeds)
    outer, quiet = (state.backward_of, state.bare), NUMPY_ERRORS.set(IGNORE_ALL)  # NaN, inf: values, no warnings
    state.bare = running_bare = False
    try:
        for record in reversed(relevant):
            input_ids, output_ids = record[INPUT_IDS], record[OUTPUT_IDS]
            # an output's gradient is complete here (all its consumers came later on the tape): pop it, so it is
            # freed once the rule has used it; a source's gradient stays, it is the answer
            take = grads.get if not source_ids.isdisjoint(output_ids) else grads.pop
            upstream = [take(output_ids[0], None)] if len(output_ids) == 1 else list(map(take, output_ids, _NONE))
            single = len(upstream) == 1 and upstream[0] is not None  # the common case, told without a scan
            missing = () if single else [k for k, g in enumerate(upstream) if g is None]
            if len(missing) == len(upstream):
                continue  # no gradient reached this record
            op = Operation(record, None, tuple(map(is_reached, input_ids)))  # what the rule reads
            try:
                rule = record[GRAD_FN] or registry.lookup(record[TYPE])
            except LookupError as error:
                if observer is None or not observer.missing_rule(op, error):
                    raise
                continue
            if rule is None:  # declared with no_gradient: the path is cut here
                if observer is not None:
                    observer.no_gradient(op)
                continue
            for k in missing:  # an output nobody used: its gradient is zero
                upstream[k] = np.zeros(op.output_shapes[k], record[DTYPES][len(input_ids) + k])
            if running_bare is not (unseen and record[GRAD_FN] is None and bare.runs_bare(rule)):
                state.bare = running_bare = not running_bare  # set only when the kind of rule changes
            if not running_bare:  # the rule gets tensors, and a tape that records its ops learns whose they are
                state.backward_of, upstream = op, bare.tensors(upstream)
            if observer is not None:
                observer.rule(op, upstream)
            input_grads = rule(op, *upstream)
            state.backward_of = outer[0]  # summing the contributions is no rule's work
            if type(input_grads) is not tuple or len(input_grads) != len(input_ids):
                input_grads = one_per_input(op, input_grads)  # a list, a lone gradient; a wrong count is refused
            for slot, (i, g, shape) in enumerate(zip(input_ids, input_grads, record[INPUT_SHAPES])):
                if g is not None and (type(g) is not np.ndarray or g.shape != shape):
                    g = checked_gradient(op, slot, g)  # a tensor, a number: converted; a wrong shape is refused
                if g is not None and i in reached:
                    grads[i] = g if i not in grads else add(grads[i], g)
                    if observer is not None:
                        observer.contribution(op, slot, g, grads[i])
    finally:
        state.backward_of, state.bare = outer
        NUMPY_ERRORS.reset(quiet)
    result = {i: bare.tensor(grads[i]) for i in source_ids if i in grads}
    if observer is not None:
        observer.complete(result)
    return result


_NONE = itertools.repeat(None)  # the default for every pop and get above
