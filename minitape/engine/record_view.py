"""What a record shows to explain(), tape.stats() and viewers: where it ran, its dtypes, the values still alive.

`Operation` (operation.py) inherits these; none of them is needed to compute a gradient. `released` is
what a one-shot tape keeps of a record after its answer.
"""

from __future__ import annotations

from typing import Any

from minitape.engine.record import BACKWARD_OF, DTYPES, GRAD_FN, KEPT_INPUTS, KEPT_OUTPUTS, SCOPE, WHERE
from minitape.engine.where import line_of
from minitape.values.dtypes import DType, as_dtype


def released(record: tuple) -> tuple:
    """The record without its kept arrays (a one-shot tape after its answer); explain() still reads the rest."""
    if record[KEPT_INPUTS] is None and record[KEPT_OUTPUTS] is None and record[GRAD_FN] is None:
        return record  # nothing to let go of (a variable read, an addition): no copy
    if record[GRAD_FN] is not None:  # a custom rule holds tensors too; explain() still sees that it was custom
        record = record[:GRAD_FN] + (_released_rule,) + record[GRAD_FN + 1 :]
    return record[:KEPT_INPUTS] + (None, None) + record[WHERE:]


def _released_rule(op: Any, *grads: object) -> None:
    raise RuntimeError(f"the gradient rule of {op.type} was released with its tape's tensors")


def field(index: int, doc: str | None = None) -> property:
    """A read-only attribute of the view that is one field of its record tuple."""
    return property(lambda op: op.record[index], doc=doc)


class RecordView:
    """Read-only accessors of a recorded op (the slots themselves are declared by `Operation`)."""

    __slots__ = ()

    scope = field(SCOPE, doc='e.g. "my_model/dense_1": viewers group records by it')
    backward_of = field(BACKWARD_OF, doc="the type of the op whose gradient rule ran this one")

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
        return isinstance(other, RecordView) and other.record is self.record

    def __hash__(self) -> int:
        return id(self.record)

    def __repr__(self) -> str:
        ins = ", ".join(f"#{i}" for i in self.input_ids)
        outs = ", ".join(f"#{i}" for i in self.output_ids)
        return f"<Operation {self.type}({ins}) -> {outs}>"
