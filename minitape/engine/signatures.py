"""One shared copy of the shapes and dtypes that many records have in common.

A training loop records the same ops on the same shapes step after step; keeping one tuple of
shapes and dtypes per distinct signature, instead of new ones in every record, saves about a
quarter of a record's memory (benchmarks/README.md).
"""

from __future__ import annotations

from operator import attrgetter

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
