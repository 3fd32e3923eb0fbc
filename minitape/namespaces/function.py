"""`mt.function`, `mt.py_function` and `mt.init_scope`: TensorFlow's graph-building tools, run eagerly.

minitape has no graph mode, so each runs the Python code as written; what they keep from TensorFlow is what
their results are: tensors, never Python numbers or live variables.
"""

from __future__ import annotations

import contextlib
import functools
import types
from collections.abc import Callable
from typing import Any

import numpy as np

from minitape.engine import context
from minitape.engine.variables import Variable
from minitape.namespaces import missing
from minitape.values import nest
from minitape.values.convert import convert_to_tensor
from minitape.values.dtypes import as_dtype


class Function:
    """What `mt.function` returns: calling it runs the Python function eagerly and returns its outputs as tensors."""

    def __init__(self, func: Callable, **options: Any) -> None:
        functools.update_wrapper(self, func)
        self.python_function = func  # TensorFlow's name for the wrapped function
        self._options = options  # input_signature, jit_compile, ...: accepted and ignored (there is no graph)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return nest.map_structure(_as_output, self.python_function(*args, **kwargs))

    def __get__(self, instance: Any, owner: Any = None) -> Any:
        """A decorated method binds to its instance, as a plain function does."""
        return self if instance is None else types.MethodType(self, instance)

    def __getattr__(self, name: str) -> Any:  # called only for names the object lacks
        if name in missing.FUNCTION:
            missing.raise_missing("tf.function", name, missing.FUNCTION)
        raise AttributeError(f"'Function' object has no attribute {name!r}")


def function(func: Callable | None = None, **options: Any) -> Any:
    """`tf.function` stand-in: minitape has no graph mode, so the function runs eagerly as written.

    As in TensorFlow, what it returns comes back as tensors: `mt.function(cube)(2)` is a Tensor, not the int 8,
    and a variable it returns is read there, so later assignments do not change the result.
    """
    if func is None:
        return lambda f: Function(f, **options)
    return Function(func, **options)


def _as_output(value: Any) -> Any:
    """A traced function's output: numbers, numpy values and variables become tensors; the rest passes unchanged."""
    if isinstance(value, (int, float, np.ndarray, np.generic)):  # bool is an int
        return convert_to_tensor(value)
    if isinstance(value, Variable):  # TensorFlow returns the value read at that moment, not the variable
        return value.read_value()
    return value


def py_function(func: Callable, inp: list | tuple, Tout: Any, name: str | None = None) -> Any:  # noqa: N803
    """Call `func` on `inp` as tensors and return its results as tensors of the dtypes `Tout`.

    Eager, as in TensorFlow's eager mode: the ops `func` runs are recorded, so tapes differentiate through it.
    `Tout` is one dtype (one tensor comes back) or a list of dtypes (a list comes back).
    """
    if Tout is None:
        raise TypeError("py_function needs Tout, the dtype of what func returns (e.g. mt.float32), or a list of them")
    if not isinstance(inp, (list, tuple)):
        raise TypeError(f"py_function takes its inputs as a list, e.g. mt.py_function(f, [x], mt.float32), not {inp!r}")
    result = func(*[convert_to_tensor(x) for x in inp])
    if not isinstance(Tout, (list, tuple)):
        if isinstance(result, (list, tuple)):
            raise ValueError(
                f"py_function: func returned {len(result)} values but Tout names one dtype; pass a list of dtypes"
            )
        return convert_to_tensor(result, dtype=as_dtype(Tout))
    results = [] if result is None and not Tout else list(result) if isinstance(result, (list, tuple)) else [result]
    if len(results) != len(Tout):
        raise ValueError(f"py_function: func returned {len(results)} value(s) for {len(Tout)} dtype(s) in Tout")
    return [convert_to_tensor(r, dtype=as_dtype(d)) for r, d in zip(results, Tout)]


def init_scope() -> contextlib.AbstractContextManager:
    """TensorFlow's scope for creating state: in eager mode it pauses the tapes and accumulators, as TensorFlow does."""
    return context.paused(keep_listeners=True)
