"""`mt.linalg`: values as TensorFlow documents them, clear errors, and gradients checked by finite differences
(float64, second order: every op here is smooth where it is defined)."""

import numpy as np
import pytest

import minitape as mt
from minitape.aids.check_gradients import check_gradients
from minitape.values.errors import InvalidArgumentError

RNG = np.random.default_rng(7)
A = mt.constant(RNG.normal(size=(3, 3)) + 3 * np.eye(3))  # well conditioned, not symmetric
BATCH = mt.constant(RNG.normal(size=(2, 3, 3)) + 3 * np.eye(3))
B = mt.constant(RNG.normal(size=(3, 2)))


def test_values_from_tensorflow_s_documentation():
    x = mt.constant([[1, 2, 3], [4, 5, 6], [7, 8, 9]])
    assert int(mt.linalg.trace(x)) == 15
    assert mt.linalg.trace(mt.stack([x, -x])).numpy().tolist() == [15, -15]
    assert mt.linalg.matvec(mt.constant([[1, 2, 3], [4, 5, 6]]), mt.constant([7, 9, 11])).numpy().tolist() == [58, 139]
    tall = mt.constant([[[1, 2, 3, 4], [5, 6, 7, 8], [9, 8, 7, 6]], [[5, 4, 3, 2], [1, 2, 3, 4], [5, 6, 7, 8]]])
    assert mt.linalg.diag_part(tall).numpy().tolist() == [[1, 6, 7], [5, 2, 7]]
    assert mt.linalg.diag(mt.constant([1.0, 2.0])).numpy().tolist() == [[1.0, 0.0], [0.0, 2.0]]
    assert mt.linalg.matmul is mt.matmul


def test_values_agree_with_the_definitions():
    a, batch = A.numpy(), BATCH.numpy()
    np.testing.assert_allclose(mt.linalg.inv(BATCH).numpy(), np.linalg.inv(batch))
    np.testing.assert_allclose(mt.linalg.solve(A, B).numpy(), np.linalg.solve(a, B.numpy()))
    np.testing.assert_allclose(mt.linalg.solve(A, B, adjoint=True).numpy(), np.linalg.solve(a.T, B.numpy()))
    np.testing.assert_allclose(mt.linalg.det(BATCH).numpy(), np.linalg.det(batch))
    sign, log_abs = mt.linalg.slogdet(mt.constant([[0.0, 2.0], [3.0, 0.0]]))
    assert float(sign) == -1.0 and float(log_abs) == pytest.approx(np.log(6.0))
    spd = a @ a.T
    low = mt.linalg.cholesky(mt.constant(spd)).numpy()
    np.testing.assert_allclose(low @ low.T, spd) and np.testing.assert_array_equal(low, np.tril(low))
    values, vectors = mt.linalg.eigh(mt.constant(spd))
    np.testing.assert_allclose(values.numpy(), np.linalg.eigvalsh(spd))
    np.testing.assert_allclose(vectors.numpy() @ np.diag(values.numpy()) @ vectors.numpy().T, spd)
    assert float(mt.linalg.logdet(mt.constant(spd))) == pytest.approx(np.log(np.linalg.det(spd)))
    assert mt.linalg.inv(mt.constant(np.eye(2, dtype=np.float32))).dtype == mt.float32


@pytest.mark.parametrize(
    "ord, axis, reference",
    [
        ("euclidean", None, lambda a: np.sqrt(np.sum(a**2))),
        (1, None, lambda a: np.sum(np.abs(a))),  # axis None: the whole tensor is one vector
        (np.inf, 1, lambda a: np.max(np.abs(a), axis=1)),
        (3, 0, lambda a: np.sum(np.abs(a) ** 3, axis=0) ** (1 / 3)),
        ("fro", (0, 1), lambda a: np.linalg.norm(a, "fro")),
        (1, (0, 1), lambda a: np.linalg.norm(a, 1)),
        (np.inf, (0, 1), lambda a: np.linalg.norm(a, np.inf)),
        (2, (0, 1), lambda a: np.linalg.norm(a, 2)),
    ],
)
def test_norm_orders_and_axes_as_tensorflow(ord, axis, reference):
    np.testing.assert_allclose(mt.linalg.norm(A, ord=ord, axis=axis).numpy(), reference(A.numpy()))
    np.testing.assert_allclose(mt.norm(A, ord=ord, axis=axis).numpy(), reference(A.numpy()))


