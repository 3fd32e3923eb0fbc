"""TensorFlow's tracing rules: which calls of a `tf.function` share a graph, and what `input_signature` accepts.

A call's cache key describes its arguments as TensorFlow's tracing types do: a tensor (or numpy array) by its
shape and dtype, a Python value by value (so `f(1)` and `f(1.0)` share a graph, as `1 == 1.0`), a list, tuple or
dict by its items, and anything else (a variable, a model, an optimizer) by identity. The graph minitape records is
exact for the shapes it saw (its attributes and folded constants may hold them), so a tensor's key always holds
its full shape: with `reduce_retracing` or a `None` size in an `input_signature`, minitape still traces once per
shape, where TensorFlow traces one graph for every size.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minitape.engine.tensor import Tensor
from minitape.values.convert import convert_to_tensor
from minitape.values.tensor_like import TensorLike
from minitape.values.tensor_spec import TensorSpec


def cache_key(value: Any, leaves: list | None = None) -> Any:
    """The part of a call that picks its graph (see the module's docstring); its tensors and arrays are appended
    to `leaves` in `nest.flatten` order (dicts by sorted key), the order a graph's inputs take."""
    if type(value) is Tensor or isinstance(value, np.ndarray):
        if leaves is not None:
            leaves.append(value)
        array = value._value if type(value) is Tensor else value
        return (Tensor, array.shape, array.dtype)
    if isinstance(value, (list, tuple)):
        return (type(value), tuple([cache_key(v, leaves) for v in value]))
    if isinstance(value, dict):
        return (dict, tuple([(k, cache_key(value[k], leaves)) for k in sorted(value)]))
    if isinstance(value, TensorLike):  # a variable: the graph reads and writes this one
        return (TensorLike, id(value))
    try:
        hash(value)
    except TypeError:
        return (object, id(value))
    return value


def spec_text(value: Any) -> str:
    """A value's TensorSpec as TensorFlow's messages show it."""
    return repr(TensorSpec(value.shape, value.dtype))


def bind(specs: list, args: tuple, kwargs: dict, func: Any) -> tuple:
    """The arguments of a call checked against `input_signature` and converted to tensors of its dtypes.

    TensorFlow's TypeError otherwise, worded as TensorFlow words it.
    """
    names = parameter_names(func, len(specs))
    arguments = list(args)
    if len(arguments) > len(specs):
        raise _binding_error("too many positional arguments", args, kwargs, specs, names)
    for name in names[len(arguments) :]:
        if name not in kwargs:
            raise _binding_error(f"missing a required argument: '{name}'", args, kwargs, specs, names)
        arguments.append(kwargs[name])
    extra = set(kwargs) - set(names)
    if extra:
        raise _binding_error(f"got an unexpected keyword argument '{sorted(extra)[0]}'", args, kwargs, specs, names)
    bound = []
    for value, spec in zip(arguments, specs):
        tensor = value if type(value) is Tensor else _converted(value, spec)
        if tensor is None or not spec.is_compatible_with(tensor):
            given = spec_text(tensor) if tensor is not None else repr(value)
            reason = f"Can not cast {given} to {spec!r}"
            raise _binding_error(reason, args, kwargs, specs, names)
        bound.append(tensor)
    return tuple(bound)


def _converted(value: Any, spec: TensorSpec) -> Tensor | None:
    """A Python or numpy value as a tensor of the spec's dtype, as TensorFlow converts it; None if it cannot."""
    if isinstance(value, TensorLike):
        return value.read_value() if not isinstance(value, Tensor) else value
    try:
        return convert_to_tensor(value, dtype=spec.dtype)
    except (TypeError, ValueError):
        return None


def _binding_error(reason: str, args: tuple, kwargs: dict, specs: list, names: list) -> TypeError:
    signature = ", ".join(f"{n}: {s!r}" for n, s in zip(names, specs))
    return TypeError(
        f"Binding inputs to tf.function failed due to `{reason}`. Received args: {args!r} and kwargs: {kwargs!r} "
        f"for signature: ({signature})."
    )


def parameter_names(func: Any, count: int) -> list[str]:
    """The names of the first `count` parameters of `func` (a bound method's `self` left out)."""
    import inspect

    try:
        names = list(inspect.signature(func).parameters)
    except (TypeError, ValueError):
        names = []
    names += [f"arg{k}" for k in range(len(names), count)]
    return names[:count]
