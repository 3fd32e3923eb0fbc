"""`Operation`: one op call recorded on a tape, and what its gradient rule may read.

A record names the tensors it read and produced by id, with their shapes and dtypes, so the
graph outlives the tensors. It keeps the tensors themselves only where its rule needs them
(`keep`), as TensorFlow does: `exp` keeps its output, `add` nothing. Weak references let a
viewer show values that are still alive without keeping them alive.
"""

from __future__ import annotations

import os
import sys
import weakref
from typing import Any

from minitape.context import state
from minitape.dtypes import DType, as_dtype

_PACKAGE = __name__.rsplit(".", 1)[0] + "."
_INSIDE: dict[str, bool] = {}  # module name -> is it minitape's or numpy's (asked once per module)


def user_line() -> tuple[str, int]:
    """File and line of the innermost caller outside minitape and numpy: the student's line of code."""
    frame = sys._getframe(2)
    while frame.f_back is not None:
        module = frame.f_globals.get("__name__", "")
        inside = _INSIDE.get(module)
        if inside is None:
            inside = _INSIDE[module] = module.startswith((_PACKAGE, "numpy."))
        if not inside:
            break
        frame = frame.f_back
    return frame.f_code.co_filename, frame.f_lineno


def format_where(where: tuple[str, int] | None) -> str:
    """A user line for messages: 'train.py:12', or 'line 12 of its cell' for code typed in a notebook."""
    if not where:
        return "an unknown line"
    file, line = where
    if "ipykernel_" in file or file.startswith("<ipython-input"):  # a notebook cell's made-up file name
        return f"line {line} of its cell"
    return f"{os.path.basename(file)}:{line}"


def _released_rule(op: Operation, *grads: object) -> None:
    raise RuntimeError(f"the gradient rule of {op.type} was released with its tape's tensors")


class Operation:
    """A recorded op call. A gradient rule `rule(op, *upstream)` reads:

      op.inputs, op.outputs   the tensors, where the op keeps them (`keep` in `defop`)
      op.attrs                the non-tensor arguments, e.g. {"axis": 0}
      op.input_shapes, op.input_dtypes, op.output_shapes, op.output_dtypes
      op.needs                per input: does a source depend on it (skip the others)

    and for explain() and viewers: type, input_ids, output_ids, scope, where (the user's file and
    line), backward_of (the op whose gradient rule ran it), alive_inputs() / alive_outputs().
    """

    __slots__ = (
        "type",
        "attrs",
        "input_ids",
        "output_ids",
        "input_shapes",
        "output_shapes",
        "_dtypes",
        "_refs",
        "_inputs",
        "_outputs",
        "where",
        "scope",
        "grad_fn",
        "needs",
        "backward_of",
        "holders",
    )

    def __init__(self, op_type: str, inputs: list, outputs: list, attrs: dict, keep: str, grad_fn: Any) -> None:
        self.type, self.attrs, self.grad_fn = op_type, attrs, grad_fn
        self.input_ids = tuple([t._id for t in inputs])
        self.output_ids = tuple([t._id for t in outputs])
        self.input_shapes = tuple([t._value.shape for t in inputs])
        self.output_shapes = tuple([t._value.shape for t in outputs])
        self._dtypes = tuple([t._value.dtype for t in inputs]), tuple([t._value.dtype for t in outputs])
        self._refs = tuple(map(weakref.ref, inputs)), tuple(map(weakref.ref, outputs))
        self._inputs = inputs if keep == "both" or keep == "inputs" else None
        self._outputs = outputs if keep == "both" or keep == "outputs" else None
        self.where = user_line()
        self.scope = state.scope  # e.g. "my_model/dense_1": viewers group records by it
        self.needs = (True,) * len(inputs)
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
    def input_dtypes(self) -> tuple[DType, ...]:
        return tuple(map(as_dtype, self._dtypes[0]))

    @property
    def output_dtypes(self) -> tuple[DType, ...]:
        return tuple(map(as_dtype, self._dtypes[1]))

    @property
    def name(self) -> str:
        return self.type

    def get_attr(self, name: str) -> Any:
        return self.attrs[name]

    def alive_inputs(self) -> list:
        """Each input tensor (or variable) if it is still alive, else None: a record never keeps one alive."""
        return [ref() for ref in self._refs[0]]

    def alive_outputs(self) -> list:
        return [ref() for ref in self._refs[1]]

    def saved_tensors(self) -> list:
        """The tensors this record keeps alive for its rule (what it costs in memory)."""
        return [*(self._inputs or ()), *(self._outputs or ())]

    def release(self) -> Operation:
        """Drop the saved tensors (a one-shot tape after its answer); keep the structure for explain().

        A record that another tape still holds is copied instead, so that tape keeps its tensors.
        """
        op = self
        if self.holders > 1:
            self.holders -= 1
            op = object.__new__(Operation)
            for slot in Operation.__slots__:
                setattr(op, slot, getattr(self, slot))
            op.holders = 1
        op._inputs = op._outputs = None
        op.grad_fn = _released_rule if self.grad_fn is not None else None  # explain() still sees "custom"
        return op

    def __repr__(self) -> str:
        ins = ", ".join(f"#{i}" for i in self.input_ids)
        outs = ", ".join(f"#{i}" for i in self.output_ids)
        return f"<Operation {self.type}({ins}) -> {outs}>"
