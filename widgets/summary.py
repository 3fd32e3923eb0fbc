"""What a clicked node's details say about a value: every number when few, a summary when many.

A 64×128 gradient printed in full is thousands of characters that nobody reads and that push the
graph off the screen; its shape, dtype, range, mean and first entries say what a student needs.
"""

from __future__ import annotations

from typing import Any

import numpy as np

FULL_LIMIT = 16  # up to this many elements, every number is shown
FIRST = 6  # entries shown at the start of a summarised tensor


def _number(x: Any) -> str:
    if isinstance(x, (bool, np.bool_)):
        return str(bool(x))
    if isinstance(x, (int, np.integer)):
        return str(int(x))
    return f"{float(x):.4g}"


def describe(value: Any) -> str:
    """A short, stable text for `value`: all entries up to FULL_LIMIT, else shape, dtype, min/max/mean and a few."""
    if value is None:
        return "None"
    a = np.asarray(value)
    if a.size <= FULL_LIMIT:
        if a.ndim == 0:
            return _number(a[()])
        return np.array2string(a, precision=4, separator=", ", formatter={"all": _number})
    lines = [f"shape {list(a.shape)}, dtype {a.dtype.name}, {a.size} entries"]
    if a.dtype.kind in "biuf":
        flat = a.astype(np.float64).ravel()
        finite = flat[np.isfinite(flat)]
        if finite.size:
            lines.append(f"min {_number(finite.min())}, max {_number(finite.max())}, mean {_number(finite.mean())}")
        bad = flat.size - finite.size
        if bad:
            nans = int(np.isnan(flat).sum())
            lines.append(f"non-finite: {nans} NaN, {bad - nans} inf")
    first = ", ".join(_number(x) for x in a.ravel()[:FIRST])
    lines.append(f"first entries: {first}, …")
    return "\n".join(lines)
