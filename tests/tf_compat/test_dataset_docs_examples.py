"""`mt.data.Dataset`: the examples of TensorFlow's tf.data.Dataset documentation, with the values it prints."""

import numpy as np
import pytest

import minitape as mt

Dataset = mt.data.Dataset


def values(dataset):
    return [np.asarray(e).tolist() for e in dataset.as_numpy_iterator()]


def test_from_tensor_slices_of_a_list_a_tuple_and_a_dict():
    assert values(Dataset.from_tensor_slices([1, 2, 3])) == [1, 2, 3]
    pairs = list(Dataset.from_tensor_slices(([1, 2], [3, 4])).as_numpy_iterator())
    assert [tuple(int(v) for v in p) for p in pairs] == [(1, 3), (2, 4)]
    rows = list(Dataset.from_tensor_slices({"a": [1, 2], "b": [3, 4]}).as_numpy_iterator())
    assert rows == [{"a": 1, "b": 3}, {"a": 2, "b": 4}]
    matrix = list(Dataset.from_tensor_slices([[1, 2], [3, 4]]))  # a list is one tensor: rows are the elements
    assert [m.numpy().tolist() for m in matrix] == [[1, 2], [3, 4]]


def test_elements_are_tensors_with_tensorflow_s_dtypes_and_tuples_stay_tuples():
    x, y = next(iter(Dataset.from_tensor_slices(([1.0, 2.0], np.array([3, 4], np.int64)))))
    assert isinstance(x, mt.Tensor) and x.dtype == mt.float32 and y.dtype == mt.int64
    assert next(iter(Dataset.range(3))).dtype == mt.int64
    assert next(iter(Dataset.from_tensor_slices(np.zeros((2, 3))))).shape == (3,)


def test_from_tensor_slices_needs_one_length():
    with pytest.raises(ValueError, match=r"different first dimensions \(\[2\], \[3\]\)"):
        Dataset.from_tensor_slices(([1, 2], [1, 2, 3]))


def test_from_tensors_is_one_element():
    (element,) = list(Dataset.from_tensors([1, 2, 3]))
    assert element.numpy().tolist() == [1, 2, 3]


def test_range_batch_and_drop_remainder():
    assert values(Dataset.range(8).batch(3)) == [[0, 1, 2], [3, 4, 5], [6, 7]]
    assert values(Dataset.range(8).batch(3, drop_remainder=True)) == [[0, 1, 2], [3, 4, 5]]
    assert values(Dataset.range(2, 5)) == [2, 3, 4] and values(Dataset.range(1, 5, 2)) == [1, 3]
    assert len(Dataset.range(8).batch(3)) == 3 and len(Dataset.range(8).batch(3, drop_remainder=True)) == 2
    x, y = next(iter(Dataset.from_tensor_slices((np.ones((5, 2)), np.arange(5))).batch(4)))
    assert x.shape == (4, 2) and y.numpy().tolist() == [0, 1, 2, 3]


def test_map_filter_take_skip_repeat():
    assert values(Dataset.range(1, 6).map(lambda x: x + 1)) == [2, 3, 4, 5, 6]
    assert values(Dataset.from_tensor_slices([1, 2, 3]).filter(lambda x: x < 3)) == [1, 2]
    assert values(Dataset.range(10).take(2)) == [0, 1]
    assert values(Dataset.range(10).skip(7)) == [7, 8, 9]
    assert values(Dataset.from_tensor_slices([1, 2, 3]).repeat(3)) == [1, 2, 3] * 3
    assert values(Dataset.range(3).repeat().take(7)) == [0, 1, 2, 0, 1, 2, 0]
    pairs = Dataset.from_tensor_slices(([1, 2], [10, 20])).map(lambda a, b: a + b)  # a tuple is unpacked
    assert values(pairs) == [11, 22]


def test_filter_needs_a_scalar_bool():
    with pytest.raises(ValueError, match="scalar bool"):
        list(Dataset.from_tensor_slices([[1, 2]]).filter(lambda x: x > 1))


