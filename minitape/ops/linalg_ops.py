"""Linear algebra on the last two axes (batches of matrices): inverse, solve, determinants, Cholesky, eigh.

Each op is a primitive whose gradient rule is written with minitape ops (matmul, the inverse itself, ...), so
that second and higher derivatives work. With Z = inv(A), the identities used below are
  d inv(A)  = -Z dA Z                     ->  dA = -Z^T G Z^T
  d det(A)  = det(A) tr(Z dA)             ->  dA = g det(A) Z^T
  d log|det A| = tr(Z dA)                 ->  dA = g Z^T
  X = A^-1 B: dB = A^-T G, dA = -dB X^T.
"""

from __future__ import annotations

import numpy as np

from minitape.engine.opdef import defop
from minitape.engine.tensor import Tensor
from minitape.ops.array_ops import reshape
from minitape.ops.math_ops import matmul, reciprocal, transpose_last
from minitape.values.errors import InvalidArgumentError


# ---- checks shared by the forwards ----------------------------------------------------------------
def _square(name, a):
    """Refuse what numpy would refuse with a message naming no op, or silently accept (integers)."""
    if a.dtype.kind != "f":
        raise TypeError(f"{name} needs a floating-point matrix, not {a.dtype}: convert it first with mt.cast")
    if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
        raise ValueError(
            f"{name} needs square matrices in the last two axes, got shape {list(a.shape)}; "
            "a vector must be reshaped to a matrix first"
        )


def _invertible(name, run, *arrays):
    try:
        return run(*arrays)
    except np.linalg.LinAlgError as err:
        raise InvalidArgumentError(
            f"{name}: the matrix is not invertible ({err}); check for a zero row, a repeated column or a "
            "rank-deficient product, or add a small multiple of the identity (ridge)"
        ) from None


def _inverse(a):
    _square("inv", a)
    return _invertible("inv", np.linalg.inv, a)


def _solve(a, b, adjoint=False):
    _square("solve", a)
    if b.ndim < 2 or b.shape[-2] != a.shape[-1]:
        raise ValueError(
            f"solve: the right-hand side must be a matrix of shape (..., {a.shape[-1]}, k), got {list(b.shape)}; "
            "for a vector b use mt.linalg.solve(a, b[:, None])"
        )
    if b.dtype != a.dtype:
        raise TypeError(f"solve: matrix and rhs dtypes differ ({a.dtype} and {b.dtype}); cast one of them")
    return _invertible("solve", np.linalg.solve, np.swapaxes(a, -1, -2) if adjoint else a, b)


def _det(a):
    _square("det", a)
    return np.linalg.det(a)


def _slogdet(a):
    _square("slogdet", a)
    sign, log_abs = np.linalg.slogdet(a)
    return sign.astype(a.dtype), log_abs.astype(a.dtype)


def _cholesky(a):
    _square("cholesky", a)
    try:
        return np.linalg.cholesky(a)
    except np.linalg.LinAlgError:
        raise InvalidArgumentError(
            "cholesky: the matrix is not symmetric positive definite; for a Gram matrix add a small multiple of "
            "the identity, e.g. a + 1e-6 * mt.eye(n)"
        ) from None


def _eigh(a):
    _square("eigh", a)
    values, vectors = np.linalg.eigh(a)  # reads the lower triangle, as TensorFlow's SelfAdjointEigV2 does
    return values, vectors


def _lower(n, dtype, diagonal=1.0):
    """A constant mask: ones below the diagonal, `diagonal` on it, zeros above."""
    return Tensor((np.tril(np.ones((n, n))) - (1 - diagonal) * np.eye(n)).astype(dtype))


def _scalar_per_matrix(t):
    """A batch of scalars as (..., 1, 1), to scale a batch of matrices."""
    return reshape(t, (*t.shape, 1, 1))


# ---- gradient rules ----------------------------------------------------------------------------------
def _inverse_rule(op, g):
    z = op.z
    return -matmul(z, matmul(g, z, transpose_b=True), transpose_a=True)


def _solve_rule(op, g):
    a, _ = op.inputs
    x = op.z
    adjoint = op.attrs.get("adjoint", False)
    db = solve_op(a, g, adjoint=not adjoint)
    if not op.needs[0]:
        return None, db
    da = -matmul(x, db, transpose_b=True) if adjoint else -matmul(db, x, transpose_b=True)
    return da, db


def _det_rule(op, g):
    a = op.x
    return _scalar_per_matrix(g * op.z) * transpose_last(inverse_op(a))


def _slogdet_rule(op, g_sign, g_log):
    return _scalar_per_matrix(g_log) * transpose_last(inverse_op(op.x))  # the sign is piecewise constant


def _cholesky_rule(op, g):
    """TensorFlow's CholeskyGrad: S = L^-T Phi(L^T G) L^-1 with Phi the lower triangle, half the diagonal;
    the input gradient is the symmetric (S + S^T) / 2 (the input is taken as symmetric)."""
    low = op.z
    n = op.output_shapes[0][-1]
    low_inv = inverse_op(low)
    middle = matmul(low, g, transpose_a=True) * _lower(n, op.output_dtypes[0].as_numpy_dtype, diagonal=0.5)
    s = matmul(matmul(low_inv, middle, transpose_a=True), low_inv)
    return (s + transpose_last(s)) * 0.5


