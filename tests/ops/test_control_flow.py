"""tf.cond, tf.case, tf.switch_case, tf.while_loop, tf.scan, tf.foldl and tf.foldr: TensorFlow 2.21's values and
errors (the numbers in the comments are what it prints for the same calls), gradients against finite
differences, and under mt.function a traced call that takes the other branch or another trip count traces again."""

from __future__ import annotations

import collections

import numpy as np
import pytest

import minitape as tf
from minitape.aids.check_gradients import check_gradients

x, y = tf.constant(1.0), tf.constant(2.0)
f17, f23, fm1 = (lambda: tf.constant(17)), (lambda: tf.constant(23)), (lambda: tf.constant(-1))


def _refused(call, error, words):
    with pytest.raises(error) as info:
        call()
    assert words in str(info.value)


# ---- cond ----------------------------------------------------------------------------------------------------
def test_cond_calls_the_branch_its_predicate_picks_and_returns_what_it_returns():
    assert tf.cond(x < y, lambda: x * 2, lambda: x * 3).numpy() == 2.0
    assert tf.cond(x > y, lambda: x * 2, lambda: x * 3).numpy() == 3.0
    assert tf.cond(True, lambda: 1, lambda: 2) == 1  # TF 2.21 eager: 1 (a Python value comes back as it is)
    assert tf.cond(tf.constant([True]), lambda: 1, lambda: 2) == 1  # a one-element bool is a scalar, as in TF
    nested = tf.cond(x < y, lambda: {"a": x, "b": [x, 1]}, lambda: {"a": y, "b": [y, 2]})
    assert list(nested) == ["a", "b"] and nested["b"][1] == 1 and nested["a"].numpy() == 1.0
    single = tf.cond(x < y, lambda: [x], lambda: [y])  # TF 2.21: [<tf.Tensor ... 1.0>], not unpacked
    assert isinstance(single, list) and len(single) == 1
    assert tf.cond(x < y, lambda: None, lambda: None) is None
    assert tf.cond(tf.Variable(False), lambda: 1, lambda: 2) == 2


def test_cond_runs_only_the_branch_taken():
    ran = []
    tf.cond(x < y, lambda: ran.append("true"), lambda: ran.append("false"))
    assert ran == ["true"]


@pytest.mark.parametrize(
    "call, error, words",
    [
        (lambda: tf.cond(x < y, lambda: x), TypeError, "cond(): 'false_fn' argument required"),
        (lambda: tf.cond(x < y, 1, lambda: x), TypeError, "'true_fn' must be callable."),
        (lambda: tf.cond(x < y, lambda: x, 2), TypeError, "'false_fn' must be callable."),
        # TF 2.21 in tf.function: InvalidArgumentError: Input 'pred' passed float expected bool
        (lambda: tf.cond(x, lambda: 1, lambda: 2), tf.errors.InvalidArgumentError, "passed float32 expected bool"),
        (lambda: tf.cond(tf.constant(1), lambda: 1, lambda: 2), tf.errors.InvalidArgumentError, "int32"),
        (lambda: tf.cond(tf.constant([True, False]), lambda: 1, lambda: 2), ValueError, "reduce_all"),
    ],
)
def test_cond_refuses_what_tensorflow_refuses(call, error, words):
    _refused(call, error, words)


def test_cond_gradient_is_the_gradient_of_the_branch_taken():
    f = lambda t: tf.cond(tf.reduce_sum(t) > 0, lambda: tf.sin(t) * t, lambda: t**3)
    check_gradients(f, [np.array([0.5, 1.5])], order=2)
    check_gradients(f, [np.array([-0.5, -1.5])], order=2)
    with tf.GradientTape() as tape:
        v = tf.constant(3.0)
        tape.watch(v)
        out = tf.cond(v > 0, lambda: v**2, lambda: -v)
    assert tape.gradient(out, v).numpy() == 6.0


def test_a_traced_cond_takes_the_branch_of_each_call():
    traces = []

    @tf.function
    def f(t):
        traces.append(1)
        return tf.cond(t > 0, lambda: t * 2, lambda: t * 3)

    assert [f(tf.constant(v)).numpy() for v in (2.0, -2.0, 5.0, -1.0)] == [4.0, -6.0, 10.0, -3.0]
    assert len(traces) == 2  # one graph per branch: the guard on the predicate sends -2.0 to a trace of its own


