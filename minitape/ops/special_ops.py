"""The log-gamma function and its derivatives: lgamma, digamma (its first derivative) and polygamma(n, x)
(digamma's n-th derivative), computed with numpy and Python's math module alone.

lgamma is `math.lgamma` entry by entry. polygamma of order n (digamma is order 0) moves x up to 20 or beyond
with the recurrence psi_n(x + 1) = psi_n(x) + (-1)^n n! / x^(n + 1), then sums the asymptotic series, accurate
to float64's precision there; digamma and trigamma of a negative x use the reflection formula instead, so a
large negative x costs no long recurrence. Each op's gradient is the next order (lgamma' = digamma,
psi_n' = psi_(n+1)), so every higher derivative is there.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from minitape.engine.opdef import defop
from minitape.engine.tensor import Tensor
from minitape.ops.api import ones_like
from minitape.values.convert import convert_to_tensor
from minitape.values.errors import InvalidArgumentError
from minitape.values.tensor_like import TensorLike

# B_2, B_4, ..., B_20: the Bernoulli numbers of the asymptotic series
_BERNOULLI = (1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66, -691 / 2730, 7 / 6, -3617 / 510, 43867 / 798, -174611 / 330)
_LARGE = 20.0  # from here on, ten terms of the series reach float64's precision


def _lgamma_entry(v: float) -> float:
    try:
        return math.lgamma(v)
    except ValueError:  # a pole (0, -1, -2, ...): TensorFlow gives inf
        return math.inf


_lgamma_entries = np.frompyfunc(_lgamma_entry, 1, 1)


def _lgamma(x: np.ndarray) -> np.ndarray:
    return _lgamma_entries(x.astype(np.float64)).astype(np.float64)


def _asymptotic(n: int, y: np.ndarray) -> np.ndarray:
    """psi_n(y) for y >= 20 from its asymptotic series."""
    if n == 0:
        total = np.log(y) - 0.5 / y
        for k, b in enumerate(_BERNOULLI, start=1):
            total -= b / (2 * k * y ** (2 * k))
        return total
    total = math.factorial(n - 1) / y**n + math.factorial(n) / (2 * y ** (n + 1))
    for k, b in enumerate(_BERNOULLI, start=1):
        total += b * math.factorial(2 * k + n - 1) / math.factorial(2 * k) / y ** (2 * k + n)
    return (-1) ** (n + 1) * total


def _shifted(n: int, x: np.ndarray) -> np.ndarray:
    """psi_n(x) for x that is no pole: the recurrence up to _LARGE, then the series."""
    steps = np.maximum(np.ceil(_LARGE - x), 0)
    passed = np.zeros_like(x)
    for j in range(int(steps.max(initial=0))):
        low = j < steps
        passed[low] += (x[low] + j) ** -(n + 1)
    return _asymptotic(n, x + steps) - (-1) ** n * math.factorial(n) * passed


def _reflected(n: int, x: np.ndarray) -> np.ndarray:
    """psi_0 and psi_1 of negative x from 1 - x: psi(x) = psi(1 - x) - pi cot(pi x), psi_1(x) = -psi_1(1 - x) +
    pi^2 / sin^2(pi x). x - round(x) is exact, so the period is taken without losing digits."""
    turn = np.pi * (x - np.round(x))
    if n == 0:
        return _shifted(0, 1 - x) - np.pi / np.tan(turn)
    return -_shifted(1, 1 - x) + (np.pi / np.sin(turn)) ** 2


def _polygamma(x: np.ndarray, n: int) -> np.ndarray:
    """psi_n(x) entry by entry, in float64. At a pole (0, -1, ..., and -inf) TensorFlow gives NaN for digamma and
    the even orders, inf for the odd ones; +inf gives inf (digamma) or 0."""
    x = x.astype(np.float64)
    out = np.full(x.shape, np.nan)
    pole = (x <= 0) & (np.floor(x) == x)
    out[pole] = np.inf if n % 2 else np.nan
    regular = ~pole & ~np.isnan(x)
    values = x[regular]
    negative = values < 0
    result = np.empty_like(values)
    if n <= 1:
        result[negative] = _reflected(n, values[negative])
        result[~negative] = _shifted(n, values[~negative])
    else:
        result[:] = _shifted(n, values)
    out[regular] = result
    return out


def _orders(a: np.ndarray, x: np.ndarray) -> np.ndarray:
    """polygamma(a, x) with a broadcast against x; an order that is no whole number >= 0 gives NaN."""
    a, x = np.broadcast_arrays(a, x)
    out = np.full(x.shape, np.nan)
    whole = np.isfinite(a) & (a >= 0) & (np.floor(a) == a)
    for n in np.unique(a[whole]):
        taken = a == n
        out[taken] = _polygamma(x[taken], int(n))
    return out


polygamma_op = defop(
    "Polygamma",
    _orders,
    lambda op, g: (None, g * polygamma_op(op.x + 1, op.y)),  # d/dx psi_n = psi_(n+1); none for the order
    keep="inputs",
    same_dtype=(0, 1),
    dtype_from=1,
)
digamma_op = defop(
    "Digamma",
    lambda x: _polygamma(x, 0),
    lambda op, g: g * polygamma_op(ones_like(op.x), op.x),
    keep="inputs",
    floating=True,
)
lgamma_op = defop("Lgamma", _lgamma, lambda op, g: g * digamma_op(op.x), keep="inputs", floating=True)


def lgamma(x: Any, name: str | None = None) -> Tensor:
    """log |Gamma(x)|, entry by entry (float16, float32 or float64); inf at the poles 0, -1, -2, ...

    Its gradient is digamma(x)."""
    return lgamma_op(x)


def digamma(x: Any, name: str | None = None) -> Tensor:
    """psi(x), the derivative of lgamma; NaN at the poles 0, -1, -2, ... Its gradient is polygamma(1, x)."""
    return digamma_op(x)


def polygamma(a: Any, x: Any, name: str | None = None) -> Tensor:
    """psi_a(x), the a-th derivative of digamma (float32 or float64; a and x broadcast). An order a that is no
    whole number >= 0 gives NaN, as in TensorFlow. Its gradient in x is polygamma(a + 1, x); a has none."""
    tensors = [t if isinstance(t, TensorLike) else None for t in (a, x)]
    dtype = next((t.dtype for t in tensors if t is not None), None)
    if dtype is not None and dtype.name not in ("float32", "float64"):
        raise InvalidArgumentError(
            f"polygamma: Value for attr 'T' of {dtype.name} is not in the list of allowed values: float32, float64; "
            "cast first, e.g. mt.cast(x, mt.float32)"
        )
    if dtype is None and convert_to_tensor(x).dtype.name not in ("float32", "float64"):
        raise InvalidArgumentError("polygamma: a and x must be float32 or float64 numbers, e.g. polygamma(1.0, 2.5)")
    return polygamma_op(a, x)
