"""`Operation`: a recorded op call (a tuple made by record.py) as a gradient rule, explain() and viewers read it."""

from __future__ import annotations

from minitape.engine import record as fields
from minitape.engine.context import state
from minitape.engine.record_view import RecordView, field
from minitape.engine.tensor import Tensor


class Operation(RecordView):
    """A recorded op call, as a gradient rule `rule(op, *upstream)` reads it:

      op.inputs, op.outputs   the tensors, where the op keeps them (`keep` in `defop`)
      op.attrs                the non-tensor arguments, e.g. {"axis": 0}
      op.input_shapes, op.input_dtypes, op.output_shapes, op.output_dtypes
      op.needs                per input: does a source depend on it (skip the others)
      op.x, op.y, op.z        shorthands for the first input, the second input and the output

    and for explain() and viewers (record_view.py): type, ids, scope, where, alive_inputs(), ...
    """

    __slots__ = ("record", "needs", "_alive")

    def __init__(self, record: tuple, alive: dict | None = None, needs: tuple | None = None) -> None:
        self.record, self._alive = record, alive
        self.needs = needs or (True,) * len(record[fields.INPUT_IDS])  # a backward pass says which lead to a source

    type = field(fields.TYPE)
    grad_fn = field(fields.GRAD_FN)
    input_ids = field(fields.INPUT_IDS)
    output_ids = field(fields.OUTPUT_IDS)
    input_shapes = field(fields.INPUT_SHAPES)
    output_shapes = field(fields.OUTPUT_SHAPES)
    attrs = property(lambda op: op.record[fields.ATTRS] or {}, doc='the non-tensor arguments, e.g. {"axis": 0}')

    inputs = property(lambda op: _tensors(op, fields.KEPT_INPUTS, fields.INPUT_IDS, "inputs"))
    outputs = property(lambda op: _tensors(op, fields.KEPT_OUTPUTS, fields.OUTPUT_IDS, "outputs"))

    # the shorthands rules use; in a backward pass nothing listens to, the arrays themselves (bare.py)
    x = property(lambda op: op.record[fields.KEPT_INPUTS][0] if state.bare else op.inputs[0], doc="The first input.")
    y = property(lambda op: op.record[fields.KEPT_INPUTS][1] if state.bare else op.inputs[1], doc="The second input.")
    z = property(lambda op: op.record[fields.KEPT_OUTPUTS][0] if state.bare else op.outputs[0], doc="The output.")


def _tensors(op: Operation, field: int, ids: int, what: str) -> list:
    """The kept arrays as tensors with their recorded ids, so that a tape recording the rule knows them."""
    arrays = op.record[field]
    if arrays is None:
        raise AttributeError(f"{op.type} does not keep its {what}: its gradient rule must not need them")
    tensors = [Tensor.__new__(Tensor) for _ in arrays]
    for tensor, value, tensor_id in zip(tensors, arrays, op.record[ids]):
        tensor._value, tensor._id = value, tensor_id
    return tensors
