"""`mt.py_function` and `mt.init_scope`: TensorFlow's tools for leaving a graph, in minitape's terms; and
`mt.executing_eagerly` / `mt.inside_function`, which tell code whether it runs inside one.

`py_function`'s Python code runs eagerly; inside `mt.function` the graph calls it again at every call, as TensorFlow
does (`runs_each_call`), so its prints print each time. `init_scope` pauses what records.
"""

from __future__ import annotations

import contextlib
import functools
import threading
from collections.abc import Callable, Iterator
from typing import Any

from minitape.engine import context
from minitape.function.trace import runs_each_call
from minitape.values.convert import convert_to_tensor
from minitape.values.dtypes import as_dtype


def py_function(
    func: Callable | None = None,
    inp: list | tuple | None = None,
    Tout: Any = None,  # noqa: N803
    name: str | None = None,
) -> Any:
    """Call `func` on `inp` as tensors and return its results as tensors of the dtypes `Tout`.

    Eager, as in TensorFlow's eager mode: the ops `func` runs are recorded, so tapes differentiate through it.
    `Tout` is one dtype (one tensor comes back) or a list of dtypes (a list comes back). Without `inp`, as
    TensorFlow's: `func` wrapped to take the inputs as arguments, or (without `func` too) a decorator that does so.
    """
    if inp is None:
        if func is None:
            return lambda f: py_function(f, Tout=Tout, name=name)
        return functools.wraps(func)(lambda *args: py_function(func, list(args), Tout, name))
    return _py_call(func, inp, Tout)


@runs_each_call
def _py_call(func: Callable, inp: list | tuple, Tout: Any) -> Any:  # noqa: N803
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


@contextlib.contextmanager
def init_scope() -> Iterator[None]:
    """TensorFlow's scope for creating state: the tapes and accumulators pause, as TensorFlow's do, and inside a
    `mt.function` being traced the code runs outside the graph (once, at tracing), as TensorFlow lifts it out."""
    tracers, context.state.tracers = context.state.tracers, []
    _lifted.depth += bool(tracers)
    try:
        with context.paused(keep_listeners=True):
            yield
    finally:
        context.state.tracers = tracers
        _lifted.depth -= bool(tracers)


class _Lifted(threading.local):
    depth = 0  # init_scopes open inside a trace, in this thread (TensorFlow keeps its graph stack per thread)


_lifted = _Lifted()


def executing_eagerly() -> bool:
    """False while `mt.function` traces a function (its Python runs to build the graph, as in TensorFlow), True
    elsewhere: in plain code, in `init_scope`, and in a function run eagerly (`run_functions_eagerly`)."""
    return not context.state.tracers


def inside_function() -> bool:
    """True while `mt.function` traces a function, `init_scope` within it included, as TensorFlow's."""
    return bool(context.state.tracers) or _lifted.depth > 0
