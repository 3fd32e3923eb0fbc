"""`Operation`: one op call recorded on a tape, and what its gradient rule may read.

A record names the tensors it read and produced by id, with their shapes and dtypes, so the
graph outlives the tensors. It keeps the tensors themselves only where its rule needs them
(`keep`), as TensorFlow does: `exp` keeps its output, `add` nothing. Weak references let a
viewer show values that are still alive without keeping them alive.
"""

from __future__ import annotations

import operator
import weakref
from typing import Any

from minitape.context import state
from minitape.record_view import RecordView
from minitape.where import user_code

_ID, _SHAPE, _DTYPE = (operator.attrgetter(a) for a in ("_id", "_value.shape", "_value.dtype"))


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
        self.type, self.attrs, self.grad_fn = op_type, attrs, grad_fn
        self.input_ids, self.output_ids = ids, tuple(map(_ID, outputs))
        self.input_shapes, self.output_shapes = tuple(map(_SHAPE, inputs)), tuple(map(_SHAPE, outputs))
        self._dtypes = tuple(map(_DTYPE, inputs)), tuple(map(_DTYPE, outputs))
        self._refs = tuple(map(weakref.ref, inputs)), tuple(map(weakref.ref, outputs))
        self._inputs = inputs if keep == "both" or keep == "inputs" else None
        self._outputs = outputs if keep == "both" or keep == "outputs" else None
        self._where = user_code(caller)
        self.scope = state.scope  # e.g. "my_model/dense_1": viewers group records by it
        self.needs = (True,) * len(ids)
        self.backward_of = state.backward_of.type if state.backward_of is not None else None
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

    @property
    def x(self) -> Any:
        """The first input (what the op tables' rules call x)."""
        return self.inputs[0]

    @property
    def y(self) -> Any:
        """The second input."""
        return self.inputs[1]

    @property
    def z(self) -> Any:
        """The (first) output."""
        return self.outputs[0]
