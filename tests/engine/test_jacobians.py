"""`jacobian`, `batch_jacobian` and Hessians from nested tapes, against finite differences and closed forms."""

from __future__ import annotations

import numpy as np
import pytest

import minitape as mt

pytestmark = pytest.mark.filterwarnings("error")
rng = np.random.default_rng(3)


def numeric_jacobian(f, x, eps=1e-6):
    """d f(x)[i] / d x[j] by central differences, shape f(x).shape + x.shape."""
    out_shape = f(mt.constant(x)).shape
    jac = np.zeros(tuple(out_shape) + x.shape)
    for j in np.ndindex(x.shape):
        step = np.zeros_like(x)
        step[j] = eps
        diff = (f(mt.constant(x + step)).numpy() - f(mt.constant(x - step)).numpy()) / (2 * eps)
        jac[(Ellipsis,) + j] = diff
    return jac


CASES = [
    ("elementwise", lambda x: mt.sin(x) * x, (3,)),
    ("matrix_to_vector", lambda x: mt.reduce_sum(x * x, axis=1), (2, 3)),
    ("vector_to_matrix", lambda x: x[:, None] * x[None, :], (3,)),
    ("matmul", lambda x: x @ mt.transpose(x), (2, 3)),
    ("softmax", mt.nn.softmax, (4,)),
    ("scalar_target", lambda x: mt.reduce_prod(x), (2, 2)),
    ("scalar_source", lambda x: mt.stack([x, x**2, mt.exp(x)]), ()),
]


@pytest.mark.parametrize("name,f,shape", CASES, ids=[c[0] for c in CASES])
def test_jacobian_matches_finite_differences(name, f, shape):
    x = rng.uniform(0.5, 1.5, shape)
    t = mt.constant(x)
    with mt.GradientTape() as tape:  # one jacobian call is one use: no need to be persistent
        tape.watch(t)
        y = f(t)
    jac = tape.jacobian(y, t)
    assert jac.shape == tuple(y.shape) + shape and jac.dtype == mt.float64
    np.testing.assert_allclose(jac.numpy(), numeric_jacobian(f, x), rtol=1e-6, atol=1e-8)


def test_jacobian_of_variables_structures_and_unconnected_sources():
    w = mt.Variable([[1.0, 2.0], [3.0, 4.0]])
    c = mt.constant(5.0)
    with mt.GradientTape(persistent=True) as tape:
        y = w @ w
    jac = tape.jacobian(y, w)
    assert jac.shape == (2, 2, 2, 2)
    # d(W W)[i,k] / dW[a,b] = [i==a] W[b,k] + W[i,a] [b==k]
    wn, eye = w.numpy(), np.eye(2)
    expected = np.einsum("ia,bk->ikab", eye, wn) + np.einsum("ia,bk->ikab", wn, eye)
    np.testing.assert_allclose(jac.numpy(), expected)
    both = tape.jacobian(y, {"w": w, "others": [c]})
    assert both["others"] == [None]
    np.testing.assert_allclose(both["w"].numpy(), expected)
    zero = tape.jacobian(y, c, unconnected_gradients=mt.UnconnectedGradients.ZERO)
    assert zero.shape == (2, 2) and not np.any(zero.numpy())


def test_batch_jacobian_is_the_per_example_block_of_the_jacobian():
    x = mt.constant(rng.normal(size=(4, 3)))
    w = mt.constant(rng.normal(size=(3, 2)))
    with mt.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = mt.tanh(x @ w)
    batch = tape.batch_jacobian(y, x)
    full = tape.jacobian(y, x).numpy()
    assert batch.shape == (4, 2, 3)
    for i in range(4):
        np.testing.assert_allclose(batch[i].numpy(), full[i, :, i, :])
        others = np.delete(full[i], i, axis=1)
        assert not np.any(others)  # examples do not interact
    expected = (1 - np.tanh(x.numpy() @ w.numpy()) ** 2)[:, :, None] * w.numpy().T[None]
    np.testing.assert_allclose(batch.numpy(), expected, rtol=1e-12)


def test_hessian_from_nested_tapes():
    x = mt.constant([0.5, -1.0, 2.0])

    def f(t):
        return mt.reduce_sum(t**3) + t[0] * t[1] + mt.sin(t[2]) * t[1]

    with mt.GradientTape() as outer:
        outer.watch(x)
        with mt.GradientTape() as inner:
            inner.watch(x)
            y = f(x)
        grad = inner.gradient(y, x)
    hessian = outer.jacobian(grad, x).numpy()
    a = x.numpy().astype(np.float64)
    expected = np.diag(6 * a)
    expected[0, 1] = expected[1, 0] = 1.0
    expected[1, 2] = expected[2, 1] = np.cos(a[2])
    expected[2, 2] += -np.sin(a[2]) * a[1]
    np.testing.assert_allclose(hessian, expected, rtol=1e-6)
    np.testing.assert_allclose(hessian, hessian.T)


def test_hessian_of_a_matrix_variable_and_its_flattened_form():
    w = mt.Variable(rng.normal(size=(2, 2)))
    x = mt.constant(rng.normal(size=(3, 2)))
    with mt.GradientTape() as outer:
        with mt.GradientTape() as inner:
            loss = mt.reduce_mean(mt.square(x @ w))
        grad = inner.gradient(loss, w)
    hessian = outer.jacobian(grad, w)
    assert hessian.shape == (2, 2, 2, 2)
    # loss = mean over 6 entries of (x w)^2: the Hessian is 2/6 * (x^T x) on the input axes, identity on outputs
    xtx = x.numpy().T @ x.numpy()
    expected = np.einsum("ac,bd->abcd", xtx, np.eye(2)) * 2 / 6
    np.testing.assert_allclose(hessian.numpy(), expected, rtol=1e-12)
    flat = mt.reshape(hessian, (4, 4)).numpy()
    assert np.all(np.linalg.eigvalsh(flat) >= -1e-12)  # convex: positive semi-definite
