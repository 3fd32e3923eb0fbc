"""Lesson 08's custom training step (its DigitsCNN, Adam, sparse cross-entropy), eager against `@mt.function`.

The two take turns, one epoch-slice of steps each per round; each figure is the median over the rounds, by the wall
clock and by the process's CPU time (on a shared machine the wall clock adds the time spent waiting for a core).
Both start from the same weights, and the script checks that they end with the same losses, bit for bit.

    python benchmarks/bench_function.py [--rounds N]
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

# one BLAS thread, as bench_engine.py's default: on a shared machine a threaded BLAS can take milliseconds over
# a small matrix product that one thread does in microseconds, and would hide the difference measured here
for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402
from lesson08_model import DigitsCNN  # noqa: E402  (beside this script)

import minitape as mt  # noqa: E402
from minitape import keras  # noqa: E402

BATCH, STEPS = 32, 10


def trainer(traced: bool, x: np.ndarray, y: np.ndarray):
    keras.utils.set_random_seed(0)
    model, optimizer = DigitsCNN(), keras.optimizers.Adam(learning_rate=0.01)
    model(x[:1])
    loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)

    def train_step(x, y):  # lesson 08's, returning the loss tensor (float() of a traced value has no value yet)
        with mt.GradientTape() as tape:
            loss = loss_fn(y, model(x, training=True))
        gradients = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(gradients, model.trainable_variables))
        return loss

    step = mt.function(train_step) if traced else train_step
    losses: list[float] = []

    def run() -> None:
        for k in range(STEPS):
            batch = slice(k * BATCH, (k + 1) * BATCH)
            losses.append(float(step(x[batch], y[batch])))

    return run, losses


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=11)
    rounds = parser.parse_args().rounds
    rng = np.random.default_rng(0)
    x = rng.random((BATCH * STEPS, 8, 8, 1)).astype(np.float32)  # digits-sized images, as lesson 08's
    y = rng.integers(0, 10, BATCH * STEPS)
    runs = {"eager": trainer(False, x, y), "mt.function": trainer(True, x, y)}
    times: dict[str, list[float]] = {name: [] for name in runs}
    cpu: dict[str, list[float]] = {name: [] for name in runs}
    for round_ in range(rounds + 1):  # round 0 is the warm-up (and the trace)
        for name, (run, _) in runs.items():
            start, start_cpu = time.perf_counter(), time.process_time()
            run()
            if round_:
                times[name].append((time.perf_counter() - start) / STEPS * 1e3)
                cpu[name].append((time.process_time() - start_cpu) / STEPS * 1e3)
    eager, traced = (statistics.median(times[name]) for name in runs)
    eager_cpu, traced_cpu = (statistics.median(cpu[name]) for name in runs)
    print(f"lesson 08's train step, batch {BATCH}: median of {rounds} rounds of {STEPS} steps (CPU ms in brackets)")
    print(f"  eager        {eager:8.3f} ms/step ({eager_cpu:.3f})")
    print(
        f"  mt.function  {traced:8.3f} ms/step ({traced_cpu:.3f})   speed-up {eager / traced:.2f}x "
        f"(CPU {eager_cpu / traced_cpu:.2f}x)"
    )
    fastest = {name: min(t) for name, t in times.items()}
    print(f"  fastest round, ms/step: eager {fastest['eager']:.3f}, mt.function {fastest['mt.function']:.3f}")
    same = runs["eager"][1] == runs["mt.function"][1]
    print(f"  the same losses, bit for bit: {'yes' if same else 'NO'}")
    print(f"  target, mt.function at least 2x faster than eager: {'met' if eager / traced >= 2 else 'not met'}")


if __name__ == "__main__":
    main()
