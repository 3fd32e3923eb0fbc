"""mt.data.Dataset matches TensorFlow 2.21's tf.data: the expected values below are what TensorFlow gives."""

import numpy as np
import pytest

import minitape as tf

Dataset = tf.data.Dataset


def values(ds):
    return [np.asarray(x).tolist() for x in ds.as_numpy_iterator()]


def test_map_returning_a_list_gives_a_tuple_element():
    ds = Dataset.range(2).map(lambda x: [x, x])
    assert values(ds) == [[0, 0], [1, 1]] and isinstance(next(iter(ds)), tuple)
    assert ds.element_spec == (tf.TensorSpec([], tf.int64), tf.TensorSpec([], tf.int64))


def test_padded_batch_spec_has_none_for_padded_and_batch_dims():
    ds = Dataset.range(5).map(lambda x: tf.fill([x], x)).padded_batch(2)
    assert repr(ds.element_spec) == "TensorSpec(shape=(None, None), dtype=mt.int64, name=None)"
    assert values(ds)[1] == [[2, 2, 0], [3, 3, 3]]
    dropped = Dataset.range(3).map(lambda x: tf.fill([x], x)).padded_batch(2, drop_remainder=True)
    assert dropped.element_spec.shape == [2, None]
    fixed = Dataset.range(3).map(lambda x: tf.fill([x], x)).padded_batch(2, padded_shapes=[4])
    assert fixed.element_spec.shape == [None, 4]
    assert Dataset.range(4).batch(3, drop_remainder=True).element_spec.shape == [3]


def test_from_generator_signature_is_the_spec_and_is_enforced():
    def gen():
        yield np.arange(1)
        yield np.arange(2)

    ds = Dataset.from_generator(gen, output_signature=tf.TensorSpec([None], tf.int64))
    assert ds.element_spec.shape == [None] and values(ds) == [[0], [0, 1]]
    bad = Dataset.from_generator(lambda: iter([[1, 2, 3]]), output_signature=tf.TensorSpec([2], tf.int32))
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"shape \(3,\) where an element of shape \(2,\)"):
        list(bad)
    typed = Dataset.from_generator(lambda: iter([1.5]), output_types=tf.float32)
    assert repr(typed.element_spec) == "TensorSpec(shape=<unknown>, dtype=mt.float32, name=None)"
    # TensorFlow converts as numpy does: 1.5 yielded for int32 gives 1
    assert values(Dataset.from_generator(lambda: iter([1.5]), output_signature=tf.TensorSpec([], tf.int32))) == [1]


def test_dicts_keep_their_key_order():
    ds = Dataset.from_tensor_slices({"b": [1, 2], "a": [3.0, 4.0]})
    assert list(next(iter(ds))) == ["b", "a"] and list(ds.element_spec) == ["b", "a"]
    assert list(next(ds.as_numpy_iterator())) == ["b", "a"]


def test_list_of_int64_arrays_stays_int64():
    ds = Dataset.from_tensor_slices([np.array([1, 2]), np.array([3, 4])])
    assert ds.element_spec == tf.TensorSpec([2], tf.int64)  # TensorFlow: int64 (tf.constant would give int32)
    assert Dataset.from_tensor_slices([np.int64(1), np.int64(2)]).element_spec.dtype == tf.int32


def test_concatenate_refuses_different_dtypes():
    with pytest.raises(TypeError, match="Incompatible dataset elements"):
        Dataset.range(2).concatenate(Dataset.from_tensor_slices([1.0, 2.0]))
    with pytest.raises(TypeError, match="Incompatible"):
        Dataset.range(2).concatenate(Dataset.range(2).map(lambda x: (x, x)))
    mixed = Dataset.from_tensors([1]).concatenate(Dataset.from_tensors(np.array([1, 2], np.int32)))
    assert mixed.element_spec.shape == [None]


def test_new_transformations():
    assert values(Dataset.range(3).flat_map(lambda x: Dataset.range(x))) == [0, 0, 1]
    assert values(Dataset.from_tensor_slices([[1, 2], [3, 4]]).flat_map(Dataset.from_tensor_slices)) == [1, 2, 3, 4]
    assert values(Dataset.range(10).take_while(lambda x: x < 3)) == [0, 1, 2]
    assert values(Dataset.range(4).scan(np.int64(0), lambda s, x: (s + x, s + x))) == [0, 1, 3, 6]
    assert values(Dataset.from_tensor_slices([1, 1, 2]).unique()) == [1, 2]
    with pytest.raises(TypeError, match="single integer component"):
        Dataset.from_tensor_slices([1.0]).unique()
    assert values(Dataset.range(4).apply(lambda d: d.skip(2))) == [2, 3]
    assert int(Dataset.range(3).flat_map(lambda x: Dataset.range(1)).cardinality()) == -2


def test_iterator_get_next_and_next():
    it = iter(Dataset.range(2))
    assert int(it.get_next()) == 0 and int(next(it)) == 1
    with pytest.raises(tf.errors.OutOfRangeError, match="End of sequence"):  # as except tf.errors.OutOfRangeError
        it.get_next()


