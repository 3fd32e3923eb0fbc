"""The eight GradientTape semantics of issue 2, one test each, with the values TensorFlow 2 gives."""

from __future__ import annotations

import gc
import warnings
import weakref

import numpy as np
import pytest

import minitape as mt
import minitape.engine.tape as tape_module


def value(t):
    return None if t is None else np.asarray(t.numpy())


def test_1_ops_are_recorded_only_when_an_input_is_watched():
    x = mt.constant(3.0)
    early = x * x  # before watch: not recorded
    with mt.GradientTape(persistent=True) as tape:
        unwatched = x * 2.0  # x is not watched yet: not recorded either
        tape.watch(x)
        y = x * x  # recorded: x is watched
        z = y * 2.0  # recorded: y is the output of a recorded op, so it is watched
        from_early = early * 1.0
        with tape.stop_recording():
            paused = x * 5.0
        resumed = x * 7.0
    after = x * 11.0  # after the with block: not recorded

    assert value(tape.gradient(y, x)) == 6.0
    assert value(tape.gradient(z, x)) == 12.0
    assert value(tape.gradient(z, y)) == 2.0
    assert value(tape.gradient(resumed, x)) == 7.0
    assert tape.gradient(unwatched, x) is None
    assert tape.gradient(from_early, x) is None
    assert tape.gradient(paused, x) is None
    assert tape.gradient(after, x) is None
    # exactly the ops with a watched input are on the tape: y, z and resumed
    assert [op.type for op in tape.records] == ["Mul", "Mul", "Mul"]


def test_2_trainable_variables_are_watched_automatically_constants_are_not():
    w = mt.Variable(5.0, name="w")
    frozen = mt.Variable(3.0, trainable=False, name="frozen")
    c = mt.constant(2.0)
    with mt.GradientTape(persistent=True) as tape:
        y = w * w + frozen * frozen + c * c
    grads = tape.gradient(y, [w, frozen, c])
    assert value(grads[0]) == 10.0
    assert grads[1] is None  # trainable=False: never watched automatically
    assert grads[2] is None  # a constant must be watched explicitly
    assert [v.name for v in tape.watched_variables()] == ["w:0"]

    with mt.GradientTape() as tape:
        tape.watch(c)
        tape.watch(frozen)  # an explicit watch works for a non-trainable variable too
        y = c * c * frozen
    assert [value(g) for g in tape.gradient(y, [c, frozen])] == [12.0, 4.0]

    w1, w2 = mt.Variable(5.0), mt.Variable(3.0)
    with mt.GradientTape(watch_accessed_variables=False) as tape:
        tape.watch(w1)
        y = 3 * w1**2 + 2 * w1 * w2
    g1, g2 = tape.gradient(y, [w1, w2])
    assert value(g1) == 36.0  # 6 w1 + 2 w2, as in TensorFlow's guide
    assert g2 is None
    assert tape.watched_variables() == (w1,)

    with mt.GradientTape() as tape:
        y = 3 * w1**2 + 2 * w1 * w2
    assert [value(g) for g in tape.gradient(y, [w1, w2])] == [36.0, 10.0]


def test_3_a_non_persistent_tape_answers_once_a_persistent_one_many_times():
    x = mt.constant(3.0)
    with mt.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    assert value(tape.gradient(y, x)) == 6.0
    with pytest.raises(RuntimeError, match=r"persistent=True"):
        tape.gradient(y, x)
    with pytest.raises(RuntimeError, match=r"only be used to compute one set of gradients"):
        tape.jacobian(y, x)

    with mt.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x
        z = y * y
    for _ in range(3):
        assert value(tape.gradient(z, x)) == 108.0  # 4 x^3
        assert value(tape.gradient(y, x)) == 6.0

    tape_ref, saved_ref = weakref.ref(tape), weakref.ref(y._value)
    del y, z
    gc.collect()
    assert saved_ref() is not None  # the persistent tape keeps y's value alive: Mul saves its inputs
    del tape
    assert tape_ref() is None and saved_ref() is None  # `del tape` frees it and what it saved


