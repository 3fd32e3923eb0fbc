"""`mt.linalg`: matrix functions under TensorFlow's `tf.linalg` names, all differentiable.

The matrices are the last two axes; leading axes are a batch. The primitives and their gradient rules are in
`minitape/ops/linalg_ops.py`; the functions here are built from them and from ordinary ops.
"""

from __future__ import annotations

from typing import Any, NoReturn

import numpy as np

from minitape.engine.tensor import Tensor
from minitape.ops.api import (  # noqa: F401 - re-exported under tf.linalg's names
    einsum,
    expand_dims,
    eye,
    matmul,
    reduce_max,
    reduce_sum,
    squeeze,
    tensordot,
    transpose_last,
)
from minitape.ops.composite_ops import global_norm, l2_normalize  # noqa: F401
from minitape.ops.linalg_ops import (
    cholesky_op,
    det_op,
    diag_embed_op,
    diag_part_op,
    eigh_op,
    inverse_op,
    slogdet_op,
    solve_op,
    svd_op,
)
from minitape.ops.public import abs, matrix_transpose, sqrt, square  # noqa: F401 - TensorFlow's parameters
from minitape.values.convert import as_array, convert_to_tensor
from minitape.values.errors import InvalidArgumentError
from minitape.values.tensor_like import TensorLike


def adjoint(matrix: Any, name: str | None = None) -> Tensor:
    """The conjugate transpose of the last two axes: the transpose, for real matrices."""
    return transpose_last(matrix)


def inv(input: Any, adjoint: bool = False, name: str | None = None) -> Tensor:
    """The inverse of each square matrix; a singular one raises InvalidArgumentError."""
    result = inverse_op(input)
    return transpose_last(result) if adjoint else result


def solve(matrix: Any, rhs: Any, adjoint: bool = False, name: str | None = None) -> Tensor:
    """X with matrix @ X = rhs (or matrix^T @ X = rhs with adjoint=True); rhs is (..., n, k)."""
    return solve_op(matrix, rhs, adjoint=bool(adjoint))


def det(input: Any, name: str | None = None) -> Tensor:
    """The determinant of each square matrix."""
    return det_op(input)


def slogdet(input: Any, name: str | None = None) -> tuple[Tensor, Tensor]:
    """(sign, log|det|) of each square matrix: the log-determinant without overflow."""
    sign, log_abs_determinant = slogdet_op(input)
    return sign, log_abs_determinant


def logdet(matrix: Any, name: str | None = None) -> Tensor:
    """log det of a symmetric positive definite matrix, as 2 sum(log(diag(cholesky)))."""
    from minitape.ops.api import log

    return 2.0 * reduce_sum(log(diag_part(cholesky(matrix))), axis=-1)


def cholesky(input: Any, name: str | None = None) -> Tensor:
    """The lower-triangular L with L L^T = input, for symmetric positive definite matrices."""
    return cholesky_op(input)


def eigh(tensor: Any, name: str | None = None) -> tuple[Tensor, Tensor]:
    """(eigenvalues ascending, eigenvectors as columns) of symmetric matrices; reads the lower triangle."""
    values, vectors = eigh_op(tensor)
    return values, vectors


def eigvalsh(tensor: Any, name: str | None = None) -> Tensor:
    """The eigenvalues of symmetric matrices, ascending."""
    return eigh(tensor)[0]


def svd(tensor: Any, full_matrices: bool = False, compute_uv: bool = True, name: str | None = None) -> Any:
    """(s, u, v) with tensor = u @ diag(s) @ v^T (note: v, not its transpose, as TensorFlow); s descending.
    With compute_uv=False, only s. Differentiable for distinct non-zero singular values."""
    s, u, v = svd_op(tensor, full_matrices=bool(full_matrices))
    return (s, u, v) if compute_uv else s


def diag_part(input: Any, name: str | None = None, k: int = 0, padding_value: Any = 0, align: Any = None) -> Tensor:
    """The main diagonal of each matrix in the last two axes."""
    if k != 0:
        raise NotImplementedError("diag_part with k != 0 (an off-diagonal) is not supported by minitape")
    return diag_part_op(input)


