"""`custom_gradient`: replace the gradient of a whole function with one you write."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any

import numpy as np

from minitape.engine.context import state
from minitape.engine.execute import record
from minitape.engine.tensor import Tensor
from minitape.values import nest
from minitape.values.convert import convert_to_tensor
from minitape.values.tensor_like import TensorLike

_CONVERTED = (TensorLike, int, float, np.ndarray, np.generic)


def custom_gradient(f: Callable | None = None) -> Callable:
    """Decorator: `f(*x)` returns `(y, grad_fn)`; tapes then use `grad_fn(dy)` as the gradient of y.

    `grad_fn` returns one gradient per tensor argument. If `f` reads variables,
    `grad_fn` must take a keyword argument `variables` and return
    `(input_gradients, variable_gradients)`.
    """
    if f is None:
        return custom_gradient

    @functools.wraps(f)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        # every positional number, array or tensor becomes a tensor, as TensorFlow does: one gradient per argument
        inputs = [convert_to_tensor(a) if isinstance(a, _CONVERTED) else a for a in args]
        result, grad_fn, variables = _run_watching_variables(f, inputs, kwargs)
        tensors = [a for a in inputs if isinstance(a, Tensor)]
        flat = [convert_to_tensor(r) for r in nest.flatten(result)]
        outputs = [Tensor(r._value) for r in flat]  # fresh tensors: the tape reaches them only through grad_fn
        for tracer in state.tracers:  # mt.function hook: in a graph, each output holds what f computed
            tracer.aliases(outputs, flat)
        # tapes differentiate f through grad_fn; so do accumulators (forward.py derives the JVP from the rule), as
        # TensorFlow's: f's forward pass may leave the library (numpy, say). An output that f's own ops already
        # gave a tangent keeps that one, as in TensorFlow
        rule = _rule(f.__name__, grad_fn, len(tensors), variables)
        record(f.__name__, tensors + variables, outputs, {}, keep="nothing", grad_fn=rule)
        for accumulator in state.accumulators:
            accumulator.carry(flat, outputs)
        return nest.pack_sequence_as(result, outputs)

    return wrapper


def _run_watching_variables(f: Callable, inputs: list, kwargs: dict) -> tuple:
    """`f`'s result and grad_fn, and the trainable variables it read (its grad_fn must take them)."""
    watcher: list = []
    state.variable_watchers.append(watcher)
    try:
        result, grad_fn = f(*inputs, **kwargs)
    finally:
        state.variable_watchers.remove(watcher)
    variables = [v for v in watcher if v.trainable]
    if variables and "variables" not in inspect.signature(grad_fn).parameters:
        raise TypeError(
            f"{f.__name__} reads variables ({', '.join(v.name for v in variables)}), so its grad_fn must "
            "accept a keyword argument `variables` and return (input_gradients, variable_gradients)"
        )
    return result, grad_fn, variables


def _rule(name: str, grad_fn: Callable, n_tensors: int, variables: list) -> Callable:
    """The gradient rule of a custom_gradient call: grad_fn's answer, one gradient per tensor and variable."""

    def rule(op: Any, *upstream: Tensor) -> list:
        grads = grad_fn(*upstream, variables=variables) if variables else grad_fn(*upstream)
        if variables and not (isinstance(grads, (list, tuple)) and len(grads) == 2):
            raise TypeError(  # a lone tensor would be unpacked along its first axis
                f"the grad_fn of custom_gradient function {name} reads variables, so it must return a "
                f"pair (input_gradients, variable_gradients), not {type(grads).__name__}"
            )
        input_grads, variable_grads = grads if variables else (grads, [])
        input_grads = list(input_grads) if isinstance(input_grads, (list, tuple)) else [input_grads]
        if len(input_grads) != n_tensors or len(list(variable_grads)) != len(variables):
            raise ValueError(
                f"the grad_fn of custom_gradient function {name} returned {len(input_grads)} "
                f"gradient(s) for {n_tensors} tensor argument(s)"
                + (f" and {len(list(variable_grads))} for {len(variables)} variable(s)" if variables else "")
                + ": return exactly one (or None) per argument"
            )
        return input_grads + list(variable_grads)

    return rule
