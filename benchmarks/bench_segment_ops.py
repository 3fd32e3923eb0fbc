"""Segment reductions at a graph network's size: the messages of 50,000 edges (64 features) summed, averaged or
maximised into 5,000 nodes, forward and forward + backward, beside numpy's own kernel (the floor: `np.add.at`,
`np.add.reduceat`) and TensorFlow when it is importable.

The engines take turns round by round; the median of the rounds is printed in ms with the ratio to the floor.

    python benchmarks/bench_segment_ops.py [--rounds 7] [--threads 1]
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections.abc import Callable

THREADS = os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402

import minitape as mt  # noqa: E402

try:
    import tensorflow as tf
except ImportError:
    tf = None

EDGES, NODES, FEATURES = 50_000, 5_000, 64
rng = np.random.default_rng(0)
MESSAGES = rng.normal(size=(EDGES, FEATURES)).astype(np.float32)
TARGETS = rng.integers(0, NODES, EDGES).astype(np.int32)
SORTED = np.sort(TARGETS)


def floor_sum() -> None:
    out = np.zeros((NODES, FEATURES), np.float32)
    np.add.at(out, TARGETS, MESSAGES)


def floor_sorted_sum() -> None:
    starts = np.flatnonzero(np.r_[True, SORTED[1:] != SORTED[:-1]])
    np.add.reduceat(MESSAGES, starts, axis=0)


def cases(lib: object) -> dict[str, Callable[[], object]]:
    """The same code for either engine: `import minitape as tf` runs TensorFlow's code."""
    x, ids, sorted_ids = lib.Variable(MESSAGES), lib.constant(TARGETS), lib.constant(SORTED)

    def backward(reduce: Callable) -> Callable[[], object]:
        def run() -> object:
            with lib.GradientTape() as tape:
                y = lib.reduce_sum(reduce(x) ** 2)
            return tape.gradient(y, x).numpy()

        return run

    return {
        "unsorted_segment_sum": lambda: lib.math.unsorted_segment_sum(x, ids, NODES).numpy(),
        "segment_sum (sorted ids)": lambda: lib.math.segment_sum(x, sorted_ids).numpy(),
        "unsorted_segment_mean": lambda: lib.math.unsorted_segment_mean(x, ids, NODES).numpy(),
        "unsorted_segment_sum fwd+bwd": backward(lambda v: lib.math.unsorted_segment_sum(v, ids, NODES)),
        "unsorted_segment_max fwd+bwd": backward(lambda v: lib.math.unsorted_segment_max(v, ids, NODES)),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    engines = {"minitape": cases(mt)}
    if tf is not None:
        tf.config.threading.set_intra_op_parallelism_threads(args.threads)
        engines["TensorFlow"] = cases(tf)
    floors = {"unsorted_segment_sum": floor_sum, "segment_sum (sorted ids)": floor_sorted_sum}
    times: dict[tuple, list[float]] = {}
    for _ in range(args.rounds):
        for case in engines["minitape"]:
            runs = {name: cases[case] for name, cases in engines.items()}
            if case in floors:
                runs["numpy floor"] = floors[case]
            for name, run in runs.items():
                start = time.perf_counter()
                run()
                times.setdefault((case, name), []).append((time.perf_counter() - start) * 1e3)
    print(f"{EDGES:,} messages x {FEATURES} features into {NODES:,} nodes; median of {args.rounds} rounds, ms")
    print("  (in brackets: minitape's time over that engine's)")
    for case in engines["minitape"]:
        row = {name: statistics.median(t) for (c, name), t in times.items() if c == case}
        ours = row["minitape"]
        others = "  ".join(f"{name} {ms:7.1f} ({ours / ms:.2f}x)" for name, ms in row.items() if name != "minitape")
        print(f"  {case:<30} minitape {ours:7.1f}  {others}")


if __name__ == "__main__":
    main()
