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


# A training loop records the same ops on the same shapes step after step; one shared tuple of shapes and
# dtypes per distinct signature, instead of new ones in every record, saves about a quarter of a record's memory.
_SHAPE, _DTYPE = attrgetter("shape"), attrgetter("dtype")
_SIGNATURES: dict = {}  # (shapes, dtypes, number of inputs) -> (input shapes, output shapes, dtypes)
_LIMIT = 10_000  # a program of ever new shapes must not grow the table without bound


def shapes_and_dtypes(values: list, n_inputs: int) -> tuple:
    """(input shapes, output shapes, dtypes) of an op call's arrays, inputs first: a shared tuple."""
    key = tuple(map(_SHAPE, values)), tuple(map(_DTYPE, values)), n_inputs
    found = _SIGNATURES.get(key)
    if found is None:
        if len(_SIGNATURES) >= _LIMIT:
            _SIGNATURES.clear()
        shapes, dtypes, _ = key
        found = _SIGNATURES[key] = (shapes[:n_inputs], shapes[n_inputs:], dtypes)
    return found
