"""`mt.data.Dataset`: TensorFlow's input pipelines, eager only.

A dataset is a recipe that yields elements when iterated: each element is a tensor, a tuple or a dict of
tensors (as in tf.data, a Python list is one tensor, not a structure). Every transformation returns a new
dataset and runs lazily, element by element, so `repeat()` may be infinite. There is no graph, no parallelism
and no prefetching: `prefetch` and `cache` return the dataset unchanged, and `num_parallel_calls` is ignored.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

import numpy as np

from minitape import random
from minitape.dtypes import int64
from minitape.execute import convert_to_tensor
from minitape.ops.api import cast
from minitape.tensor import Tensor, TensorLike

AUTOTUNE = -1
INFINITE_CARDINALITY = -1
UNKNOWN_CARDINALITY = -2


# ---- element structures: tuples and dicts of tensors ---------------------------------------------------
def _flatten(element: Any) -> list:
    if isinstance(element, tuple):
        return [leaf for item in element for leaf in _flatten(item)]
    if isinstance(element, dict):
        return [leaf for key in sorted(element) for leaf in _flatten(element[key])]
    return [element]


def _pack(structure: Any, leaves: Iterator) -> Any:
    if isinstance(structure, tuple):
        packed = [_pack(item, leaves) for item in structure]
        return type(structure)(*packed) if hasattr(structure, "_fields") else tuple(packed)
    if isinstance(structure, dict):
        return {key: _pack(structure[key], leaves) for key in sorted(structure)}
    return next(leaves)


def _to_tensors(element: Any) -> Any:
    """Every leaf as a tensor (numbers and numpy arrays converted with TensorFlow's defaults)."""
    return _pack(element, iter([_tensor(leaf) for leaf in _flatten(element)]))


def _tensor(value: Any) -> Tensor:
    return convert_to_tensor(value) if not isinstance(value, Tensor) else value


def _call(fn: Callable, element: Any) -> Any:
    """tf.data calls a function with a tuple element unpacked into arguments, any other element as one."""
    return fn(*element) if isinstance(element, tuple) and not hasattr(element, "_fields") else fn(element)


class Dataset:
    """A sequence of elements, built by the static constructors and transformed by the methods."""

    def __init__(self, make_iterator: Callable[[], Iterator], cardinality: int, ragged_batches: bool = False) -> None:
        """Made by the constructors below: `make_iterator()` starts a fresh pass over the elements.
        `ragged_batches`: the last batch may be shorter, so element_spec gives the batch axis as None."""
        self._make_iterator = make_iterator
        self._cardinality = cardinality
        self._ragged_batches = ragged_batches

    @property
    def element_spec(self) -> Any:
        """The structure of an element, with a TensorSpec (shape and dtype) per component, read from the first
        element (None for the batch axis when the last batch may be shorter)."""
        from minitape.tensor_spec import TensorSpec

        first = next(iter(self), None)
        if first is None:
            raise ValueError("element_spec: the dataset is empty, so minitape cannot tell its elements' shapes")

        def spec(t: Tensor) -> TensorSpec:
            shape = list(t.shape)
            if self._ragged_batches and shape:
                shape[0] = None
            return TensorSpec(shape, t.dtype)

        return _pack(first, iter([spec(t) for t in _flatten(first)]))

    # ---- sources -----------------------------------------------------------------------------------------
    @staticmethod
    def from_tensor_slices(tensors: Any, name: str | None = None) -> Dataset:
        """One element per entry along the first axis of every component (all must have the same length)."""
        structure = _to_tensors(tensors)
        arrays = [leaf.numpy() for leaf in _flatten(structure)]
        if any(np.ndim(a) == 0 for a in arrays):
            raise ValueError("from_tensor_slices: every component needs a first axis to slice; use from_tensors")
        lengths = {len(a) for a in arrays}
        if len(lengths) > 1:
            shapes = ", ".join(str(list(np.shape(a))) for a in arrays)
            raise ValueError(
                f"from_tensor_slices: the components have different first dimensions ({shapes}); every component "
                "must have one entry per element"
            )
        n = lengths.pop()

        def generate() -> Iterator:
            for i in range(n):
                yield _pack(structure, iter([Tensor(np.array(a[i])) for a in arrays]))

        return Dataset(generate, n)

    @staticmethod
    def from_tensors(tensors: Any, name: str | None = None) -> Dataset:
        """A dataset of one element: `tensors` whole."""
        element = _to_tensors(tensors)
        return Dataset(lambda: iter([element]), 1)

    @staticmethod
    def range(*args: int, output_type: Any = int64, name: str | None = None) -> Dataset:
        """range(stop), range(start, stop) or range(start, stop, step), as int64 scalars by default."""
        values = range(*(int(a) for a in args))
        dtype = np.dtype(getattr(output_type, "as_numpy_dtype", output_type))
        return Dataset(lambda: (Tensor(np.array(v, dtype)) for v in values), len(values))

    @staticmethod
    def from_generator(
        generator: Callable[[], Iterable],
        output_types: Any = None,
        output_shapes: Any = None,
        args: Any = None,
        output_signature: Any = None,
        name: str | None = None,
    ) -> Dataset:
        """Elements from calling `generator()` (with `args`) afresh for each pass, converted to `output_types`
        (or the dtypes of `output_signature`'s TensorSpecs) when given; their count is unknown."""
        call_args = tuple(args) if args is not None else ()
        wanted = output_signature if output_signature is not None else output_types
        dtypes = None if wanted is None else [getattr(w, "dtype", w) for w in _flatten(wanted)]

        def convert(element: Any) -> Any:
            element = _to_tensors(element)
            if dtypes is None:
                return element
            leaves = _flatten(element)
            if len(leaves) != len(dtypes):
                raise ValueError(f"from_generator: an element has {len(leaves)} parts, the signature {len(dtypes)}")
            return _pack(element, iter([cast(t, d) for t, d in zip(leaves, dtypes)]))

        return Dataset(lambda: (convert(e) for e in generator(*call_args)), UNKNOWN_CARDINALITY)

    @staticmethod
    def zip(*datasets: Any, name: str | None = None) -> Dataset:
        """Elements side by side: `zip((a, b))` or `zip(a, b)` yields (a_i, b_i); a dict of datasets yields dicts."""
        structure = datasets[0] if len(datasets) == 1 and not isinstance(datasets[0], Dataset) else datasets
        members = _flatten(structure)
        if not all(isinstance(d, Dataset) for d in members):
            raise TypeError("Dataset.zip takes datasets, a tuple of datasets or a dict of datasets")

        def generate() -> Iterator:
            for elements in zip(*(iter(d) for d in members)):
                yield _pack(structure, iter(elements))

        known = [d._cardinality for d in members if d._cardinality >= 0]
        if known:
            count = min(known)
        else:
            count = UNKNOWN_CARDINALITY if UNKNOWN_CARDINALITY in [d._cardinality for d in members] else -1
        return Dataset(generate, count)

    # ---- transformations ----------------------------------------------------------------------------------
    def batch(
        self,
        batch_size: int,
        drop_remainder: bool = False,
        num_parallel_calls: Any = None,
        deterministic: Any = None,
        name: str | None = None,
    ) -> Dataset:
        """Stack `batch_size` consecutive elements into one; a shorter last batch is kept unless drop_remainder."""
        size = int(batch_size)
        if size <= 0:
            raise ValueError(f"batch: batch_size must be positive, got {size}")

        def generate() -> Iterator:
            pending: list = []
            for element in self:
                pending.append(element)
                if len(pending) == size:
                    yield _stack(pending)
                    pending = []
            if pending and not drop_remainder:
                yield _stack(pending)

        n = self._cardinality
        count = n if n < 0 else (n // size if drop_remainder else -(-n // size))
        return Dataset(generate, count, ragged_batches=not drop_remainder)

    def padded_batch(
        self,
        batch_size: int,
        padded_shapes: Any = None,
        padding_values: Any = None,
        drop_remainder: bool = False,
        name: str | None = None,
    ) -> Dataset:
        """batch() for elements of different shapes: each component is padded at the end of every axis, to
        `padded_shapes` (None or -1 in it: the longest in the batch) with `padding_values` (default 0)."""
        size = int(batch_size)
        if size <= 0:
            raise ValueError(f"padded_batch: batch_size must be positive, got {size}")

        def generate() -> Iterator:
            pending: list = []
            for element in self:
                pending.append(element)
                if len(pending) == size:
                    yield _stack(pending, True, padded_shapes, padding_values)
                    pending = []
            if pending and not drop_remainder:
                yield _stack(pending, True, padded_shapes, padding_values)

        n = self._cardinality
        count = n if n < 0 else (n // size if drop_remainder else -(-n // size))
        return Dataset(generate, count, ragged_batches=not drop_remainder)

    def reduce(self, initial_state: Any, reduce_func: Callable, name: str | None = None) -> Any:
        """Fold the elements into one value: state = reduce_func(state, element), starting from initial_state."""
        state = _to_tensors(initial_state)
        for element in self:
            state = _to_tensors(reduce_func(state, element))
        return state

    def __getattr__(self, name: str) -> Any:
        if name in _MISSING_METHODS:
            raise AttributeError(f"minitape's Dataset has no {name}: {_MISSING_METHODS[name]}")
        raise AttributeError(f"'Dataset' object has no attribute {name!r}")

    def unbatch(self, name: str | None = None) -> Dataset:
        """The inverse of batch: every element's first axis becomes separate elements."""

        def generate() -> Iterator:
            for element in self:
                yield from Dataset.from_tensor_slices(element)

        return Dataset(generate, UNKNOWN_CARDINALITY)

    def shuffle(
        self, buffer_size: int, seed: int | None = None, reshuffle_each_iteration: bool = True, name: str | None = None
    ) -> Dataset:
        """Shuffle with a buffer, as tf.data does: fill `buffer_size` elements, then repeatedly yield a random one
        of them and put the next element in its place. A buffer at least as large as the dataset shuffles it
        uniformly. With a `seed`, the order is the same on every run (each pass gets its own order unless
        reshuffle_each_iteration=False)."""
        size = int(buffer_size)
        if size <= 0:
            raise ValueError(f"shuffle: buffer_size must be positive, got {size}")
        base = int(random.generator().integers(2**31)) if seed is None else int(seed)
        passes = iter(range(2**62))

        def generate() -> Iterator:
            rng = np.random.default_rng([base, next(passes) if reshuffle_each_iteration else 0])
            buffer: list = []
            for element in self:
                if len(buffer) < size:
                    buffer.append(element)
                    continue
                k = int(rng.integers(len(buffer)))
                yield buffer[k]
                buffer[k] = element
            while buffer:
                yield buffer.pop(int(rng.integers(len(buffer))))

        return Dataset(generate, self._cardinality)

    def map(
        self, map_func: Callable, num_parallel_calls: Any = None, deterministic: Any = None, name: str | None = None
    ) -> Dataset:
        """`map_func` applied to every element (a tuple element is passed as separate arguments)."""
        return Dataset(lambda: (_to_tensors(_call(map_func, e)) for e in self), self._cardinality)

    def filter(self, predicate: Callable, name: str | None = None) -> Dataset:
        """The elements for which `predicate` returns True (a scalar bool tensor or a Python bool)."""

        def keep(element: Any) -> bool:
            verdict = _call(predicate, element)
            value = verdict.numpy() if isinstance(verdict, TensorLike) else np.asarray(verdict)
            if np.shape(value) != () or np.asarray(value).dtype != np.bool_:
                raise ValueError(
                    f"filter: the predicate must return a scalar bool, got {np.asarray(value).dtype} of shape "
                    f"{list(np.shape(value))}; reduce it, e.g. mt.reduce_all(...)"
                )
            return bool(value)

        return Dataset(lambda: (e for e in self if keep(e)), UNKNOWN_CARDINALITY)

    def take(self, count: int, name: str | None = None) -> Dataset:
        """The first `count` elements (all of them if count is -1)."""
        count = int(count)
        if count < 0:
            return self

        def generate() -> Iterator:
            for i, element in enumerate(self):
                if i >= count:
                    return
                yield element

        n = self._cardinality
        return Dataset(generate, count if n == INFINITE_CARDINALITY else (min(n, count) if n >= 0 else n))

    def skip(self, count: int, name: str | None = None) -> Dataset:
        """All but the first `count` elements (none if count is -1)."""
        count = int(count)

        def generate() -> Iterator:
            for i, element in enumerate(self):
                if count >= 0 and i >= count:
                    yield element

        n = self._cardinality
        return Dataset(generate, 0 if count < 0 else (max(n - count, 0) if n >= 0 else n))

    def repeat(self, count: int | None = None, name: str | None = None) -> Dataset:
        """The dataset `count` times over; forever if count is None or -1."""
        forever = count is None or int(count) < 0

        def generate() -> Iterator:
            done = 0
            while forever or done < int(count):
                yield from self
                done += 1

        n = self._cardinality
        if forever:
            cardinality = 0 if n == 0 else INFINITE_CARDINALITY
        else:
            cardinality = n * int(count) if n >= 0 else n
        return Dataset(generate, cardinality)

    def enumerate(self, start: int = 0, name: str | None = None) -> Dataset:
        """(index, element) pairs, the index an int64 tensor."""
        return Dataset(
            lambda: ((Tensor(np.array(i, np.int64)), e) for i, e in enumerate(self, int(start))), self._cardinality
        )

    def concatenate(self, dataset: Dataset, name: str | None = None) -> Dataset:
        """This dataset's elements, then `dataset`'s."""

        def generate() -> Iterator:
            yield from self
            yield from dataset

        a, b = self._cardinality, dataset._cardinality
        return Dataset(generate, a + b if a >= 0 and b >= 0 else min(a, b))

    def prefetch(self, buffer_size: Any = AUTOTUNE, name: str | None = None) -> Dataset:
        """The same dataset: minitape computes elements when asked, so there is nothing to fetch ahead."""
        return self

    def cache(self, filename: str = "", name: str | None = None) -> Dataset:
        """The same dataset: nothing is cached (elements are recomputed on each pass)."""
        return self

    # ---- reading --------------------------------------------------------------------------------------
    def __iter__(self) -> Iterator:
        return self._make_iterator()

    def as_numpy_iterator(self) -> Iterator:
        """The elements with numpy values in place of tensors (same tuples and dicts)."""
        for element in self:
            leaves = _flatten(element)
            yield _pack(element, iter([leaf.numpy() for leaf in leaves]))

    def cardinality(self) -> Tensor:
        """The number of elements as an int64 tensor: -1 if infinite, -2 if unknown (after filter)."""
        return Tensor(np.array(self._cardinality, np.int64))

    def __len__(self) -> int:
        if self._cardinality == INFINITE_CARDINALITY:
            raise TypeError("The dataset is infinite.")
        if self._cardinality == UNKNOWN_CARDINALITY:
            raise TypeError("The dataset length is unknown.")
        return self._cardinality

    def __repr__(self) -> str:
        return f"<mt.data.Dataset cardinality={self._cardinality}>"


def _stack(elements: list, pad: bool = False, padded_shapes: Any = None, padding_values: Any = None) -> Any:
    """Stack a list of same-structured elements component by component, padding them first if asked."""
    columns = list(zip(*(_flatten(e) for e in elements)))
    shapes_wanted = _flatten(padded_shapes) if padded_shapes is not None else [None] * len(columns)
    values_wanted = _flatten(padding_values) if padding_values is not None else [0] * len(columns)
    if len(values_wanted) == 1:
        values_wanted = values_wanted * len(columns)
    stacked = []
    for column, wanted, fill in zip(columns, shapes_wanted, values_wanted):
        arrays = [c.numpy() for c in column]
        if pad:
            arrays = _padded(arrays, wanted, fill)
        shapes = {np.shape(a) for a in arrays}
        if len(shapes) > 1:
            raise ValueError(
                f"batch: elements have different shapes {sorted(list(s) for s in shapes)} and cannot be stacked; "
                "map them to one shape first, or use padded_batch"
            )
        stacked.append(Tensor(np.stack(arrays)))
    return _pack(elements[0], iter(stacked))


def _padded(arrays: list, wanted: Any, fill: Any) -> list:
    """Pad every array at the end of each axis to `wanted` (None or -1: the largest size among them)."""
    rank = np.ndim(arrays[0])
    wanted = None if wanted is None else ([wanted] if np.ndim(wanted) == 0 else list(wanted))  # 5 means [5]
    longest = [max(np.shape(a)[i] for a in arrays) for i in range(rank)]
    target = longest if wanted is None else [m if w is None or int(w) < 0 else int(w) for w, m in zip(wanted, longest)]
    if any(t < m for t, m in zip(target, longest)):
        raise ValueError(f"padded_batch: an element of shape {longest} does not fit padded_shapes {list(wanted)}")
    fill = fill.numpy() if isinstance(fill, TensorLike) else fill
    return [np.pad(a, [(0, t - n) for t, n in zip(target, np.shape(a))], constant_values=fill) for a in arrays]


_MISSING_METHODS = {
    "interleave": "read the sources one after the other with concatenate, or build the elements in Python",
    "window": "batch consecutive elements with batch(), or slice a numpy array",
    "group_by_window": "sort or group the elements in Python first",
    "bucket_by_sequence_length": "use padded_batch",
    "save": "datasets cannot be saved; keep the numpy arrays with np.save",
    "snapshot": "datasets cannot be saved; keep the numpy arrays with np.save",
    "apply": "call the transformation on the dataset directly: f(dataset)",
    "with_options": "there are no options: minitape's datasets run eagerly in Python",
    "rebatch": "unbatch() then batch()",
}


class _Experimental:
    """`mt.data.experimental`: the constants, cardinality, and errors for the file readers."""

    AUTOTUNE = AUTOTUNE
    INFINITE_CARDINALITY = INFINITE_CARDINALITY
    UNKNOWN_CARDINALITY = UNKNOWN_CARDINALITY

    @staticmethod
    def cardinality(dataset: Dataset) -> Tensor:
        return dataset.cardinality()

    def __getattr__(self, name: str) -> Any:
        if name in ("make_csv_dataset", "CsvDataset", "make_batched_features_dataset", "SqlDataset"):
            raise AttributeError(
                f"minitape has no tf.data.experimental.{name}: load the file with numpy (np.loadtxt or np.genfromtxt"
                " with delimiter=',') or the csv module, then use mt.data.Dataset.from_tensor_slices"
            )
        raise AttributeError(f"'mt.data.experimental' has no attribute {name!r}")


experimental = _Experimental()


_FILE_DATASETS = {
    "TextLineDataset": "read the lines with Python (open(path).read().splitlines()) and process the text there",
    "TFRecordDataset": "there are no TFRecord files; keep the data in numpy arrays (np.save / np.load)",
    "FixedLengthRecordDataset": "read the file with numpy (np.fromfile) and use Dataset.from_tensor_slices",
}


def __getattr__(name: str) -> Any:
    if name in _FILE_DATASETS:
        raise AttributeError(f"minitape has no tf.data.{name}: {_FILE_DATASETS[name]}")
    raise AttributeError(f"module 'minitape.data' has no attribute {name!r}")