def diag(
    diagonal: Any,
    name: str = "diag",
    k: int = 0,
    num_rows: int = -1,
    num_cols: int = -1,
    padding_value: Any = 0,
    align: str = "RIGHT_LEFT",
) -> Tensor:
    """Square matrices with `diagonal` (..., n) on the diagonal and zeros elsewhere (the main diagonal only)."""
    if k != 0 or num_rows != -1 or num_cols != -1 or padding_value != 0:
        raise NotImplementedError("diag with k != 0, num_rows, num_cols or padding is not supported by minitape")
    diagonal = diagonal if isinstance(diagonal, TensorLike) else convert_to_tensor(diagonal)
    if not _shape(diagonal):  # TensorFlow: "input must be at least 1-dim"
        raise InvalidArgumentError(f"diag: the diagonal must have at least one axis, not shape {list(diagonal.shape)}")
    n = _shape(diagonal)[-1]
    return diag_embed_op(diagonal, shape=(*_shape(diagonal), n))


def trace(x: Any, name: str | None = None) -> Tensor:
    """The sum of the main diagonal of each matrix."""
    return reduce_sum(diag_part(x), axis=-1)


def matvec(
    a: Any,
    b: Any,
    transpose_a: bool = False,
    adjoint_a: bool = False,
    a_is_sparse: bool = False,
    b_is_sparse: bool = False,
    name: str | None = None,
) -> Tensor:
    """a @ b for a batch of matrices a (..., m, n) and vectors b (..., n): the result is (..., m)."""
    return squeeze(matmul(a, expand_dims(b, -1), transpose_a=transpose_a or adjoint_a), axis=-1)


def band_part(input: Any, num_lower: int, num_upper: int, name: str | None = None) -> Tensor:
    """Keep the band of each matrix: num_lower diagonals below the main one and num_upper above (-1: all of
    them); zero the rest. `band_part(mt.ones((n, n)), -1, 0)` is the lower-triangular (look-ahead) mask."""
    from minitape.ops.api import where, zeros_like

    rows, cols = _shape(input)[-2:]
    i, j = np.arange(rows)[:, None], np.arange(cols)[None, :]
    lower, upper = int(num_lower), int(num_upper)
    keep = ((lower < 0) | (i - j <= lower)) & ((upper < 0) | (j - i <= upper))
    value = input if isinstance(input, TensorLike) else Tensor(as_array(input))
    return where(Tensor(np.broadcast_to(keep, _shape(input)).copy()), value, zeros_like(value))


def set_diag(input: Any, diagonal: Any, name: str | None = None, k: int = 0, align: Any = None) -> Tensor:
    """`input` with its main diagonal replaced by `diagonal`."""
    if k != 0:
        raise NotImplementedError("set_diag with k != 0 is not supported by minitape")
    return input + diag_embed_op(diagonal - diag_part(input), shape=_shape(input))


def triangular_solve(matrix: Any, rhs: Any, lower: bool = True, adjoint: bool = False, name: Any = None) -> Tensor:
    """X with matrix @ X = rhs, reading only the lower (or upper) triangle of `matrix`, as TensorFlow does."""
    triangle = band_part(matrix, -1, 0) if lower else band_part(matrix, 0, -1)
    return solve(triangle, rhs, adjoint=adjoint)


def cholesky_solve(chol: Any, rhs: Any, name: str | None = None) -> Tensor:
    """X with A X = rhs, given chol = mt.linalg.cholesky(A): two triangular solves, L Y = rhs then L^T X = Y."""
    return triangular_solve(chol, triangular_solve(chol, rhs, lower=True), lower=True, adjoint=True)


def normalize(tensor: Any, ord: Any = "euclidean", axis: Any = None, name: str | None = None) -> tuple[Tensor, Tensor]:
    """(tensor / its norm, the norm): the norm as `mt.linalg.norm` takes it, kept with size-1 axes to divide by."""
    length = norm(tensor, ord=ord, axis=axis, keepdims=True)
    return tensor / length, length


def lstsq(matrix: Any, rhs: Any, l2_regularizer: float = 0.0, fast: bool = True, name: str | None = None) -> Tensor:
    """The least-squares X minimising |matrix @ X - rhs|^2 + l2 |X|^2, from the normal equations (TensorFlow's
    fast path): (A^T A + l2 I) X = A^T rhs, or X = A^T (A A^T + l2 I)^-1 rhs when A has more columns than rows."""
    rows, cols = _shape(matrix)[-2:]
    if rows >= cols:
        gram = matmul(matrix, matrix, transpose_a=True) + l2_regularizer * eye(cols, dtype=_dtype(matrix))
        return solve(gram, matmul(matrix, rhs, transpose_a=True))
    gram = matmul(matrix, matrix, transpose_b=True) + l2_regularizer * eye(rows, dtype=_dtype(matrix))
    return matmul(matrix, solve(gram, rhs), transpose_a=True)


