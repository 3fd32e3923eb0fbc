"""TensorFlow's tracing rules: which calls of a `tf.function` share a graph, and what `input_signature` accepts.

A call's cache key describes its arguments as TensorFlow's tracing types do: a tensor (or numpy array) by its
shape and dtype, a Python value by value (so `f(1)` and `f(1.0)` share a graph, as `1 == 1.0`), a list, tuple or
dict by its items, and anything else (a variable, a model, an optimizer) by identity. The graph minitape records is
exact for the shapes it saw (its attributes and folded constants may hold them), so a tensor's key always holds
its full shape: with `reduce_retracing` or a `None` size in an `input_signature`, minitape still traces once per
shape, where TensorFlow traces one graph for every size.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from minitape.engine.tensor import Tensor
from minitape.values import nest
from minitape.values.convert import convert_to_tensor
from minitape.values.errors import InvalidArgumentError
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


def type_text(value: Any) -> str:
    """An argument or result as TensorFlow's signatures print its tracing type: a tensor by its TensorSpec, a
    Python value as `Literal[2]`, a list, tuple or dict by its items (`List[Literal[1], Literal[-1]]`)."""
    if isinstance(value, list):
        return f"List[{', '.join(map(type_text, value))}]"
    if isinstance(value, tuple) and not hasattr(value, "_fields"):
        return f"Tuple[{', '.join(map(type_text, value))}]"
    if isinstance(value, dict):
        return f"Dict[{', '.join(f'[{k!r}, {type_text(v)}]' for k, v in value.items())}]"
    if value is None or isinstance(value, (bool, int, float, str)):
        return f"Literal[{value!r}]"
    return repr(value)


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


def _binding_error(
    reason: str, args: tuple, kwargs: dict, specs: list, names: list, returns: str | None = None
) -> TypeError:
    signature = ", ".join(f"{n}: {type_text(s)}" for n, s in zip(names, specs))
    arrow = "" if returns is None else f" -> {returns}"
    return TypeError(
        f"Binding inputs to tf.function failed due to `{reason}`. Received args: {args!r} and kwargs: {kwargs!r} "
        f"for signature: ({signature}){arrow}."
    )


def bind_concrete(name: str, function: Any, traced: tuple, returns: Any, args: tuple, kwargs: dict) -> list:
    """A call of one traced graph, its arguments bound by parameter name to the traced ones (`traced`, positional
    and keyword, a TensorSpec for each tensor), checked as TensorFlow checks them, and returned as the graph's
    input tensors in the traced order. A Python value must equal the traced one; a tensor must have the traced
    dtype and, since minitape's graph is exact for the shapes it saw, the traced shape."""
    traced_args, traced_kwargs = traced
    params = parameter_names(function, max(len(args), len(traced_args)))
    names = params[: len(traced_args)]
    wanted = [*names, *traced_kwargs]
    specs = [*traced_args, *traced_kwargs.values()]

    def fail(reason: str) -> TypeError:
        return _binding_error(reason, args, kwargs, specs, wanted, type_text(returns))

    if len(args) > len(wanted):
        raise fail("too many positional arguments")
    given = {**dict(zip(params, args)), **kwargs}
    for key in wanted:
        if key not in given:
            raise fail(f"missing a required argument: '{key}'")
    extra = sorted(set(given) - set(wanted))
    if extra:
        raise fail(f"got an unexpected keyword argument '{extra[0]}'")
    leaves: list = []
    for key, spec in zip(wanted, specs):
        _bind_value(name, spec, given[key], leaves, fail)
    return leaves


def bind_flat(
    name: str, function: str, tensor_names: list, specs: list, args: tuple, kwargs: dict, error: Exception
) -> list:
    """TensorFlow's fallback for a call that does not fit the traced signature: the graph's input tensors alone,
    in order (`evaluate_no_bias(x)` for a graph traced from `evaluate(model, x)`); `error` if that fails too."""
    if kwargs:
        reason = f"{function}({', '.join(tensor_names)}) got unexpected keyword arguments: {', '.join(kwargs)}."
    elif len(args) != len(specs):
        reason = f"{function}({', '.join(tensor_names)}) takes {len(specs)} positional arguments, got {len(args)}."
    else:
        leaves: list = []
        for spec, value in zip(specs, args):
            _bind_value(name, spec, value, leaves, lambda reason: error)
        return leaves
    raise type(error)(f"{error}\nFallback to flat signature also failed due to: {reason}") from None


def _bind_value(name: str, spec: Any, value: Any, leaves: list, fail: Callable) -> None:
    """Check one argument against its traced structure, appending its tensors to `leaves` (nest.flatten order)."""
    flat_specs, flat_values = nest.flatten(spec), nest.flatten(value)
    if len(flat_specs) != len(flat_values):
        raise fail(f"Can not cast {value!r} to {type_text(spec)}")
    for leaf_spec, leaf in zip(flat_specs, flat_values):
        if not isinstance(leaf_spec, TensorSpec):
            if not (type(leaf) is type(leaf_spec) and leaf == leaf_spec):
                raise fail(f"Can not cast {leaf!r} to {type_text(leaf_spec)}")
            continue
        tensor = leaf if isinstance(leaf, TensorLike) else _converted(leaf, leaf_spec)
        if tensor is None or tensor.dtype != leaf_spec.dtype:
            given = "a Python value that is not" if tensor is None else f"{_tf_type_name(tensor.dtype)}"
            raise InvalidArgumentError(
                f"cannot compute __inference_{name} as input #{len(leaves)}(zero-based) was expected to be a "
                f"{_tf_type_name(leaf_spec.dtype)} tensor but is a {given} tensor [Op:__inference_{name}]"
            )
        if tensor.shape != leaf_spec.shape:
            raise fail(f"Can not cast {spec_text(tensor)} to {leaf_spec!r}")
        leaves.append(tensor if type(tensor) is Tensor else tensor.read_value())


def _tf_type_name(dtype: Any) -> str:
    """A dtype as TensorFlow's runtime errors name it (its C++ names: float32 is `float`, float64 `double`)."""
    return {"float32": "float", "float64": "double", "float16": "half"}.get(dtype.name, dtype.name)


def parameter_names(func: Any, count: int) -> list[str]:
    """The names of the first `count` parameters of `func` (a bound method's `self` left out)."""
    import inspect

    try:
        names = list(inspect.signature(func).parameters)
    except (TypeError, ValueError):
        names = []
    names += [f"arg{k}" for k in range(len(names), count)]
    return names[:count]
