"""The elements of `mt.data.Dataset`: their structures, conversion to tensors, specs, and batching.

As in tf.data, an element is a tensor, a tuple (or namedtuple) or a dict of elements; a Python list is one
tensor, not a structure. Dicts flatten in sorted key order (as tf.nest) but keep their own key order.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from minitape.engine.context import state
from minitape.engine.tensor import Tensor
from minitape.function.trace import runs_each_call
from minitape.values.convert import convert_to_tensor
from minitape.values.errors import InvalidArgumentError, OutOfRangeError
from minitape.values.shape import TensorShape
from minitape.values.tensor_like import TensorLike
from minitape.values.tensor_spec import TensorSpec


def flatten(element: Any) -> list:
    if isinstance(element, tuple):
        return [leaf for item in element for leaf in flatten(item)]
    if isinstance(element, dict):
        return [leaf for key in sorted(element) for leaf in flatten(element[key])]
    return [element]


def pack(structure: Any, leaves: Iterator) -> Any:
    """Fill `structure` with `leaves` (taken in flatten's order); dicts keep `structure`'s key order."""
    if isinstance(structure, tuple):
        packed = [pack(item, leaves) for item in structure]
        return type(structure)(*packed) if hasattr(structure, "_fields") else tuple(packed)
    if isinstance(structure, dict):
        by_key = {key: pack(structure[key], leaves) for key in sorted(structure)}
        return {key: by_key[key] for key in structure}
    return next(leaves)


def map_leaves(fn: Callable, structure: Any) -> Any:
    return pack(structure, iter([fn(leaf) for leaf in flatten(structure)]))


def to_tensors(element: Any) -> Any:
    """Every leaf as a tensor (numbers and numpy arrays converted with TensorFlow's defaults)."""
    return map_leaves(tensor, element)


def tensor(value: Any) -> Tensor:
    """`value` as a tensor. A list of numpy arrays (or tensors) of one dtype keeps that dtype, as tf.data does
    (so a list of int64 arrays stays int64, where mt.constant would give int32)."""
    if isinstance(value, Tensor):
        return value
    return convert_to_tensor(value, dtype=_list_dtype(value) if isinstance(value, list) else None)


def _list_dtype(value: Any) -> Any:
    """The one dtype of a non-empty list whose items are all arrays or tensors (or such lists), else None."""
    if isinstance(value, np.ndarray):
        return value.dtype
    if isinstance(value, TensorLike):
        return np.dtype(value.dtype.as_numpy_dtype)
    if not isinstance(value, list) or not value:
        return None
    dtypes = {_list_dtype(v) for v in value}
    if len(dtypes) != 1 or None in dtypes:
        return None
    (dtype,) = dtypes
    return dtype


def normalize_output(value: Any) -> Any:
    """A function's result as an element: a list returned at the top becomes a tuple, as tf.data does."""
    return to_tensors(tuple(value) if isinstance(value, list) else value)


def call(fn: Callable, element: Any) -> Any:
    """tf.data calls a function with a tuple element unpacked into arguments, any other element as one."""
    return fn(*element) if isinstance(element, tuple) and not hasattr(element, "_fields") else fn(element)


# ---- specs ---------------------------------------------------------------------------------------------
def spec_of(element: Any) -> Any:
    """The structure of TensorSpecs describing `element`."""
    return map_leaves(lambda t: TensorSpec(t.shape, t.dtype), element)


def batched_spec(spec: Any, batch: int | None, padded_shapes: Any = None, pad: bool = False) -> Any:
    """`spec` with a batch axis of size `batch` (None: unknown) in front; for padded_batch, the padded sizes
    are those of `padded_shapes` where given, None (the longest in each batch) otherwise."""
    specs = flatten(spec)
    wanted = flatten(padded_shapes) if padded_shapes is not None else [None] * len(specs)
    out = []
    for s, w in zip(specs, wanted):
        shape = s.shape
        if pad and shape.rank is not None:
            w = None if w is None else ([w] if np.ndim(w) == 0 else list(np.asarray(w).reshape(-1)))
            shape = TensorShape(
                [None if w is None or w[i] is None or int(w[i]) < 0 else int(w[i]) for i in range(shape.rank)]
            )
        out.append(TensorSpec(TensorShape([batch]).concatenate(shape), s.dtype))
    return pack(spec, iter(out))


def common_spec(a: Any, b: Any) -> Any:
    """The spec both `a` and `b` fit (sizes that differ become None); TypeError as TensorFlow if they cannot."""
    flat_a, flat_b = flatten(a), flatten(b)
    merged = [x.most_specific_common_supertype([y]) for x, y in zip(flat_a, flat_b)]
    if len(flat_a) != len(flat_b) or None in merged or _kinds(a) != _kinds(b):
        raise TypeError(f"Incompatible dataset elements:\n  {a} vs.   {b}")
    return pack(a, iter(merged))


def _kinds(structure: Any) -> Any:
    if isinstance(structure, tuple):
        return (type(structure), [_kinds(s) for s in structure])
    if isinstance(structure, dict):
        return (dict, sorted((k, _kinds(v)) for k, v in structure.items()))
    return None


def check_fits(element: Any, signature: Any) -> Any:
    """`element` converted to the dtypes of `signature` (a structure of TensorSpecs), checked to fit its shapes:
    InvalidArgumentError as TensorFlow raises for a generator's element that does not."""
    if isinstance(element, list) and isinstance(signature, tuple):
        element = tuple(element)
    leaves, specs = flatten(element), flatten(signature)
    if len(leaves) != len(specs) or (isinstance(signature, (tuple, dict)) and _kinds(element) != _kinds(signature)):
        raise InvalidArgumentError(
            f"`generator` yielded an element that did not match the expected structure: {element!r} for "
            f"{signature}; yield elements of the declared structure"
        )
    out = []
    for value, spec in zip(leaves, specs):
        try:  # converted as numpy converts, as TensorFlow's from_generator does (1.5 for int32 gives 1)
            t = Tensor(np.asarray(value.numpy() if isinstance(value, TensorLike) else value, spec.dtype.as_numpy_dtype))
        except (TypeError, ValueError) as err:
            raise InvalidArgumentError(
                f"`generator` yielded an element that could not be converted to the expected type "
                f"{spec.dtype.name}: {value!r} ({err})"
            ) from None
        if not spec.shape.is_compatible_with(t.shape):
            raise InvalidArgumentError(
                f"`generator` yielded an element of shape {t.shape} where an element of shape {spec.shape} was "
                "expected; make the generator's shapes fit output_signature, or use None for a size that varies"
            )
        out.append(t)
    return pack(signature, iter(out))


# ---- batching ------------------------------------------------------------------------------------------
def stack(elements: list, pad: bool = False, padded_shapes: Any = None, padding_values: Any = None) -> Any:
    """Stack a list of same-structured elements component by component, padding them first if asked."""
    columns = list(zip(*(flatten(e) for e in elements)))
    shapes_wanted = flatten(padded_shapes) if padded_shapes is not None else [None] * len(columns)
    values_wanted = flatten(padding_values) if padding_values is not None else [0] * len(columns)
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
    return pack(elements[0], iter(stacked))


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


class DatasetIterator:
    """`iter(dataset)`: one pass over the elements, usable with next() or TensorFlow's get_next().

    Inside `mt.function` an iterator is state the graph reads, as TensorFlow's iterator resource is: the graph takes
    the next element at every call (`runs_each_call`), not the one it traced with. An iterator made inside the
    function (a `for` over a dataset) starts a fresh pass at every call, so a shuffled dataset is shuffled again;
    the loop is unrolled at tracing, so a pass of another length at a later call raises instead of being cut short.
    """

    def __init__(self, dataset: Any) -> None:
        self._dataset = dataset
        self._made_in_trace = dataset_loop = bool(state.tracers)
        # a graph's MakeIterator starts a pass; [1] counts the elements given, a checkpoint's ITERATOR_STATE
        current = [None if dataset_loop else dataset._make_iterator(), 0]

        # the steps a graph calls again, named as TensorFlow's ops (a graph's steps show the names)
        def MakeIterator() -> None:
            current[0], current[1] = dataset._make_iterator(), 0

        def IteratorGetNext() -> Any:
            try:
                element = next(current[0])
                current[1] += 1
                return element
            except StopIteration:  # in a replayed graph: TensorFlow's words, or why the unrolled loop cannot go on
                raise OutOfRangeError(FEWER_THAN_TRACED if dataset_loop else "End of sequence") from None

        def IteratorEnd() -> None:
            if next(current[0], _END) is not _END:
                raise OutOfRangeError(MORE_THAN_TRACED)

        self._pass = current
        self._next_each_call = runs_each_call(IteratorGetNext, changes_state=True)
        self._end_each_call = runs_each_call(IteratorEnd, changes_state=True)
        if state.tracers:
            runs_each_call(MakeIterator, changes_state=True)()

    def __iter__(self) -> DatasetIterator:
        return self

    def __next__(self) -> Any:
        if not state.tracers:
            element = next(self._pass[0])
            self._pass[1] += 1
            return element
        try:
            return self._next_each_call()
        except OutOfRangeError:  # while tracing, a Python `for` over the iterator ends here
            if self._made_in_trace:  # and a later call's pass must end there too
                self._end_each_call()
            raise StopIteration from None

    def get_next(self) -> Any:
        """The next element; OutOfRangeError at the end, as TensorFlow's iterator."""
        try:
            return self.__next__()
        except StopIteration:
            raise OutOfRangeError("End of sequence: the iterator has no more elements") from None

    @property
    def element_spec(self) -> Any:
        return self._dataset.element_spec

    def _position(self) -> int:
        """How many elements this pass gave: what a checkpoint saves of the iterator."""
        return self._pass[1]

    def _restore_position(self, position: int) -> None:
        """Go to `position` as a checkpoint restores it: a new pass over the dataset, run forward that far.

        The elements are those of the saved pass when the dataset gives the same elements at each pass (no
        shuffle, or a shuffle with a seed and reshuffle_each_iteration=False, or a dataset made again the same
        way with a seeded shuffle); an unseeded shuffle starts a new order."""
        fresh = self._dataset._make_iterator()
        for done in range(position):
            if next(fresh, _END) is _END:
                raise ValueError(
                    f"Restoring a dataset iterator: the checkpoint saved it after {position} elements, but this "
                    f"dataset has only {done}. Restore into an iterator of the dataset that was saved"
                )
        self._pass[0], self._pass[1] = fresh, position


def holds(predicate: Callable, element: Any, method: str) -> bool:
    """`predicate(element)`, checked to be a scalar bool (a tensor or a Python bool)."""
    verdict = call(predicate, element)
    value = verdict.numpy() if isinstance(verdict, TensorLike) else np.asarray(verdict)
    if np.shape(value) != () or np.asarray(value).dtype != np.bool_:
        raise ValueError(
            f"{method}: the predicate must return a scalar bool, got {np.asarray(value).dtype} of shape "
            f"{list(np.shape(value))}; reduce it, e.g. mt.reduce_all(...)"
        )
    return bool(value)


_END = object()
_UNROLLED = (
    "minitape unrolls the loop for the elements it saw; give the dataset a fixed number of elements (no random "
    "filter), or loop over it outside the function and call the function per batch"
)
MORE_THAN_TRACED = (
    f"a dataset iterated inside mt.function gave more elements at this call than when traced: {_UNROLLED}"
)
FEWER_THAN_TRACED = (
    f"a dataset iterated inside mt.function gave fewer elements at this call than when traced: {_UNROLLED}"
)


class Options:
    """`tf.data.Options`: accepted so TensorFlow code runs, with no effect (minitape's datasets run eagerly in
    Python, with no threads or graph optimizations to tune). Any option, nested or not, can be set and read."""

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        group = Options()
        object.__setattr__(self, name, group)
        return group

    def merge(self, options: Options) -> Options:
        merged = Options()
        merged.__dict__.update(self.__dict__)
        merged.__dict__.update(options.__dict__)
        return merged