def test_norm_keepdims_and_bad_arguments():
    assert mt.linalg.norm(A, axis=1, keepdims=True).shape == (3, 1)
    assert mt.linalg.norm(A, ord=2, axis=[0, 1], keepdims=True).shape == (1, 1)
    with pytest.raises(ValueError, match="not a vector norm"):
        mt.linalg.norm(A, ord="fro", axis=1)
    with pytest.raises(ValueError, match="not a matrix norm"):
        mt.linalg.norm(A, ord=3, axis=[0, 1])
    with pytest.raises(ValueError, match="rank 2"):
        mt.linalg.norm(A, axis=2)


def test_errors_name_the_op_and_the_fix():
    singular = mt.constant([[1.0, 2.0], [2.0, 4.0]])
    for fn in (lambda: mt.linalg.inv(singular), lambda: mt.linalg.solve(singular, mt.ones((2, 1), mt.float32))):
        with pytest.raises(InvalidArgumentError, match="not invertible"):
            fn()
    with pytest.raises(InvalidArgumentError, match="positive definite"):
        mt.linalg.cholesky(mt.constant([[1.0, 2.0], [2.0, 1.0]]))
    with pytest.raises(InvalidArgumentError, match="square matrices"):
        mt.linalg.det(mt.ones((2, 3)))
    with pytest.raises(InvalidArgumentError, match="floating-point"):
        mt.linalg.inv(mt.constant([[1, 0], [0, 1]]))
    with pytest.raises(InvalidArgumentError, match=r"b\[:, None\]"):
        mt.linalg.solve(A, mt.ones(3, mt.float64))


def symmetric(a):
    return (a + mt.linalg.matrix_transpose(a)) * 0.5


@pytest.mark.parametrize(
    "f, args",
    [
        (mt.linalg.inv, [BATCH]),
        (mt.linalg.solve, [A, B]),
        (lambda a, b: mt.linalg.solve(a, b, adjoint=True), [A, B]),
        (mt.linalg.det, [BATCH]),
        (lambda a: mt.linalg.slogdet(a)[1], [BATCH]),
        (lambda a: mt.linalg.cholesky(mt.matmul(a, a, transpose_b=True)), [A]),
        (lambda a: mt.linalg.cholesky(symmetric(a) + 3 * mt.eye(3, dtype=mt.float64)), [A]),
        (lambda a: mt.linalg.eigh(a)[0], [A]),  # not symmetric: the forward and the rule read the lower triangle
        (lambda a: mt.square(mt.linalg.eigh(symmetric(a))[1]), [BATCH]),  # squared: eigenvectors' signs vary
        (mt.linalg.trace, [BATCH]),
        (mt.linalg.diag_part, [mt.constant(RNG.normal(size=(2, 3)))]),
        (mt.linalg.diag, [B]),
        (lambda a, b: mt.linalg.matvec(a, b[:, 0]), [A, B]),
        (lambda a: mt.linalg.logdet(mt.matmul(a, a, transpose_b=True)), [A]),
        (lambda a: mt.linalg.norm(a), [A]),
        (lambda a: mt.linalg.norm(a, ord=1, axis=[0, 1]), [A]),
        (lambda a: mt.linalg.norm(a, ord=2, axis=[-2, -1]), [BATCH]),
        (lambda a: mt.linalg.norm(a, ord=3, axis=1), [A]),
    ],
)
def test_gradients_to_second_order(f, args):
    check_gradients(f, args, order=2)


