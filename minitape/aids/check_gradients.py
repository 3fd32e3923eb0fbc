"""`check_gradients`: compare reverse-mode gradients with central finite differences."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from minitape.engine.tape import GradientTape
from minitape.engine.tensor import Tensor
from minitape.values import nest
from minitape.values.convert import constant
from minitape.values.tensor_like import TensorLike


def _numeric(f: Callable, args: list[np.ndarray], directions: list[np.ndarray], eps: float) -> float:
    """(f(x + eps*v) - f(x - eps*v)) / 2eps, with f's output summed against fixed weights."""
    plus = f(*[Tensor(a + eps * v) for a, v in zip(args, directions)])
    minus = f(*[Tensor(a - eps * v) for a, v in zip(args, directions)])
    return float(np.sum(plus._value - minus._value)) / (2 * eps)


def check_gradients(
    f: Callable,
    args: Any,
    order: int = 1,
    rtol: float = 1e-5,
    atol: float = 1e-6,
    eps: float = 1e-6,
    trials: int = 3,
    seed: int = 0,
) -> None:
    """Raise AssertionError unless `f`'s gradients agree with finite differences.

    Along `trials` random directions v, the directional derivative from reverse mode,
    <grad f(x), v>, must match (f(x + eps v) - f(x - eps v)) / 2eps. Non-scalar outputs
    (and each tensor of a returned list, tuple or dict) are summed against fixed random
    weights first. With `order=2`, the same check runs on the function x -> <grad f(x), w>
    for a random w, which tests the second derivatives. Use float64 arguments: float32
    cannot resolve these differences.
    """
    arrays = [np.asarray(a._array() if isinstance(a, TensorLike) else a, dtype=np.float64) for a in _as_list(args)]
    rng = np.random.default_rng(seed)
    weights: dict[tuple, np.ndarray] = {}  # fixed random weights per output: (position, shape) -> array

    def scalar_f(*xs: Tensor) -> Tensor:
        total = None
        for i, out in enumerate(nest.flatten(f(*xs))):  # f may return a tensor or a structure of them
            key = (i, tuple(out.shape))
            if key not in weights:
                weights[key] = rng.normal(size=key[1])
            term = _sum(out * constant(weights[key], dtype=out.dtype))
            total = term if total is None else total + term
        return total

    _check(scalar_f, arrays, rng, order, rtol, atol, eps, trials)


def _check(
    f: Callable, arrays: list, rng: Any, order: int, rtol: float, atol: float, eps: float, trials: int, level: int = 1
) -> None:
    tensors = [Tensor(a) for a in arrays]
    with GradientTape() as tape:
        tape.watch(tensors)
        y = f(*tensors)
    grads = tape.gradient(y, tensors)
    for _ in range(trials):
        directions = [rng.normal(size=a.shape) for a in arrays]
        analytic = sum(float(np.sum(g._value * v)) for g, v in zip(grads, directions) if g is not None)
        numeric = _numeric(f, arrays, directions, eps)
        if not np.isclose(analytic, numeric, rtol=rtol, atol=atol):
            raise AssertionError(
                f"gradient check failed at derivative order {level}: reverse mode gives directional derivative "
                f"{analytic:.10g}, finite differences give {numeric:.10g} (difference {analytic - numeric:.3g})"
            )
    if order > 1:
        w = [rng.normal(size=a.shape) for a in arrays]

        def directional(*xs: Tensor) -> Tensor:
            with GradientTape() as inner:
                inner.watch(list(xs))
                out = f(*xs)
            gs = inner.gradient(out, list(xs))
            terms = [_sum(g * constant(v)) for g, v in zip(gs, w) if g is not None]
            return sum(terms[1:], terms[0]) if terms else constant(0.0, dtype="float64")

        _check(directional, arrays, rng, order - 1, rtol, atol, eps, trials, level + 1)


def _as_list(args: Any) -> list:
    return list(args) if isinstance(args, (list, tuple)) else [args]


def _sum(t: Tensor) -> Tensor:
    from minitape.ops.api import reduce_sum

    return reduce_sum(t)
