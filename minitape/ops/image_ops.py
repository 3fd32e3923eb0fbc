"""Image resampling: one op reads an image at given (y, x) points, bilinear or nearest, filling the points that fall
outside as TensorFlow's image transforms do. Resizing and the affine transforms of the augmentation layers
(rotation, zoom, translation, crops) are that op at different points.

    ResampleImage(images, points)        out[b, i, j] = images[b] read at points[b, i, j] = (y, x)
    ResampleImageAdjoint(grads, points)  each output's gradient added back to the pixels it read, with its weights

Reading at fixed points is linear in the image, so the gradient of ResampleImage is its adjoint, exactly, and the
adjoint's gradient is ResampleImage again: derivatives of every order. The points get no gradient. (TensorFlow's
ImageProjectiveTransformV3 gradient transforms the gradient by the inverse matrix instead: close to the adjoint,
not equal to it.)

Points are float32 and computed as TensorFlow computes them (its resize scale `in / out`, half-pixel centres; its
projective transform `[a0, a1, a2, b0, b1, b2, c0, c1]` mapping an output pixel (x, y) to the input point
((a0 x + a1 y + a2) / k, (b0 x + b1 y + b2) / k), k = c0 x + c1 y + 1), so the pixels read are TensorFlow's.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minitape.engine.opdef import defop
from minitape.engine.tensor import Tensor

FILL_MODES = ("reflect", "wrap", "constant", "nearest")
INTERPOLATIONS = ("nearest", "bilinear")
_NOT_COMPUTED = ("bicubic", "area", "lanczos3", "lanczos5", "gaussian", "mitchellcubic")  # tf.image.resize has them


# ---- where a point outside the image reads (TensorFlow's fill modes) ----------------------------------
def _reflect(v: np.ndarray, n: int) -> np.ndarray:
    """(d c b a | a b c d | d c b a): mirrored about the edges, repeating."""
    period = 2 * n
    below = period * np.trunc(-v / period) + v  # in (-2n, 0]
    below = np.where(below < -n, below + period, -below - 1)
    above = v - period * np.trunc(v / period)
    above = np.where(above >= n, period - above - 1, above)
    return np.where(v < 0, below, np.where(v > n - 1, above, v))


def _wrap(v: np.ndarray, n: int) -> np.ndarray:
    """(a b c d | a b c d | a b c d): the image repeated, with TensorFlow's period arithmetic."""
    below = v + n * (np.trunc(-v / (n - 1)) + 1)
    above = v - n * np.trunc(v / (n - 1))
    return np.where(v < 0, below, np.where(v > n - 1, above, v))


def _mapped(v: np.ndarray, n: int, fill_mode: str) -> np.ndarray:
    """The coordinate a point reads along an axis of n pixels; 'constant' leaves it outside (it reads the fill)."""
    if fill_mode == "constant":
        return v
    if n <= 1:
        return np.zeros_like(v)
    if fill_mode == "reflect":
        v = _reflect(v, n)
    elif fill_mode == "wrap":
        v = _wrap(v, n)
    return np.clip(v, 0, n - 1)  # 3.5 of 4 pixels must not round to pixel 4


def _rounded(v: np.ndarray) -> np.ndarray:
    """Halves away from zero, as TensorFlow's nearest interpolation rounds (numpy's round goes to even)."""
    return np.where(v >= 0, np.floor(v + 0.5), np.ceil(v - 0.5))


# ---- which pixels each point reads, with what weights -------------------------------------------------
def _corners(y: np.ndarray, x: np.ndarray, interpolation: str) -> list:
    """(rows, columns, weight) of each pixel the points read: one for nearest, four for bilinear.

    Rows and columns are integers, converted once per axis. A point far outside (a projective transform sends
    some towards infinity) may not fit an integer: numpy then gives the most negative one (or the largest, on
    some CPUs), outside the image either way, which is all `_plan` asks of it. Weight None means 1."""
    if interpolation == "nearest":
        return [(_rounded(y).astype(np.intp), _rounded(x).astype(np.intp), None)]
    y0, x0 = np.floor(y), np.floor(x)
    dy, dx = y - y0, x - x0
    ey, ex = 1 - dy, 1 - dx
    r0, c0 = y0.astype(np.intp), x0.astype(np.intp)
    r1, c1 = r0 + 1, c0 + 1
    return [(r0, c0, ey * ex), (r0, c1, ey * dx), (r1, c0, dy * ex), (r1, c1, dy * dx)]


