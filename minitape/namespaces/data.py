"""`mt.data.Dataset`: TensorFlow's input pipelines, eager only.

A dataset is a recipe that yields elements when iterated: each element is a tensor, a tuple or a dict of
tensors (as in tf.data, a Python list is one tensor, not a structure). Every transformation returns a new
dataset and runs lazily, so `repeat()` may be infinite. There is no graph, no parallelism and no prefetching:
`prefetch` and `cache` return the dataset unchanged, and `num_parallel_calls` is ignored. From
`from_tensor_slices` through repeat, shuffle, take and skip, the elements are row numbers of the sliced arrays
(data_rows.py), so a `batch` after them is one gather per component, in the same order.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import numpy as np

from minitape.engine.tensor import Tensor
from minitape.namespaces import data_rows, missing, random
from minitape.namespaces.data_elements import (
    DatasetIterator,
    Options,
    batched_spec,
    call,
    check_fits,
    common_spec,
    flatten,
    holds,
    map_leaves,
    normalize_output,
    pack,
    spec_of,
    stack,
    tensor,
    to_tensors,
)
from minitape.values.dtypes import as_dtype, int64
from minitape.values.shape import TensorShape
from minitape.values.tensor_spec import TensorSpec

__all__ = ["AUTOTUNE", "Dataset", "DatasetSpec", "Options", "experimental"]

AUTOTUNE = -1
INFINITE_CARDINALITY = -1
UNKNOWN_CARDINALITY = -2


class Dataset:
    """A sequence of elements, built by the static constructors and transformed by the methods."""

    _rows: data_rows.Rows | None = None  # set when the elements are rows of arrays (see data_rows.py)

    def __init__(self, make_iterator: Callable[[], Iterator], cardinality: int, spec: Callable | None = None) -> None:
        """Made by the constructors below: `make_iterator()` starts a fresh pass over the elements.
        `spec()` gives element_spec when it is known without reading an element (None: read the first one)."""
        self._make_iterator = make_iterator
        self._cardinality = cardinality
        self._spec = spec
        self._options = Options()

    @property
    def element_spec(self) -> Any:
        """The structure of an element, with a TensorSpec (shape and dtype) per component: known from the
        source and transformations where TensorFlow knows it statically, else read from the first element."""
        if self._spec is not None:
            return self._spec()
        first = next(iter(self), None)
        if first is None:
            raise ValueError("element_spec: the dataset is empty, so minitape cannot tell its elements' shapes")
        return spec_of(first)

    def _same_spec(self, make_iterator: Callable[[], Iterator], cardinality: int) -> Dataset:
        """A dataset whose elements have this one's structure and spec (a filter, a shuffle, a take...)."""
        return Dataset(make_iterator, cardinality, lambda: self.element_spec)

    def _same_rows(self, chunks: data_rows.Chunks, cardinality: int) -> Dataset:
        """Like _same_spec, for a dataset of rows: the same arrays, the row numbers of `chunks`."""
        rows = self._rows.derive(chunks)
        out = self._same_spec(rows.elements, cardinality)
        out._rows = rows
        return out

    # ---- sources -----------------------------------------------------------------------------------------
    @staticmethod
    def from_tensor_slices(tensors: Any, name: str | None = None) -> Dataset:
        """One element per entry along the first axis of every component (all must have the same length)."""
        structure = to_tensors(tensors)
        arrays = [leaf._array() for leaf in flatten(structure)]  # the tensors' own copies, only ever read
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
        rows = data_rows.Rows(structure, arrays, data_rows.source(n))
        dataset = Dataset(rows.elements, n, lambda: map_leaves(lambda t: TensorSpec(t.shape[1:], t.dtype), structure))
        dataset._rows = rows
        return dataset

    @staticmethod
    def from_tensors(tensors: Any, name: str | None = None) -> Dataset:
        """A dataset of one element: `tensors` whole."""
        element = to_tensors(tensors)
        return Dataset(lambda: iter([element]), 1, lambda: spec_of(element))

    @staticmethod
    def range(*args: int, output_type: Any = int64, name: str | None = None) -> Dataset:
        """range(stop), range(start, stop) or range(start, stop, step), as int64 scalars by default."""
        values = range(*(int(a) for a in args))
        return _counting(lambda: values, len(values), output_type)

    @staticmethod
    def from_generator(
        generator: Callable[[], Iterable],
        output_types: Any = None,
        output_shapes: Any = None,
        args: Any = None,
        output_signature: Any = None,
        name: str | None = None,
    ) -> Dataset:
        """Elements from calling `generator()` (with `args`) afresh for each pass; their count is unknown.

        `output_signature` (TensorSpecs) is the element_spec, and each element is converted to its dtypes and
        checked against its shapes (InvalidArgumentError if one does not fit, as in TensorFlow). The older
        `output_types` (with `output_shapes`, else shapes unknown) does the same."""
        call_args = tuple(args) if args is not None else ()
        signature = output_signature
        if signature is None and output_types is not None:
            shapes = flatten(output_shapes) if output_shapes is not None else None
            types = flatten(output_types)
            if shapes is not None and len(shapes) != len(types):
                shapes = [output_shapes]  # one component whose shape was given as a list
            specs = [TensorSpec(None if shapes is None else shapes[i], t) for i, t in enumerate(types)]
            signature = pack(output_types, iter(specs))
        if signature is not None and not all(isinstance(s, TensorSpec) for s in flatten(signature)):
            raise TypeError(
                "from_generator: output_signature must be a structure of mt.TensorSpec, e.g. "
                "mt.TensorSpec(shape=(None,), dtype=mt.int32)"
            )
        convert = to_tensors if signature is None else (lambda e: check_fits(e, signature))
        spec = None if signature is None else (lambda: signature)
        return Dataset(lambda: (convert(e) for e in generator(*call_args)), UNKNOWN_CARDINALITY, spec)

    @staticmethod
    def zip(*datasets: Any, name: str | None = None) -> Dataset:
        """Elements side by side: `zip((a, b))` or `zip(a, b)` yields (a_i, b_i); a dict of datasets yields dicts."""
        structure = datasets[0] if len(datasets) == 1 and not isinstance(datasets[0], Dataset) else datasets
        members = flatten(structure)
        if not all(isinstance(d, Dataset) for d in members):
            raise TypeError("Dataset.zip takes datasets, a tuple of datasets or a dict of datasets")

        def generate() -> Iterator:
            for elements in zip(*(iter(d) for d in members)):
                yield pack(structure, iter(elements))

        known = [d._cardinality for d in members if d._cardinality >= 0]
        if known:
            count = min(known)
        else:
            count = UNKNOWN_CARDINALITY if UNKNOWN_CARDINALITY in [d._cardinality for d in members] else -1
        return Dataset(generate, count, lambda: pack(structure, iter([d.element_spec for d in members])))

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
        return self._batched("batch", batch_size, drop_remainder)

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
        return self._batched("padded_batch", batch_size, drop_remainder, True, padded_shapes, padding_values)

    def _batched(
        self,
        method: str,
        batch_size: int,
        drop_remainder: bool,
        pad: bool = False,
        shapes: Any = None,
        values: Any = None,
    ) -> Dataset:
        size = int(batch_size)
        if size <= 0:
            raise ValueError(f"{method}: batch_size must be positive, got {size}")

        def generate() -> Iterator:
            pending: list = []
            for element in self:
                pending.append(element)
                if len(pending) == size:
                    yield stack(pending, pad, shapes, values)
                    pending = []
            if pending and not drop_remainder:
                yield stack(pending, pad, shapes, values)

        if self._rows is not None and not pad:  # rows of arrays: one gather per batch and component
            rows = self._rows

            def generate() -> Iterator:
                return rows.batches(size, drop_remainder)

        n = self._cardinality
        count = n if n < 0 else (n // size if drop_remainder else -(-n // size))
        batch = size if drop_remainder else None
        return Dataset(generate, count, lambda: batched_spec(self.element_spec, batch, shapes, pad=pad))

    def reduce(self, initial_state: Any, reduce_func: Callable, name: str | None = None) -> Any:
        """Fold the elements into one value: state = reduce_func(state, element), starting from initial_state."""
        state = to_tensors(initial_state)
        for element in self:
            state = to_tensors(reduce_func(state, element))
        return state

    def __getattr__(self, name: str) -> Any:
        if name in missing.DATASET:
            missing.raise_missing("tf.data.Dataset", name, missing.DATASET)
        raise AttributeError(f"'Dataset' object has no attribute {name!r}")

    def unbatch(self, name: str | None = None) -> Dataset:
        """The inverse of batch: every element's first axis becomes separate elements."""

        def generate() -> Iterator:
            for element in self:
                yield from Dataset.from_tensor_slices(element)

        return Dataset(
            generate,
            UNKNOWN_CARDINALITY,
            lambda: map_leaves(lambda s: TensorSpec(s.shape[1:], s.dtype), self.element_spec),
        )

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

        def rng_of_pass() -> np.random.Generator:
            return np.random.default_rng([base, next(passes) if reshuffle_each_iteration else 0])

        if self._rows is not None:  # the same buffer and draws, over row numbers
            return self._same_rows(data_rows.shuffled(self._rows.chunks, size, rng_of_pass), self._cardinality)

        def generate() -> Iterator:
            rng = rng_of_pass()
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

        return self._same_spec(generate, self._cardinality)

    def map(
        self, map_func: Callable, num_parallel_calls: Any = None, deterministic: Any = None, name: str | None = None
    ) -> Dataset:
        """`map_func` applied to every element (a tuple element is passed as separate arguments); a list it
        returns becomes a tuple element, as in tf.data (mt.stack it to make one tensor)."""
        return Dataset(lambda: (normalize_output(call(map_func, e)) for e in self), self._cardinality)

    def filter(self, predicate: Callable, name: str | None = None) -> Dataset:
        """The elements for which `predicate` returns True (a scalar bool tensor or a Python bool)."""
        return self._same_spec(lambda: (e for e in self if holds(predicate, e, "filter")), UNKNOWN_CARDINALITY)

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
        cardinality = count if n == INFINITE_CARDINALITY else (min(n, count) if n >= 0 else n)
        if self._rows is not None:
            return self._same_rows(data_rows.taken(self._rows.chunks, count), cardinality)
        return self._same_spec(generate, cardinality)

    def skip(self, count: int, name: str | None = None) -> Dataset:
        """All but the first `count` elements (none if count is -1)."""
        count = int(count)

        def generate() -> Iterator:
            for i, element in enumerate(self):
                if count >= 0 and i >= count:
                    yield element

        n = self._cardinality
        cardinality = 0 if count < 0 else (max(n - count, 0) if n >= 0 else n)
        if self._rows is not None:
            chunks = self._rows.chunks
            return self._same_rows(
                data_rows.skipped(chunks, count) if count >= 0 else data_rows.taken(chunks, 0), cardinality
            )
        return self._same_spec(generate, cardinality)

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
        if self._rows is not None:
            return self._same_rows(data_rows.repeated(self._rows.chunks, None if forever else int(count)), cardinality)
        return self._same_spec(generate, cardinality)

    def enumerate(self, start: int = 0, name: str | None = None) -> Dataset:
        """(index, element) pairs, the index an int64 tensor."""
        return Dataset(
            lambda: ((Tensor(np.array(i, np.int64)), e) for i, e in enumerate(self, int(start))),
            self._cardinality,
            lambda: (TensorSpec([], int64), self.element_spec),
        )

    def concatenate(self, dataset: Dataset, name: str | None = None) -> Dataset:
        """This dataset's elements, then `dataset`'s. Their elements must have the same structure and dtypes
        (TypeError as TensorFlow's otherwise); sizes that differ become None in element_spec."""
        try:
            spec = common_spec(self.element_spec, dataset.element_spec)
        except ValueError:  # an empty dataset: nothing to check
            spec = None

        def generate() -> Iterator:
            yield from self
            yield from dataset

        a, b = self._cardinality, dataset._cardinality
        return Dataset(generate, a + b if a >= 0 and b >= 0 else min(a, b), None if spec is None else lambda: spec)

    def flat_map(self, map_func: Callable, name: str | None = None) -> Dataset:
        """The elements of the datasets `map_func` returns for each element, one dataset after the other."""

        def generate() -> Iterator:
            for element in self:
                yield from _dataset_from("flat_map", map_func, element)

        return Dataset(generate, UNKNOWN_CARDINALITY)

    def interleave(
        self,
        map_func: Callable,
        cycle_length: int | None = None,
        block_length: int = 1,
        num_parallel_calls: Any = None,
        deterministic: Any = None,
        name: str | None = None,
    ) -> Dataset:
        """The elements of the datasets `map_func` makes, `block_length` at a time from `cycle_length` of them in
        turn (default: the number of CPU cores, as TensorFlow's AUTOTUNE on a CPU). A dataset that runs out ends
        its turn; its place goes to the next element's dataset. cycle_length=1 is flat_map."""
        cycle = (os.cpu_count() or 1) if cycle_length in (None, AUTOTUNE) else int(cycle_length)
        block = int(block_length)
        if cycle < 1 or block < 1:
            raise ValueError(f"interleave: cycle_length and block_length must be positive, got {cycle}, {block}")

        def generate() -> Iterator:
            sources, slots, read_all = iter(self), [None] * cycle, False
            while True:
                for k in range(cycle):
                    if slots[k] is None and not read_all:
                        element = next(sources, _END)
                        read_all = element is _END
                        slots[k] = None if read_all else iter(_dataset_from("interleave", map_func, element))
                    for _ in range(block) if slots[k] is not None else ():
                        value = next(slots[k], _END)
                        if value is _END:
                            slots[k] = None
                            break
                        yield value
                if read_all and all(slot is None for slot in slots):  # every dataset made and run out
                    return

        return Dataset(generate, UNKNOWN_CARDINALITY)

    def window(
        self,
        size: int,
        shift: int | None = None,
        stride: int = 1,
        drop_remainder: bool = False,
        name: str | None = None,
    ) -> Dataset:
        """Windows of `size` elements (every `stride`-th), a new one every `shift` elements (default: size); each
        window is a dataset (a tuple or dict of datasets for structured elements), so `flat_map(lambda w:
        w.batch(size))` makes tensors of them. The last windows are shorter unless drop_remainder."""
        size, stride = int(size), int(stride)
        shift = size if shift is None else int(shift)
        if min(size, shift, stride) < 1:
            raise ValueError(f"window: size, shift and stride must be positive, got {size}, {shift}, {stride}")
        span = (size - 1) * stride + 1  # the elements one window reaches over

        def generate() -> Iterator:
            buffer, skip = [], 0
            for element in self:
                if skip:  # a shift longer than the span jumps over elements no window holds
                    skip -= 1
                    continue
                buffer.append(element)
                if len(buffer) == span:
                    yield _window(buffer[::stride])
                    buffer, skip = buffer[shift:], max(shift - span, 0)
            while buffer and not drop_remainder:
                yield _window(buffer[::stride])
                buffer = buffer[shift:]

        n = self._cardinality
        if n < 0:
            count = n
        else:
            count = (n - span) // shift + 1 if n >= span else 0
            count = count if drop_remainder else -(-n // shift)
        return Dataset(generate, count, lambda: map_leaves(DatasetSpec, self.element_spec))

    def take_while(self, predicate: Callable, name: str | None = None) -> Dataset:
        """The elements up to (not including) the first for which `predicate` is False."""

        def generate() -> Iterator:
            for element in self:
                if not holds(predicate, element, "take_while"):
                    return
                yield element

        return self._same_spec(generate, UNKNOWN_CARDINALITY)

    def scan(self, initial_state: Any, scan_func: Callable, name: str | None = None) -> Dataset:
        """A running computation: `(state, out) = scan_func(state, element)` for each element, yielding `out`."""

        def generate() -> Iterator:
            state = to_tensors(initial_state)
            for element in self:
                result = scan_func(state, element)
                if not isinstance(result, (tuple, list)) or len(result) != 2:
                    raise TypeError("scan: scan_func must return a pair (new_state, output_element)")
                state, out = to_tensors(result[0]), normalize_output(result[1])
                yield out

        return Dataset(generate, self._cardinality)

    def unique(self, name: str | None = None) -> Dataset:
        """Each distinct element once, in order of first appearance (elements must be single int tensors)."""
        spec = self.element_spec
        if not isinstance(spec, TensorSpec) or not spec.dtype.is_integer:
            raise TypeError(
                f"Dataset.unique() only supports elements with a single integer component, not {spec}; "
                "map the elements to one integer tensor first"
            )

        def generate() -> Iterator:
            seen = set()
            for element in self:
                key = (element.shape, element.numpy().tobytes())
                if key not in seen:
                    seen.add(key)
                    yield element

        return self._same_spec(generate, UNKNOWN_CARDINALITY)

    @staticmethod
    def sample_from_datasets(
        datasets: list,
        weights: Any = None,
        seed: int | None = None,
        stop_on_empty_dataset: bool = False,
        rerandomize_each_iteration: Any = None,
    ) -> Dataset:
        """Elements drawn from `datasets` at random, each with probability `weights` (equal by default). An
        exhausted dataset drops out unless stop_on_empty_dataset. The draws are numpy's, not TensorFlow's."""
        datasets = list(datasets)
        if not datasets or not all(isinstance(d, Dataset) for d in datasets):
            raise TypeError("sample_from_datasets takes a non-empty list of datasets")
        w = np.ones(len(datasets)) if weights is None else np.asarray(tensor(weights).numpy(), np.float64)
        if w.shape != (len(datasets),) or (w < 0).any() or w.sum() <= 0:
            raise ValueError(f"sample_from_datasets: weights must be {len(datasets)} non-negative numbers, not {w}")
        spec = datasets[0].element_spec
        for d in datasets[1:]:
            spec = common_spec(spec, d.element_spec)
        base = int(random.generator().integers(2**31)) if seed is None else int(seed)

        def generate() -> Iterator:
            rng = np.random.default_rng(base)
            iterators, p = [iter(d) for d in datasets], w.copy()
            while p.sum() > 0:
                k = int(rng.choice(len(iterators), p=p / p.sum()))
                try:
                    yield next(iterators[k])
                except StopIteration:
                    if stop_on_empty_dataset:
                        return
                    p[k] = 0

        return Dataset(generate, UNKNOWN_CARDINALITY, lambda: spec)

    def apply(self, transformation_func: Callable[[Dataset], Dataset]) -> Dataset:
        """`transformation_func(self)`, so transformations chain: ds.apply(f).batch(2)."""
        return transformation_func(self)

    def with_options(self, options: Options, name: str | None = None) -> Dataset:
        """The same elements, with `options` recorded (they have no effect: see mt.data.Options)."""
        out = self._same_spec(self._make_iterator, self._cardinality)
        out._rows = self._rows
        out._options = self._options.merge(options)
        return out

    def options(self) -> Options:
        return self._options

    def prefetch(self, buffer_size: Any = AUTOTUNE, name: str | None = None) -> Dataset:
        """The same dataset: minitape computes elements when asked, so there is nothing to fetch ahead."""
        return self

    def cache(self, filename: str = "", name: str | None = None) -> Dataset:
        """The same dataset: nothing is cached (elements are recomputed on each pass)."""
        return self

    # ---- reading --------------------------------------------------------------------------------------
    def __iter__(self) -> Iterator:
        return DatasetIterator(self)

    def as_numpy_iterator(self) -> Iterator:
        """The elements with numpy values in place of tensors (same tuples and dicts)."""
        for element in self:
            yield map_leaves(lambda leaf: leaf.numpy(), element)

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


def _counting(values: Callable[[], Iterable[int]], cardinality: int, dtype: Any) -> Dataset:
    """The integers `values()` gives, as scalar tensors of `dtype`."""
    dtype = as_dtype(dtype)
    numbers = dtype.as_numpy_dtype
    return Dataset(lambda: (Tensor(np.array(v, numbers)) for v in values()), cardinality, lambda: TensorSpec([], dtype))


class _Experimental:
    """`mt.data.experimental`: the constants, cardinality, Counter, and errors for the file readers."""

    AUTOTUNE = AUTOTUNE
    INFINITE_CARDINALITY = INFINITE_CARDINALITY
    UNKNOWN_CARDINALITY = UNKNOWN_CARDINALITY

    @staticmethod
    def Counter(start: int = 0, step: int = 1, dtype: Any = int64, name: str | None = None) -> Dataset:  # noqa: N802
        """start, start + step, start + 2 step, ... without end (int64 scalars by default): zipped with a finite
        dataset, it numbers its elements (the data augmentation tutorial makes a stateless seed of each)."""
        return _counting(lambda: itertools.count(int(start), int(step)), INFINITE_CARDINALITY, dtype)

    @staticmethod
    def cardinality(dataset: Dataset) -> Tensor:
        return dataset.cardinality()

    def __getattr__(self, name: str) -> Any:
        if name in missing.DATA_EXPERIMENTAL:
            missing.raise_missing("tf.data.experimental", name, missing.DATA_EXPERIMENTAL)
        raise AttributeError(f"'mt.data.experimental' has no attribute {name!r}")


experimental = _Experimental()


def __getattr__(name: str) -> Any:
    missing.raise_missing("tf.data", name, missing.DATA)


_END = object()  # what next() gives when an iterator has run out


class DatasetSpec:
    """The spec of an element that is itself a dataset (a window): the spec of that dataset's elements."""

    def __init__(self, element_spec: Any, dataset_shape: Any = ()) -> None:
        self.element_spec, self.dataset_shape = element_spec, TensorShape(dataset_shape)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, DatasetSpec) and (other.element_spec, other.dataset_shape) == (
            self.element_spec,
            self.dataset_shape,
        )

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"DatasetSpec({self.element_spec!r}, {self.dataset_shape!r})"


def _dataset_from(method: str, map_func: Callable, element: Any) -> Dataset:
    """`map_func(element)`, which must be a dataset (flat_map and interleave take one per element)."""
    inner = call(map_func, element)
    if not isinstance(inner, Dataset):
        raise TypeError(f"{method}: map_func must return a Dataset, not {type(inner).__name__}")
    return inner


def _window(elements: list) -> Any:
    """A window of elements as datasets: one per component, in the elements' structure."""
    leaves = [flatten(e) for e in elements]
    return pack(elements[0], (_listed([row[k] for row in leaves]) for k in range(len(leaves[0]))))


def _listed(values: list) -> Dataset:
    """A dataset of the given tensors, in order."""
    return Dataset(lambda: iter(values), len(values), lambda: spec_of(values[0]))
