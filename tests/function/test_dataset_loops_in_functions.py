"""A `for` over a dataset inside mt.function: a fresh pass at every call, as TensorFlow's dataset loop makes.

minitape unrolls the loop at tracing, so the graph holds one step per element; each call starts a new pass
(MakeIterator) and takes the elements again (IteratorGetNext), so a shuffled dataset is shuffled again at every
call, as in TensorFlow. Before, the elements of the tracing pass were baked into the graph as constants: every
call repeated the first order, a silently wrong answer for training over shuffled batches.
"""

import numpy as np
import pytest

import minitape as mt


def _stacked_pass(ds):
    return mt.stack([element for element in ds])


def test_each_call_takes_a_new_pass_as_eager_iteration_does():
    eager_ds = mt.data.Dataset.range(8).shuffle(8, seed=1)
    traced_ds = mt.data.Dataset.range(8).shuffle(8, seed=1)
    eager = [[int(v) for v in eager_ds] for _ in range(4)]
    passes = mt.function(_stacked_pass)
    traced = [passes(traced_ds).numpy().tolist() for _ in range(4)]
    assert traced == eager  # the same orders, pass by pass
    assert len({tuple(order) for order in traced}) > 1  # and they differ from pass to pass
    assert all(sorted(order) == list(range(8)) for order in traced)
    assert passes.experimental_get_tracing_count() == 1


def test_a_batched_loop_computes_on_this_calls_batches():
    data = np.arange(12.0)

    @mt.function
    def sums_of_squares(ds):
        return mt.stack([mt.reduce_sum(batch * batch) for batch in ds])

    ds = mt.data.Dataset.from_tensor_slices(data).shuffle(12, seed=3).batch(4)
    expected = [[float(np.sum(b.numpy() ** 2)) for b in ds] for _ in range(3)]
    ds = mt.data.Dataset.from_tensor_slices(data).shuffle(12, seed=3).batch(4)
    got = [sums_of_squares(ds).numpy().tolist() for _ in range(3)]
    assert got == expected
    assert all(sum(row) == float(np.sum(data**2)) for row in got)


def test_a_pass_of_another_length_raises_instead_of_being_cut_short():
    limit = {"value": 3}  # the filter reads it at every pass, as a random filter keeps another count
    ds = mt.data.Dataset.range(6).filter(lambda x: x < limit["value"])

    @mt.function
    def total(ds):
        result = mt.constant(0, mt.int64)
        for x in ds:
            result += x
        return result

    assert int(total(ds)) == 0 + 1 + 2
    assert int(total(ds)) == 3  # the same length: the graph replays
    limit["value"] = 5
    with pytest.raises(mt.errors.OutOfRangeError, match="gave more elements at this call than when traced"):
        total(ds)
    limit["value"] = 2
    with pytest.raises(mt.errors.OutOfRangeError, match="gave fewer elements at this call than when traced"):
        total(ds)
    assert total.experimental_get_tracing_count() == 1


def test_an_iterator_made_outside_gives_its_next_element_at_each_call():
    iterator = iter(mt.data.Dataset.range(3))

    @mt.function
    def take(it):
        return next(it)

    assert [int(take(iterator)) for _ in range(3)] == [0, 1, 2]
    with pytest.raises(mt.errors.OutOfRangeError, match="End of sequence"):
        take(iterator)
