"""Engine benchmarks: minitape against hand-written numpy backprop (the floor), PyTorch and HIPS autograd.

Three workloads, each run on every engine in this one process:
  (a) a chain of 2,000 elementwise ops (sin, then multiply by a constant) on a float64[16] vector,
      forward plus backward: microseconds per op, i.e. the engine's overhead per recorded op;
  (b) one training step of a 64-128-10 ReLU MLP with softmax cross-entropy, batch 64, float32:
      forward, backward and an SGD update, from the same initial weights for every engine;
  (c) chains of 25k, 50k and 100k ops: they complete, and the time per op stays flat (linear growth).

The engines take turns, one timed run each per round (an MLP turn is 10 steps), so a noisy moment on a
shared machine falls on all of them; every figure is the median over the rounds, after a warm-up (as
engine issue 8 specifies). Each table shows each engine's figure divided by every other engine's
("x numpy" = how many times the numpy floor), and below it the fastest round of each engine.

    python benchmarks/bench_engine.py            # the full run (about a minute)
    python benchmarks/bench_engine.py --quick    # a smoke run: fewer repeats, (c) at a tenth of the lengths
"""

from __future__ import annotations

import argparse
import gc
import os
import platform
import statistics
import time
import tracemalloc
from collections.abc import Callable


def _parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="a fast smoke run: fewer repeats, shorter long chains")
    parser.add_argument("--threads", type=int, default=1, help="BLAS/OpenMP threads for every engine (default 1)")
    return parser.parse_args()


ARGS = _parse_args() if __name__ == "__main__" else argparse.Namespace(quick=True, threads=1)
# the thread count must be fixed before numpy (and its BLAS) is loaded, and be the same for every engine
for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = str(ARGS.threads)

import numpy as np  # noqa: E402

import minitape as mt  # noqa: E402

try:
    import torch
except ImportError:
    torch = None
try:
    import autograd
    import autograd.numpy as anp
except ImportError:
    autograd = anp = None

ENGINES = ("minitape", "mt.function", "numpy", "torch", "autograd")  # mt.function: the same code, traced
CHAIN_SCALE = 1.01  # sin(x) * 1.01 has a fixed point near 0.24: values and gradients stay normal numbers


def interleaved(
    runs: dict[str, Callable[[], object]], rounds: int, warmup: int = 1, burst: int = 1
) -> dict[str, list[float]]:
    """Seconds per call of each run, once per round, the runs taking turns, after `warmup` untimed rounds.

    In its turn a run is called `burst` times in a row and timed on average: a call far shorter than a
    turn of the others (an MLP step) then runs with its data in the CPU's caches, as it does in training.
    """
    for _ in range(warmup):
        for run in runs.values():
            run()
    times: dict[str, list[float]] = {name: [] for name in runs}
    for _ in range(rounds):
        for name, run in runs.items():
            start = time.perf_counter()
            for _ in range(burst):
                run()
            times[name].append((time.perf_counter() - start) / burst)
    return times


# ---- (a) and (c): a chain of elementwise ops -------------------------------------------------------
# n_ops counts recorded ops: n_ops // 2 rounds of (sin, multiply by a constant)


