"""tf.random.Generator and the stateless ops, as the "Random number generation" guide uses them.

The numbers are numpy's, not TensorFlow's (another algorithm), so these tests check the guide's statements:
a seed repeats a stream, `split` gives independent streams and moves the parent on, `reset_from_seed`
starts over, the global generator is what `set_seed` restarts, stateless ops depend on their seed alone.
"""

import numpy as np
import pytest

import minitape as tf


def _draws(generator: tf.random.Generator, n: int = 4) -> list[float]:
    return generator.normal([n]).numpy().tolist()


def test_a_seed_repeats_its_stream_and_reset_starts_it_again():
    g1, g2 = tf.random.Generator.from_seed(1), tf.random.Generator.from_seed(1, alg="philox")
    first = _draws(g1)
    assert first == _draws(g2) and _draws(g1) != first  # the same seed, the same numbers; then new ones
    g1.reset_from_seed(1)
    assert _draws(g1) == first
    assert _draws(tf.random.Generator.from_seed(2)) != first
    assert tf.random.Generator.from_seed(1).normal([2, 3]).dtype == tf.float32


def test_split_gives_independent_streams_and_moves_the_parent_on():
    g = tf.random.Generator.from_seed(1)
    g.normal([])
    children = g.split(3)
    after_split = _draws(g)
    untouched = tf.random.Generator.from_seed(1)
    untouched.normal([])
    assert after_split != _draws(untouched)  # as in TensorFlow, split changes the parent's state
    streams = [_draws(child) for child in children]
    assert len({tuple(s) for s in streams}) == 3 and tuple(after_split) not in {tuple(s) for s in streams}
    again = tf.random.Generator.from_seed(1)
    again.normal([])
    assert [_draws(child) for child in again.split(3)] == streams  # and all of it is reproducible


def test_a_copy_continues_where_its_original_is():
    g = tf.random.Generator.from_seed(7)
    g.normal([5])
    copy = tf.random.Generator(copy_from=g)
    assert _draws(copy) == _draws(g)


def test_the_global_generator_is_what_set_seed_restarts_and_can_be_replaced():
    tf.random.set_seed(5)
    expected = tf.random.normal([3]).numpy().tolist()
    tf.random.set_seed(5)
    assert tf.random.get_global_generator().normal([3]).numpy().tolist() == expected
    mine = tf.random.Generator.from_seed(9)
    previous = tf.random.get_global_generator()
    tf.random.set_global_generator(mine)
    try:
        drawn = tf.random.uniform([2]).numpy().tolist()
        assert drawn == tf.random.Generator.from_seed(9).uniform([2]).numpy().tolist()
    finally:
        tf.random.set_global_generator(previous)


def test_a_non_deterministic_generator_differs_from_run_to_run():
    a, b = tf.random.Generator.from_non_deterministic_state(), tf.random.Generator.from_non_deterministic_state()
    assert _draws(a, 8) != _draws(b, 8)


def test_integers_seeds_and_ranges():
    g = tf.random.Generator.from_seed(3)
    ints = g.uniform([1000], minval=2, maxval=5, dtype=tf.int32).numpy()
    assert ints.dtype == np.int32 and set(ints.tolist()) == {2, 3, 4}
    full = g.uniform_full_int([1000], dtype=tf.int64).numpy()
    assert full.dtype == np.int64 and full.min() < -(2**60) and full.max() > 2**60
    seeds = g.make_seeds(4)
    assert seeds.shape == (2, 4) and seeds.dtype == tf.int64
    bounded = g.truncated_normal([2000], stddev=2.0).numpy()
    assert np.abs(bounded).max() <= 4.0


def test_stateless_ops_depend_on_their_seed_alone():
    a = tf.random.stateless_normal([4], seed=[1, 2]).numpy().tolist()
    tf.random.normal([10])  # drawing elsewhere changes nothing
    assert tf.random.stateless_normal([4], seed=[1, 2]).numpy().tolist() == a
    assert tf.random.stateless_normal([4], seed=[2, 1]).numpy().tolist() != a
    seed = tf.random.Generator.from_seed(0).make_seeds(2)[:, 0]
    u = tf.random.stateless_uniform([3], seed=seed, minval=1.0, maxval=2.0).numpy()
    assert ((u >= 1.0) & (u < 2.0)).all()
    assert np.abs(tf.random.stateless_truncated_normal([500], seed=[4, 4]).numpy()).max() <= 2.0
    with pytest.raises(ValueError, match=r"seed of two integers, e.g. seed=\[1, 2\]"):
        tf.random.stateless_normal([2], seed=3)
    with pytest.raises(ValueError, match="must be an integer"):
        tf.random.Generator.from_seed(1.5)


def test_virtual_devices_say_why_they_are_not_there():
    with pytest.raises(AttributeError, match="set_virtual_device_configuration: there is one CPU device"):
        tf.config.experimental.set_virtual_device_configuration(None, [])