# ---- case ----------------------------------------------------------------------------------------------------
def test_case_takes_the_first_pair_that_holds_else_the_default():
    # TF 2.21: 17, 23, 17 (the first of two that hold), 23 (exclusive, one holds)
    assert tf.case([(x < y, f17)], default=f23).numpy() == 17
    assert tf.case([(x > y, f17)], default=f23).numpy() == 23
    assert tf.case([(x < y, f17), (x < y, f23)], default=fm1).numpy() == 17
    assert tf.case([(x > y, f17), (x < y, f23)], default=fm1, exclusive=True).numpy() == 23
    assert tf.case((((x > y), f17), ((x < y), f23))).numpy() == 23  # no default: the last pair is it
    assert tf.case([(x < y, f17), (x < y, f23)]).numpy() == 17


def test_case_reads_predicates_in_order_and_stops_at_the_first_that_holds():
    @tf.function
    def f(t, u):
        return tf.case([(t > 0, lambda: t), (u > 0, lambda: u)], default=lambda: t + u)

    one, minus = tf.constant(1.0), tf.constant(-1.0)
    assert [f(one, minus).numpy(), f(one, one).numpy()] == [1.0, 1.0]
    assert f.experimental_get_tracing_count() == 1  # u's predicate was never read, so it guards nothing
    assert [f(minus, one).numpy(), f(minus, minus).numpy()] == [1.0, -2.0]
    assert f.experimental_get_tracing_count() == 3


def test_case_unpacks_a_one_element_result_unless_strict():
    # TF 2.21 eager: the tensor 1.0; with strict=True, [1.0]
    assert isinstance(tf.case([(x < y, lambda: [x])], default=lambda: [y]), tf.Tensor)
    assert isinstance(tf.case([(x < y, lambda: [x])], default=lambda: [y], strict=True), list)


@pytest.mark.parametrize(
    "call, error, words",
    [
        # TF 2.21's messages
        (lambda: tf.case([(x < y, f17), (x < y, f23)], default=fm1, exclusive=True), tf.errors.InvalidArgumentError,
         "Input error: exclusive=True: more than 1 conditions evaluated as True"),
        (lambda: tf.case([(x > y, f17), (x > y, f23)]), tf.errors.InvalidArgumentError,
         "Input error: None of conditions evaluated as True"),
        (lambda: tf.case([(True, f17)], default=f23), TypeError, "pred must be a Tensor, got: True"),
        (lambda: tf.case([(x, f17)], default=f23), TypeError, "pred must be Tensor of type bool"),
        (lambda: tf.case(x < y, default=f23), TypeError, "'pred_fn_pairs' must be a list, tuple, or dict"),
        (lambda: tf.case([(x < y, f17, f23)]), TypeError, "Each entry in 'pred_fn_pairs' must be a 2-tuple"),
        (lambda: tf.case([[x < y, f17]]), TypeError, "Each entry in 'pred_fn_pairs' must be a 2-tuple"),
        (lambda: tf.case([(x < y, 3)]), TypeError, "must be callable"),
        (lambda: tf.case([(x > y, f17)], default=3), TypeError, "'false_fn' must be callable."),
        (lambda: tf.case({"k": f17}), ValueError, "Unordered dictionaries are not supported"),
        (lambda: tf.case([], default=f23), ValueError, "at least one (pred, fn) pair"),
    ],
)  # fmt: skip
def test_case_refuses_what_tensorflow_refuses(call, error, words):
    _refused(call, error, words)


def test_a_traced_case_takes_the_pair_of_each_call():
    @tf.function
    def f(t):
        return tf.case([(t < 0, lambda: t * 10), (t < 1, lambda: t * 100)], default=lambda: -t)

    assert [f(tf.constant(v)).numpy() for v in (-1.0, 0.5, 3.0, -2.0, 0.25)] == [-10.0, 50.0, -3.0, -20.0, 25.0]
    assert f.experimental_get_tracing_count() == 3


# ---- switch_case ---------------------------------------------------------------------------------------------
def test_switch_case_picks_by_index_and_falls_back_to_the_default_or_last_branch():
    one = tf.constant(1)
    # TF 2.21: 23, -1, -1, -1, 23, 17
    assert tf.switch_case(one, [f17, f23, fm1]).numpy() == 23
    assert tf.switch_case(tf.constant(7), [f17, f23, fm1]).numpy() == -1
    assert tf.switch_case(tf.constant(-1), [f17, f23, fm1]).numpy() == -1
    assert tf.switch_case(tf.constant(7), [f17, f23], default=fm1).numpy() == -1
    assert tf.switch_case(one, {0: f17, 1: f23}).numpy() == 23
    assert tf.switch_case(one, [(1, f17), (0, f23)]).numpy() == 17
    assert tf.switch_case(tf.constant(0, tf.int64), [f17, f23]).numpy() == 17