def chain_minitape(x0: np.ndarray, n_ops: int) -> np.ndarray:
    x = mt.constant(x0)
    with mt.GradientTape() as tape:
        tape.watch(x)
        y = x
        for _ in range(n_ops // 2):
            y = mt.sin(y) * CHAIN_SCALE
    return tape.gradient(y, x).numpy()  # the target's gradient is seeded with ones


_CHAIN_FUNCTIONS: dict[int, Callable] = {}


def chain_function(x0: np.ndarray, n_ops: int) -> np.ndarray:
    """chain_minitape's code under mt.function: traced on the first call for this length, replayed after."""
    traced = _CHAIN_FUNCTIONS.get(n_ops)
    if traced is None:

        @mt.function
        def traced(x):
            with mt.GradientTape() as tape:
                tape.watch(x)
                y = x
                for _ in range(n_ops // 2):
                    y = mt.sin(y) * CHAIN_SCALE
            return tape.gradient(y, x)

        _CHAIN_FUNCTIONS[n_ops] = traced
    return traced(mt.constant(x0)).numpy()


def chain_numpy(x0: np.ndarray, n_ops: int) -> np.ndarray:
    saved = []  # the inputs of each sin, which its derivative needs
    y = x0
    for _ in range(n_ops // 2):
        saved.append(y)
        y = np.sin(y) * CHAIN_SCALE
    grad = np.ones_like(y)
    for x in reversed(saved):
        grad = grad * CHAIN_SCALE
        grad = grad * np.cos(x)
    return grad


def chain_torch(x0: np.ndarray, n_ops: int) -> np.ndarray:
    x = torch.tensor(x0, requires_grad=True)
    y = x
    for _ in range(n_ops // 2):
        y = torch.sin(y) * CHAIN_SCALE
    y.backward(torch.ones_like(y))
    return x.grad.numpy()


def chain_autograd(x0: np.ndarray, n_ops: int) -> np.ndarray:
    def f(x):
        for _ in range(n_ops // 2):
            x = anp.sin(x) * CHAIN_SCALE
        return x

    return autograd.elementwise_grad(f)(x0)


CHAIN_RUNNERS = {
    "minitape": chain_minitape,
    "mt.function": chain_function,
    "numpy": chain_numpy,
    "torch": chain_torch,
    "autograd": chain_autograd,
}


# ---- (b) an MLP training step --------------------------------------------------------------------
BATCH, N_IN, N_HIDDEN, N_OUT, LEARNING_RATE = 64, 64, 128, 10, 0.1


def mlp_problem() -> tuple[np.ndarray, np.ndarray, list[np.ndarray]]:
    """Inputs, integer labels and initial weights [w1, b1, w2, b2], the same for every engine."""
    rng = np.random.default_rng(0)
    inputs = rng.standard_normal((BATCH, N_IN)).astype(np.float32)
    labels = rng.integers(0, N_OUT, BATCH).astype(np.int32)
    weights = [
        (rng.standard_normal((N_IN, N_HIDDEN)) * np.sqrt(2 / N_IN)).astype(np.float32),
        np.zeros(N_HIDDEN, np.float32),
        (rng.standard_normal((N_HIDDEN, N_OUT)) * np.sqrt(1 / N_HIDDEN)).astype(np.float32),
        np.zeros(N_OUT, np.float32),
    ]
    return inputs, labels, weights


def mlp_step(x: mt.Tensor, y: mt.Tensor, params: list) -> mt.Tensor:
    """One SGD step, written as a TensorFlow 2 user would; returns the loss."""
    w1, b1, w2, b2 = params
    with mt.GradientTape() as tape:
        hidden = mt.nn.relu(x @ w1 + b1)
        logits = hidden @ w2 + b2
        loss = mt.reduce_mean(mt.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))
    for p, g in zip(params, tape.gradient(loss, params)):
        p.assign_sub(LEARNING_RATE * g)
    return loss


def mlp_minitape(inputs, labels, weights):
    """A step function for minitape, run eagerly."""
    params, x, y = [mt.Variable(w) for w in weights], mt.constant(inputs), mt.constant(labels)
    return lambda: float(mlp_step(x, y, params))


def mlp_function(inputs, labels, weights):
    """The same step under mt.function: traced at the first call, replayed after (float() outside: inside, the
    loss has no value yet)."""
    params, x, y = [mt.Variable(w) for w in weights], mt.constant(inputs), mt.constant(labels)
    train_step = mt.function(mlp_step)
    return lambda: float(train_step(x, y, params))


def mlp_numpy(inputs, labels, weights):
    """The floor: the same step with the gradients written out by hand, updated in place."""
    w1, b1, w2, b2 = [w.copy() for w in weights]
    rows = np.arange(BATCH)

    def step() -> float:
        pre = inputs @ w1 + b1
        hidden = np.maximum(pre, 0)
        logits = hidden @ w2 + b2
        shifted = logits - logits.max(axis=1, keepdims=True)
        exps = np.exp(shifted)
        sums = exps.sum(axis=1, keepdims=True)
        loss = np.mean(np.log(sums[:, 0]) - shifted[rows, labels])
        d_logits = exps / sums  # softmax - one_hot(labels), over the batch
        d_logits[rows, labels] -= 1
        d_logits /= BATCH
        d_hidden = (d_logits @ w2.T) * (pre > 0)
        grads = (inputs.T @ d_hidden, d_hidden.sum(axis=0), hidden.T @ d_logits, d_logits.sum(axis=0))
        for p, g in zip((w1, b1, w2, b2), grads):
            p -= LEARNING_RATE * g
        return float(loss)

    return step


def mlp_torch(inputs, labels, weights):
    params = [torch.tensor(w, requires_grad=True) for w in weights]
    w1, b1, w2, b2 = params
    x, y = torch.from_numpy(inputs), torch.from_numpy(labels.astype(np.int64))

    def step() -> float:
        hidden = torch.relu(x @ w1 + b1)
        logits = hidden @ w2 + b2
        loss = torch.nn.functional.cross_entropy(logits, y)
        loss.backward()
        with torch.no_grad():
            for p in params:
                p -= LEARNING_RATE * p.grad
                p.grad = None
        return loss.item()

    return step


def mlp_autograd(inputs, labels, weights):
    params = [w.copy() for w in weights]
    rows = np.arange(BATCH)

    def loss_fn(ws):
        w1, b1, w2, b2 = ws
        logits = anp.dot(anp.maximum(anp.dot(inputs, w1) + b1, 0), w2) + b2
        shifted = logits - anp.max(logits, axis=1, keepdims=True)
        return anp.mean(anp.log(anp.sum(anp.exp(shifted), axis=1)) - shifted[rows, labels])

    loss_and_grad = autograd.value_and_grad(loss_fn)

    def step() -> float:
        loss, grads = loss_and_grad(params)
        for i, g in enumerate(grads):
            params[i] = params[i] - LEARNING_RATE * g
        return float(loss)

    return step


MLP_BUILDERS = {
    "minitape": mlp_minitape,
    "mt.function": mlp_function,
    "numpy": mlp_numpy,
    "torch": mlp_torch,
    "autograd": mlp_autograd,
}


# ---- printing ------------------------------------------------------------------------------------
def available(engine: str) -> bool:
    return {"torch": torch is not None, "autograd": autograd is not None}.get(engine, True)


def print_machine() -> None:
    cpu = platform.processor() or "unknown cpu"
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next(line.split(":", 1)[1].strip() for line in f if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    versions = [f"python {platform.python_version()}", f"numpy {np.__version__}", f"minitape {mt.__version__}"]
    versions.append(f"torch {torch.__version__}" if torch else "torch not installed")
    versions.append(f"autograd {_version('autograd')}" if autograd else "autograd not installed")
    print(f"machine: {cpu}, {os.cpu_count()} cores; {ARGS.threads} thread(s) for every engine")
    print("versions: " + ", ".join(versions))
    turns = f"timing: the engines take turns (one run, or {MLP_BURST} MLP steps, each per round); medians"
    print(turns + (" (--quick)" if ARGS.quick else ""))
    print("garbage collector: on; objects made by the imports frozen (gc.freeze), so no engine scans another's")


def _version(package: str) -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(package)
    except PackageNotFoundError:
        return "?"


def print_table(title: str, unit: str, times: dict[str, list[float]], scale: float, digits: int = 2) -> dict:
    """One row per engine: its median time (seconds times `scale`), then that divided by each other engine's.

    Below the table, each engine's fastest round. Returns the medians, which the targets are judged on.
    """
    figures = {engine: statistics.median(t) * scale for engine, t in times.items()}
    print(f"\n{title}")
    present = [e for e in ENGINES if e in figures]
    print(f"  {'engine':<12}{unit:>12}" + "".join(f"{'x ' + e:>14}" for e in present))
    for engine in ENGINES:
        if engine not in figures:
            print(f"  {engine:<12}{'not installed':>12}")
            continue
        ratios = "".join(f"{figures[engine] / figures[e]:>14.2f}" for e in present)
        print(f"  {engine:<12}{figures[engine]:>12.{digits}f}{ratios}")
    fastest = ", ".join(f"{e} {min(times[e]) * scale:.{digits}f}" for e in present)
    print(f"  fastest round, {unit}: {fastest}")
    return figures


def print_target(
    goal: str, figures: dict[str, float | None], peer: str, limit: float, engine: str = "minitape"
) -> None:
    """One target of the engine issue: `engine`'s figure (minitape's) at most `limit` times `peer`'s."""
    if figures.get(peer) is None:
        print(f"  target, {goal}: {peer} not installed")
        return
    ratio = figures[engine] / figures[peer]
    print(f"  target, {goal}: {'met' if ratio <= limit else 'not met'} ({ratio:.2f}x)")


# ---- the three sections --------------------------------------------------------------------------
ROUNDS = {"chain": 5 if ARGS.quick else 21, "mlp": 5 if ARGS.quick else 61, "long": 1 if ARGS.quick else 3}
MLP_BURST = 10  # steps in a row per turn


def bench_chain() -> None:
    n_ops, x0 = 2000, np.linspace(-2, 2, 16)
    runners = {e: CHAIN_RUNNERS[e] for e in ENGINES if available(e)}
    grads = {engine: run(x0, n_ops) for engine, run in runners.items()}
    runs = {engine: (lambda run=run: run(x0, n_ops)) for engine, run in runners.items()}
    times = interleaved(runs, ROUNDS["chain"])
    title = f"(a) chain of {n_ops:,} elementwise ops (sin, * {CHAIN_SCALE}) on float64[16], forward + backward"
    title += f": median of {ROUNDS['chain']} rounds"
    figures = print_table(title, "us/op", times, 1e6 / n_ops)
    agree = all(np.allclose(g, grads["numpy"], rtol=1e-9, atol=1e-300) for g in grads.values())
    print(f"  gradients agree across engines: {'yes' if agree else 'NO'}")
    print_target("minitape per op at or below torch's", figures, "torch", 1.0)
    print_target("minitape per op within 2x of torch's (the readable engine, issue 21)", figures, "torch", 2.0)
    print_target("mt.function within 2x of the numpy floor", figures, "numpy", 2.0, "mt.function")


def bench_mlp() -> None:
    problem = mlp_problem()
    steps = {engine: MLP_BUILDERS[engine](*problem) for engine in ENGINES if available(engine)}
    firsts = {engine: step() for engine, step in steps.items()}  # the same initial weights for every engine
    times = interleaved(steps, ROUNDS["mlp"], warmup=4, burst=MLP_BURST)
    title = f"(b) MLP {N_IN}-{N_HIDDEN}-{N_OUT}, ReLU, softmax cross-entropy, batch {BATCH}, float32: one SGD step"
    title += f": median of {ROUNDS['mlp']} rounds of {MLP_BURST} steps"
    figures = print_table(title, "ms/step", times, 1e3, digits=3)
    print(f"  first-step loss (same init): {', '.join(f'{e} {loss:.4f}' for e, loss in firsts.items())}")
    print_target("minitape within 1.5x of torch", figures, "torch", 1.5)
    print_target("minitape within 1.3x of torch (the readable engine, issue 21)", figures, "torch", 1.3)
    print_target("minitape within 3x of the numpy floor", figures, "numpy", 3.0)
    print_target("mt.function at or below torch", figures, "torch", 1.0, "mt.function")
    print_target("mt.function within 1.5x of the numpy floor", figures, "numpy", 1.5, "mt.function")


def bench_long_chain() -> None:
    lengths = (1_000, 5_000, 10_000) if ARGS.quick else (1_000, 25_000, 100_000)
    x0 = np.linspace(-2, 2, 16)
    rounds = ROUNDS["long"]
    print(f"\n(c) long chains (sin, * {CHAIN_SCALE}) on float64[16], forward + backward: median of {rounds} rounds")
    present = [e for e in ENGINES if available(e) and e != "mt.function"]  # (a) measures its replay
    print(f"  {'length':>8}{'minitape s':>12}" + "".join(f"{e + ' us/op':>16}" for e in present))
    per_op: dict[str, list[float]] = {e: [] for e in present}
    for n_ops in lengths:
        runs = {e: (lambda e=e, n=n_ops: CHAIN_RUNNERS[e](x0, n)) for e in present}
        # a short chain is timed more often: it is noisier
        times = interleaved(runs, rounds if n_ops > 1_000 else 3 * rounds + 2, warmup=0)
        seconds = {e: statistics.median(t) for e, t in times.items()}
        for engine in present:
            per_op[engine].append(seconds[engine] / n_ops * 1e6)
        cells = "".join(f"{per_op[e][-1]:>16.2f}" for e in present)
        print(f"  {n_ops:>8,}{seconds['minitape']:>12.2f}{cells}")
    growth = "".join(f"{per_op[e][-1] / per_op[e][0]:>16.2f}" for e in present)
    print(f"  {'per-op time at ' + format(lengths[-1], ',') + ' / at ' + format(lengths[0], ','):<20}{growth}")
    print(f"  the {lengths[-1]:,}-op chain completed on every engine (1.00 = linear growth)")
    ratio = per_op["minitape"][-1] / per_op["minitape"][0]
    print(f"  target, minitape per-op time at {lengths[-1]:,} within 1.2x of that at {lengths[0]:,}: ", end="")
    print(f"{'met' if ratio <= 1.2 else 'not met'} ({ratio:.2f}x)")
    print(f"  memory a recorded op keeps until gradient(): {record_bytes():,.0f} bytes (tracemalloc, 10,000 ops)")


def record_bytes(n_ops: int = 10_000) -> float:
    """Bytes per op held by a tape's records and the tensors they keep, the chain's own arrays included."""
    x = mt.constant(np.linspace(-2, 2, 16))
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    with mt.GradientTape() as tape:
        tape.watch(x)
        y = x
        for _ in range(n_ops // 2):
            y = mt.sin(y) * CHAIN_SCALE
    held = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    del tape, y
    return held / n_ops


def main() -> None:
    if torch is not None:
        torch.set_num_threads(ARGS.threads)
    # Python's full garbage collections scan every object alive, and torch alone brings some 150,000 of them.
    # Freezing what the imports made keeps one library from slowing another's long runs in this shared
    # process; each engine's own objects are still collected as usual.
    gc.collect()
    gc.freeze()
    print_machine()
    for engine in ("torch", "autograd"):
        if not available(engine):
            print(f"{engine}: not installed (pip install minitape[bench]); its columns are left out")
    bench_chain()
    bench_mlp()
    bench_long_chain()


if __name__ == "__main__":
    main()
