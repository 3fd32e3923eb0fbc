"""`mt.print`: print tensors' values as `tf.print` does, without the `mt.Tensor(...)` wrapper."""

from __future__ import annotations

import sys
from typing import Any

import numpy as np

from minitape.function.trace import runs_each_call
from minitape.values import nest
from minitape.values.tensor_like import TensorLike


def _text(value: Any, summarize: int | None) -> str:
    if isinstance(value, TensorLike):
        array = value.numpy()
    elif isinstance(value, (list, tuple, dict)):  # a structure: its tensors printed inside it
        return str(nest.map_structure(lambda v: _Shown(_text(v, summarize)), value))
    else:
        return str(value)
    if np.ndim(array) == 0:
        return _scalar(array[()] if isinstance(array, np.ndarray) else array)
    threshold = sys.maxsize if summarize is None or summarize < 0 else 2 * summarize
    edge = 3 if summarize is None or summarize < 0 else summarize
    return np.array2string(
        array, threshold=threshold, edgeitems=edge, separator=" ", formatter={"all": _scalar}, max_line_width=10**9
    )


def _scalar(v: Any) -> str:
    """One entry as TensorFlow prints it: the fewest digits (6 for float32, 15 for float64) that read back as the
    same number, else all it takes (9, 17); booleans as 1 and 0."""
    if isinstance(v, (np.floating, float)):
        if isinstance(v, np.float64) or type(v) is float:
            short = f"{v:.15g}"
            return short if float(short) == v or v != v else f"{v:.17g}"
        short = f"{v:.6g}"
        return short if np.float32(short) == np.float32(v) or v != v else f"{v:.9g}"
    if isinstance(v, (np.bool_, bool)):
        return str(int(v))
    return str(v)


class _Shown(str):
    """A string that shows as itself inside a container's repr (no quotes)."""

    def __repr__(self) -> str:
        return str(self)


@runs_each_call  # inside mt.function, it prints at every call, as tf.print does
def print(*inputs: Any, output_stream: Any = None, summarize: int = 3, sep: str = " ", end: str = "\n") -> None:
    """Print tensors' values (and other objects) like `tf.print`: to standard error by default; with more than
    2 * summarize entries, only the first and last `summarize` of each axis (summarize=-1 prints all).
    `output_stream` is a stream such as sys.stdout, or "file://path" to append to a file."""
    text = sep.join(_text(v, summarize) for v in inputs) + end
    if isinstance(output_stream, str) and output_stream.startswith("file://"):
        with open(output_stream[len("file://") :], "a") as file:
            file.write(text)
        return
    (sys.stderr if output_stream is None else output_stream).write(text)  # stderr looked up now, as redirected


print.__wrapped__._prints_only = True  # a guarded graph holds its prints until the run is sure to complete (replay.py)