def test_4_higher_order_derivatives_by_nesting_tapes():
    x = mt.constant(3.0)
    with mt.GradientTape() as outer:
        outer.watch(x)
        with mt.GradientTape() as inner:
            inner.watch(x)
            y = x**3
        dy_dx = inner.gradient(y, x)  # recorded on the outer tape, which is still recording
    d2y_dx2 = outer.gradient(dy_dx, x)
    assert value(dy_dx) == 27.0  # 3 x^2
    assert value(d2y_dx2) == 18.0  # 6 x

    # three levels: the third derivative of x^3 is 6
    with mt.GradientTape() as t3:
        t3.watch(x)
        with mt.GradientTape() as t2:
            t2.watch(x)
            with mt.GradientTape() as t1:
                t1.watch(x)
                y = x**3
            d1 = t1.gradient(y, x)
        d2 = t2.gradient(d1, x)
    assert value(t3.gradient(d2, x)) == 6.0

    # the inner gradient computed after the outer block closed is not recorded: None
    with mt.GradientTape() as outer:
        outer.watch(x)
        with mt.GradientTape() as inner:
            inner.watch(x)
            y = x**3
    dy_dx = inner.gradient(y, x)
    assert value(dy_dx) == 27.0
    assert outer.gradient(dy_dx, x) is None

    # gradient() inside a persistent tape's own block is recorded on it; it warns once per process
    tape_module._warned_inside_context = False
    with mt.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x**3
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            dy_dx = tape.gradient(y, x)
            tape.gradient(y, x)
    messages = [str(w.message) for w in caught]
    assert len(messages) == 1
    assert "persistent" in messages[0] and "higher-order" in messages[0]
    assert value(tape.gradient(dy_dx, x)) == 18.0


def test_5_targets_and_sources_may_be_nested_structures():
    w = mt.Variable([[1.0, 2.0], [3.0, 4.0]], name="w")
    b = mt.Variable([0.5, -0.5], name="b")
    x = mt.constant([[1.0, 2.0]])
    with mt.GradientTape(persistent=True) as tape:
        y = x @ w + b
        loss = mt.reduce_mean(y**2)
    grads = tape.gradient(loss, {"w": w, "b": b})
    assert sorted(grads) == ["b", "w"]
    # y = [7.5, 9.5]; dloss/dy = y; dloss/dw = x^T dy; dloss/db = dy
    np.testing.assert_allclose(value(grads["b"]), [7.5, 9.5])
    np.testing.assert_allclose(value(grads["w"]), [[7.5, 9.5], [15.0, 19.0]])
    nested = tape.gradient(loss, [w, (b, {"again": w})])
    assert isinstance(nested, list) and isinstance(nested[1], tuple) and isinstance(nested[1][1], dict)
    np.testing.assert_allclose(value(nested[1][1]["again"]), value(grads["w"]))

    # several targets (and a dict of them): the gradient of their sum
    v = mt.Variable(2.0)
    with mt.GradientTape(persistent=True) as tape:
        y0 = v**2
        y1 = 1 / v
        vector = v * mt.constant([3.0, 4.0])
        total = y0 * 3.0 + mt.reduce_sum(vector)
    assert value(tape.gradient({"y0": y0, "y1": y1}, v)) == 3.75  # 2v - 1/v^2
    assert value(tape.gradient([y0, [y1]], v)) == 3.75
    assert value(tape.gradient(vector, v)) == 7.0  # a non-scalar target: gradient of its sum
    # output_gradients weight the targets
    assert value(tape.gradient(vector, v, output_gradients=mt.constant([10.0, 100.0]))) == 430.0
    assert value(tape.gradient([y0, y1], v, output_gradients=[mt.constant(2.0), mt.constant(4.0)])) == 7.0
    # intermediate tensors and the target itself are valid sources
    d_y0, d_vec, d_v = tape.gradient(total, [y0, vector, v])
    assert value(d_y0) == 3.0
    np.testing.assert_array_equal(value(d_vec), [1.0, 1.0])
    assert value(d_v) == 19.0  # 3 * 2v + 7
    assert value(tape.gradient(y0, y0)) == 1.0
    np.testing.assert_array_equal(value(tape.gradient(vector, vector)), [1.0, 1.0])


