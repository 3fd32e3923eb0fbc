"""Forward mode: `autodiff.ForwardAccumulator` against finite differences, and nested with tapes."""

from __future__ import annotations

import numpy as np
import pytest

import minitape as mt

pytestmark = pytest.mark.filterwarnings("error")  # no op may warn on valid input
rng = np.random.default_rng(7)
ForwardAccumulator = mt.autodiff.ForwardAccumulator


def finite_difference(f, x, v, eps=1e-6):
    return (f(mt.constant(x + eps * v)).numpy() - f(mt.constant(x - eps * v)).numpy()) / (2 * eps)


FUNCTIONS = [
    ("sin_times_square", lambda x: mt.sin(x) * x**2),
    ("exp_log", lambda x: mt.math.log(mt.exp(x) + x * x)),
    ("tanh_sigmoid", lambda x: mt.tanh(x) + mt.nn.sigmoid(2.0 * x)),
    ("divide_sqrt", lambda x: mt.sqrt(x * x + 1.0) / (x + 3.0)),
    ("reduce_sum_axis", lambda x: mt.reduce_sum(x * x, axis=1)),
    ("reduce_mean_keepdims", lambda x: x - mt.reduce_mean(x, axis=0, keepdims=True)),
    ("reduce_max", lambda x: mt.reduce_max(x, axis=1)),
    ("reduce_prod", lambda x: mt.reduce_prod(x, axis=0)),
    ("logsumexp", lambda x: mt.reduce_logsumexp(x, axis=-1)),
    ("matmul", lambda x: x @ mt.transpose(x)),
    ("softmax", lambda x: mt.nn.softmax(x)),
    ("log_softmax", lambda x: mt.nn.log_softmax(x, axis=0)),
    ("softplus_relu", lambda x: mt.nn.softplus(x) + mt.nn.relu(x)),
    ("indexing", lambda x: x[1:, ::-1] * x[0]),
    ("gather_repeated", lambda x: mt.gather(x, np.array([0, 0, 2]))),
    ("gather", lambda x: mt.gather(x, [2, 0], axis=1)),
    ("concat_stack", lambda x: mt.stack([mt.concat([x, x * x], axis=1), mt.concat([x, x], axis=1)])),
    ("reshape_tile_pad", lambda x: mt.pad(mt.tile(mt.reshape(x, (4, 3)), [2, 1]), [[1, 0], [0, 2]])),
    ("where_maximum", lambda x: mt.where(x > 0.0, x, mt.maximum(x, -0.5) * 2.0)),
    ("broadcasting", lambda x: x * mt.constant([1.0, 2.0, 3.0], dtype=mt.float64) + mt.reduce_sum(x)),
    ("sparse_cross_entropy", lambda x: mt.nn.sparse_softmax_cross_entropy_with_logits(labels=[0, 2, 1, 1], logits=x)),
]


@pytest.mark.parametrize("name,f", FUNCTIONS, ids=[f[0] for f in FUNCTIONS])
def test_jvp_matches_finite_differences(name, f):
    x = rng.uniform(0.3, 1.5, (4, 3)) * rng.choice([-1.0, 1.0], (4, 3))
    v = rng.normal(size=(4, 3))
    primal = mt.constant(x)
    with ForwardAccumulator(primal, v) as acc:
        y = f(primal)
    jvp = acc.jvp(y)
    assert jvp.shape == y.shape and jvp.dtype == mt.float64
    np.testing.assert_allclose(jvp.numpy(), finite_difference(f, x, v), rtol=1e-5, atol=1e-7)


def test_jvp_through_a_cast_has_the_cast_dtype():
    x = mt.constant([1.0, 2.0], dtype=mt.float64)
    with ForwardAccumulator(x, mt.constant([0.5, -1.0], dtype=mt.float64)) as acc:
        y = mt.cast(x, mt.float32) * 2.0
        cut = mt.cast(x, mt.int32)
    assert acc.jvp(y).dtype == mt.float32
    np.testing.assert_array_equal(acc.jvp(y).numpy(), [1.0, -2.0])
    assert acc.jvp(cut) is None


def test_jvp_agrees_with_the_jacobian_from_a_tape():
    x = mt.constant(rng.normal(size=3))
    v = mt.constant(rng.normal(size=3))

    def f(t):
        return mt.stack([mt.reduce_sum(t * t), mt.reduce_prod(mt.sin(t)), t[0] * t[2]])

    with ForwardAccumulator(x, v) as acc:
        y = f(x)
    with mt.GradientTape() as tape:
        tape.watch(x)
        y2 = f(x)
    jacobian = tape.jacobian(y2, x).numpy()
    np.testing.assert_allclose(acc.jvp(y).numpy(), jacobian @ v.numpy(), rtol=1e-12)