def _plan(points: np.ndarray, hw: tuple, interpolation: str, fill_mode: str) -> tuple[list, np.ndarray]:
    """For points (n, oh, ow, 2): a list with, for each corner read, the flat pixel index (h * w) and its weight,
    each (n, oh*ow); and the weight of the fill value, (n, oh*ow): the weights of the reads outside the image (all
    of them where a projective transform sent the point to infinity)."""
    h, w = hw
    y, x = _mapped(points[..., 0], h, fill_mode), _mapped(points[..., 1], w, fill_mode)
    finite = np.isfinite(y) & np.isfinite(x)
    if not finite.all():
        y, x = np.where(finite, y, 0), np.where(finite, x, 0)
    n, reads = len(points), []
    fill = np.zeros(y.shape, y.dtype)
    for rows, cols, weight in _corners(y, x, interpolation):
        inside = (rows >= 0) & (rows < h) & (cols >= 0) & (cols < w) & finite
        weight = np.ones(y.shape, y.dtype) if weight is None else weight
        fill += np.where(inside, 0, weight)  # 1 where not finite: its one read (of pixel 0) is outside
        index = np.clip(rows, 0, h - 1) * w + np.clip(cols, 0, w - 1)
        reads.append((index.reshape(n, -1), np.where(inside, weight, 0).reshape(n, -1)))
    return reads, fill.reshape(n, -1)


def _compute_dtype(dtype: np.dtype) -> np.dtype:
    return dtype if dtype.kind == "f" else np.dtype(np.float64)  # integer pixels (nearest) come back exact


def _per_image(values: np.ndarray, b: int) -> np.ndarray:
    """(n, p) values (n is 1 or b) as one column of b * p rows, matching the images' pixels read in order."""
    return np.broadcast_to(values, (b, values.shape[1])).reshape(-1, 1)


def _resample(images: np.ndarray, points: np.ndarray, interpolation: str, fill_mode: str, fill_value: float):
    b, h, w, c = images.shape
    reads, fill = _plan(points, (h, w), interpolation, fill_mode)
    dtype = _compute_dtype(images.dtype)
    pixels, start = images.reshape(b * h * w, c), (np.arange(b) * (h * w))[:, None]  # each image's first pixel
    out = None
    for index, weight in reads:  # a sum over the corners, one gather of whole pixels each
        term = pixels.take((index + start).ravel(), axis=0).astype(dtype, copy=False)
        term *= _per_image(weight, b).astype(dtype, copy=False)
        out = term if out is None else np.add(out, term, out=out)
    if fill_value:
        out += np.asarray(fill_value, dtype) * _per_image(fill, b).astype(dtype)
    return out.reshape(b, *points.shape[1:3], c).astype(images.dtype, copy=False)


def _resample_adjoint(grads: np.ndarray, points: np.ndarray, input_hw: tuple, interpolation: str, fill_mode: str):
    b, oh, ow, c = grads.shape
    h, w = input_hw
    reads, _ = _plan(points, (h, w), interpolation, fill_mode)
    rows, start = grads.reshape(b * oh * ow, c), (np.arange(b) * (h * w))[:, None]
    where = np.concatenate([(index + start).ravel() for index, _ in reads])
    parts = np.concatenate([rows * _per_image(weight, b) for _, weight in reads])
    summed = [np.bincount(where, parts[:, i], minlength=b * h * w) for i in range(c)]
    return np.stack(summed, axis=-1).reshape(b, h, w, c).astype(grads.dtype, copy=False)


