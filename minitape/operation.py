"""`Operation`: one op call recorded on a tape, and what its gradient rule may read.

A record names the tensors it read and produced by id, with their shapes and dtypes, so the
graph outlives the tensors. It keeps the tensors themselves only where its rule needs them
(`keep`), as TensorFlow does: `exp` keeps its output, `add` nothing. Weak references let a
viewer show values that are still alive without keeping them alive.
"""

from __future__ import annotations

import weakref
from typing import Any

from minitape.context import state
from minitape.record_view import RecordView
from minitape.where import user_code


class Operation(RecordView):
    """A recorded op call. A gradient rule `rule(op, *upstream)` reads:

      op.inputs, op.outputs   the tensors, where the op keeps them (`keep` in `defop`)
      op.attrs                the non-tensor arguments, e.g. {"axis": 0}
      op.input_shapes, op.input_dtypes, op.output_shapes, op.output_dtypes
      op.needs                per input: does a source depend on it (skip the others)
      op.x, op.y, op.z        shorthands for the first input, the second input and the output

    and for explain() and viewers: type, input_ids, output_ids, scope, where (the user's file and
    line), backward_of (the op whose gradient rule ran it), alive_inputs() / alive_outputs().
    """

    # slots, not a dict per record: a long tape holds very many of them
    __slots__ = "type attrs grad_fn input_ids output_ids input_shapes output_shapes _dtypes _refs".split()
    __slots__ += "_inputs _outputs _where scope needs backward_of holders".split()

    def __init__(
        self, op_type: str, ids: tuple, inputs: Any, outputs: list, attrs: dict, keep: str, grad_fn: Any, caller: Any
    ) -> None:
        self.type, self.attrs, self.grad_fn, self.input_ids = op_type, attrs, grad_fn, ids
        self.output_ids = tuple([t._id for t in outputs])
        tensors = (*inputs, *outputs)
        values = [t._value for t in tensors]  # one pass per kind of fact: cheaper than one per tensor
        shapes, n = tuple([v.shape for v in values]), len(ids)
        self.input_shapes, self.output_shapes = shapes[:n], shapes[n:]
        self._dtypes = tuple([v.dtype for v in values])  # numpy dtypes; input_dtypes makes them DTypes
        self._refs = tuple(map(weakref.ref, tensors))
        self._inputs = inputs if keep == "both" or keep == "inputs" else None
        self._outputs = outputs if keep == "both" or keep == "outputs" else None
        self._where = user_code(caller)
        self.scope = state.scope  # e.g. "my_model/dense_1": viewers group records by it
        self.needs = (True,) * n  # until a backward pass says which inputs lead to a source
        running = state.backward_of  # the record whose gradient rule ran this op, if any
        self.backward_of = running.type if running is not None else None
        self.holders = 0  # how many tapes hold this record (a one-shot tape strips it in place if alone)

    @property
    def inputs(self) -> list:
        if self._inputs is None:
            raise AttributeError(f"{self.type} does not keep its inputs: its gradient rule must not need them")
        return self._inputs

    @property
    def outputs(self) -> list:
        if self._outputs is None:
            raise AttributeError(f"{self.type} does not keep its outputs: its gradient rule must not need them")
        return self._outputs

    # the shorthands rules use; in a backward pass nothing listens to, the arrays themselves (bare.py)
    x = property(lambda self: _kept(self.inputs[0]), doc="The first input (what the op tables' rules call x).")
    y = property(lambda self: _kept(self.inputs[1]), doc="The second input.")
    z = property(lambda self: _kept(self.outputs[0]), doc="The (first) output.")


def _kept(tensor: Any) -> Any:
    return tensor._value if state.bare else tensor
