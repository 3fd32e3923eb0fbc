"""Layers that join several inputs (a list) into one: Concatenate, Add, Subtract, Multiply, Average, Maximum, ..."""

from __future__ import annotations

import functools
import operator
from typing import Any

from minitape.keras.layers.attention import bool_mask
from minitape.keras.layers.base import Layer
from minitape.ops.api import (
    add_n,
    concat,
    expand_dims,
    logical_or,
    maximum,
    minimum,
    ones_like,
    reduce_any,
    zeros_like,
)


class _Merge(Layer):
    """Takes a list of at least two tensors of one shape (Concatenate: equal but for `axis`)."""

    def compute_mask(self, inputs: Any, previous_mask: Any = None) -> Any:
        """As Keras 3: a step is kept where any input keeps it; no mask if one of the inputs has none."""
        if previous_mask is None or any(m is None for m in previous_mask):
            return None
        return functools.reduce(logical_or, [bool_mask(m) for m in previous_mask])

    def _check(self, inputs: Any, ignore_axis: int | None = None) -> list:
        if not isinstance(inputs, (list, tuple)) or len(inputs) < 2:
            raise ValueError(
                f'A merge layer "{self.name}" ({type(self).__name__}) should be called on a list of at least 2 '
                f"inputs, got {type(inputs).__name__}"
                + (f" of length {len(inputs)}" if isinstance(inputs, (list, tuple)) else "")
            )
        shapes = [tuple(x.shape) for x in inputs]
        if ignore_axis is not None:
            rank = len(shapes[0])
            if any(len(s) != rank for s in shapes):
                raise ValueError(f'{type(self).__name__} "{self.name}": inputs of different ranks {shapes}')
            axis = ignore_axis % rank
            shapes_seen = [s[:axis] + s[axis + 1 :] for s in shapes]
        else:
            shapes_seen = shapes
        if any(s != shapes_seen[0] for s in shapes_seen):
            rule = f"shapes equal except along axis {ignore_axis}" if ignore_axis is not None else "equal shapes"
            raise ValueError(f'{type(self).__name__} "{self.name}" needs inputs with {rule}; got shapes {shapes}')
        return list(inputs)


class Concatenate(_Merge):
    """Join the inputs along `axis` (default: the last)."""

    def __init__(self, axis: int = -1, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.axis = axis

    def call(self, inputs: Any) -> Any:
        return concat(self._check(inputs, self.axis), axis=self.axis)

    def compute_mask(self, inputs: Any, previous_mask: Any = None) -> Any:
        """As Keras 3: the masks joined as the inputs are (an input without one counts as kept everywhere), a
        step kept where any of its features is."""
        if previous_mask is None or all(m is None for m in previous_mask):
            return None
        masks = []
        for x, mask in zip(inputs, previous_mask):
            kept = ones_like(x, dtype="bool") if mask is None else bool_mask(mask)
            if len(kept.shape) < len(x.shape):  # (batch, steps) against (batch, steps, features)
                kept = logical_or(expand_dims(kept, -1), zeros_like(x, dtype="bool"))
            masks.append(kept)
        return reduce_any(concat(masks, axis=self.axis), axis=-1)


class Add(_Merge):
    """The elementwise sum of the inputs."""

    def call(self, inputs: Any) -> Any:
        return add_n(self._check(inputs))


class Subtract(_Merge):
    """inputs[0] - inputs[1] (exactly two inputs)."""

    def call(self, inputs: Any) -> Any:
        first, second = self._check(inputs)
        return first - second


class _Elementwise(_Merge):
    """Combines the inputs pairwise, left to right, with `_pair`."""

    _pair: Any = None

    def call(self, inputs: Any) -> Any:
        return functools.reduce(type(self)._pair, self._check(inputs))


class Multiply(_Elementwise):
    """The elementwise product of the inputs."""

    _pair = staticmethod(operator.mul)


class Maximum(_Elementwise):
    """The elementwise maximum of the inputs (the gradient goes to the largest)."""

    _pair = staticmethod(maximum)


class Minimum(_Elementwise):
    """The elementwise minimum of the inputs (the gradient goes to the smallest)."""

    _pair = staticmethod(minimum)


class Average(_Merge):
    """The elementwise mean of the inputs."""

    def call(self, inputs: Any) -> Any:
        inputs = self._check(inputs)
        return add_n(inputs) / float(len(inputs))


def concatenate(inputs: list, axis: int = -1, **kwargs: Any) -> Any:
    """Functional form: `Concatenate(axis)(inputs)`."""
    return Concatenate(axis=axis, **kwargs)(inputs)


def add(inputs: list, **kwargs: Any) -> Any:
    """Functional form: `Add()(inputs)`."""
    return Add(**kwargs)(inputs)


def subtract(inputs: list, **kwargs: Any) -> Any:
    """Functional form: `Subtract()(inputs)`."""
    return Subtract(**kwargs)(inputs)


def multiply(inputs: list, **kwargs: Any) -> Any:
    """Functional form: `Multiply()(inputs)`."""
    return Multiply(**kwargs)(inputs)


def average(inputs: list, **kwargs: Any) -> Any:
    """Functional form: `Average()(inputs)`."""
    return Average(**kwargs)(inputs)


def maximum_(inputs: list, **kwargs: Any) -> Any:
    """Functional form: `Maximum()(inputs)` (`keras.layers.maximum`)."""
    return Maximum(**kwargs)(inputs)


def minimum_(inputs: list, **kwargs: Any) -> Any:
    """Functional form: `Minimum()(inputs)` (`keras.layers.minimum`)."""
    return Minimum(**kwargs)(inputs)