def test_band_part_as_documented():
    x = mt.constant([[0, 1, 2, 3], [-1, 0, 1, 2], [-2, -1, 0, 1], [-3, -2, -1, 0]])
    assert mt.linalg.band_part(x, 1, -1).numpy().tolist() == [[0, 1, 2, 3], [-1, 0, 1, 2], [0, -1, 0, 1], [0, 0, -1, 0]]
    assert mt.linalg.band_part(x, 2, 1).numpy().tolist() == [
        [0, 1, 0, 0],
        [-1, 0, 1, 0],
        [-2, -1, 0, 1],
        [0, -2, -1, 0],
    ]
    assert mt.linalg.band_part(mt.ones((3, 3)), -1, 0).numpy().tolist() == np.tril(np.ones((3, 3))).tolist()


def test_set_diag_triangular_solve_and_lstsq():
    assert mt.linalg.set_diag(mt.zeros((2, 3)), [1.0, 2.0]).numpy().tolist() == [[1, 0, 0], [0, 2, 0]]
    a = A.numpy()
    np.testing.assert_allclose(mt.linalg.triangular_solve(A, B).numpy(), np.linalg.solve(np.tril(a), B.numpy()))
    np.testing.assert_allclose(
        mt.linalg.triangular_solve(A, B, lower=False).numpy(), np.linalg.solve(np.triu(a), B.numpy())
    )
    tall = RNG.normal(size=(6, 2))
    rhs = RNG.normal(size=(6, 1))
    np.testing.assert_allclose(
        mt.linalg.lstsq(mt.constant(tall), mt.constant(rhs)).numpy(), np.linalg.lstsq(tall, rhs, rcond=None)[0]
    )
    wide = tall.T  # more columns than rows: the minimum-norm solution
    np.testing.assert_allclose(
        mt.linalg.lstsq(mt.constant(wide), mt.constant(rhs[:2])).numpy(), np.linalg.lstsq(wide, rhs[:2], rcond=None)[0]
    )


@pytest.mark.parametrize(
    "f, args",
    [
        (lambda a: mt.linalg.band_part(a, 1, 0), [A]),
        (lambda a, b: mt.linalg.set_diag(a, b[:, 0]), [A, B]),
        (lambda a, b: mt.linalg.triangular_solve(a, b, lower=False), [A, B]),
        (lambda a, b: mt.linalg.lstsq(a, b[:, :1], l2_regularizer=0.1), [B, A]),
    ],
)
def test_more_gradients_to_second_order(f, args):
    check_gradients(f, args, order=2)


def test_svd_as_tensorflow_s_matrix_guide_uses_it():
    a = mt.constant(RNG.normal(size=(40, 30)))
    s, u, v = mt.linalg.svd(a)
    assert (s.shape, u.shape, v.shape) == ((30,), (40, 30), (30, 30))
    np.testing.assert_allclose((u @ mt.linalg.diag(s) @ mt.transpose(v)).numpy(), a.numpy(), atol=1e-12)
    np.testing.assert_allclose(mt.einsum("s,us,vs -> uv", s, u, v).numpy(), a.numpy(), atol=1e-12)
    rank_10 = mt.einsum("s,us,vs -> uv", s[:10], u[:, :10], v[:, :10])
    assert float(mt.norm(a - rank_10) ** 2) == pytest.approx(float(mt.reduce_sum(s[10:] ** 2)))  # Eckart-Young
    np.testing.assert_allclose(mt.linalg.svd(a, compute_uv=False).numpy(), np.linalg.svd(a.numpy())[1])
    batch = mt.linalg.svd(mt.constant(RNG.normal(size=(3, 5, 4))), compute_uv=False)
    assert batch.shape == (3, 4)


@pytest.mark.parametrize("shape", [(4, 3), (3, 4), (2, 3, 3)])
def test_svd_gradients_to_second_order(shape):
    x = mt.constant(RNG.normal(size=shape))
    check_gradients(lambda a: mt.linalg.svd(a, compute_uv=False), [x], order=2)
    check_gradients(lambda a: mt.linalg.svd(a)[1] ** 2, [x], order=2)  # squared: the vectors' signs vary
    check_gradients(lambda a: mt.linalg.svd(a)[2] ** 2, [x], order=2)