def _dtype(x: Any) -> Any:
    return x.dtype if isinstance(x, TensorLike) else np.asarray(x).dtype


_MATRIX_ORDS = ("euclidean", "fro", 1, 2, np.inf)


def norm(tensor: Any, ord: Any = "euclidean", axis: Any = None, keepdims: Any = None, name: str | None = None) -> Any:
    """Vector norms (axis None or an int) and matrix norms (axis a pair), with TensorFlow's `ord` values.

    Vectors: 'euclidean' (2), 1, np.inf, any p > 0; axis None treats the whole tensor as one vector.
    Matrices: 'euclidean' or 'fro' (Frobenius), 1 (largest column sum), np.inf (largest row sum), 2 (largest
    singular value).
    """
    rank = len(_shape(tensor))
    axes = _norm_axes(axis, rank)
    keep = bool(keepdims)
    if len(axes) == 2:
        if ord not in _MATRIX_ORDS:
            raise ValueError(f"norm: ord={ord!r} is not a matrix norm; use one of 'euclidean', 'fro', 1, 2, np.inf")
        return _matrix_norm(tensor, ord, axes, keep)
    if ord == "fro" or not (ord == "euclidean" or (isinstance(ord, (int, float)) and ord > 0)):
        raise ValueError(f"norm: ord={ord!r} is not a vector norm; use 'euclidean', 1, 2, np.inf or any p > 0")
    axis_arg = None if axis is None else axes[0]
    if ord in ("euclidean", 2):
        return sqrt(reduce_sum(square(tensor), axis=axis_arg, keepdims=keep))
    if ord == 1:
        return reduce_sum(abs(tensor), axis=axis_arg, keepdims=keep)
    if ord == np.inf:
        return reduce_max(abs(tensor), axis=axis_arg, keepdims=keep)
    return reduce_sum(abs(tensor) ** float(ord), axis=axis_arg, keepdims=keep) ** (1.0 / ord)


def _matrix_norm(tensor: Any, ord: Any, axes: tuple[int, int], keep: bool) -> Tensor:
    rows, cols = axes
    if ord in ("euclidean", "fro"):
        return sqrt(reduce_sum(square(tensor), axis=list(axes), keepdims=keep))
    if ord in (1, np.inf):  # 1: sum down each column, largest column; inf: sum along each row, largest row
        summed, then = (rows, cols) if ord == 1 else (cols, rows)
        sums = reduce_sum(abs(tensor), axis=summed, keepdims=True)
        result = reduce_max(sums, axis=then, keepdims=True)
        return result if keep else squeeze(result, axis=list(axes))
    # 2: the largest singular value, the square root of the largest eigenvalue of M^T M
    from minitape.ops.api import transpose

    rank = len(_shape(tensor))
    perm = [i for i in range(rank) if i not in axes] + [rows, cols]
    moved = transpose(tensor, perm=perm) if perm != list(range(rank)) else tensor
    gram = matmul(moved, moved, transpose_a=True)
    result = sqrt(reduce_max(eigvalsh(gram), axis=-1))
    if keep:
        for a in sorted(axes):
            result = expand_dims(result, a)
    return result


def _norm_axes(axis: Any, rank: int) -> tuple[int, ...]:
    if axis is None:
        return tuple(range(rank)) if rank == 1 else (None,)
    axes = tuple(int(a) for a in np.asarray(axis.numpy() if isinstance(axis, TensorLike) else axis).ravel())
    if len(axes) not in (1, 2) or any(not -rank <= a < rank for a in axes) or len({a % rank for a in axes}) < len(axes):
        raise ValueError(
            f"norm: axis {axis!r} must be one axis or a pair of distinct axes of a tensor of rank {rank}, "
            f"each in [{-rank}, {rank})"
        )
    return tuple(a % rank for a in axes)


def _shape(x: Any) -> tuple[int, ...]:
    return tuple(x.shape) if isinstance(x, TensorLike) else np.shape(as_array(x))


def __getattr__(name: str) -> NoReturn:
    from minitape.namespaces import missing

    missing.raise_missing("tf.linalg", name, missing.LINALG)