@pytest.mark.parametrize(
    "call, error, words",
    [
        # TF 2.21's messages
        (lambda: tf.switch_case(1, [f17]), TypeError, "'branch_index' must be a Tensor, got <class 'int'>"),
        (lambda: tf.switch_case(y, [f17]), TypeError, "'branch_index' must be an integer Tensor"),
        (lambda: tf.switch_case(tf.constant(0), []), ValueError, "Must provide at least one item in 'branch_fns'"),
        (lambda: tf.switch_case(tf.constant(0), f17), TypeError, "'branch_fns' must be a list, tuple, or dict"),
        (lambda: tf.switch_case(tf.constant(0), {0: f17, 2: f23}), ValueError,
         "branch indices (keys) must form contiguous range of [0 to 2) but found {0,2}"),
        (lambda: tf.switch_case(tf.constant(0), {"a": f17}), TypeError, "key must be a Python `int`"),
        (lambda: tf.switch_case(tf.constant(0), {0: 3}), TypeError, "fn for key 0 must be callable."),
        (lambda: tf.switch_case(tf.constant(0), [(0, f17), f23]), TypeError, "must be a 2-tuple"),
        (lambda: tf.switch_case(tf.constant([1]), [f17]), tf.errors.InvalidArgumentError, "must be a scalar"),
    ],
)  # fmt: skip
def test_switch_case_refuses_what_tensorflow_refuses(call, error, words):
    _refused(call, error, words)


def test_a_traced_switch_case_takes_the_branch_of_each_call():
    @tf.function
    def f(i, t):
        return tf.switch_case(i, [lambda: t + 1, lambda: t * 2, lambda: -t])

    t = tf.constant(5.0)
    assert [f(tf.constant(i), t).numpy() for i in (0, 1, 2, 9, 0)] == [6.0, 10.0, -5.0, -5.0, 6.0]


# ---- while_loop ----------------------------------------------------------------------------------------------
def test_while_loop_returns_the_structure_of_loop_vars():
    # TF 2.21 (tf.function, whose rules these follow): (10,), [3] (at most 3 iterations), (3, 8.0)
    assert tf.while_loop(lambda i: i < 10, lambda i: (i + 1,), (tf.constant(0),))[0].numpy() == 10
    capped = tf.while_loop(lambda i: i < 10, lambda i: i + 1, [0], maximum_iterations=3)
    assert isinstance(capped, list) and capped[0].numpy() == 3 and capped[0].dtype == tf.int32
    i, s = tf.while_loop(lambda i, s: i < 3, lambda i, s: (i + 1, s * 2), (0, 1.0))
    assert (i.numpy(), s.numpy(), s.dtype) == (3, 8.0, tf.float32)
    # a list body for tuple loop_vars is fine, and dicts nest; the container is the body's eagerly, loop_vars' when
    # traced (TF 2.21: a list eagerly, a tuple inside tf.function)
    listed = lambda: tf.while_loop(lambda i, j: i < 3, lambda i, j: [i + 1, j], (0, 1))  # noqa: E731
    assert isinstance(listed(), list) and isinstance(tf.function(listed)(), tuple)
    assert [int(v) for v in listed()] == [3, 1]
    # TF 2.21's docstring example prints (<tf.Tensor: shape=(), dtype=int32, numpy=10>,) eagerly
    assert isinstance(tf.while_loop(lambda i: i < 10, lambda i: (i + 1,), [tf.constant(0)]), tuple)
    assert isinstance(tf.while_loop(lambda i: i < 0, lambda i: (i + 1,), [tf.constant(0)]), list)  # no iteration
    out = tf.while_loop(lambda i, d: i < 3, lambda i, d: (i + 1, {"s": d["s"] * 2}), (0, {"s": tf.constant(1.0)}))
    assert out[1]["s"].numpy() == 8.0  # TF 2.21: 8.0
    assert tf.while_loop(lambda i: i < 10, lambda i: i + 1, [0], maximum_iterations=-1)[0].numpy() == 0
    assert tf.while_loop(lambda i: i < 10, lambda i: i + 1, [0], maximum_iterations=tf.constant(4))[0].numpy() == 4
    Pair = collections.namedtuple("Pair", "i s")
    assert isinstance(tf.while_loop(lambda p: p.i < 2, lambda p: [Pair(p.i + 1, p.s)], [Pair(0, 1.0)])[0], Pair)


