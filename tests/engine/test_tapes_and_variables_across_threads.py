"""Variables and tapes under threads, as TensorFlow 2.21 behaves (each case was run there; comments give its
answer): assign ops are atomic, and a tape belongs to the thread that entered it."""

import threading

import numpy as np
import pytest

import minitape as mt


def _run_in_threads(work, n=4):
    threads = [threading.Thread(target=work) for _ in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


@pytest.mark.parametrize(
    "update, start, expected",
    [
        (lambda v: v.assign_add(1.0), 0.0, 8000.0),
        (lambda v: v.assign_sub(1.0), 8000.0, 0.0),
        (lambda v: v.scatter_nd_add([[0]], [1.0]), [0.0], [8000.0]),
    ],
    ids=["assign_add", "assign_sub", "scatter_nd_add"],
)
def test_updates_from_four_threads_all_count(update, start, expected):
    # TensorFlow 2.21: 4 threads x 2,000 assign_add(1.0) give 8000.0 (minitape gave 3,545-4,309 before)
    v = mt.Variable(start)

    def work():
        for _ in range(2000):
            update(v)

    _run_in_threads(work)
    np.testing.assert_array_equal(v.numpy(), expected)


def _in_thread(fn):
    """Run fn in another thread; return what it returned or the exception it raised."""
    out = {}

    def work():
        try:
            out["value"] = fn()
        except Exception as err:  # noqa: BLE001 - the test inspects whatever was raised
            out["error"] = err

    thread = threading.Thread(target=work)
    thread.start()
    thread.join()
    return out


def test_watch_from_another_thread_is_ignored():
    # TensorFlow 2.21: the gradient is None (its tapes are per thread; the other thread records nothing)
    x = mt.constant(3.0)
    tape = mt.GradientTape()
    with tape:
        assert "error" not in _in_thread(lambda: tape.watch(x))
        y = x * x
    assert tape.gradient(y, x) is None


def test_watch_and_ops_in_another_thread_are_not_recorded():
    x = mt.constant(3.0)
    with mt.GradientTape() as tape:
        out = _in_thread(lambda: (tape.watch(x), x * x)[1])
    assert tape.gradient(out["value"], x) is None  # TensorFlow 2.21: None


def test_exiting_from_another_thread_stops_the_tape_in_the_opening_thread():
    x = mt.constant(3.0)
    tape = mt.GradientTape()
    tape.__enter__()
    tape.watch(x)
    y = x * x
    out = _in_thread(lambda: tape.__exit__(None, None, None))
    assert "error" not in out  # no bare "list.remove(x): x not in list"
    n = len(tape.records)
    z = x * x * x  # the tape stopped: the opening thread records no more
    assert len(tape.records) == n
    assert tape.gradient(z, x) is None
    tape.__exit__(None, None, None)  # a second exit changes nothing, as in TensorFlow
    with mt.GradientTape() as fresh:  # the thread's next tape works as usual
        fresh.watch(x)
        w = x * x
    assert fresh.gradient(w, x).numpy() == 6.0
    del y


def test_stop_recording_from_another_thread_leaves_the_opening_thread_recording():
    # TensorFlow 2.21: the gradient is 6.0
    x = mt.constant(3.0)
    tape = mt.GradientTape()
    with tape:
        tape.watch(x)

        def pause():
            with tape.stop_recording():
                pass

        assert "error" not in _in_thread(pause)
        y = x * x
    assert tape.gradient(y, x).numpy() == 6.0


def test_gradient_from_another_thread():
    x = mt.constant(3.0)
    with mt.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    assert _in_thread(lambda: tape.gradient(y, x))["value"].numpy() == 6.0  # TensorFlow 2.21: 6.0


def test_leaving_an_accumulator_from_another_thread():
    x = mt.constant(3.0)
    acc = mt.autodiff.ForwardAccumulator(x, mt.constant(1.0))
    acc.__enter__()
    y = x * x
    assert "error" not in _in_thread(lambda: acc.__exit__(None, None, None))
    assert acc.jvp(y).numpy() == 6.0
    acc.__exit__(None, None, None)


def test_each_thread_records_on_its_own_tape():
    x = mt.constant(2.0)
    results = {}

    def work(power):
        with mt.GradientTape() as tape:
            tape.watch(x)
            y = x**power
        results[power] = float(tape.gradient(y, x).numpy())

    threads = [threading.Thread(target=work, args=(p,)) for p in (2.0, 3.0, 4.0)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == {2.0: 4.0, 3.0: 12.0, 4.0: 32.0}
