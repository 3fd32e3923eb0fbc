"""What a tape keeps alive: the keep policy of the records, `tape.stats()`, and when the tensors are freed."""

from __future__ import annotations

import gc
import weakref

import numpy as np
import pytest

import minitape as mt
from minitape.aids.explain import TapeStats

N = 1000  # float64 elements: 8,000 bytes per tensor


def vector():
    return mt.constant(np.linspace(-1.0, 1.0, N))


def one_record(fn):
    x = vector()
    with mt.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = fn(x)
    (op,) = tape.records
    return tape, op, x, y


@pytest.mark.parametrize("fn", [mt.nn.relu, mt.exp, mt.tanh, mt.sigmoid], ids=["relu", "exp", "tanh", "sigmoid"])
def test_relu_exp_tanh_sigmoid_keep_only_their_output(fn):
    tape, op, x, y = one_record(fn)
    assert [t._id for t in op.saved_tensors()] == [y._id]
    with pytest.raises(AttributeError, match="does not keep its inputs"):
        _ = op.inputs
    assert tape.stats() == TapeStats(records=1, saved_tensors=1, saved_bytes=8 * N, persistent=True)


def test_add_keeps_nothing():
    tape, op, x, y = one_record(lambda x: x + x)
    assert op.saved_tensors() == []
    assert tape.stats().saved_bytes == 0 and tape.stats().records == 1


def test_mul_keeps_its_inputs_and_a_tensor_kept_twice_counts_once():
    x = vector()
    with mt.GradientTape(persistent=True) as tape:
        tape.watch(x)
        e = mt.exp(x)  # keeps e
        p = e * x  # keeps e (again) and x
        mt.reduce_sum(p)  # keeps nothing
    stats = tape.stats()
    assert stats == TapeStats(records=3, saved_tensors=2, saved_bytes=2 * 8 * N, persistent=True)
    assert repr(stats) == "TapeStats(records=3, saved_tensors=2, saved_bytes=16000, persistent=True)"
    assert str(stats) == "persistent tape: 3 records keeping 2 tensors alive (16,000 bytes)"


def test_a_one_shot_tape_holds_no_tensor_after_gradient():
    x = vector()
    with mt.GradientTape() as tape:
        tape.watch(x)
        y = mt.reduce_sum(mt.exp(x) * x)
    assert tape.stats().saved_bytes == 2 * 8 * N  # exp's output (which is also Mul's first input) and x
    kept = weakref.ref(tape.records[0].saved_tensors()[0]._value)  # the array the record keeps
    tape.gradient(y, x)
    stats = tape.stats()
    assert stats.records == 3 and stats.saved_tensors == 0 and stats.saved_bytes == 0
    gc.collect()
    assert kept() is None  # exp's output is gone: nothing else referred to it


def test_a_persistent_tape_keeps_its_tensors_until_del():
    x = vector()
    with mt.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = mt.reduce_sum(mt.exp(x))
    kept = weakref.ref(tape.records[0].saved_tensors()[0]._value)  # the array the record keeps
    for _ in range(2):
        np.testing.assert_allclose(tape.gradient(y, x).numpy(), np.exp(np.linspace(-1.0, 1.0, N)))
    gc.collect()
    assert kept() is not None and tape.stats().saved_bytes == 8 * N
    del tape
    gc.collect()
    assert kept() is None


def test_reset_drops_the_records():
    x = vector()
    with mt.GradientTape(persistent=True) as tape:
        tape.watch(x)
        mt.exp(x)
        tape.reset()
    assert tape.stats() == TapeStats(records=0, saved_tensors=0, saved_bytes=0, persistent=True)


def test_stats_reads_the_kept_arrays_without_converting_them_to_numpy():
    x = vector()
    with mt.GradientTape(persistent=True) as tape:
        tape.watch(x)
        mt.exp(x)
        assert tape.stats().saved_bytes == 8 * N  # asked while recording, as a lesson does
    assert tape.numpy_escapes == ()  # counting bytes is not the user converting a value to numpy