def test_zip_enumerate_concatenate():
    a, b = Dataset.range(1, 4), Dataset.range(4, 7)
    assert [tuple(map(int, p)) for p in Dataset.zip((a, b)).as_numpy_iterator()] == [(1, 4), (2, 5), (3, 6)]
    assert [tuple(map(int, p)) for p in Dataset.zip(a, b)] == [(1, 4), (2, 5), (3, 6)]
    assert len(Dataset.zip((a, Dataset.range(2)))) == 2
    assert [(int(i), int(x)) for i, x in Dataset.range(5, 7).enumerate()] == [(0, 5), (1, 6)]
    assert values(a.concatenate(b)) == [1, 2, 3, 4, 5, 6]


def test_shuffle_is_deterministic_with_a_seed():
    def order(seed, reshuffle=True, passes=2):
        dataset = Dataset.range(20).shuffle(20, seed=seed, reshuffle_each_iteration=reshuffle)
        return [values(dataset) for _ in range(passes)]

    first, second = order(3)
    assert sorted(first) == list(range(20)) and first != list(range(20))
    assert order(3) == [first, second]  # the same seed, the same orders, run after run
    assert first != second  # each pass reshuffles
    same_each_pass = order(3, reshuffle=False)
    assert same_each_pass[0] == same_each_pass[1]
    small_buffer = values(Dataset.range(20).shuffle(1, seed=0))
    assert small_buffer == list(range(20))  # a buffer of one cannot reorder anything


def test_counter_counts_without_end_and_numbers_a_zipped_dataset():
    # TensorFlow 2.21: tf.data.experimental.Counter, and zipped as the data augmentation tutorial does
    counter = mt.data.experimental.Counter()
    assert counter.element_spec == mt.TensorSpec([], mt.int64) and int(counter.cardinality()) == -1
    assert values(counter.take(3)) == [0, 1, 2]
    zipped = Dataset.zip((Dataset.range(10, 15), (counter, counter)))
    assert int(zipped.cardinality()) == 5 and values(zipped.map(lambda x, seed: seed[0] + x))[:2] == [10, 12]
    down = list(mt.data.experimental.Counter(3, -2, mt.int32).take(3))
    assert [int(t) for t in down] == [3, 1, -1] and down[0].dtype == mt.int32


def test_cardinality_and_len():
    assert int(Dataset.range(42).cardinality()) == 42
    assert int(Dataset.range(42).repeat().cardinality()) == mt.data.INFINITE_CARDINALITY == -1
    assert int(Dataset.range(42).filter(lambda x: x > 1).cardinality()) == mt.data.UNKNOWN_CARDINALITY == -2
    assert int(mt.data.experimental.cardinality(Dataset.range(4).skip(1))) == 3
    with pytest.raises(TypeError, match="infinite"):
        len(Dataset.range(3).repeat())
    with pytest.raises(TypeError, match="unknown"):
        len(Dataset.range(3).filter(lambda x: x > 1))


def test_prefetch_and_cache_change_nothing():
    dataset = Dataset.range(3)
    assert dataset.prefetch(mt.data.AUTOTUNE) is dataset and dataset.cache() is dataset
    assert mt.data.experimental.AUTOTUNE == mt.data.AUTOTUNE


def test_a_training_loop_over_batches_learns():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(64, 1)).astype(np.float32)
    dataset = Dataset.from_tensor_slices((x, 3 * x + 1)).shuffle(64, seed=0).batch(16)
    w, b = mt.Variable(0.0), mt.Variable(0.0)
    for _ in range(100):
        for xb, yb in dataset:
            with mt.GradientTape() as tape:
                loss = mt.reduce_mean((xb * w + b - yb) ** 2)
            dw, db = tape.gradient(loss, [w, b])
            w.assign_sub(0.1 * dw)
            b.assign_sub(0.1 * db)
    assert float(w) == pytest.approx(3.0, abs=1e-3) and float(b) == pytest.approx(1.0, abs=1e-3)


