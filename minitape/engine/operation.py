"""`Operation`: a recorded op call (a tuple made by record.py) as a gradient rule, explain() and viewers read it."""

from __future__ import annotations

from typing import Any

from minitape.engine.record import (
    ATTRS,
    BACKWARD_OF,
    DTYPES,
    GRAD_FN,
    INPUT_IDS,
    INPUT_SHAPES,
    KEPT_INPUTS,
    KEPT_OUTPUTS,
    OUTPUT_IDS,
    OUTPUT_SHAPES,
    SCOPE,
    TYPE,
    WHERE,
)  # fmt: skip
from minitape.engine.tensor import Tensor
from minitape.engine.where import line_of
from minitape.values.dtypes import DType, as_dtype


def field(index: int, doc: str | None = None) -> property:
    """A read-only attribute of the view that is one field of its record tuple."""
    return property(lambda op: op.record[index], doc=doc)


class Operation:
    """A recorded op call, as a gradient rule `rule(op, *upstream)` reads it:

      op.inputs, op.outputs   the tensors, where the op keeps them (`keep` in `defop`)
      op.x, op.y, op.z        shorthands for the first input, the second input and the output
      op.attrs                the non-tensor arguments, e.g. {"axis": 0}
      op.input_shapes, op.input_dtypes, op.output_shapes, op.output_dtypes
      op.needs                per input: does a source depend on it (skip the others)

    and for explain() and viewers: type, ids, scope, where, alive_inputs(), saved_tensors(), ...
    """

    __slots__ = ("record", "needs", "_alive")

    def __init__(self, record: tuple, alive: dict | None = None, needs: tuple | None = None) -> None:
        self.record, self._alive = record, alive
        self.needs = needs or (True,) * len(record[INPUT_IDS])  # a backward pass says which lead to a source

    type = field(TYPE)
    grad_fn = field(GRAD_FN)
    input_ids = field(INPUT_IDS)
    output_ids = field(OUTPUT_IDS)
    input_shapes = field(INPUT_SHAPES)
    output_shapes = field(OUTPUT_SHAPES)
    scope = field(SCOPE, doc='e.g. "my_model/dense_1": viewers group records by it')
    backward_of = field(BACKWARD_OF, doc="the type of the op whose gradient rule ran this one")
    attrs = property(lambda op: op.record[ATTRS] or {}, doc='the non-tensor arguments, e.g. {"axis": 0}')

    inputs = property(lambda op: _tensors(op, KEPT_INPUTS, INPUT_IDS, "inputs"), doc="The kept input tensors.")
    outputs = property(lambda op: _tensors(op, KEPT_OUTPUTS, OUTPUT_IDS, "outputs"), doc="The kept outputs.")

    x = property(lambda op: _tensor(op, KEPT_INPUTS, INPUT_IDS, 0), doc="The first input.")
    y = property(lambda op: _tensor(op, KEPT_INPUTS, INPUT_IDS, 1), doc="The second input.")
    z = property(lambda op: _tensor(op, KEPT_OUTPUTS, OUTPUT_IDS, 0), doc="The output.")

    # ---- for explain(), tape.stats() and viewers; none of this is needed to compute a gradient ----
    @property
    def where(self) -> tuple[str, int] | None:
        """(file, line) of the user's code that ran the op."""
        return line_of(self.record[WHERE])

    @property
    def input_dtypes(self) -> tuple[DType, ...]:
        return tuple(map(as_dtype, self.record[DTYPES][: len(self.input_ids)]))

    @property
    def output_dtypes(self) -> tuple[DType, ...]:
        return tuple(map(as_dtype, self.record[DTYPES][len(self.input_ids) :]))

    @property
    def name(self) -> str:
        return self.type

    def get_attr(self, name: str) -> Any:
        return self.attrs[name]

    def alive_inputs(self) -> list:
        """Each input tensor (or variable) whose value can still be shown, else None.

        A record keeps only what its rule needs; a tape also knows, by weak reference, the values it
        did not compute (what it watches, constants, variables) while they are alive.
        """
        return self._values(self.input_ids, KEPT_INPUTS, "inputs")

    def alive_outputs(self) -> list:
        return self._values(self.output_ids, KEPT_OUTPUTS, "outputs")

    def _values(self, ids: tuple, field: int, kept: str) -> list:
        values = getattr(self, kept) if self.record[field] is not None else [None] * len(ids)
        refs = self._alive or {}
        alive = [refs[i]() if i in refs else None for i in ids]
        return [a if a is not None else v for a, v in zip(alive, values)]

    def saved_tensors(self) -> list:
        """The tensors this record keeps alive for its rule (what it costs in memory)."""
        inputs = self.inputs if self.record[KEPT_INPUTS] is not None else []
        return inputs + (self.outputs if self.record[KEPT_OUTPUTS] is not None else [])

    def __eq__(self, other: object) -> bool:  # two views of one record are the same op
        return isinstance(other, Operation) and other.record is self.record

    def __hash__(self) -> int:
        return id(self.record)

    def __repr__(self) -> str:
        ins = ", ".join(f"#{i}" for i in self.input_ids)
        outs = ", ".join(f"#{i}" for i in self.output_ids)
        return f"<Operation {self.type}({ins}) -> {outs}>"


def _tensors(op: Operation, kept: int, ids: int, what: str) -> list[Tensor]:
    """The kept arrays as tensors with their recorded ids, so that a tape recording the rule knows them."""
    arrays = op.record[kept]
    if arrays is None:
        raise AttributeError(f"{op.type} does not keep its {what}: its gradient rule must not need them")
    return list(map(Tensor.recorded, arrays, op.record[ids]))


def _tensor(op: Operation, kept: int, ids: int, k: int) -> Tensor:
    """One kept array as a tensor (`op.x`, `op.y`, `op.z`): a rule that reads one need not make them all."""
    arrays = op.record[kept]
    if arrays is None:
        return _tensors(op, kept, ids, "inputs" if kept == KEPT_INPUTS else "outputs")[k]  # the error
    return Tensor.recorded(arrays[k], op.record[ids][k])


def released(record: tuple) -> tuple:
    """The record without its kept arrays (a one-shot tape after its answer); explain() still reads the rest."""
    if record[KEPT_INPUTS] is None and record[KEPT_OUTPUTS] is None and record[GRAD_FN] is None:
        return record  # nothing to let go of (a variable read, an addition): no copy
    if record[GRAD_FN] is not None:  # a custom rule holds tensors too; explain() still sees that it was custom
        record = record[:GRAD_FN] + (_released_rule,) + record[GRAD_FN + 1 :]
    return record[:KEPT_INPUTS] + (None, None) + record[WHERE:]


def _released_rule(op: Any, *grads: object) -> None:
    raise RuntimeError(f"the gradient rule of {op.type} was released with its tape's tensors")
