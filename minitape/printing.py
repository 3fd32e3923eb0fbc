"""`mt.print`: print tensors' values as `tf.print` does, without the `mt.Tensor(...)` wrapper."""

from __future__ import annotations

import sys
from typing import Any

import numpy as np

from minitape import nest
from minitape.tensor import TensorLike


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
    if isinstance(v, (float, np.floating)):
        return f"{v:g}"
    return str(v)


class _Shown(str):
    """A string that shows as itself inside a container's repr (no quotes)."""

    def __repr__(self) -> str:
        return str(self)


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
