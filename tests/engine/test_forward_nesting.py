"""Forward mode nested with itself and with tapes, as TensorFlow nests them: ports of three tests from
TensorFlow's tensorflow/python/eager/forwardprop_test.py (testHigherOrderPureForward, testGradPureForward,
testForwardOverBackwardMemoryEfficiency, testBackwardOverForward and testCustomGradient), with only the names
changed. The rule they check: an accumulator's own JVP computations are seen by the tapes and accumulators
entered before it (outer ones), never by those entered after it (inner ones).
"""

import gc
import weakref

import numpy as np
import pytest

import minitape as mt

ForwardAccumulator = mt.autodiff.ForwardAccumulator

# d^n/dx^n of x ** 3.5 at x = 1.1, for n = 0..3 (forwardprop_test.py's _X11_35_DERIVATIVES)
X11_35_DERIVATIVES = [1.1**3.5, 3.5 * 1.1**2.5, 3.5 * 2.5 * 1.1**1.5, 3.5 * 2.5 * 1.5 * 1.1**0.5]


def _forwardgrad(f):
    def compute_forwardgrad(primal):
        tangent = mt.constant(1.0)
        with ForwardAccumulator(primal, tangent) as acc:
            primal_out = f(primal)
        return acc.jvp(primal_out)

    return compute_forwardgrad


@pytest.mark.parametrize("order", range(4))
def test_higher_order_pure_forward(order):
    f = lambda x: x**3.5  # noqa: E731
    for _ in range(order):
        f = _forwardgrad(f)
    np.testing.assert_allclose(f(mt.constant(1.1)).numpy(), X11_35_DERIVATIVES[order], rtol=1e-5)


def test_grad_pure_forward():
    primal = mt.constant(1.1)
    with ForwardAccumulator(primal, mt.constant(1.0)) as outer_acc:
        with ForwardAccumulator(primal, mt.constant(1.0)) as acc:
            primal_out = primal**3.5
    inner_jvp = acc.jvp(primal_out)
    outer_jvp = outer_acc.jvp(inner_jvp)
    np.testing.assert_allclose(primal_out.numpy(), X11_35_DERIVATIVES[0], rtol=1e-6)
    np.testing.assert_allclose(inner_jvp.numpy(), X11_35_DERIVATIVES[1], rtol=1e-6)
    np.testing.assert_allclose(outer_jvp.numpy(), X11_35_DERIVATIVES[2], rtol=1e-6)
    # the inner accumulator was entered after the outer one: it does not see the outer one's JVP computations
    assert acc.jvp(outer_acc.jvp(primal_out)) is None


def _accumulator_and_tape(forward_prop_first):
    """Watching depends on nesting, not creation order: build them in either order."""
    c = mt.constant(1.0)
    if forward_prop_first:
        return c, ForwardAccumulator(c, 0.1), mt.GradientTape()
    tape = mt.GradientTape()
    return c, ForwardAccumulator(c, 0.1), tape


@pytest.mark.parametrize("forward_prop_first", [True, False], ids=["ForwardPropFirst", "TapeFirst"])
def test_forward_over_backward_memory_efficiency(forward_prop_first):
    c, forward_accumulator, gradient_tape = _accumulator_and_tape(forward_prop_first)
    gc.disable()
    try:
        with gradient_tape as tape:
            pass  # entering and leaving the tape once more changes no watch order
        with forward_accumulator as acc:
            with gradient_tape as tape:
                tape.watch(c)
                d = mt.cos(c)
                assert acc.jvp(d)._id not in tape.watched_ids  # TensorFlow: should_record_backprop is False
                e = mt.cos(acc.jvp(d))
                mt.cos(e)
                weak_e = weakref.ref(e)
                del e
                assert weak_e() is None  # nothing recorded e: the inner tape did not see the JVP computation
            assert tape.gradient(acc.jvp(d), c) is None
    finally:
        gc.enable()


