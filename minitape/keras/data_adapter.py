"""Training data into batches, as Keras' data adapters: arrays (or lists and dicts of them) are sliced into
shuffled batches; a dataset (any iterable of batches: x, (x, y) or (x, y, sample_weight)) is passed through."""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from typing import Any

import numpy as np

from minitape.keras import backend
from minitape.namespaces import random
from minitape.values import nest
from minitape.values.tensor_like import TensorLike


def is_dataset(x: Any) -> bool:
    """An iterable of batches (a tf.data-like Dataset or a generator), not an array, a tensor or a structure.

    Anything numpy can read as an array (`__array__`: a pandas DataFrame or Series, say) is an array.
    """
    array_like = isinstance(x, (np.ndarray, TensorLike, list, tuple, dict, str)) or hasattr(x, "__array__")
    return hasattr(x, "__iter__") and not array_like


class _Batches:
    """Callable giving the batches of one epoch: `(x_batch, y_batch[, weights])`, shuffled if asked; x, y nested."""

    def __init__(self, x: Any, y: Any, batch_size: int, sample_weight: Any = None) -> None:
        self.x, self.y, self.batch_size, self.sample_weight = x, y, batch_size, sample_weight
        self.n = length(nest.flatten(x)[0], "x")
        self.steps = -(-self.n // batch_size)

    def __call__(self, shuffle: bool):
        order = random.generator().permutation(self.n) if shuffle else None
        for start in range(0, self.n, self.batch_size):
            if order is None:
                pick: Any = slice(start, start + self.batch_size)
            else:
                pick = order[start : start + self.batch_size]
            y = None if self.y is None else _take(self.y, pick)
            weights = None if self.sample_weight is None else self.sample_weight[pick]
            yield pack(_take(self.x, pick), y, weights)


def _take(structure: Any, pick: Any) -> Any:
    """The examples `pick` of every array in `structure`."""
    if isinstance(structure, np.ndarray):
        return structure[pick]
    return nest.map_structure(lambda a: a[pick], structure)


class _DatasetBatches:
    """The batches of an iterable dataset, as they come: the dataset batches and shuffles itself."""

    def __init__(self, dataset: Any) -> None:
        self.dataset = dataset
        try:
            self.steps = len(dataset) if hasattr(dataset, "__len__") else None
        except TypeError:  # an mt.data.Dataset that repeats forever, or was filtered: its length is not known
            self.steps = None

    def __call__(self, shuffle: bool):
        return iter(self.dataset)  # each element as it comes: x, (x,), (x, y) or (x, y, sample_weight)


def pack(x: Any, y: Any = None, sample_weight: Any = None) -> Any:
    """A batch as Keras 3 hands it to train_step: x alone when there is no y, else (x, y[, sample_weight])."""
    if y is None and sample_weight is None:
        return (x,) if isinstance(x, (tuple, list)) else x
    return (x, y) if sample_weight is None else (x, y, sample_weight)


def unpack(data: Any) -> tuple[Any, Any, Any]:
    """(x, y, sample_weight) from a batch, as Keras 3's unpack_x_y_sample_weight: y and weights None if absent."""
    if isinstance(data, list):
        data = tuple(data)
    if not isinstance(data, tuple):
        return data, None, None
    if len(data) in (1, 2, 3):
        return (*data, *(None,) * (3 - len(data)))
    raise ValueError(
        f"A batch must be x, (x,), (x, y) or (x, y, sample_weight), got a tuple of {len(data)} elements; "
        "put several inputs in a tuple of their own: ((x1, x2), y)"
    )


class EpochIterator:
    """The batches of each epoch, as Keras 3's EpochIterator gives them.

    With `steps_per_epoch`, an epoch takes that many batches and the next goes on where it stopped; when the data
    runs out first, the epoch ends there with a warning and the next starts the data again.
    """

    def __init__(self, batches_of: Any, steps_per_epoch: int | None, what: str, shuffle: bool = False) -> None:
        self.batches_of, self.steps_per_epoch, self.what, self.shuffle = batches_of, steps_per_epoch, what, shuffle
        self.num_batches = batches_of.steps  # None until an epoch of a dataset of unknown length has run
        self._iterator: Any = None
        self._seen = 0

    @property
    def steps(self) -> int | None:
        return self.steps_per_epoch or self.num_batches

    def _ran_out(self, step: int, epoch: int) -> None:
        warnings.warn(
            f"{self.what}(): your input ran out of data after {step} of the {self.steps} steps of epoch {epoch + 1}; "
            "the epoch ends here, as in Keras 3. Make sure that your dataset or generator can generate at least "
            "`steps_per_epoch * epochs` batches, e.g. with dataset.repeat()",
            stacklevel=3,
        )

    def epoch(self, epoch: int = 0) -> Iterator[tuple[int, Any]]:
        """(step, batch) for one epoch."""
        steps = self.steps
        if steps is None:  # length unknown and no steps_per_epoch: one pass, which tells the length
            step = -1
            for step, batch in enumerate(self.batches_of(self.shuffle)):
                yield step, batch
            self.num_batches = step + 1
            return
        if self._iterator is None or self.steps_per_epoch is None:
            self._iterator, self._seen = iter(self.batches_of(self.shuffle)), 0
        for step in range(steps):
            if self.num_batches and self._seen >= self.num_batches:
                if self.steps_per_epoch:
                    self._ran_out(step, epoch)
                break
            try:
                batch = next(self._iterator)
            except StopIteration:
                if self.num_batches is None:
                    self.num_batches = self._seen
                self._ran_out(step, epoch)
                self._iterator = None
                return
            self._seen += 1
            yield step, batch
        if self.num_batches and self._seen >= self.num_batches:
            self._iterator = None


def length(value: Any, what: str) -> int:
    """The number of examples in `value` (its first axis), or a clear error for a scalar."""
    shape = np.shape(value)
    if not shape:
        raise ValueError(f"{what} must have a batch axis (one entry per example), but it is a scalar")
    return shape[0]


def _array(value: Any, name: str, what: str) -> np.ndarray:
    """One input as an array of numbers (a pandas table of float and bool columns too)."""
    array = backend.to_numpy(value)
    if array.dtype.kind == "O":  # a pandas table of float and bool columns comes out as objects
        try:
            array = array.astype(backend.floatx())
        except (TypeError, ValueError):
            pass
    if array.dtype.kind in "USO":
        found = "text" if array.dtype.kind in "US" else f"Python objects ({_first_kinds(array)})"
        fix = " (for labels: classes, y = np.unique(y, return_inverse=True) gives class indices)" if name == "y" else ""
        raise TypeError(
            f"{what}(): {name} holds {found}, e.g. {array.ravel()[:3].tolist()}, and a model trains on numbers only "
            f"(Keras refuses it too: 'Invalid dtype: str32'); convert {name} to numbers "
            f"first{fix}"
        )
    if array.dtype.kind not in "biuf":
        raise TypeError(
            f"{what}(): {name} must be numbers (one entry per example), not values of dtype {array.dtype}; or pass "
            "a dataset yielding (x, y) batches as x"
        )
    if array.dtype.kind == "f" and array.dtype != backend.floatx():
        array = array.astype(backend.floatx())  # as Keras 3's arrays: a step gets float32 (floatx) batches
    return array


def _first_kinds(array: np.ndarray) -> str:
    return ", ".join(sorted({type(v).__name__ for v in array.ravel()[:20]}))


def _arrays(value: Any, name: str, what: str) -> Any:
    """A structure (list, tuple, dict) of arrays stays a structure; anything else becomes one array."""
    if isinstance(value, (list, tuple, dict)) and nest.flatten(value) and not np.isscalar(nest.flatten(value)[0]):
        leaves = nest.flatten(value)
        if all(isinstance(v, (np.ndarray, TensorLike)) for v in leaves):
            return nest.map_structure(lambda v: _array(v, name, what), value)
    return _array(value, name, what)


def class_weights(class_weight: dict, y: Any, sample_weight: Any) -> np.ndarray:
    """Keras' class_weight: each example weighs class_weight[its class] (its label, or argmax of a one-hot row)."""
    if is_dataset(y) or isinstance(y, (list, tuple, dict)) or y is None:
        raise ValueError("fit(): class_weight needs y as one array of labels (not a dataset or several outputs)")
    labels = backend.to_numpy(y)
    classes = np.argmax(labels, axis=-1) if labels.ndim > 1 and labels.shape[-1] > 1 else labels.reshape(len(labels))
    classes = np.round(classes).astype(np.int64)
    missing = sorted(set(np.unique(classes).tolist()) - set(class_weight))
    if missing:
        raise ValueError(f"fit(): class_weight has no weight for class(es) {missing}; give one for every class in y")
    weights = np.array([class_weight[c] for c in classes.tolist()], dtype=np.float32)
    return weights if sample_weight is None else weights * np.asarray(sample_weight, dtype=np.float32)


def batcher(x: Any, y: Any, batch_size: int | None, what: str, sample_weight: Any = None, needs_y: bool = True) -> Any:
    """A callable `batches(shuffle)` yielding (x, y[, sample_weight]) batches, with `.steps` per epoch (None: unknown).

    Checks first what `what` ('fit', 'evaluate', 'predict') was given: lengths, dtypes, batch_size.
    """
    if x is None:
        raise ValueError(f"{what}() needs the input data x")
    if batch_size is not None and (int(batch_size) != batch_size or batch_size < 1):
        raise ValueError(f"{what}(): batch_size must be a positive integer, got {batch_size!r}")
    if is_dataset(x):
        if y is not None:
            raise ValueError(f"{what}(): y must not be given when x is a dataset (it yields (x, y) batches)")
        if batch_size is not None:
            raise ValueError(f"{what}(): batch_size must not be given when x is a dataset (it is already batched)")
        if sample_weight is not None:
            raise ValueError(f"{what}(): sample_weight must not be given when x is a dataset (it may yield them)")
        return _DatasetBatches(x)
    x = _arrays(x, "x", what)  # as given: a rank-1 x stays rank 1, as in Keras 3
    first_x = nest.flatten(x)[0]
    nx = length(first_x, "x")
    if y is not None:
        y = _arrays(y, "y", what)
        for target in nest.flatten(y):
            ny = length(target, "y")
            if nx != ny:
                raise ValueError(
                    f"{what}(): x and y have different lengths: x has {nx} examples (shape {first_x.shape}) and y "
                    f"has {ny} (shape {target.shape}). Make sure they hold the same number of samples."
                )
    elif what != "predict" and needs_y:
        raise ValueError(f"{what}() needs the targets y as well as x")
    if sample_weight is not None:
        sample_weight = _array(sample_weight, "sample_weight", what)
        if sample_weight.shape[:1] != (nx,):
            raise ValueError(
                f"{what}(): sample_weight of shape {sample_weight.shape} must hold one weight per example ({nx})"
            )
    return _Batches(x, y, int(batch_size or 32), sample_weight)


def split(x: Any, y: Any, fraction: float) -> tuple:
    """`validation_split`: the first (1 - fraction) of the examples to train on, and the rest, as Keras cuts."""
    if not 0 < fraction < 1:
        raise ValueError(f"validation_split must be between 0 and 1, got {fraction!r}")
    if is_dataset(x):
        raise ValueError("validation_split is not supported when x is a dataset: pass validation_data instead")
    x, y = _arrays(x, "x", "fit"), _arrays(y, "y", "fit")
    cut = int(length(nest.flatten(x)[0], "x") * (1 - fraction))
    return (
        nest.map_structure(lambda a: a[:cut], x),
        nest.map_structure(lambda a: a[:cut], y),
        (nest.map_structure(lambda a: a[cut:], x), nest.map_structure(lambda a: a[cut:], y)),
    )
