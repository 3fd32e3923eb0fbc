"""from_tensor_slices pipelines run on row numbers and gather a batch at once (data_rows.py): the elements, their
order under every seed, dtypes and shapes are those of the element-by-element pipeline (the same transformations
after an identity `map`, which has no rows to work on)."""

from __future__ import annotations

import numpy as np
import pytest

import minitape as mt
from minitape.namespaces import data_rows

Dataset = mt.data.Dataset


def _per_element(dataset: Dataset) -> Dataset:
    """The same elements, handled one by one by every later transformation (a map hides the rows)."""
    return dataset.map(lambda *parts: parts if len(parts) > 1 else parts[0])


def _numpy(dataset: Dataset, limit: int = 10_000) -> list:
    out = []
    for i, element in enumerate(dataset.as_numpy_iterator()):
        if i >= limit:
            break
        out.append(element)
    return out


def _assert_same(got: list, want: list) -> None:
    assert len(got) == len(want)
    for a, b in zip(got, want):
        for x, y in zip(a if isinstance(a, tuple) else (a,), b if isinstance(b, tuple) else (b,)):
            assert np.asarray(x).dtype == np.asarray(y).dtype and np.shape(x) == np.shape(y)
            np.testing.assert_array_equal(x, y)


PIPELINES = {
    "shuffle-batch": lambda d, s: d.shuffle(7, seed=s).batch(4),
    "repeat-shuffle-batch": lambda d, s: d.repeat(3).shuffle(5, seed=s).batch(6),
    "shuffle-repeat-batch-drop": lambda d, s: d.shuffle(23, seed=s).repeat(2).batch(8, drop_remainder=True),
    "big-buffer": lambda d, s: d.shuffle(100, seed=s).batch(5),
    "buffer-one": lambda d, s: d.shuffle(1, seed=s).batch(3),
    "no-reshuffle": lambda d, s: d.shuffle(6, seed=s, reshuffle_each_iteration=False).repeat(3).batch(7),
    "take-skip": lambda d, s: d.repeat().shuffle(9, seed=s).skip(5).take(31).batch(4),
    "shuffle-after-batch": lambda d, s: d.shuffle(4, seed=s).batch(3).shuffle(3, seed=s + 1),
    "unbatched": lambda d, s: d.repeat(2).shuffle(11, seed=s).take(40),
    "map-after-batch": lambda d, s: d.shuffle(8, seed=s).batch(5).map(lambda x, y: (x * 2, y)),
    "prefetch-cache": lambda d, s: d.cache().shuffle(8, seed=s).prefetch(1).batch(5).prefetch(2),
    "skip-all": lambda d, s: d.skip(-1).batch(2),
}


@pytest.mark.parametrize("seed", [0, 1, 5, 12345])
@pytest.mark.parametrize("name", sorted(PIPELINES))
def test_row_pipelines_give_the_elements_of_the_element_by_element_pipeline(name, seed):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((23, 3, 2)).astype(np.float32)
    y = rng.integers(0, 10, 23)
    build = PIPELINES[name]
    rows = build(Dataset.from_tensor_slices((x, y)), seed)
    elements = build(_per_element(Dataset.from_tensor_slices((x, y))), seed)
    _assert_same(_numpy(rows, 200), _numpy(elements, 200))
    _assert_same(_numpy(rows, 200), _numpy(elements, 200))  # a second pass: each shuffle's next order


def test_a_row_shuffle_is_the_order_tensorflow_gives_for_range():
    """Dataset.range runs element by element; test_data.py pins its orders (TensorFlow's). Rows agree."""
    for seed in (0, 3, 42):
        ranged = Dataset.range(20).shuffle(20, seed=seed)
        sliced = Dataset.from_tensor_slices(np.arange(20, dtype=np.int64)).shuffle(20, seed=seed)
        assert sliced._rows is not None and ranged._rows is None  # two different paths compared
        assert [int(v) for v in sliced] == [int(v) for v in ranged]
        assert [int(v) for v in sliced] == [int(v) for v in ranged]  # the second pass reshuffles the same way


def test_batches_of_dicts_keep_dtypes_shapes_and_specs():
    data = {"image": np.arange(40, dtype=np.float32).reshape(10, 2, 2), "label": np.arange(10, dtype=np.int32)}
    dataset = Dataset.from_tensor_slices(data).shuffle(4, seed=2).batch(4)
    reference = _per_element(Dataset.from_tensor_slices(data)).shuffle(4, seed=2).batch(4)
    for got, want in zip(dataset, reference, strict=True):
        assert list(got) == ["image", "label"]
        for key in data:
            assert got[key].dtype == want[key].dtype and got[key].shape == want[key].shape
            np.testing.assert_array_equal(got[key].numpy(), want[key].numpy())
    assert dataset.element_spec == reference.element_spec
    assert int(dataset.cardinality()) == 3


def test_a_map_before_batch_still_runs_per_element_and_a_map_after_batch_gets_whole_batches():
    seen = []

    def record(x):
        seen.append(tuple(x.shape))
        return x + 1

    x = np.arange(12, dtype=np.float32)
    before = list(Dataset.from_tensor_slices(x).map(record).batch(5))
    assert seen == [()] * 12 and [b.shape.as_list() for b in before] == [[5], [5], [2]]
    seen.clear()
    after = list(Dataset.from_tensor_slices(x).batch(5).map(record))
    assert seen == [(5,), (5,), (2,)]
    np.testing.assert_array_equal(np.concatenate([b.numpy() for b in after]), x + 1)


def test_through_buffer_yields_what_a_buffer_filled_and_replaced_one_by_one_yields():
    rng = np.random.default_rng(0)
    for size, incoming in [(1, 5), (3, 20), (7, 7), (50, 10)]:
        buffer = rng.permutation(100)[:size].astype(np.int64)
        new = np.arange(100, 100 + incoming, dtype=np.int64)
        slots = rng.integers(size, size=incoming)
        expected, state = [], buffer.tolist()
        for element, k in zip(new.tolist(), slots.tolist()):
            expected.append(state[k])
            state[k] = element
        out, after = data_rows._through_buffer(buffer, new, slots)
        assert out.tolist() == expected and after.tolist() == state


def test_fit_on_a_row_pipeline_trains_as_on_the_same_batches_element_by_element():
    rng = np.random.default_rng(1)
    x, y = rng.standard_normal((40, 3)).astype(np.float32), rng.standard_normal((40, 1)).astype(np.float32)
    weights = []
    for dataset in (Dataset.from_tensor_slices((x, y)), _per_element(Dataset.from_tensor_slices((x, y)))):
        mt.keras.utils.set_random_seed(0)
        model = mt.keras.Sequential([mt.keras.Input((3,)), mt.keras.layers.Dense(1)])
        model.compile(optimizer="sgd", loss="mse")
        model.fit(dataset.shuffle(16, seed=4).batch(8), epochs=2, verbose=0)
        weights.append(model.get_weights())
    for a, b in zip(*weights):
        np.testing.assert_array_equal(a, b)
