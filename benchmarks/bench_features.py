"""What each recorded op pays for: the 2,000-op chain of bench_engine.py timed with teaching features switched off.

Each variant runs the same chain (sin, then * 1.01, on float64[16]) in this one process, the variants
interleaved round by round, and the median of the rounds is printed per op with the difference it
makes. Features are switched off by replacing the engine's function for them with a stand-in that
does nothing, so the figures show what the feature costs, not what a leaner design would cost.

    python benchmarks/bench_features.py [--rounds 15]
"""

from __future__ import annotations

import argparse
import contextlib
import os
import statistics
import time
import types
from collections.abc import Callable, Iterator

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import gc  # noqa: E402

import numpy as np  # noqa: E402

import minitape as mt  # noqa: E402
from minitape import operation  # noqa: E402

N_OPS, X0 = 2000, np.linspace(0.1, 1.0, 16)


def forward(record: bool) -> tuple:
    x = mt.constant(X0)
    tape = mt.GradientTape()
    with tape if record else contextlib.nullcontext():
        if record:
            tape.watch(x)
        y = x
        for _ in range(N_OPS // 2):
            y = mt.sin(y) * 1.01
    return tape, x, y


def numpy_floor() -> None:
    saved, y = [], X0
    for _ in range(N_OPS // 2):
        saved.append(y)
        y = np.sin(y) * 1.01
    grad = np.ones_like(y)
    for x in reversed(saved):
        grad = grad * 1.01 * np.cos(x)


@contextlib.contextmanager
def without(name: str) -> Iterator[None]:
    """Switch one teaching feature of the record off for the block."""
    saved = {"user line": operation.user_code, "weak references": operation.weakref}[name]
    if name == "user line":
        operation.user_code = lambda frame: None
    else:
        operation.weakref = types.SimpleNamespace(ref=id)  # a C call that keeps nothing: what a no-op costs
    try:
        yield
    finally:
        if name == "user line":
            operation.user_code = saved
        else:
            operation.weakref = saved


def full(variant: str = "") -> None:
    with without(variant) if variant else contextlib.nullcontext():
        tape, x, y = forward(True)
        tape.gradient(y, x)


VARIANTS: dict[str, Callable[[], object]] = {
    "numpy by hand (forward + backward)": numpy_floor,
    "minitape forward, no tape": lambda: forward(False),
    "minitape forward, recorded": lambda: forward(True),
    "minitape forward + backward": full,
    "  the same without the user line": lambda: full("user line"),
    "  the same without weak references": lambda: full("weak references"),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args()
    for run in VARIANTS.values():
        run()
    gc.freeze()
    times: dict[str, list[float]] = {name: [] for name in VARIANTS}
    for _ in range(args.rounds):
        for name, run in VARIANTS.items():
            start = time.perf_counter()
            run()
            times[name].append((time.perf_counter() - start) / N_OPS * 1e6)
    median = {name: statistics.median(t) for name, t in times.items()}
    print(f"chain of {N_OPS:,} ops (sin, * 1.01) on float64[16]; median of {args.rounds} interleaved rounds")
    print(f"  {'variant':<40} {'us/op':>8}")
    for name, value in median.items():
        print(f"  {name:<40} {value:8.2f}")
    fwd, rec, both = (median[k] for k in list(VARIANTS)[1:4])
    print("what an op pays for, per recorded op:")
    print(f"  numpy's own work (the floor)           {median[list(VARIANTS)[0]]:8.2f}")
    print(f"  the op path (convert, compute, wrap)   {fwd:8.2f}")
    print(f"  recording it on the tape               {rec - fwd:8.2f}")
    print(f"    of which the user's line of code     {both - median[list(VARIANTS)[4]]:8.2f}")
    print(f"    of which weak references             {both - median[list(VARIANTS)[5]]:8.2f}")
    print(f"  the backward sweep and its rules       {both - rec:8.2f}")


if __name__ == "__main__":
    main()
