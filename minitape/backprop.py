"""Reverse mode: walk a tape's records backwards, applying each op's gradient rule.

The records are in execution order, which is a topological order of the graph, so
one backward loop over them suffices: no recursion, so tapes of any length work.
"""

from __future__ import annotations

import numpy as np

from minitape import context, registry
from minitape.execute import convert_to_tensor
from minitape.ops.math_ops import add
from minitape.tensor import Tensor


def reachable_from(records: list, source_ids: set[int]) -> tuple[set[int], list]:
    """The ids that depend on a source, and the records on those paths, in tape order."""
    reached = set(source_ids)
    relevant = []
    for op in records:
        if not reached.isdisjoint(op.input_ids):
            relevant.append(op)
            reached.update(op.output_ids)
    return reached, relevant


def backward(records: list, seeds: dict[int, Tensor], source_ids: set[int]) -> dict[int, Tensor]:
    """Propagate `seeds` (gradients at the targets, by id) back to `source_ids`.

    Returns the accumulated gradient of every source that a path reaches.
    """
    reached, relevant = reachable_from(records, source_ids)
    grads: dict[int, Tensor] = dict(seeds)
    for op in reversed(relevant):
        # an output's gradient is complete here (its consumers all came later on the tape): take it out of
        # `grads`, which frees it as soon as the rule has used it; a source's gradient stays, it is the answer
        if len(op.output_ids) == 1:  # most ops: the general case below, without its two lists
            i = op.output_ids[0]
            upstream = [grads.get(i) if i in source_ids else grads.pop(i, None)]
            if upstream[0] is None:
                continue
            missing = ()
        else:
            upstream = [grads.get(i) if i in source_ids else grads.pop(i, None) for i in op.output_ids]
            missing = [k for k, g in enumerate(upstream) if g is None]
            if len(missing) == len(upstream):
                continue
        rule = op.grad_fn or registry.lookup(op.type)
        if rule is None:  # registered with no_gradient
            continue
        for k in missing:  # an output nobody used: its gradient is zero
            upstream[k] = Tensor(np.zeros(op.output_shapes[k], op.output_dtypes[k].as_numpy_dtype))
        op.needs = [i in reached for i in op.input_ids]
        outer, context.backward_of = context.backward_of, op
        try:
            input_grads = rule(op, *upstream)
        finally:
            context.backward_of = outer
        for i, g in zip(op.input_ids, _as_list(op, input_grads)):
            if g is not None and i in reached:
                grads[i] = g if i not in grads else add(grads[i], g)
    return {i: grads[i] for i in source_ids if i in grads}


def _as_list(op, input_grads) -> list | tuple:
    """Check a rule's result: one gradient (or None) per input, each of its input's shape."""
    if not isinstance(input_grads, (list, tuple)):
        input_grads = [input_grads]
    if len(input_grads) != len(op.input_ids):
        raise ValueError(
            f"the gradient function of {op.type} returned {len(input_grads)} gradient(s), "
            f"but {op.type} has {len(op.input_ids)} input(s): return one gradient (or None) per input"
        )
    for g, shape in zip(input_grads, op.input_shapes):
        if g is not None and (type(g) is not Tensor or g._value.shape != shape):
            break
    else:
        return input_grads  # the usual case: tensors of the right shapes, nothing to convert
    out = []
    for k, (g, shape) in enumerate(zip(input_grads, op.input_shapes)):
        if g is not None:
            if not isinstance(g, Tensor):  # a rule may return a number, an array or a variable
                g = convert_to_tensor(g, dtype_hint=op.input_dtypes[k])
            if g._value.shape != tuple(shape):
                raise ValueError(
                    f"the gradient function of {op.type} returned a gradient of shape {tuple(g.shape)} "
                    f"for input {k}, which has shape {tuple(shape)}"
                )
        out.append(g)
    return out