@pytest.mark.parametrize("forward_prop_first", [True, False], ids=["ForwardPropFirst", "TapeFirst"])
def test_backward_over_forward(forward_prop_first):
    c, forward_accumulator, gradient_tape = _accumulator_and_tape(forward_prop_first)
    with gradient_tape as tape:
        with forward_accumulator as acc:
            tape.watch(c)
            d = mt.cos(c)
            assert acc.jvp(d)._id in tape.watched_ids  # TensorFlow: should_record_backprop is True
        np.testing.assert_allclose(tape.gradient(acc.jvp(d), c).numpy(), -0.1 * np.cos(1.0), rtol=1e-6)


def _jvp(f, primals, tangents):
    with ForwardAccumulator(primals, tangents) as acc:
        primals_out = f(*primals)
    return primals_out, acc.jvp(primals_out, unconnected_gradients="zero")


def _grad(f):
    def g(*params):
        with mt.GradientTape() as tape:
            tape.watch(params)
            out = f(*params)
        return tape.gradient(out, params[0], unconnected_gradients="zero")

    return g


def _jacfwd(f, primal):
    """The Jacobian of f at `primal` (one tensor), one forward-mode column per element."""
    n = int(np.size(primal.numpy()))
    columns = []
    for i in range(n):
        tangent = mt.reshape(mt.one_hot(i, n), primal.shape)
        columns.append(mt.reshape(_jvp(f, (primal,), (tangent,))[1], [-1]))
    return np.stack([c.numpy() for c in columns], axis=1)


def _jacback(f, primal):
    with mt.GradientTape() as tape:
        tape.watch(primal)
        out = mt.reshape(f(primal), [-1])
    return tape.jacobian(out, primal).numpy().reshape(int(np.size(out.numpy())), -1)


def _numeric(f, primal, delta=1e-3):
    x = primal.numpy().astype(np.float64)
    columns = []
    for i in range(x.size):
        step = np.zeros_like(x)
        step.flat[i] = delta
        up = f(mt.constant((x + step).astype(np.float32))).numpy().ravel()
        down = f(mt.constant((x - step).astype(np.float32))).numpy().ravel()
        columns.append((up - down) / (2 * delta))
    return np.stack(columns, axis=1)


def _test_gradients(f, primal, order):
    """forwardprop_test.py's _test_gradients: forward, backward and numeric Jacobians of f's first `order`
    derivatives agree."""
    if order > 1:
        _test_gradients(_grad(f), primal, order - 1)
    numeric = _numeric(f, primal)
    np.testing.assert_allclose(_jacback(f, primal), numeric, rtol=1e-2, atol=1e-6)
    np.testing.assert_allclose(_jacfwd(f, primal), numeric, rtol=1e-2, atol=1e-6)
    np.testing.assert_allclose(_jacfwd(f, primal), _jacback(f, primal), rtol=1e-5, atol=1e-6)


def test_custom_gradient_whose_forward_pass_is_numpy():
    @mt.custom_gradient
    def f(x):
        def grad(dy):
            return dy * mt.cos(x)

        return np.sin(x.numpy()), grad

    _test_gradients(f, mt.constant([1.0, 2.0]), order=3)


def test_custom_gradient_jvp_comes_from_grad_fn():
    @mt.custom_gradient
    def f(x):
        return np.sin(x.numpy()), lambda dy: dy * mt.cos(x)

    x = mt.constant([1.0, 2.0])
    with ForwardAccumulator(x, mt.constant([1.0, 1.0])) as acc:
        y = f(x)
    # TensorFlow 2.21: [ 0.5403023  -0.41614684] (cos(1), cos(2))
    np.testing.assert_allclose(acc.jvp(y).numpy(), [0.5403023, -0.41614684], rtol=1e-6)


def test_exception_in_custom_gradient_not_swallowed():
    @mt.custom_gradient
    def f(unused_x):
        def grad(unused_dy):
            raise ValueError("test_error_string")

        return 1.0, grad

    c, d = mt.constant(1.0), mt.constant(2.0)
    with ForwardAccumulator(c, d):
        with pytest.raises(ValueError, match="test_error_string"):
            f(c)
