"""A recorded op call, as a tape stores it: a plain tuple of facts (`Operation` is the view rules read).

A record names the tensors it read and made by id, with shapes and dtypes, so the graph outlives the
tensors; it keeps arrays only where its rule needs them (`keep`): `exp` keeps its output, `add` nothing.
Python's garbage collector stops scanning a tuple of numbers, strings and arrays after one look, so a
long tape does not slow every later collection down, as record objects would (benchmarks/README.md).
"""

from __future__ import annotations

from operator import attrgetter
from typing import Any

from minitape.engine.context import state
from minitape.engine.signatures import shapes_and_dtypes
from minitape.engine.where import user_code

# a record's fields, in tuple order (`facts` builds one)
TYPE, ATTRS, GRAD_FN, INPUT_IDS, OUTPUT_IDS, INPUT_SHAPES, OUTPUT_SHAPES, DTYPES = range(8)
KEPT_INPUTS, KEPT_OUTPUTS, WHERE, SCOPE, BACKWARD_OF = range(8, 13)
VALUE, ID = attrgetter("_value"), attrgetter("_id")  # for map(): no loop in Python


def facts(
    op_type: str, ids: tuple, inputs: Any, outputs: list, attrs: dict, keep: str, grad_fn: Any, caller: Any
) -> tuple:
    """The record of one op call: a tuple of the fields above (no attrs is None: even an empty dict is scanned)."""
    values = [*map(VALUE, inputs), *map(VALUE, outputs)]  # map, not comprehensions: those cost a call each
    running, n = state.backward_of, len(ids)  # the record whose gradient rule ran this op, if any
    return (
        op_type, attrs or None, grad_fn, ids, tuple(map(ID, outputs)), *shapes_and_dtypes(values, n),
        tuple(values[:n]) if keep == "both" or keep == "inputs" else None,
        tuple(values[n:]) if keep == "both" or keep == "outputs" else None,
        user_code(caller), state.scope, running.type if running is not None else None,
    )  # fmt: skip
