"""A convolution's forward pass and both gradients, with its im2col matrix and without it (one product per kernel
offset, what conv_ops does above IM2COL_LIMIT), at the shapes of keras-io's GAN (batch 64) and of the course's
CNNs. The two ways take turns; each figure is the median over the rounds, in milliseconds (wall clock), with the
im2col matrix's size. One BLAS thread.

Then a depthwise convolution's forward pass and both gradients (depthwise_ops' kernels) at MobileNet-like shapes,
against PyTorch's torch.nn.functional.conv2d(groups=channels) and its backward pass (one thread), taking turns;
skipped when torch is not installed (`pip install -e .[bench]`).

    python benchmarks/bench_conv.py [--rounds N]
"""

from __future__ import annotations

import argparse
import functools
import os
import statistics
import time

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402

from minitape.ops import conv_ops, depthwise_ops  # noqa: E402

SHAPES = {  # name: (input shape, filter shape, strides)
    "GAN generator, 7x7 conv 128 -> 1": ((64, 28, 28, 128), (7, 7, 128, 1), (1, 1)),
    "GAN generator, conv-transpose 128 -> 128 (as conv)": ((64, 28, 28, 128), (4, 4, 128, 128), (2, 2)),
    "GAN discriminator, 3x3 conv 64 -> 128": ((128, 14, 14, 64), (3, 3, 64, 128), (2, 2)),
    "CIFAR CNN, 3x3 conv 16 -> 32 (batch 32)": ((32, 15, 15, 16), (3, 3, 16, 32), (1, 1)),
    "lesson 08 digits CNN, 3x3 conv 1 -> 16 (batch 64)": ((64, 8, 8, 1), (3, 3, 1, 16), (1, 1)),
}


DEPTHWISE_SHAPES = {  # name: (input shape NHWC, kernel (kh, kw), multiplier, strides)
    "MobileNet block, 3x3 depthwise 32 ch (batch 32, 16x16)": ((32, 16, 16, 32), (3, 3), 1, (1, 1)),
    "MobileNet block, 3x3 depthwise 64 ch, stride 2 (batch 32, 16x16)": ((32, 16, 16, 64), (3, 3), 1, (2, 2)),
    "digits model, 3x3 depthwise 8 ch x 2 (batch 32, 8x8)": ((32, 8, 8, 8), (3, 3), 2, (1, 1)),
    "MobileNet's 112x112 stage, 3x3 depthwise 32 ch (batch 8)": ((8, 112, 112, 32), (3, 3), 1, (1, 1)),
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
    _depthwise_against_torch(args.rounds, rng)


def _depthwise_step(x, w, dy, strides):
    options = {"strides": strides, "padding": "SAME", "dilations": (1, 1)}
    depthwise_ops._depthwise(x, w, **options)
    depthwise_ops._depthwise_backprop_input(dy, w, x.shape, **options)
    depthwise_ops._depthwise_backprop_filter(x, dy, w.shape, **options)


def _torch_depthwise_step(torch, x, w, dy, strides):
    """PyTorch's grouped convolution (NCHW, filter (C * M, 1, kh, kw)), forward and backward to both inputs."""
    y = torch.nn.functional.conv2d(x, w, stride=strides, padding=w.shape[2] // 2, groups=x.shape[1])
    torch.autograd.grad(y, (x, w), dy)


def _depthwise_against_torch(rounds: int, rng) -> None:
    try:
        import torch
    except ImportError:
        print("\ndepthwise against PyTorch: skipped, torch is not installed (pip install -e .[bench])")
        return
    torch.set_num_threads(1)
    print(f"\n{'depthwise, forward + both gradients':66} {'minitape ms':>12} {'torch ms':>9} {'ratio':>6}")
    for name, (x_shape, k_hw, m, strides) in DEPTHWISE_SHAPES.items():
        c = x_shape[3]
        x = rng.standard_normal(x_shape).astype(np.float32)
        w = rng.standard_normal((*k_hw, c, m)).astype(np.float32)
        out_hw, _ = conv_ops._geometry(x_shape[1:3], k_hw, strides, "SAME")
        dy = rng.standard_normal((x_shape[0], *out_hw, c * m)).astype(np.float32)
        tx = torch.tensor(x.transpose(0, 3, 1, 2).copy(), requires_grad=True)
        tw = torch.tensor(w.reshape(*k_hw, c * m).transpose(2, 0, 1)[:, None].copy(), requires_grad=True)
        tdy = torch.tensor(dy.transpose(0, 3, 1, 2).copy())
        times = {"minitape": [], "torch": []}
        steps = {
            "minitape": functools.partial(_depthwise_step, x, w, dy, strides),
            "torch": functools.partial(_torch_depthwise_step, torch, tx, tw, tdy, strides),
        }
        for _ in range(rounds):
            for way, step in steps.items():
                start = time.perf_counter()
                step()
                times[way].append(time.perf_counter() - start)
        a, b = (statistics.median(times[k]) * 1e3 for k in ("minitape", "torch"))
        print(f"{name:66} {a:12.2f} {b:9.2f} {a / b:5.2f}x")


if __name__ == "__main__":
    main()
