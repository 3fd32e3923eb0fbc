"""The kernels of AdjustSaturation and AdjustHue, computed as TensorFlow's CPU kernels compute them, so that
their float32 results agree to the last bit (and integer images, converted back, to the unit).

AdjustSaturation goes through HSV with formulas of its own (rounded a little differently from RGBToHSV's, which
mt.image.rgb_to_hsv follows). AdjustHue does not go through HSV: it places each pixel's hue on the six edges of
the colour hexagon between its smallest and largest channel, moves it by delta * 6 and reads it back.
"""

from __future__ import annotations

import numpy as np

from minitape.engine.opdef import defop


def _hsv_of_pixels(rgb: np.ndarray) -> tuple:
    """Hue, saturation, value as AdjustSaturation's CPU kernel computes them: `1 / (6 * range)`, and the 2/6 and
    4/6 added in double precision (RGBToHSV rounds differently, in the last bit)."""
    r, g, b = rgb[..., 0], rgb[..., 1], rgb[..., 2]
    v = np.maximum(np.maximum(r, g), b)
    spread = v - np.minimum(np.minimum(r, g), b)
    with np.errstate(divide="ignore", invalid="ignore"):
        s = np.where(v > 0, spread / v, np.float32(0))
        norm = np.float32(1) / (np.float32(6) * spread)
        h = np.where(
            r == v,
            norm * (g - b),
            np.where(g == v, (norm * (b - r)).astype(np.float64) + 2 / 6, (norm * (r - g)).astype(np.float64) + 4 / 6),
        ).astype(np.float32)
    h = np.where(spread > 0, h, np.float32(0))
    return np.where(h < 0, h + np.float32(1), h), s, v


# (red, green, blue) of each sixth of the hue circle: c the chroma, x the rising or falling part, 0 nothing
_SECTORS = [("c", "x", "0"), ("x", "c", "0"), ("0", "c", "x"), ("0", "x", "c"), ("x", "0", "c"), ("c", "0", "x")]


def _rgb_of_pixels(h: np.ndarray, s: np.ndarray, v: np.ndarray) -> np.ndarray:
    """RGB as AdjustSaturation's CPU kernel computes it: by the sixth of the hue circle (hue 1 gives black + m)."""
    c = s * v
    dh = h * np.float32(6)
    sector = dh.astype(np.int64)
    x = c * (np.float32(1) - np.abs(np.fmod(dh, np.float32(2)) - np.float32(1)))
    parts = {"c": c, "x": x, "0": np.zeros_like(c)}
    channels = [np.select([sector == i for i in range(6)], [parts[row[k]] for row in _SECTORS], 0) for k in range(3)]
    return np.stack(channels, axis=-1).astype(np.float32) + (v - c)[..., None]


def _adjust_saturation(images: np.ndarray, scale: np.ndarray) -> np.ndarray:
    h, s, v = _hsv_of_pixels(images.astype(np.float32, copy=False))
    s = np.minimum(np.float32(1), np.maximum(np.float32(0), s * np.float32(scale)))
    return _rgb_of_pixels(h, s, v).astype(images.dtype, copy=False)


# The channels that are largest, middle and smallest on each of the hexagon's six edges
_EDGES = np.array([(0, 1, 2), (1, 0, 2), (1, 2, 0), (2, 1, 0), (2, 0, 1), (0, 2, 1)])


def _adjust_hue(images: np.ndarray, delta: np.ndarray) -> np.ndarray:
    rgb = images.astype(np.float32, copy=False)
    r, g, b = rgb[..., 0], rgb[..., 1], rgb[..., 2]
    # the edge, with TensorFlow's tests in its order (they decide where two channels are equal)
    edge = np.where(r < g, np.where(b < r, 1, np.where(b > g, 3, 2)), np.where(b < g, 0, np.where(b > r, 4, 5)))
    high, mid, low = (np.take_along_axis(rgb, _EDGES[edge][..., i : i + 1], -1)[..., 0] for i in range(3))
    span = high - low
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = (mid - low) / span
    one = np.float32(1)
    hue = np.where(span == 0, np.float32(0), edge.astype(np.float32) + np.where(edge % 2 == 0, ratio, one - ratio))
    hue = np.fmod(hue + np.float32(delta) * np.float32(6), np.float32(6))  # exact, as the kernel's subtractions
    hue = np.where(hue < 0, hue + np.float32(6), hue)
    hue = np.where(hue >= 6, hue - np.float32(6), hue)  # -1e-9 + 6 rounds to 6: the kernel's loop takes it to 0
    edge = hue.astype(np.int64)  # the edge the moved hue lies on
    ratio = hue - edge.astype(np.float32)
    ratio = np.where(edge % 2 == 0, ratio, one - ratio)
    values = np.stack([high, low + ratio * span, low], axis=-1)  # largest, middle, smallest again
    inverse = np.argsort(_EDGES, axis=-1)[edge]
    return np.take_along_axis(values, inverse, -1).astype(images.dtype, copy=False)


# TensorFlow registers no gradient for either: differentiating through them raises LookupError, as there.
adjust_saturation_op = defop("AdjustSaturation", _adjust_saturation, same_dtype=(0, 1))
adjust_hue_op = defop("AdjustHue", _adjust_hue, same_dtype=(0, 1))
