"""Ops on sequences: roll (shift entries around an axis), unique (the distinct values in order of first
appearance) and searchsorted (where values go in sorted rows).

Roll's gradient rolls the gradient back. Unique and searchsorted give indices, not values that vary smoothly, and
have no gradient, as in TensorFlow: a tape that reaches Unique raises TensorFlow's LookupError, searchsorted's
integer result gives None.
"""

from __future__ import annotations

from collections import namedtuple
from typing import Any

import numpy as np

from minitape.engine.opdef import defop
from minitape.engine.tensor import Tensor
from minitape.function.trace import runs_each_call
from minitape.ops.api import negative
from minitape.values.convert import convert_to_tensor
from minitape.values.dtypes import as_dtype
from minitape.values.errors import InvalidArgumentError, NotFoundError
from minitape.values.tensor_like import TensorLike

_INDEX_DTYPES = ("int32", "int64")


def _index_dtype(what: str, dtype: Any) -> None:
    name = as_dtype(dtype).name
    if name not in _INDEX_DTYPES:
        raise InvalidArgumentError(
            f"Value for attr '{what}' of {name} is not in the list of allowed values: int32, int64"
        )


# ---- roll -----------------------------------------------------------------------------------------------------------
def _roll(x: np.ndarray, shift: np.ndarray, axis: np.ndarray) -> np.ndarray:
    if x.ndim == 0:
        raise InvalidArgumentError("input must be 1-D or higher: a scalar has no axis to roll along")
    for what, value in (("shift", shift), ("axis", axis)):
        _index_dtype("Tshift" if what == "shift" else "Taxis", value.dtype)
        if value.ndim > 1:
            raise InvalidArgumentError(f"{what} must be a scalar or a 1-D vector. Found: {list(value.shape)}")
    if shift.size != axis.size:
        raise InvalidArgumentError(
            f"shift and axis must have the same size: shift {shift.tolist()}, axis {axis.tolist()}"
        )
    for a in axis.reshape(-1).tolist():
        if not -x.ndim <= a < x.ndim:
            raise InvalidArgumentError(f"axis {a} is out of range for a tensor of rank {x.ndim}")
    return np.roll(x, tuple(shift.reshape(-1).tolist()), tuple(axis.reshape(-1).tolist()))  # shifts on one axis add


roll_op = defop(
    "Roll",
    _roll,
    lambda op, g: (roll_op(g, negative(op.inputs[1]), op.inputs[2]), None, None),  # rolled back by -shift
    keep="inputs",
)


def roll(input: Any, shift: Any, axis: Any, name: str | None = None) -> Tensor:
    """`input` with its entries moved `shift` places towards higher indices along `axis`; those that pass the end
    come back at the start. shift and axis may be lists (one shift per axis; shifts on one axis add up); a negative
    shift moves the other way."""
    return roll_op(input, shift, axis)


# ---- unique ---------------------------------------------------------------------------------------------------------
Unique = namedtuple("Unique", ["y", "idx"])
UniqueWithCounts = namedtuple("UniqueWithCounts", ["y", "idx", "count"])


def _unique(x: np.ndarray, out_idx: str, counted: bool) -> tuple:
    """The distinct values in order of first appearance (numpy's unique sorts them), where each entry went,
    and how often each occurs. Every NaN is a value of its own, as NaN != NaN in TensorFlow's hash table."""
    if x.ndim != 1:
        raise InvalidArgumentError(f"unique expects a 1D vector, not shape {list(x.shape)}; flatten it with reshape")
    _, first, inverse, counts = np.unique(
        x, return_index=True, return_inverse=True, return_counts=True, equal_nan=False
    )
    order = np.argsort(first, kind="stable")
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    y, idx = x[first[order]], rank[inverse.reshape(-1)].astype(out_idx)
    return (y, idx, counts[order].astype(out_idx)) if counted else (y, idx)


unique_op = defop("Unique", lambda x, out_idx: _unique(x, out_idx, False), n_outputs=2, dtype_from=None)
counts_op = defop("UniqueWithCounts", lambda x, out_idx: _unique(x, out_idx, True), n_outputs=3, dtype_from=None)