def _resample_rule(op: Any, g: Any) -> tuple:
    _, points = op.inputs
    modes = {"interpolation": op.attrs["interpolation"], "fill_mode": op.attrs["fill_mode"]}
    return resample_adjoint_op(g, points, input_hw=tuple(op.input_shapes[0][1:3]), **modes), None


def _adjoint_rule(op: Any, g: Any) -> tuple:
    _, points = op.inputs
    modes = {"interpolation": op.attrs["interpolation"], "fill_mode": op.attrs["fill_mode"]}
    return resample_op(g, points, fill_value=0.0, **modes), None


resample_op = defop("ResampleImage", _resample, _resample_rule, keep="inputs")
resample_adjoint_op = defop("ResampleImageAdjoint", _resample_adjoint, _adjoint_rule, keep="inputs")


def checked_method(method: Any, where: str) -> str:
    """'bilinear' or 'nearest' (a ResizeMethod name or value); the other methods TensorFlow has say they are
    missing, an unknown one gets TensorFlow's error."""
    method = str(getattr(method, "value", method)).lower()
    if method in _NOT_COMPUTED:
        raise NotImplementedError(
            f"{where}: the {method!r} method is not in minitape; use 'bilinear' (the default) or 'nearest'"
        )
    if method not in ("bilinear", "nearest"):
        raise ValueError(f"Resize method is not implemented: {method}")  # TensorFlow's words
    return method


# ---- the points ---------------------------------------------------------------------------------------
def resize_points(in_hw: tuple, out_hw: tuple, method: str) -> np.ndarray:
    """Where tf.image.resize reads each output pixel, (1, oh, ow, 2): half-pixel centres, in float32 as TensorFlow
    computes them. Nearest takes floor((i + 0.5) * in / out), an exact pixel, so rounding cannot move it."""
    axes = []
    for n_in, n_out in zip(in_hw, out_hw):
        scale = np.float32(n_in) / np.float32(n_out)
        centres = (np.arange(n_out, dtype=np.float32) + np.float32(0.5)) * scale
        axes.append(np.minimum(np.floor(centres), n_in - 1) if method == "nearest" else centres - np.float32(0.5))
    ys, xs = np.meshgrid(*axes, indexing="ij")
    return np.stack([ys, xs], axis=-1)[None].astype(np.float32)


def transform_points(transforms: np.ndarray, out_hw: tuple) -> np.ndarray:
    """Where a projective transform (n, 8) sends each output pixel, (n, oh, ow, 2); NaN where it meets infinity."""
    t = np.asarray(transforms, np.float32).reshape(-1, 8)[:, :, None, None]
    ys, xs = np.meshgrid(np.arange(out_hw[0], dtype=np.float32), np.arange(out_hw[1], dtype=np.float32), indexing="ij")
    k = t[:, 6] * xs + t[:, 7] * ys + 1
    with np.errstate(divide="ignore", invalid="ignore"):
        x = np.where(k == 0, np.nan, (t[:, 0] * xs + t[:, 1] * ys + t[:, 2]) / k)
        y = np.where(k == 0, np.nan, (t[:, 3] * xs + t[:, 4] * ys + t[:, 5]) / k)
    return np.stack([y, x], axis=-1).astype(np.float32)


def resample(images: Any, points: Any, interpolation: str = "bilinear", fill_mode: str = "constant", fill_value=0.0):
    """`images` (batch, h, w, c) or one image (h, w, c) read at `points` ((1 or batch, oh, ow, 2) float32)."""
    from minitape.ops.array_ops import expand_dims, squeeze

    single = len(images.shape) == 3
    points = points if isinstance(points, Tensor) else Tensor(np.asarray(points, np.float32))
    out = resample_op(
        expand_dims(images, 0) if single else images,
        points,
        interpolation=interpolation,
        fill_mode=fill_mode,
        fill_value=float(fill_value),
    )
    return squeeze(out, 0) if single else out