def _eigh_rule(op, g_values, g_vectors):
    """TensorFlow's SelfAdjointEigV2 gradient: V (diag(g_w) + F * (V^T g_V)) V^T with F_ij = 1 / (w_j - w_i)
    (0 on the diagonal), then folded onto the lower triangle, which is all the forward reads."""
    values, vectors = op.outputs
    n = op.output_shapes[0][-1]
    dtype = op.output_dtypes[0].as_numpy_dtype
    gaps = reshape(values, (*values.shape[:-1], 1, n)) - reshape(values, (*values.shape, 1))
    gaps = gaps + Tensor(np.where(np.eye(n, dtype=bool), np.inf, 0).astype(dtype))  # 1 / inf = 0 on the diagonal
    inner = reciprocal(gaps) * matmul(vectors, g_vectors, transpose_a=True)
    inner = inner + reshape(g_values, (*g_values.shape, 1)) * Tensor(np.eye(n, dtype=dtype))
    full = matmul(vectors, matmul(inner, vectors, transpose_b=True))
    return (full + transpose_last(full)) * _lower(n, dtype, diagonal=0.5)


def _svd(a, full_matrices=False):
    if a.dtype.kind != "f" or a.ndim < 2:
        raise TypeError(f"svd needs a floating-point matrix (rank 2 or more), got {a.dtype}{list(a.shape)}")
    u, s, vh = np.linalg.svd(a, full_matrices=full_matrices)
    return s, u, np.swapaxes(vh, -1, -2)  # TensorFlow's order and V itself: a = u diag(s) v^T


def _svd_rule(op, g_s, g_u, g_v):
    """The thin SVD's gradient (Townsend, "Differentiating the singular value decomposition", 2016), as
    TensorFlow's: with F_ij = 1 / (s_j^2 - s_i^2) off the diagonal,
      dA = U [(F o (U^T gU - gU^T U)) S + diag(gS) + S (F o (V^T gV - gV^T V))] V^T
           + (I - U U^T) gU S^-1 V^T + U S^-1 gV^T (I - V V^T).
    It needs distinct, non-zero singular values, and a loss that does not depend on the signs of the vectors."""
    s, u, v = op.outputs
    m, n = op.input_shapes[0][-2:]
    if op.attrs.get("full_matrices") and m != n:
        raise NotImplementedError("svd: the gradient needs full_matrices=False for a non-square matrix, as in TF")
    k = op.output_shapes[0][-1]
    dtype = op.output_dtypes[0].as_numpy_dtype
    eye = Tensor(np.eye(k, dtype=dtype))
    squares = s * s
    gaps = reshape(squares, (*s.shape[:-1], 1, k)) - reshape(squares, (*s.shape, 1))
    f = reciprocal(gaps + Tensor(np.where(np.eye(k, dtype=bool), np.inf, 0).astype(dtype)))
    ut_gu = matmul(u, g_u, transpose_a=True)
    vt_gv = matmul(v, g_v, transpose_a=True)
    row_s = reshape(s, (*s.shape[:-1], 1, k))  # M * row_s scales column j by s_j, i.e. M @ diag(s)
    col_s = reshape(s, (*s.shape, 1))  # col_s * M scales row i by s_i, i.e. diag(s) @ M
    inner = (f * (ut_gu - transpose_last(ut_gu))) * row_s + reshape(g_s, (*s.shape, 1)) * eye
    inner = inner + col_s * (f * (vt_gv - transpose_last(vt_gv)))
    grad = matmul(matmul(u, inner), v, transpose_b=True)
    grad = grad + matmul((g_u - matmul(u, ut_gu)) / row_s, v, transpose_b=True)
    return grad + matmul(u, (g_v - matmul(v, vt_gv)) / row_s, transpose_b=True)


# fmt: off
svd_op      = defop("Svd",                 _svd,      _svd_rule,      keep="outputs", n_outputs=3)
inverse_op  = defop("MatrixInverse",       _inverse,  _inverse_rule,  keep="outputs")
solve_op    = defop("MatrixSolve",         _solve,    _solve_rule,    keep="both", same_dtype=(0, 1))
det_op      = defop("MatrixDeterminant",   _det,      _det_rule,      keep="both")
slogdet_op  = defop("LogMatrixDeterminant", _slogdet, _slogdet_rule,  keep="inputs", n_outputs=2)
cholesky_op = defop("Cholesky",            _cholesky, _cholesky_rule, keep="outputs")
eigh_op     = defop("SelfAdjointEigV2",    _eigh,     _eigh_rule,     keep="outputs", n_outputs=2)
# fmt: on


# ---- the diagonal and its scatter twin -------------------------------------------------------------------
def _diag_part(a):
    if a.ndim < 2:
        raise ValueError(f"diag_part needs a matrix (rank 2 or more), got shape {list(a.shape)}")
    return np.diagonal(a, axis1=-2, axis2=-1).copy()


def _diag_embed(d, shape):
    """Zeros of `shape` (..., m, n) with `d` (..., min(m, n)) on the diagonal."""
    out = np.zeros(shape, d.dtype)
    k = min(shape[-2], shape[-1])
    out[..., np.arange(k), np.arange(k)] = d
    return out


diag_part_op = defop(
    "MatrixDiagPart", _diag_part, lambda op, g: diag_embed_op(g, shape=op.input_shapes[0]), keep="nothing"
)
diag_embed_op = defop("MatrixDiag", _diag_embed, lambda op, g: diag_part_op(g), keep="nothing")
