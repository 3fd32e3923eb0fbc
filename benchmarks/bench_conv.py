"""A convolution's forward pass and both gradients, with its im2col matrix and without it (one product per kernel
offset, what conv_ops does above IM2COL_LIMIT), at the shapes of keras-io's GAN (batch 64) and of the course's
CNNs. The two ways take turns; each figure is the median over the rounds, in milliseconds (wall clock), with the
im2col matrix's size. One BLAS thread.

    python benchmarks/bench_conv.py [--rounds N]
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402

from minitape.ops import conv_ops  # noqa: E402

SHAPES = {  # name: (input shape, filter shape, strides)
    "GAN generator, 7x7 conv 128 -> 1": ((64, 28, 28, 128), (7, 7, 128, 1), (1, 1)),
    "GAN generator, conv-transpose 128 -> 128 (as conv)": ((64, 28, 28, 128), (4, 4, 128, 128), (2, 2)),
    "GAN discriminator, 3x3 conv 64 -> 128": ((128, 14, 14, 64), (3, 3, 64, 128), (2, 2)),
    "CIFAR CNN, 3x3 conv 16 -> 32 (batch 32)": ((32, 15, 15, 16), (3, 3, 16, 32), (1, 1)),
    "lesson 08 digits CNN, 3x3 conv 1 -> 16 (batch 64)": ((64, 8, 8, 1), (3, 3, 1, 16), (1, 1)),
}


def _step(x, w, dy, strides):
    conv_ops._conv2d(x, w, strides, "SAME")
    conv_ops._conv2d_backprop_input(dy, w, x.shape, strides, "SAME")
    conv_ops._conv2d_backprop_filter(x, dy, w.shape, strides, "SAME")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    default = conv_ops.IM2COL_LIMIT
    print(f"{'shape':52} {'im2col MB':>10} {'im2col ms':>10} {'offsets ms':>11} {'ratio':>6}")
    for name, (x_shape, w_shape, strides) in SHAPES.items():
        x = rng.standard_normal(x_shape).astype(np.float32)
        w = rng.standard_normal(w_shape).astype(np.float32)
        out_hw, _ = conv_ops._geometry(x_shape[1:3], w_shape[:2], strides, "SAME")
        dy = rng.standard_normal((x_shape[0], *out_hw, w_shape[3])).astype(np.float32)
        times = {"im2col": [], "offsets": []}
        for _ in range(args.rounds):
            for way, limit in (("im2col", 1 << 50), ("offsets", 0)):
                conv_ops.IM2COL_LIMIT = limit
                start = time.perf_counter()
                _step(x, w, dy, strides)
                times[way].append(time.perf_counter() - start)
        conv_ops.IM2COL_LIMIT = default
        size = x_shape[0] * out_hw[0] * out_hw[1] * w_shape[0] * w_shape[1] * x_shape[3] * 4 / 1e6
        a, b = (statistics.median(times[k]) * 1e3 for k in ("im2col", "offsets"))
        print(f"{name:52} {size:10.1f} {a:10.1f} {b:11.1f} {b / a:5.2f}x")
    print(f"(conv_ops takes the offsets above IM2COL_LIMIT = {default / 1e6:.0f} MB)")


if __name__ == "__main__":
    main()