def test_from_generator_and_unbatch():
    def gen():
        yield from ([1, 2], [3, 4])

    dataset = Dataset.from_generator(gen, output_types=mt.int32)
    assert values(dataset) == [[1, 2], [3, 4]] and values(dataset.unbatch()) == [1, 2, 3, 4]
    assert int(dataset.cardinality()) == -2
    typed = Dataset.from_generator(gen, output_signature=mt.TensorSpec(shape=(2,), dtype=mt.float32))
    assert next(iter(typed)).dtype == mt.float32
    pairs = Dataset.from_generator(lambda: iter([(1, 2.0)]), output_types=(mt.int64, mt.float64))
    assert [t.dtype for t in next(iter(pairs))] == [mt.int64, mt.float64]


def test_padded_batch_as_documented():
    a = Dataset.range(1, 5).map(lambda x: mt.fill([x], x))
    assert values(a.padded_batch(2)) == [[[1, 0], [2, 2]], [[3, 3, 3, 0], [4, 4, 4, 4]]]
    assert values(a.padded_batch(2, padded_shapes=5)) == [
        [[1, 0, 0, 0, 0], [2, 2, 0, 0, 0]],
        [[3, 3, 3, 0, 0], [4, 4, 4, 4, 0]],
    ]
    assert values(a.padded_batch(2, padded_shapes=5, padding_values=-1))[0] == [[1, -1, -1, -1, -1], [2, 2, -1, -1, -1]]
    with pytest.raises(ValueError, match="padded_batch"):
        list(a.padded_batch(2, padded_shapes=3))
    with pytest.raises(ValueError, match="use padded_batch"):
        list(a.batch(2))


def test_reduce_and_what_is_missing():
    assert int(Dataset.range(5).reduce(mt.constant(0, mt.int64), lambda state, x: state + x)) == 10
    with pytest.raises(AttributeError, match="has no tf.data.Dataset.bucket_by_sequence_length: use padded_batch"):
        Dataset.range(3).bucket_by_sequence_length  # noqa: B018


def test_dict_elements_batch_and_shuffle_as_dicts():
    dataset = Dataset.from_tensor_slices({"x": np.arange(6.0), "y": np.arange(6)}).shuffle(6, seed=0).batch(3)
    batches = list(dataset.as_numpy_iterator())
    assert [sorted(b) for b in batches] == [["x", "y"], ["x", "y"]]
    assert all(b["x"].tolist() == [float(v) for v in b["y"]] for b in batches)  # rows stay together
    assert sorted(np.concatenate([b["y"] for b in batches]).tolist()) == list(range(6))


def test_element_spec_as_the_tf_data_guide_prints_it():
    dataset = Dataset.from_tensor_slices(
        (mt.random.uniform([4, 10]), mt.random.uniform([4], maxval=100, dtype=mt.int32))
    )
    features, labels = dataset.element_spec
    assert repr(features) == "TensorSpec(shape=(10,), dtype=mt.float32, name=None)"
    assert labels == mt.TensorSpec([], mt.int32)
    assert dataset.batch(3).element_spec[0].shape.as_list() == [None, 10]  # the last batch may be shorter
    assert dataset.batch(3, drop_remainder=True).element_spec[0].shape.as_list() == [3, 10]
    assert Dataset.from_tensor_slices({"a": [1.0, 2.0]}).element_spec == {"a": mt.TensorSpec([], mt.float32)}


def test_file_readers_say_how_to_load_the_file_instead():
    with pytest.raises(AttributeError, match="no tf.data.TextLineDataset: read the lines with Python"):
        mt.data.TextLineDataset  # noqa: B018
    with pytest.raises(AttributeError, match="np.loadtxt"):
        mt.data.experimental.make_csv_dataset  # noqa: B018