def test_6_none_gradients_and_unconnected_zero():
    # an unconnected source
    x, unrelated = mt.Variable(2.0), mt.Variable([2.0, 2.0])
    with mt.GradientTape() as tape:
        y = x * x
    assert tape.gradient(y, unrelated) is None

    # a Variable replaced by a Tensor: x = x + 1
    x = mt.Variable(2.0)
    results = []
    for _ in range(2):
        with mt.GradientTape() as tape:
            y = x + 1
        results.append(tape.gradient(y, x))
        x = x + 1
    assert value(results[0]) == 1.0 and results[1] is None

    # leaving the library: np.mean returns a numpy array, so the path breaks
    x = mt.Variable([[1.0, 2.0], [3.0, 4.0]])
    with mt.GradientTape() as tape:
        x2 = x**2
        y = np.mean(x2, axis=0)
        assert isinstance(y, np.ndarray)
        y = mt.reduce_mean(y, axis=0)
    assert tape.gradient(y, x) is None

    # integer and bool dtypes: a warning, then None
    for dtype in (mt.int32, mt.bool):
        c = mt.constant(10, dtype=dtype) if dtype is mt.int32 else mt.constant(True)
        with pytest.warns(UserWarning, match="must be floating"):
            with mt.GradientTape() as tape:
                tape.watch(c)
                y = c * c if dtype is mt.int32 else mt.logical_not(c)
            assert tape.gradient(y, c) is None
    # an integer target has no gradient either, even straight after a cast
    x = mt.constant([1.5, 2.5])
    with mt.GradientTape() as tape:
        tape.watch(x)
        y = mt.cast(x, mt.int32)
    assert tape.gradient(y, x) is None
    # an integer cast on the path cuts it too
    x = mt.constant(3.7)
    with mt.GradientTape() as tape:
        tape.watch(x)
        y = mt.cast(mt.cast(x, mt.int32), mt.float32) * x
    assert value(tape.gradient(y, x)) == 3.0  # only the direct factor x contributes

    # stateful assign / assign_add: the tape sees only the value read after it
    x0, x1 = mt.Variable(3.0), mt.Variable(0.0)
    with mt.GradientTape(persistent=True) as tape:
        x1.assign_add(x0)
        y = x1**2
    assert tape.gradient(y, x0) is None
    assert value(tape.gradient(y, x1)) == 6.0
    a, b = mt.Variable(1.0), mt.Variable(5.0)
    with mt.GradientTape() as tape:
        a.assign(b * 2.0)
        y = a * a
    assert tape.gradient(y, b) is None

    # UnconnectedGradients.ZERO: zeros of the source's shape and dtype (enum or string)
    x = mt.Variable([2.0, 2.0], dtype=mt.float64)
    s = mt.Variable(3.0)
    with mt.GradientTape(persistent=True) as tape:
        z = s**2
    for how in (mt.UnconnectedGradients.ZERO, "zero"):
        g = tape.gradient(z, x, unconnected_gradients=how)
        assert g.dtype == mt.float64 and g.shape == (2,)
        np.testing.assert_array_equal(value(g), [0.0, 0.0])
    assert tape.gradient(z, x, unconnected_gradients="none") is None