def test_while_loop_takes_a_shape_invariant_that_lets_a_size_change():
    # TF 2.21: (3, [1. 1. 1. 1.])
    grow = lambda i, s: (i + 1, tf.concat([s, [1.0]], 0))
    invariants = (tf.TensorShape([]), [None])
    out = tf.while_loop(lambda i, s: i < 3, grow, (0, tf.constant([1.0])), shape_invariants=invariants)
    assert out[1].numpy().tolist() == [1.0] * 4


@pytest.mark.parametrize(
    "call, error, words",
    [
        # TF 2.21 in tf.function, the same words but for the loop variable's name
        (lambda: tf.while_loop(lambda i, s: i < 3, lambda i, s: (i + 1, tf.concat([s, [1.0]], 0)),
                               (0, tf.constant([1.0]))),
         ValueError, "enters the loop with shape (1,), but has shape (2,) after 1 iteration(s). To allow the shape "
         "to vary across iterations, use the `shape_invariants` argument of tf.while_loop"),
        (lambda: tf.while_loop(lambda i, s: i < 3, lambda i, s: (i + 1, tf.concat([s, [1.0]], 0)),
                               (0, tf.constant([1.0])), shape_invariants=([], [1])),
         ValueError, "Input tensor `loop_vars[1]` enters the loop with shape (1,), but has shape (2,)"),
        (lambda: tf.while_loop(lambda i: i < 3, lambda i: tf.cast(i + 1, tf.float32), [tf.constant(0)]),
         TypeError, "Loop var loop_vars[0] enters the loop with type int32 but has type "
         "float32 after 1 iteration(s). loop_vars[0] type should remain constant."),
        (lambda: tf.while_loop(lambda i, j: i < 3, lambda i, j: (i + 1,), [0, 1]), ValueError,
         "don't have the same number of elements"),
        (lambda: tf.while_loop(lambda d: d["i"] < 3, lambda d: [{"i": d["i"] + 1, "t": d["i"]}], [{"i": 0}]),
         ValueError, "don't have the same set of keys"),
        (lambda: tf.while_loop(lambda i: 10 - i, lambda i: i + 1, [0]), tf.errors.InvalidArgumentError,
         "expected bool"),
        (lambda: tf.while_loop(1, lambda i: i + 1, [0]), TypeError, "'cond' must be callable."),
        (lambda: tf.while_loop(lambda i: i < 1, 2, [0]), TypeError, "'body' must be callable."),
        (lambda: tf.while_loop(lambda: True, lambda: (), []), ValueError, "'loop_vars' must be provided."),
        (lambda: tf.while_loop(lambda i: i < 3, lambda i: i + 1, [0], parallel_iterations=0), TypeError,
         "'parallel_iterations' must be a positive integer."),
        (lambda: tf.while_loop(lambda i: i < 3, lambda i: i + 1, [0], maximum_iterations=[1, 2]), ValueError,
         "'maximum_iterations' must be a scalar. Received shape: (2,)"),
        (lambda: tf.while_loop(lambda i, j: i < 3, lambda i, j: (i + 1, j), [0, 1],
                               shape_invariants=[tf.TensorShape([])]),
         ValueError, "shape_invariants must have the structure of loop_vars"),
        (lambda: tf.while_loop(lambda i: i < 3, lambda i: i + 1.5, (tf.constant(0),)), TypeError, "int32"),
    ],
)  # fmt: skip
def test_while_loop_refuses_what_tensorflow_refuses(call, error, words):
    _refused(call, error, words)


def test_while_loop_gradient_of_x_to_the_n_by_repeated_multiplication():
    power = lambda t: tf.while_loop(lambda i, p: i < 5, lambda i, p: (i + 1, p * t), (0, tf.ones_like(t)))[1]
    check_gradients(power, [np.array([0.7, -1.3, 2.0])], order=2)
    v = tf.Variable(2.0)
    with tf.GradientTape() as tape:
        out = tf.while_loop(lambda i, p: i < 3, lambda i, p: (i + 1, p * v), (0, tf.constant(1.0)))[1]
    assert tape.gradient(out, v).numpy() == 12.0  # TF 2.21: 12.0 (3 v^2)


