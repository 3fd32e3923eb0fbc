"""`mt.keras.utils`: seeding, label helpers, windows of a time series, and `get_file`."""

from __future__ import annotations

from typing import Any

import numpy as np

from minitape import gather
from minitape.keras import unsupported
from minitape.keras.downloads import get_file  # noqa: F401 - keras.utils.get_file
from minitape.namespaces import data as tf_data
from minitape.namespaces import random
from minitape.values.convert import constant
from minitape.values.tensor_like import TensorLike


def set_random_seed(seed: int) -> None:
    """Seed everything random in minitape (weights, shuffling, dropout) and numpy's legacy global generator."""
    random.set_seed(seed)
    np.random.seed(seed)


def pad_sequences(
    sequences: Any,
    maxlen: int | None = None,
    dtype: Any = "int32",
    padding: str = "pre",
    truncating: str = "pre",
    value: Any = 0.0,
) -> np.ndarray:
    """Lists of different lengths -> one (n, maxlen) array, as Keras' pad_sequences: shorter ones padded with
    `value` before ('pre') or after ('post'), longer ones cut at the start ('pre') or the end ('post')."""
    for what, given in (("padding", padding), ("truncating", truncating)):
        if given not in ("pre", "post"):
            raise ValueError(f'{what} type "{given}" not understood: use "pre" or "post"')
    rows = [np.asarray(s) for s in sequences]
    maxlen = max((len(r) for r in rows), default=0) if maxlen is None else int(maxlen)
    out = np.full((len(rows), maxlen), value, dtype=dtype)
    for i, row in enumerate(rows):
        kept = row[max(len(row) - maxlen, 0) :] if truncating == "pre" else row[:maxlen]
        if padding == "pre":
            out[i, maxlen - len(kept) :] = kept
        else:
            out[i, : len(kept)] = kept
    return out


def normalize(x: Any, axis: int = -1, order: int = 2) -> np.ndarray:
    """x divided by its `order`-norm along `axis` (a zero norm leaves zeros), as keras.utils.normalize."""
    x = np.asarray(x)
    norm = np.atleast_1d(np.linalg.norm(x, order, axis))
    norm[norm == 0] = 1
    return x / np.expand_dims(norm, axis)


def to_categorical(x: Any, num_classes: int | None = None) -> Any:
    """Integer labels -> one-hot rows, as Keras 3: float64 numpy rows for arrays and lists, a float32 tensor for a
    tensor. A trailing axis of size 1 is dropped first (labels of shape (n, 1) give (n, num_classes))."""
    if isinstance(x, TensorLike):
        return constant(to_categorical(np.asarray(x), num_classes), dtype="float32")
    labels = np.asarray(x)
    if labels.dtype.kind not in "iub" and not np.all(labels == np.round(labels)):
        raise ValueError(f"to_categorical: labels must be whole numbers (class indices), got {labels.dtype} values")
    labels = labels.astype(np.int64)
    if labels.ndim > 1 and labels.shape[-1] == 1:
        labels = labels[..., 0]
    n = int(labels.max()) + 1 if num_classes is None else int(num_classes)
    if labels.size and (labels.min() < 0 or labels.max() >= n):
        raise ValueError(f"to_categorical: labels must be in [0, {n}), got values {labels.min()} to {labels.max()}")
    return np.eye(n)[labels]


def timeseries_dataset_from_array(
    data: Any,
    targets: Any,
    sequence_length: int,
    sequence_stride: int = 1,
    sampling_rate: int = 1,
    batch_size: int = 128,
    shuffle: bool = False,
    seed: int | None = None,
    start_index: int | None = None,
    end_index: int | None = None,
) -> Any:
    """Batches of windows over the rows of `data`: each window holds `sequence_length` rows, every
    `sampling_rate`-th, and a new one starts every `sequence_stride` rows, within [start_index, end_index).

    With `targets`, a window starting at row i comes with `targets[i]`: to predict what follows a window,
    pass targets shifted by its length (`data[n:]`). Windows are cut per batch, so a long series is not
    copied sequence_length times. shuffle reorders the windows on every pass (minitape's seeded order,
    not Keras's).
    """
    rows = np.asarray(data)
    for what, value in [("sequence_length", sequence_length), ("sequence_stride", sequence_stride),
                        ("sampling_rate", sampling_rate), ("batch_size", batch_size)]:  # fmt: skip
        if int(value) < 1:
            raise ValueError(f"timeseries_dataset_from_array: {what} must be a positive integer, got {value}")
    start = 0 if start_index is None else int(start_index)
    end = len(rows) if end_index is None else int(end_index)
    if not 0 <= start < end <= len(rows):
        raise ValueError(
            f"timeseries_dataset_from_array: start_index={start_index} and end_index={end_index} must satisfy "
            f"0 <= start_index < end_index <= {len(rows)} (the number of rows of data)"
        )
    count = end - start - (int(sequence_length) - 1) * int(sampling_rate)  # windows that fit before end_index
    if targets is not None:
        targets = np.asarray(targets)
        count = min(count, len(targets) - start)
    starts = start + np.arange(0, max(count, 0), int(sequence_stride))
    steps = np.arange(int(sequence_length)) * int(sampling_rate)
    series = constant(rows)
    windows = tf_data.Dataset.from_tensor_slices(starts)
    if shuffle:
        windows = windows.shuffle(max(len(starts), 1), seed=seed)
    windows = windows.batch(int(batch_size))
    if targets is None:
        return windows.map(lambda first: gather(series, first[:, None] + steps))
    picked = constant(targets)
    return windows.map(lambda first: (gather(series, first[:, None] + steps), gather(picked, first)))


__getattr__ = unsupported.module_getattr("keras.utils")  # a left-out name says what to use instead
