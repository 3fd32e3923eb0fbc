"""`Operation`: one op call recorded on a tape.

It names the tensors it read and produced by id, so that the graph structure costs
little. It keeps the tensors themselves only when its gradient rule needs them
(`keep`), like TensorFlow: `exp` keeps its output, `add` keeps nothing.
"""

from __future__ import annotations

import os
import sys
import weakref
from typing import Any

from minitape import context
from minitape.dtypes import _BY_SCALAR_TYPE as _DTYPES
from minitape.dtypes import as_dtype

_PACKAGE = __name__.rsplit(".", 1)[0] + "."


def user_line() -> tuple[str, int]:
    """File and line of the innermost caller outside minitape: the student's line of code."""
    frame = sys._getframe(2)
    # numpy frames are skipped too: np.mean(tensor) converts it deep inside numpy, the user called np.mean
    while frame.f_back is not None:
        module = frame.f_globals.get("__name__", "")
        inside = _INSIDE.get(module)
        if inside is None:  # each module's answer is remembered: this walk runs for every recorded op
            inside = _INSIDE[module] = module.startswith((_PACKAGE, "numpy."))
        if not inside:
            break
        frame = frame.f_back
    return frame.f_code.co_filename, frame.f_lineno


_INSIDE: dict[str, bool] = {}  # module name -> is it minitape's or numpy's


def format_where(where: tuple[str, int] | None) -> str:
    """A user line for messages: 'train.py:12', or 'line 12 of its cell' for code typed in a notebook."""
    if not where:
        return "an unknown line"
    file, line = where
    if "ipykernel_" in file or file.startswith("<ipython-input"):  # a notebook cell's made-up file name
        return f"line {line} of its cell"
    return f"{os.path.basename(file)}:{line}"


def _describe(tensors: list) -> tuple[tuple, tuple, tuple, tuple]:
    """Ids, shapes, dtypes and weak references of `tensors` (this runs for every recorded op).

    Weak references let a viewer show values that are still alive without keeping them alive. Tuples
    rather than lists: a long tape holds many records, and Python's garbage collector stops scanning a
    tuple of plain numbers, while it rescans every list at each full collection.
    """
    if len(tensors) == 1:  # most ops: written out, it costs half of the general case below
        t = tensors[0]
        value = t._value  # Tensor and Variable both hold their array here
        return (t._id,), (value.shape,), (_DTYPES.get(value.dtype.type) or as_dtype(value.dtype),), (weakref.ref(t),)
    values = [t._value for t in tensors]
    return (
        tuple([t._id for t in tensors]),
        tuple([v.shape for v in values]),
        tuple([_DTYPES.get(v.dtype.type) or as_dtype(v.dtype) for v in values]),
        tuple(map(weakref.ref, tensors)),
    )


def _released_rule(op: Operation, *grads: object) -> None:
    """Stands in for a custom gradient rule dropped when its tape released its tensors."""
    raise RuntimeError(f"the gradient rule of {op.type} was released with its tape's tensors")


class Operation:
    """What a gradient rule sees: `op.inputs`, `op.outputs`, `op.attrs`, shapes and dtypes.

    Attributes a rule may read:
      type           the op's registered name, e.g. "Mul"
      inputs/outputs the Tensors, when the op keeps them (see `keep` in `defop`)
      attrs          the non-tensor arguments, e.g. {"axis": 0}
      input_shapes, input_dtypes, output_shapes, output_dtypes
      needs          per input: does any source depend on it (set during the backward pass)
      where, scope   the user's (file, line) that ran the op, and the name_scope path around it
    """

    __slots__ = (
        "type",
        "attrs",
        "input_ids",
        "output_ids",
        "input_shapes",
        "input_dtypes",
        "output_shapes",
        "output_dtypes",
        "_inputs",
        "_outputs",
        "input_refs",
        "output_refs",
        "where",
        "scope",
        "grad_fn",
        "needs",
        "backward_of",
        "__weakref__",
    )

    def __init__(
        self,
        op_type: str,
        inputs: list,
        outputs: list,
        attrs: dict,
        keep: str = "both",
        grad_fn: Any = None,
        where: tuple[str, int] | None = None,
    ) -> None:
        self.type = op_type
        self.attrs = attrs
        self.input_ids, self.input_shapes, self.input_dtypes, self.input_refs = _describe(inputs)
        self.output_ids, self.output_shapes, self.output_dtypes, self.output_refs = _describe(outputs)
        self._inputs = inputs if keep in ("inputs", "both") else None
        self._outputs = outputs if keep in ("outputs", "both") else None
        self.where = where
        self.scope = "/".join(context.name_scopes)  # e.g. "my_model/dense_1": the visualizer groups by it
        self.grad_fn = grad_fn  # a custom_gradient's own rule; None means: look up `type` in the registry
        self.needs = (True,) * len(inputs)
        # set when recorded while another tape differentiates an op: a viewer draws "gradient of Mul" apart
        self.backward_of = context.backward_of.type if context.backward_of is not None else None

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
    def name(self) -> str:
        return self.type

    def get_attr(self, name: str) -> Any:
        return self.attrs[name]

    def without_tensors(self) -> Operation:
        """A copy that keeps the graph structure but none of the tensors (what a used tape retains)."""
        # attribute by attribute, written out: a loop of getattr/setattr over __slots__ costs four times more,
        # and a one-shot tape copies every record (tests/test_engine_fast_paths.py checks that no slot is missed)
        copy = object.__new__(Operation)
        copy.type, copy.attrs, copy.where, copy.scope = self.type, self.attrs, self.where, self.scope
        copy.input_ids, copy.input_shapes, copy.input_dtypes = self.input_ids, self.input_shapes, self.input_dtypes
        copy.output_ids, copy.output_shapes = self.output_ids, self.output_shapes
        copy.output_dtypes = self.output_dtypes
        copy.input_refs, copy.output_refs = self.input_refs, self.output_refs
        copy.needs, copy.backward_of = self.needs, self.backward_of
        copy._inputs = copy._outputs = None
        # the rule may hold tensors; a marker keeps "this op had a custom gradient" for explain()
        copy.grad_fn = _released_rule if self.grad_fn is not None else None
        return copy

    def saved_tensors(self) -> list:
        """The tensors this record keeps alive (what it costs in memory)."""
        return (self._inputs or []) + (self._outputs or [])

    def __repr__(self) -> str:
        ins = ", ".join(f"#{i}" for i in self.input_ids)
        outs = ", ".join(f"#{i}" for i in self.output_ids)
        return f"<Operation {self.type}({ins}) -> {outs}>"