def test_sample_from_datasets_and_options():
    ds = Dataset.sample_from_datasets([Dataset.range(2), Dataset.range(2)], seed=1)
    assert sorted(values(ds)) == [0, 0, 1, 1]  # TensorFlow: the same elements (its order differs by design)
    assert values(ds) == values(ds)  # a seed fixes the order
    only_first = Dataset.sample_from_datasets([Dataset.range(3), Dataset.range(5, 8)], weights=[1.0, 0.0], seed=0)
    assert values(only_first) == [0, 1, 2]
    options = tf.data.Options()
    options.deterministic = True
    options.experimental_distribute.auto_shard_policy = 0
    assert values(Dataset.range(3).with_options(options)) == [0, 1, 2]


def test_left_out_names_say_so():
    with pytest.raises(AttributeError, match="has no tf.data.Dataset.group_by_window"):
        Dataset.range(3).group_by_window  # noqa: B018
    with pytest.raises(AttributeError, match="has no tf.data.TFRecordDataset"):
        tf.data.TFRecordDataset  # noqa: B018


# ---- window and interleave: every expected list is what TensorFlow 2.21 gives ----------------------------
@pytest.mark.parametrize(
    "options, windows",
    [
        (dict(size=3, shift=2), [[0, 1, 2], [2, 3, 4], [4, 5, 6], [6]]),
        (dict(size=3, shift=1, stride=2), [[0, 2, 4], [1, 3, 5], [2, 4, 6], [3, 5], [4, 6], [5], [6]]),
        (dict(size=3, shift=2, drop_remainder=True), [[0, 1, 2], [2, 3, 4], [4, 5, 6]]),
        (dict(size=2), [[0, 1], [2, 3], [4, 5], [6]]),
        (dict(size=2, shift=5), [[0, 1], [5, 6]]),
        (dict(size=4, shift=3, stride=2), [[0, 2, 4, 6], [3, 5], [6]]),
    ],
)
def test_window_makes_a_dataset_per_window(options, windows):
    ds = Dataset.range(7).window(**options)
    assert [values(w) for w in ds] == windows
    assert int(ds.cardinality()) == len(windows)


def test_window_of_structured_elements_and_the_flat_map_that_batches_it():
    pairs = Dataset.from_tensor_slices((np.arange(5), np.arange(5) * 10)).window(2, shift=2)
    assert [(values(a), values(b)) for a, b in pairs] == [([0, 1], [0, 10]), ([2, 3], [20, 30]), ([4], [40])]
    assert pairs.element_spec == (tf.data.DatasetSpec(tf.TensorSpec([], tf.int64)),) * 2
    assert (
        repr(pairs.element_spec[0]) == "DatasetSpec(TensorSpec(shape=(), dtype=mt.int64, name=None), TensorShape([]))"
    )
    rows = Dataset.range(7).window(3, shift=1, drop_remainder=True).flat_map(lambda w: w.batch(3))
    assert values(rows) == [[0, 1, 2], [1, 2, 3], [2, 3, 4], [3, 4, 5], [4, 5, 6]]
    assert values(Dataset.range(5).repeat().window(2).take(2).flat_map(lambda w: w.batch(2))) == [[0, 1], [2, 3]]
    with pytest.raises(ValueError, match="window: size, shift and stride must be positive, got 2, 0, 1"):
        Dataset.range(3).window(2, shift=0)


def test_interleave_takes_block_length_elements_from_cycle_length_datasets_in_turn():
    repeated = Dataset.range(1, 6).interleave(
        lambda x: Dataset.from_tensors(x).repeat(6), cycle_length=2, block_length=4
    )
    assert values(repeated) == [1] * 4 + [2] * 4 + [1] * 2 + [2] * 2 + [3] * 4 + [4] * 4 + [3] * 2 + [4] * 2 + [5] * 6
    ranges = Dataset.range(1, 6).interleave(lambda x: Dataset.range(x), cycle_length=3)
    assert values(ranges) == [0, 0, 0, 1, 1, 0, 2, 1, 0, 2, 1, 3, 2, 3, 4]
    assert int(ranges.cardinality()) == -2  # unknown, as TensorFlow's
    one_at_a_time = Dataset.range(1, 4).interleave(lambda x: Dataset.range(x, x + 3), cycle_length=1)
    assert values(one_at_a_time) == [1, 2, 3, 2, 3, 4, 3, 4, 5]
    assert values(Dataset.range(4).interleave(lambda x: Dataset.range(x, x + 1))) == [0, 1, 2, 3]  # AUTOTUNE cycle
    assert values(Dataset.range(3).interleave(lambda x: Dataset.range(0), cycle_length=2)) == []
    with pytest.raises(TypeError, match="interleave: map_func must return a Dataset, not Tensor"):
        list(Dataset.range(3).interleave(lambda x: x * 2))