def test_a_traced_while_loop_runs_the_trip_count_of_each_call():
    @tf.function
    def power(t, n):
        return tf.while_loop(lambda i, p: i < n, lambda i, p: (i + 1, p * t), (0, tf.constant(1.0)))[1]

    two = tf.constant(2.0)
    got = [power(two, tf.constant(n)).numpy() for n in (3, 5, 3, 0)]
    assert got == [8.0, 32.0, 8.0, 1.0]
    assert power.experimental_get_tracing_count() == 3  # one graph per trip count, never a replay of another

    @tf.function
    def capped(n):
        return tf.while_loop(lambda i: i < 100, lambda i: i + 1, [0], maximum_iterations=n)[0]

    assert [capped(tf.constant(k)).numpy() for k in (2, 4, 2)] == [2, 4, 2]


def test_a_traced_while_loop_under_a_tape_gives_the_eager_gradient():
    @tf.function
    def grad_of_power(t, n):
        with tf.GradientTape() as tape:
            tape.watch(t)
            p = tf.while_loop(lambda i, p: i < n, lambda i, p: (i + 1, p * t), (0, tf.constant(1.0)))[1]
        return tape.gradient(p, t)

    assert [grad_of_power(tf.constant(2.0), tf.constant(n)).numpy() for n in (3, 4, 3)] == [12.0, 32.0, 12.0]


# ---- scan, foldl, foldr --------------------------------------------------------------------------------------
e = tf.constant([1.0, 2.0, 3.0, 4.0])


def test_scan_values_as_tensorflow_gives_them():
    # TF 2.21's results for the same calls
    assert tf.scan(lambda a, v: a + v, e).numpy().tolist() == [1.0, 3.0, 6.0, 10.0]
    assert tf.scan(lambda a, v: a + v, e, initializer=10.0).numpy().tolist() == [11.0, 13.0, 16.0, 20.0]
    assert tf.scan(lambda a, v: a + v, e, reverse=True).numpy().tolist() == [10.0, 9.0, 7.0, 4.0]
    assert tf.scan(lambda a, v: a + v[0] * v[1], (e, e), initializer=0.0).numpy().tolist() == [1.0, 5.0, 14.0, 30.0]
    s, p = tf.scan(lambda a, v: (a[0] + v, a[1] * v), e, initializer=(0.0, 1.0))
    assert s.numpy().tolist() == [1.0, 3.0, 6.0, 10.0] and p.numpy().tolist() == [1.0, 2.0, 6.0, 24.0]
    out = tf.scan(lambda a, v: {"s": a["s"] + v["u"]}, {"u": e}, initializer={"s": 0.0})
    assert out["s"].numpy().tolist() == [1.0, 3.0, 6.0, 10.0]
    rows = tf.scan(lambda a, v: a + v, tf.reshape(tf.range(6.0), [3, 2]))
    assert rows.numpy().tolist() == [[0.0, 1.0], [2.0, 4.0], [6.0, 9.0]]
    empty = tf.scan(lambda a, v: a + v, tf.zeros([0]), initializer=0.0)
    assert empty.shape == [0] and empty.dtype == tf.float32
    assert tf.scan(lambda a, v: a + v, tf.constant([1, 2]), initializer=0).numpy().tolist() == [1, 3]
    assert tf.scan(lambda a, v: a + v, np.array([1.0, 2.0])).dtype == tf.float64
    assert isinstance(tf.scan(lambda a, v: [a[0] + v], e, initializer=[0.0]), list)


def test_foldl_and_foldr_values_as_tensorflow_gives_them():
    # TF 2.21: 10.0, 1234.0, 4321.0, 4321.0, (10.0, 24.0), 5.0
    assert tf.foldl(lambda a, v: a + v, e).numpy() == 10.0
    assert tf.foldl(lambda a, v: a * 10 + v, e, initializer=0.0).numpy() == 1234.0
    assert tf.foldr(lambda a, v: a * 10 + v, e).numpy() == 4321.0
    assert tf.foldr(lambda a, v: a * 10 + v, e, initializer=0.0).numpy() == 4321.0
    s, p = tf.foldl(lambda a, v: (a[0] + v[0], a[1] * v[1]), (e, e))
    assert (s.numpy(), p.numpy()) == (10.0, 24.0)
    assert tf.foldl(lambda a, v: a + v, tf.zeros([0]), initializer=5.0).numpy() == 5.0