def test_7_stop_gradient_cuts_a_path_custom_gradient_replaces_it():
    x = mt.constant(2.0)
    with mt.GradientTape() as tape:
        tape.watch(x)
        y = x * x + mt.stop_gradient(x * x) * x
    assert value(tape.gradient(y, x)) == 8.0  # 2x from the first term, x^2 (the constant factor) from the second

    def naive_softplus(z):
        return mt.math.log(mt.exp(z) + 1)

    @mt.custom_gradient
    def stable_softplus(z):
        e = mt.exp(z)

        def grad(upstream):
            return upstream * (1 - 1 / (1 + e))

        return mt.math.log(e + 1), grad

    z = mt.constant(100.0)
    with mt.GradientTape(persistent=True) as tape:
        tape.watch(z)
        naive = naive_softplus(z)
        stable = stable_softplus(z)
    assert np.isnan(value(tape.gradient(naive, z)))  # exp(100) overflows float32: inf / inf
    assert value(tape.gradient(stable, z)) == 1.0
    small = mt.constant(0.0)
    with mt.GradientTape() as tape:
        tape.watch(small)
        y = stable_softplus(small)
    assert value(tape.gradient(y, small)) == 0.5

    # the `variables=` form: grad_fn returns (input gradients, variable gradients)
    v = mt.Variable(2.0)

    @mt.custom_gradient
    def scaled(x):
        def grad(dy, variables=None):
            assert variables == [v] or list(variables)[0] is v
            return dy * v * 10.0, [dy * x * 100.0]

        return x * v, grad

    x = mt.constant(3.0)
    with mt.GradientTape() as tape:
        tape.watch(x)
        y = scaled(x)
    gx, gv = tape.gradient(y, [x, v])
    assert value(y) == 6.0
    assert value(gx) == 20.0 and value(gv) == 300.0  # the custom rule, not the true derivatives 2 and 3


def test_8_no_gradient_gives_none_a_missing_gradient_raises_lookup_error():
    mt.no_gradient("SemanticsRound")
    rounded = mt.defop("SemanticsRound", np.round)
    doubled = mt.defop("SemanticsDouble", lambda a: 2 * a)  # no gradient registered at all

    x = mt.constant(2.3)
    with mt.GradientTape(persistent=True) as tape:
        tape.watch(x)
        r = rounded(x) * x
        d = doubled(x)
    assert value(r) == pytest.approx(2.0 * 2.3)
    assert value(tape.gradient(r, x)) == 2.0  # only the direct factor: Round contributes None
    with pytest.raises(LookupError) as err:
        tape.gradient(d, x)
    assert err.value.args == ("gradient registry has no entry for: SemanticsDouble",)

    @mt.RegisterGradient("SemanticsDouble")
    def _double_grad(op, dy):
        return 2 * dy

    assert value(tape.gradient(d, x)) == 2.0


def test_a_tensor_the_tape_never_watched_gets_none_even_when_a_recorded_op_reads_it():
    # TensorFlow 2.21 gives None (and zeros with unconnected_gradients="zero") for h0: the op is recorded because
    # it reads the variable U, but the tape never watched h0 itself. Only a target is its own gradient unwatched.
    U = mt.Variable([[1.0, 2.0], [3.0, 4.0]])
    h0 = mt.constant([[0.5, -1.0]])
    with mt.GradientTape(persistent=True) as tape:
        y = mt.tanh(mt.matmul(h0, U))
        s = mt.reduce_sum(y)
    assert tape.gradient(s, h0) is None and tape.jacobian(y, h0) is None
    assert tape.gradient(s, h0, unconnected_gradients="zero").numpy().tolist() == [[0.0, 0.0]]
    grad_u, grad_h0 = tape.gradient(s, [U, h0])
    assert grad_h0 is None and grad_u.shape == (2, 2)
    assert tape.gradient(s, y).shape == (1, 2)  # an op's output is followed: watched from the start
    assert float(tape.gradient(h0, h0)[0, 0]) == 1.0  # the target itself, as TensorFlow
    assert tape.explain(s, h0).reasons[0].kind != "connected"  # explain() has said so all along
