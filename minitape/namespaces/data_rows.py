"""Datasets whose elements are rows of arrays: `from_tensor_slices`, and the repeat, shuffle, take, skip, prefetch
and cache that follow it, handled as streams of row numbers rather than element by element.

A pass over such a dataset is a sequence of int64 arrays ("chunks") of row numbers. `batch` then gathers each batch
with one fancy index per component, where stacking element by element would make a tensor per row. The shuffle
buffer holds row numbers, and draws exactly the random numbers of the element-by-element buffer (numpy's bounded
draws come from the same stream whether asked one at a time or as an array), so the order is the same.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from minitape.engine.tensor import Tensor
from minitape.namespaces.data_elements import pack

Chunks = Callable[[], Iterator[np.ndarray]]


class Rows:
    """The elements of a dataset as rows of `arrays` (the leaves of `structure`): `chunks()` starts a pass and
    gives its row numbers, in order."""

    def __init__(self, structure: Any, arrays: list[np.ndarray], chunks: Chunks) -> None:
        self.structure, self.arrays, self.chunks = structure, arrays, chunks

    def derive(self, chunks: Chunks) -> Rows:
        """The same arrays, other row numbers."""
        return Rows(self.structure, self.arrays, chunks)

    def elements(self) -> Iterator:
        """One element per row number, each component a tensor of its own (as from_tensor_slices gives)."""
        for chunk in self.chunks():
            for i in chunk.tolist():
                yield pack(self.structure, iter([Tensor(np.array(a[i])) for a in self.arrays]))

    def batches(self, size: int, drop_remainder: bool) -> Iterator:
        """Elements of `size` rows (the last one shorter unless drop_remainder), one gather per component."""
        for rows in _cut(self.chunks(), size, drop_remainder):
            yield pack(self.structure, iter([Tensor(a[rows]) for a in self.arrays]))


def _cut(chunks: Iterator[np.ndarray], size: int, drop_remainder: bool) -> Iterator[np.ndarray]:
    """The row numbers of `chunks` in pieces of `size`, across chunk boundaries."""
    carry = np.empty(0, np.int64)
    for chunk in chunks:
        rows = np.concatenate([carry, chunk]) if len(carry) else chunk
        full = len(rows) - len(rows) % size
        for start in range(0, full, size):
            yield rows[start : start + size]
        carry = rows[full:]
    if len(carry) and not drop_remainder:
        yield carry


def source(n: int) -> Chunks:
    """The rows 0 .. n-1, in order."""
    return lambda: iter([np.arange(n, dtype=np.int64)])


def repeated(chunks: Chunks, count: int | None) -> Chunks:
    """`count` passes one after the other (forever if None); each pass starts the source afresh."""

    def generate() -> Iterator[np.ndarray]:
        done = 0
        while count is None or done < count:
            yield from chunks()
            done += 1

    return generate


def taken(chunks: Chunks, count: int) -> Chunks:
    """The first `count` row numbers."""

    def generate() -> Iterator[np.ndarray]:
        left = count
        for chunk in chunks() if left > 0 else ():
            yield chunk[:left]
            left -= len(chunk)
            if left <= 0:
                return

    return generate


def skipped(chunks: Chunks, count: int) -> Chunks:
    """All but the first `count` row numbers."""

    def generate() -> Iterator[np.ndarray]:
        left = count
        for chunk in chunks():
            if left < len(chunk):
                yield chunk[left:]
            left = max(left - len(chunk), 0)

    return generate


def shuffled(chunks: Chunks, size: int, rng_of_pass: Callable[[], np.random.Generator]) -> Chunks:
    """tf.data's shuffle buffer over row numbers: fill `size`, then for each new row yield the buffer's entry at a
    random slot and put the row there; at the end, empty the buffer in random order (see Dataset.shuffle)."""

    def generate() -> Iterator[np.ndarray]:
        rng = rng_of_pass()
        buffer = np.empty(0, np.int64)
        for chunk in chunks():
            if len(buffer) < size:
                buffer, chunk = np.concatenate([buffer, chunk[: size - len(buffer)]]), chunk[size - len(buffer) :]
            if len(chunk):
                out, buffer = _through_buffer(buffer, chunk, rng.integers(size, size=len(chunk)))
                yield out
        if len(buffer):
            yield _drained(buffer.tolist(), rng)

    return generate


def _through_buffer(buffer: np.ndarray, incoming: np.ndarray, slots: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The rows a full buffer yields as `incoming` rows replace, one by one, the entries at `slots` (what each
    step yields is the last row put in its slot before, or the buffer's own entry), and the buffer after."""
    order = np.argsort(slots, kind="stable")  # the steps of each slot together, in time order
    by_slot = slots[order]
    same = by_slot[1:] == by_slot[:-1]
    previous = np.full(len(slots), -1, np.int64)  # per step: the step that last wrote its slot, -1 for none
    previous[order[1:]] = np.where(same, order[:-1], -1)
    out = np.where(previous >= 0, incoming[previous], buffer[slots])
    last = np.append(~same, True)  # the final write of each slot
    buffer = buffer.copy()
    buffer[by_slot[last]] = incoming[order[last]]
    return out, buffer


def _drained(buffer: list, rng: np.random.Generator) -> np.ndarray:
    """The buffer's rows in the order random pops take them (bounds len, len - 1, ..., 1)."""
    picks = rng.integers(np.arange(len(buffer), 0, -1)).tolist()
    return np.array([buffer.pop(k) for k in picks], np.int64)
