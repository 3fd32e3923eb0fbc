"""What a record shows to explain(), tape.stats() and viewers: where it ran, its dtypes, the values still alive.

`Operation` (operation.py) inherits these; none of them is needed to compute a gradient.
"""

from __future__ import annotations

from typing import Any

from minitape.dtypes import DType, as_dtype
from minitape.where import line_of


def _released_rule(op: Any, *grads: object) -> None:
    raise RuntimeError(f"the gradient rule of {op.type} was released with its tape's tensors")


class RecordView:
    """Read-only accessors of a recorded op (the slots themselves are declared by `Operation`)."""

    __slots__ = ()

    @property
    def where(self) -> tuple[str, int] | None:
        """(file, line) of the user's code that ran the op."""
        return line_of(self._where)

    @property
    def input_dtypes(self) -> tuple[DType, ...]:
        return tuple(map(as_dtype, self._dtypes[: len(self.input_ids)]))

    @property
    def output_dtypes(self) -> tuple[DType, ...]:
        return tuple(map(as_dtype, self._dtypes[len(self.input_ids) :]))

    @property
    def name(self) -> str:
        return self.type

    def get_attr(self, name: str) -> Any:
        return self.attrs[name]

    def alive_inputs(self) -> list:
        """Each input tensor (or variable) if it is still alive, else None: a record never keeps one alive."""
        return [ref() for ref in self._refs[: len(self.input_ids)]]

    def alive_outputs(self) -> list:
        return [ref() for ref in self._refs[len(self.input_ids) :]]

    def saved_tensors(self) -> list:
        """The tensors this record keeps alive for its rule (what it costs in memory)."""
        return [*(self._inputs or ()), *(self._outputs or ())]

    def release(self) -> Any:
        """Drop the saved tensors (a one-shot tape after its answer); keep the structure for explain().

        A record that another tape still holds is copied instead, so that tape keeps its tensors.
        """
        op = self
        if self.holders > 1:
            self.holders -= 1
            op = object.__new__(type(self))
            for slot in type(self).__slots__:
                setattr(op, slot, getattr(self, slot))
            op.holders = 1
        op._inputs = op._outputs = None
        op.grad_fn = _released_rule if self.grad_fn is not None else None  # explain() still sees "custom"
        return op

    def __repr__(self) -> str:
        ins = ", ".join(f"#{i}" for i in self.input_ids)
        outs = ", ".join(f"#{i}" for i in self.output_ids)
        return f"<Operation {self.type}({ins}) -> {outs}>"