def test_forward_over_backward_hessian_vector_product():
    x = mt.constant([1.0, 2.0, 3.0], dtype=mt.float64)
    v = mt.constant([0.5, -1.0, 2.0], dtype=mt.float64)

    def f(t):
        return mt.reduce_sum(mt.sin(t) * t**2) + t[0] * t[1] * t[2]

    with ForwardAccumulator(x, v) as acc:
        with mt.GradientTape() as tape:
            tape.watch(x)
            y = f(x)
        grad = tape.gradient(y, x)
    hvp = acc.jvp(grad)

    with mt.GradientTape() as outer:
        outer.watch(x)
        with mt.GradientTape() as inner:
            inner.watch(x)
            y = f(x)
        g = inner.gradient(y, x)
    hessian = outer.jacobian(g, x).numpy()
    np.testing.assert_allclose(hvp.numpy(), hessian @ v.numpy(), rtol=1e-12)
    # and the Hessian itself, from the closed form
    a = x.numpy()
    diagonal = 2 * np.sin(a) + 4 * a * np.cos(a) - a**2 * np.sin(a)
    cross = np.array([[0, a[2], a[1]], [a[2], 0, a[0]], [a[1], a[0], 0]])
    np.testing.assert_allclose(hessian, np.diag(diagonal) + cross, rtol=1e-12)


def test_backward_over_forward_hessian_vector_product():
    x = mt.constant([0.3, -1.2], dtype=mt.float64)
    v = mt.constant([1.0, 2.0], dtype=mt.float64)

    def f(t):
        return mt.reduce_sum(mt.exp(t[0] * t) + t**3)

    with mt.GradientTape() as tape:
        tape.watch(x)
        with ForwardAccumulator(x, v) as acc:
            y = f(x)
        directional = acc.jvp(y)
    hvp = tape.gradient(directional, x)
    with mt.GradientTape() as outer:
        outer.watch(x)
        with mt.GradientTape() as inner:
            inner.watch(x)
            y = f(x)
        g = inner.gradient(y, x)
    np.testing.assert_allclose(hvp.numpy(), outer.jacobian(g, x).numpy() @ v.numpy(), rtol=1e-12)


def test_forward_over_forward_second_directional_derivative():
    x = mt.constant(0.7, dtype=mt.float64)
    one = mt.constant(1.0, dtype=mt.float64)
    with ForwardAccumulator(x, one) as outer:
        with ForwardAccumulator(x, one) as inner:
            y = mt.sin(x) * x
        first = inner.jvp(y)
    second = outer.jvp(first)
    a = 0.7
    assert first.numpy() == pytest.approx(np.cos(a) * a + np.sin(a), rel=1e-12)
    assert second.numpy() == pytest.approx(-np.sin(a) * a + 2 * np.cos(a), rel=1e-12)


def test_variables_as_primals():
    w = mt.Variable([[1.0, 2.0], [3.0, 4.0]], dtype=mt.float64)
    b = mt.Variable([0.5, -0.5], dtype=mt.float64)
    x = mt.constant([[1.0, -1.0]], dtype=mt.float64)
    tw = np.array([[0.1, 0.0], [0.0, -0.2]])
    tb = np.array([1.0, 1.0])
    with ForwardAccumulator([w, b], [tw, tb]) as acc:
        y = mt.tanh(x @ w + b)
    expected = (1 - y.numpy() ** 2) * (x.numpy() @ tw + tb)
    np.testing.assert_allclose(acc.jvp(y).numpy(), expected, rtol=1e-12)
    assert acc.jvp(w) is not None and acc.jvp({"b": b})["b"] is not None


def test_custom_gradient_in_forward_mode():
    @mt.custom_gradient
    def clipped_identity(t):
        return mt.identity(t), lambda dy: dy * 0.5  # a deliberately different rule: f's own tangent wins

    x = mt.constant(2.0)
    with ForwardAccumulator(x, mt.constant(1.0)) as acc:
        y = clipped_identity(x) * 3.0
    assert acc.jvp(y).numpy() == 3.0  # TensorFlow: 3.0, the derivative of what the function computes


def test_unconnected_and_structured_jvps():
    x, unrelated = mt.constant([1.0, 2.0]), mt.constant(5.0)
    with ForwardAccumulator(x, mt.constant([1.0, 1.0])) as acc:
        y = x * 2.0
        z = unrelated * 2.0
        s = mt.stop_gradient(x) * 3.0
    out = acc.jvp({"y": y, "pair": (x, z)})
    np.testing.assert_array_equal(out["y"].numpy(), [2.0, 2.0])
    np.testing.assert_array_equal(out["pair"][0].numpy(), [1.0, 1.0])
    assert out["pair"][1] is None and acc.jvp(s) is None
    zero = acc.jvp(z, unconnected_gradients=mt.UnconnectedGradients.ZERO)
    assert zero.numpy() == 0.0 and zero.dtype == mt.float32
    outside = x * 4.0  # after the block: not followed
    assert acc.jvp(outside) is None


def test_jvp_of_something_that_is_not_a_tensor_says_so():
    x = mt.constant(1.0)
    with mt.autodiff.ForwardAccumulator(x, mt.constant(1.0)) as acc:
        x * x
    with pytest.raises(
        ValueError, match="jvp\\(\\) takes tensors computed inside the accumulator's block, not NoneType"
    ):
        acc.jvp(None)