@pytest.mark.parametrize(
    "call, error, words",
    [
        (lambda: tf.scan(lambda a, v: a + v, tf.zeros([0])), tf.errors.OutOfRangeError, "needs an initializer"),
        (lambda: tf.foldl(lambda a, v: a + v, tf.zeros([0])), tf.errors.OutOfRangeError, "needs an initializer"),
        (lambda: tf.scan(lambda a, v: a + v[0], (e, e[:2]), initializer=0.0), ValueError,
         "same first dimension, not 4, 2"),
        (lambda: tf.scan(lambda a, v: a + v, [1, 2, 3]), IndexError, "a scalar"),  # TF 2.21: IndexError too
        (lambda: tf.foldl(lambda a, v: a + v, tf.constant(1.0)), IndexError, "rank 1 or more"),
        # TF 2.21 in tf.function: the loop variable's dtype, shape and structure must stay
        (lambda: tf.scan(lambda a, v: tf.cast(a, tf.int32), e), TypeError, "type should remain constant"),
        (lambda: tf.foldl(lambda a, v: tf.concat([a, [v]], 0), e, initializer=tf.constant([0.0])), ValueError,
         "enters the loop with shape (1,), but has shape (2,)"),
        (lambda: tf.scan(lambda a, v: (a, a), e), ValueError, "don't have the same nested structure"),
        (lambda: tf.scan(lambda a, v: v, e, initializer=tf.constant([0.0, 0.0])), ValueError,
         "enters the loop with shape (2,), but has shape ()"),
        (lambda: tf.scan(3, e), TypeError, "fn must be callable"),
    ],
)  # fmt: skip
def test_scan_and_folds_refuse_what_tensorflow_refuses(call, error, words):
    _refused(call, error, words)


def test_scan_gradients_of_the_cumulative_sum_and_product():
    check_gradients(lambda t: tf.scan(lambda a, v: a + v, t), [np.array([0.5, -1.0, 2.0, 3.0])])
    check_gradients(lambda t: tf.scan(lambda a, v: a * v, t, reverse=True), [np.array([0.5, -1.0, 2.0])], order=2)
    fold = lambda t: tf.foldr(lambda a, v: a * tf.sin(v), t, initializer=tf.ones_like(t[0]))
    check_gradients(fold, [np.ones((3, 2))])
    c = tf.constant([0.5, -1.0, 2.0], tf.float64)
    with tf.GradientTape() as tape:
        tape.watch(c)
        total = tf.reduce_sum(tf.scan(lambda a, v: a + v, c))
    assert tape.gradient(total, c).numpy().tolist() == [3.0, 2.0, 1.0]  # each element is in n - k running sums


def test_a_traced_scan_matches_eager():
    @tf.function
    def cumprod(t):
        return tf.scan(lambda a, v: a * v, t)

    for values in ([1.0, 2.0, 3.0], [2.0, 2.0, 0.5], [1.0, 2.0, 3.0, 4.0]):
        assert cumprod(tf.constant(values)).numpy().tolist() == np.cumprod(values).tolist()
    assert cumprod.experimental_get_tracing_count() == 2  # one per shape


def test_map_fn_and_vectorized_map_agree_with_scan_on_a_row_function():
    m = tf.reshape(tf.range(6.0), [3, 2])
    by_map = tf.map_fn(lambda row: row * 2.0, m)
    by_scan = tf.scan(lambda _, row: row * 2.0, m, initializer=tf.zeros([2]))
    by_vectorized_map = tf.vectorized_map(lambda r: r * 2.0, m)
    assert by_map.numpy().tolist() == by_scan.numpy().tolist() == by_vectorized_map.numpy().tolist()


def test_a_tape_around_a_traced_function_gives_the_gradients_of_the_branch_and_loop_taken():
    @tf.function
    def f(t, n):
        looped = tf.while_loop(lambda i, p: i < n, lambda i, p: (i + 1, p * t), (0, tf.ones_like(t)))[1]
        return tf.cond(tf.reduce_sum(t) > 0, lambda: looped + tf.sin(t), lambda: looped * 2.0)

    for values, n in (([0.5, 1.5], 3), ([-0.5, -1.5], 3), ([0.5, 1.5], 2), ([0.5, 1.5], 3)):
        t = tf.constant(values, tf.float64)
        with tf.GradientTape() as tape:
            tape.watch(t)
            out = tf.reduce_sum(f(t, tf.constant(n)))
        with tf.GradientTape() as eager_tape:
            eager_tape.watch(t)
            eager = tf.reduce_sum(f.python_function(t, tf.constant(n)))
        assert out.numpy() == eager.numpy()
        np.testing.assert_allclose(tape.gradient(out, t).numpy(), eager_tape.gradient(eager, t).numpy(), rtol=1e-12)
    assert f.experimental_get_tracing_count() == 3  # the fourth call replays the first trace under the tape
