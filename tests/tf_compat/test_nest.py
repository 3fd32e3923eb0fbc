"""mt.nest behaves as TensorFlow 2.21's tf.nest: the expected values below are what TensorFlow gives."""

import collections

import pytest

import minitape as tf

P = collections.namedtuple("P", ["x", "y"])


def test_flatten_sorts_dict_keys_and_pack_keeps_the_structures_order():
    assert tf.nest.flatten({"b": 1, "a": 2, "c": {"z": 3, "y": 4}}) == [2, 1, 4, 3]
    packed = tf.nest.pack_sequence_as({"z": 0, "a": 0}, [1, 2])
    assert list(packed) == ["z", "a"] and packed == {"z": 2, "a": 1}
    assert tf.nest.flatten(None) == [None] and tf.nest.flatten({1, 2}) == [{1, 2}]
    assert tf.nest.flatten(tf.constant([1, 2]), expand_composites=True)[0].shape == [2]


def test_pack_refuses_a_wrong_number_of_leaves():
    with pytest.raises(ValueError, match="Structure had 2 atoms, but flat_sequence had 3 items"):
        tf.nest.pack_sequence_as([0, 0], [1, 2, 3])
    with pytest.raises(ValueError, match="Structure had 3 atoms"):
        tf.nest.pack_sequence_as({"b": [0, 0], "a": 0}, [1, 2])
    assert tf.nest.pack_sequence_as(0, [5]) == 5
    assert tf.nest.pack_sequence_as(P(0, (0, 0)), [1, 2, 3]) == P(1, (2, 3))


def test_map_structure_over_several_structures():
    assert tf.nest.map_structure(lambda x, y: x + y, [1, (2, 3)], [10, (20, 30)]) == [11, (22, 33)]
    with pytest.raises(ValueError, match="same number of elements"):
        tf.nest.map_structure(lambda x, y: x + y, [1, 2], [1, 2, 3])
    with pytest.raises(TypeError, match="check_types=False"):
        tf.nest.map_structure(lambda x, y: x + y, [1, 2], (1, 2))
    assert tf.nest.map_structure(lambda x, y: x + y, [1, 2], (1, 2), check_types=False) == [2, 4]
    with pytest.raises(ValueError, match="same set of keys"):
        tf.nest.map_structure(lambda x, y: x, {"a": 1}, {"b": 1})
    d = collections.defaultdict(list, b=1, a=2)
    r = tf.nest.map_structure(lambda x: x, d)
    assert type(r) is collections.defaultdict and r.default_factory is list and dict(r) == {"b": 1, "a": 2}


def test_assert_same_structure_and_is_nested():
    tf.nest.assert_same_structure([1, (2, 3)], ["a", ("b", "c")])
    with pytest.raises(ValueError, match="is a sequence, while"):
        tf.nest.assert_same_structure([1, 2], [1, [2]])
    with pytest.raises(TypeError):
        tf.nest.assert_same_structure(P(1, 2), (1, 2))
    tf.nest.assert_same_structure([1, 2], (1, 2), check_types=False)
    # TensorFlow: [True, False, True, False, False, False]
    assert [tf.nest.is_nested(x) for x in ([1], 1, {}, tf.constant([1]), "ab")] == [True, False, True, False, False]
    assert sorted(n for n in dir(tf.nest) if not n.startswith("_")) == [
        "assert_same_structure",
        "flatten",
        "is_nested",
        "map_structure",
        "pack_sequence_as",
    ]