@runs_each_call  # how many distinct values there are depends on the values: found again at every call
def _distinct(op: Any, x: Any, out_idx: str) -> list:
    return op(x, out_idx=out_idx)


def unique(x: Any, out_idx: Any = "int32", name: str | None = None) -> Unique:
    """The distinct values of the 1-D `x` in the order they first appear (`y`), and for each entry of `x` the
    index of its value in `y` (`idx`, of dtype out_idx: int32 or int64), so that gather(y, idx) is x."""
    _index_dtype("out_idx", out_idx)
    return Unique(*_distinct(unique_op, x, as_dtype(out_idx).name))


def unique_with_counts(x: Any, out_idx: Any = "int32", name: str | None = None) -> UniqueWithCounts:
    """As `unique`, with how often each distinct value occurs (`count`, of dtype out_idx)."""
    _index_dtype("out_idx", out_idx)
    return UniqueWithCounts(*_distinct(counts_op, x, as_dtype(out_idx).name))


# ---- searchsorted ---------------------------------------------------------------------------------------------------
def _search(sorted_sequence: np.ndarray, values: np.ndarray, side: str, out_type: str) -> np.ndarray:
    """Each value's place in the last axis of `sorted_sequence` (row by row when there are leading axes)."""
    if sorted_sequence.ndim == 0 or values.ndim == 0:
        raise InvalidArgumentError(
            f"sorted_sequence and values need at least one axis (the last is searched); got shapes "
            f"{list(sorted_sequence.shape)} and {list(values.shape)}"
        )
    if sorted_sequence.shape[:-1] != values.shape[:-1]:
        raise InvalidArgumentError(
            f"Leading dim_size of both tensors must match: sorted_sequence {list(sorted_sequence.shape)} and values "
            f"{list(values.shape)} must agree on every axis but the last"
        )
    lead = int(np.prod(values.shape[:-1]))
    rows = sorted_sequence.reshape(lead, sorted_sequence.shape[-1])
    wanted = values.reshape(lead, values.shape[-1])
    found = np.empty(wanted.shape, np.int64)
    for k in range(rows.shape[0]):
        found[k] = np.searchsorted(rows[k], wanted[k], side=side)
    if values.dtype.kind == "f":  # TensorFlow's binary search compares with <: a NaN goes first (left), last (right)
        found[np.isnan(wanted)] = 0 if side == "left" else rows.shape[1]
    return found.reshape(values.shape).astype(out_type)


lower_bound_op = defop(
    "LowerBound", lambda s, v, out_type: _search(s, v, "left", out_type), None, same_dtype=(0, 1), dtype_from=None
)
upper_bound_op = defop(
    "UpperBound", lambda s, v, out_type: _search(s, v, "right", out_type), None, same_dtype=(0, 1), dtype_from=None
)


def searchsorted(
    sorted_sequence: Any, values: Any, side: str = "left", out_type: Any = "int32", name: str | None = None
) -> Tensor:
    """Where each of `values` would go in `sorted_sequence` to keep it sorted, along the last axis (the leading
    axes of both must agree: each row is searched with its own values). side='left' gives the first such place
    (before equal entries), 'right' the last. The sequence is not checked to be sorted, as in TensorFlow."""
    if side not in ("left", "right"):
        raise ValueError(f"Argument `side` must be either 'right' or 'left'. Received: `side` = {side!r}.")
    _index_dtype("out_type", out_type)
    op = lower_bound_op if side == "left" else upper_bound_op
    if not isinstance(sorted_sequence, TensorLike):
        sorted_sequence = convert_to_tensor(sorted_sequence)
    if sorted_sequence.dtype.is_bool:
        raise NotFoundError(
            f"Could not find device for node: {op.name}[T=DT_BOOL]: searchsorted has no kernel for bool; cast both "
            "to a number dtype first, e.g. mt.cast(x, mt.int32)"
        )
    return op(sorted_sequence, values, out_type=as_dtype(out_type).name)
