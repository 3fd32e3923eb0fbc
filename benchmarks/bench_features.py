"""What each recorded op pays for: the 2,000-op chain of bench_engine.py timed with teaching features switched off.

Each variant runs the same chain (sin, then * 1.01, on float64[16]) in this one process, the variants
interleaved round by round, and the median of the rounds is printed per op with the difference it
makes. Features are switched off by replacing the engine's function for them with a stand-in that
does nothing, so the figures show what the feature costs, not what a leaner design would cost.

The same chain also runs on `floor_engine.py`, the smallest tape engine with the teaching features
engine issue 8 lists, and on PyTorch: what a Python tape engine with these features costs at best,
and how far minitape is from it. `--long` adds the chain at 1,000 and 100,000 ops on all three, for
the growth of per-op time on long tapes (garbage collection). `--mlp` adds where the time of
bench_engine.py's MLP step goes, statement by statement.

    python benchmarks/bench_features.py [--rounds 15] [--long] [--mlp]
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

import floor_engine  # noqa: E402 - beside this script, whose folder Python puts on sys.path
import numpy as np  # noqa: E402

import minitape as mt  # noqa: E402
from minitape.engine import record  # noqa: E402
from minitape.engine import tape as tape_module  # noqa: E402

try:
    import torch
except ImportError:
    torch = None

N_OPS, X0 = 2000, np.linspace(0.1, 1.0, 16)


def forward(record: bool, n_ops: int = N_OPS) -> tuple:
    x = mt.constant(X0)
    tape = mt.GradientTape()
    with tape if record else contextlib.nullcontext():
        if record:
            tape.watch(x)
        y = x
        for _ in range(n_ops // 2):
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
    module, attr, stand_in = {
        "user line": (record, "user_code", lambda frame: None),
        "weak references": (tape_module, "weakref", types.SimpleNamespace(ref=id)),  # a C call that keeps nothing
    }[name]
    saved = getattr(module, attr)
    setattr(module, attr, stand_in)
    try:
        yield
    finally:
        setattr(module, attr, saved)


def floor(facts: bool, n_ops: int = N_OPS) -> None:
    floor_engine.FACTS = facts
    floor_engine.chain(X0, n_ops)


def torch_chain(n_ops: int = N_OPS) -> None:
    x = torch.tensor(X0, requires_grad=True)
    y = x
    for _ in range(n_ops // 2):
        y = torch.sin(y) * 1.01
    y.backward(torch.ones_like(y))


def full(variant: str = "", n_ops: int = N_OPS) -> None:
    with without(variant) if variant else contextlib.nullcontext():
        tape, x, y = forward(True, n_ops)
        tape.gradient(y, x)


VARIANTS: dict[str, Callable[[], object]] = {
    "numpy by hand (forward + backward)": numpy_floor,
    "minitape forward, no tape": lambda: forward(False),
    "minitape forward, recorded": lambda: forward(True),
    "minitape forward + backward": full,
    "  the same without the user line": lambda: full("user line"),
    "  the same without weak references": lambda: full("weak references"),
    "floor engine, ids and watched filter only": lambda: floor(False),
    "floor engine, with the teaching facts": lambda: floor(True),
}
if torch is not None:
    VARIANTS["PyTorch eager (forward + backward)"] = torch_chain


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--long", action="store_true", help="also time 1,000- and 100,000-op chains")
    parser.add_argument("--mlp", action="store_true", help="also time the MLP step of bench_engine.py by statement")
    args = parser.parse_args()
    if torch is not None:
        torch.set_num_threads(1)
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
    peer = median.get("PyTorch eager (forward + backward)")
    print(f"chain of {N_OPS:,} ops (sin, * 1.01) on float64[16]; median of {args.rounds} interleaved rounds")
    print(f"  {'variant':<44} {'us/op':>8}" + (f" {'x torch':>8}" if peer else ""))
    for name, value in median.items():
        print(f"  {name:<44} {value:8.2f}" + (f" {value / peer:8.2f}" if peer else ""))
    numpy_, fwd, rec, both, no_line, no_refs, floor_ids, floor_facts = list(median.values())[:8]
    print("what an op pays for, per recorded op:")
    print(f"  numpy's own work (the floor)               {numpy_:8.2f}")
    print(f"  the op path (convert, compute, wrap)       {fwd:8.2f}")
    print(f"  recording it on the tape                   {rec - fwd:8.2f}")
    print(f"    of which the user's line of code         {both - no_line:8.2f}")
    print(f"    of which weak references                 {both - no_refs:8.2f}")
    print(f"  the backward sweep and its rules           {both - rec:8.2f}")
    print("the floor engine (benchmarks/floor_engine.py) on the same chain:")
    print(f"  its record's teaching facts cost           {floor_facts - floor_ids:8.2f}")
    print(f"  minitape over the floor engine with them   {both - floor_facts:8.2f}  ({both / floor_facts:.2f}x)")
    if args.long:
        print_growth()
    if args.mlp:
        print_mlp_statements()


def print_growth() -> None:
    """Per-op time at 1,000 and 100,000 ops on each engine: how much a long tape costs per op."""
    engines = {"minitape": lambda n: full(n_ops=n), "floor engine": lambda n: floor(True, n)}
    if torch is not None:
        engines["PyTorch"] = torch_chain
    print("long chains, best of 9 runs at 1,000 ops and of 2 at 100,000 (the engines interleaved):")
    per_op: dict[str, list[float]] = {name: [] for name in engines}
    for n_ops, repeats in ((1_000, 9), (100_000, 2)):
        for name, run in engines.items():
            best = float("inf")
            for _ in range(repeats):
                start = time.perf_counter()
                run(n_ops)
                best = min(best, time.perf_counter() - start)
            per_op[name].append(best / n_ops * 1e6)
    print(f"  {'engine':<14} {'1,000':>8} {'100,000':>8}  us/op  {'growth':>7}")
    for name, (short, long) in per_op.items():
        print(f"  {name:<14} {short:8.2f} {long:8.2f}         {long / short:6.2f}x")


def print_mlp_statements(steps: int = 500) -> None:
    """The fastest of `steps` runs of each statement of bench_engine.py's MLP step, and the numpy floor's step."""
    import bench_engine  # beside this script; imported here, so the chain above runs without its setup

    inputs, labels, weights = bench_engine.mlp_problem()
    params = [mt.Variable(w) for w in weights]
    w1, b1, w2, b2 = params
    x, y = mt.constant(inputs), mt.constant(labels)
    floor_step = bench_engine.mlp_numpy(inputs, labels, weights)
    names = ["enter a tape, x @ w1 (a read, a MatMul)", "+ b1 (a read, an AddV2)", "relu", "h @ w2 (a read, a MatMul)",
             "+ b2 (a read, an AddV2)", "sparse cross-entropy", "reduce_mean", "tape.gradient (11 records)",
             "4 SGD updates (lr * g, assign_sub)", "numpy floor, the whole step"]  # fmt: skip
    best = dict.fromkeys(names, float("inf"))
    for _ in range(steps):
        clock = [time.perf_counter()]
        with mt.GradientTape() as tape:
            a = x @ w1
            clock.append(time.perf_counter())
            a = a + b1
            clock.append(time.perf_counter())
            h = mt.nn.relu(a)
            clock.append(time.perf_counter())
            logits = h @ w2
            clock.append(time.perf_counter())
            logits = logits + b2
            clock.append(time.perf_counter())
            losses = mt.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits)
            clock.append(time.perf_counter())
            loss = mt.reduce_mean(losses)
            clock.append(time.perf_counter())
        clock[-1] = time.perf_counter()  # leaving the block is not a statement of the step
        grads = tape.gradient(loss, params)
        clock.append(time.perf_counter())
        for p, g in zip(params, grads):
            p.assign_sub(bench_engine.LEARNING_RATE * g)
        clock.append(time.perf_counter())
        floor_step()
        clock.append(time.perf_counter())
        for name, start, end in zip(names, clock, clock[1:]):
            best[name] = min(best[name], (end - start) * 1e6)
    print(f"the MLP step of bench_engine.py by statement (fastest of {steps} steps), us:")
    for name, value in best.items():
        print(f"  {name:<42} {value:8.1f}")
    print(f"  {'minitape, the sum of the statements':<42} {sum(list(best.values())[:-1]):8.1f}")
    print_mlp_rules(x, y, params, steps)
    if torch is not None:
        print_torch_phases(inputs, labels, weights, steps)
    else:
        print("  PyTorch's step: not installed (pip install minitape[bench])")


class RuleClock(mt.engine.Observer):
    """Times each gradient rule of a sweep: from the observer's `rule` call to the rule's first contribution."""

    def __init__(self) -> None:
        self.times: dict[str, list[float]] = {}
        self.running: tuple[str, float] | None = None

    def rule(self, op: mt.engine.Operation, upstream: list) -> None:
        self.running = op.type, time.perf_counter()

    def contribution(self, op: mt.engine.Operation, slot: int, grad: object, total: object) -> None:
        if self.running is not None:
            name, start = self.running
            self.times.setdefault(name, []).append((time.perf_counter() - start) * 1e6)
            self.running = None


def print_mlp_rules(x: mt.Tensor, y: mt.Tensor, params: list, steps: int) -> None:
    """`steps` more forward passes of the MLP step, each swept with a RuleClock: what each op's rule costs.

    With an observer the sweep is watched, so the rules' ops take the full op path (about 0.2 us more per op).
    """
    w1, b1, w2, b2 = params
    clock = RuleClock()
    for _ in range(steps):
        with mt.GradientTape() as tape:
            logits = mt.nn.relu(x @ w1 + b1) @ w2 + b2
            loss = mt.reduce_mean(mt.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))
        tape.gradient(loss, params, observer=clock)
    print("  tape.gradient's rules (median of each, timed by an Observer), us:")
    for name, times in clock.times.items():
        print(f"    {name:<40} {statistics.median(times):8.1f}  x {len(times) // steps}")


def print_torch_phases(inputs: np.ndarray, labels: np.ndarray, weights: list, steps: int) -> None:
    """PyTorch's MLP step in the same three phases (fastest of `steps`): where minitape's time differs from it."""
    w1, b1, w2, b2 = params = [torch.tensor(w, requires_grad=True) for w in weights]
    x, y = torch.from_numpy(inputs), torch.from_numpy(labels.astype(np.int64))
    best = [float("inf")] * 3
    for _ in range(steps):
        clock = [time.perf_counter()]
        loss = torch.nn.functional.cross_entropy(torch.relu(x @ w1 + b1) @ w2 + b2, y)
        clock.append(time.perf_counter())
        loss.backward()
        clock.append(time.perf_counter())
        with torch.no_grad():
            for p in params:
                p -= 0.1 * p.grad
                p.grad = None
        clock.append(time.perf_counter())
        best = [min(b, (end - start) * 1e6) for b, start, end in zip(best, clock, clock[1:])]
    print(f"  PyTorch's step (fastest of {steps}), us: forward {best[0]:.1f}, backward {best[1]:.1f}, "
          f"update {best[2]:.1f}, whole {sum(best):.1f}")  # fmt: skip


if __name__ == "__main__":
    main()
