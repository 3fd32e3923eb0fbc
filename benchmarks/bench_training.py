"""Training speed: the course's CIFAR CNN, lesson 08's digits CNN and the MNIST-shaped input pipeline, minitape
beside PyTorch (the same networks) and TensorFlow when it is importable in this Python.

  (a) the CIFAR CNN of the course (issue 26): Conv2D(16, 3, relu) -> MaxPool2D -> Conv2D(32, 3, relu) ->
      MaxPool2D -> Flatten -> Dense(256, relu) -> Dense(100, softmax), sparse cross-entropy, Adam, batch 32,
      on random data of CIFAR's shapes (no download): a subclassed keras.Model whose hand-written train_step
      (GradientTape, apply_gradients) is called batch after batch, and the same network with `fit`;
  (b) lesson 08's digits CNN (batch 64, Adam 0.01): one epoch of its `fit` cell and of its hand-written loop;
  (c) `from_tensor_slices((x, y)).repeat().shuffle(5000).batch(256).prefetch(1)` over 60,000 x 784 float32
      (MNIST's shapes): one epoch of batches (235), beside torch's DataLoader and tf.data.

The engines take turns (one turn each per round, a turn being several steps or one epoch), every figure is the
median over the rounds after a warm-up turn, with the same number of BLAS / intra-op threads for all. "peak MB"
is how far the process's resident memory grew above where the turn started (Linux's high-water mark, reset
before each measured step): memory an engine reuses from its own pool does not show.

    python benchmarks/bench_training.py                 # about 3 minutes on 2 cores
    python benchmarks/bench_training.py --quick         # a smoke run: few steps, small data
    python benchmarks/bench_training.py --threads 1 --rounds 9
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import time
from collections.abc import Callable


def _parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="a smoke run: few steps and rounds, small data")
    parser.add_argument("--threads", type=int, default=2, help="BLAS / intra-op threads for every engine (default 2)")
    parser.add_argument("--rounds", type=int, help="timed rounds, each engine one turn per round (5; --quick: 2)")
    parser.add_argument("--only", choices=("cifar", "digits", "pipeline"), help="run one section only")
    return parser.parse_args()


ARGS = _parse_args() if __name__ == "__main__" else argparse.Namespace(quick=True, threads=2, rounds=None, only=None)
ARGS.rounds = ARGS.rounds or (2 if ARGS.quick else 5)
# the thread count must be fixed before numpy (and its BLAS) is loaded, and be the same for every engine
for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = str(ARGS.threads)

import numpy as np  # noqa: E402
from lesson08_model import DigitsCNN  # noqa: E402  (beside this script)

import minitape as mt  # noqa: E402

try:
    import torch
except ImportError:
    torch = None
try:
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    import tensorflow as tf
except ImportError:
    tf = None

CIFAR_BATCH, DIGITS_BATCH, PIPE_BATCH = 32, 64, 256
STEPS = 4 if ARGS.quick else 20  # CIFAR steps per turn


# ---- measuring -----------------------------------------------------------------------------------
def _status_kb(field: str) -> int | None:
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return None


def peak_mb(run: Callable[[], object]) -> float | None:
    """How far resident memory rose above its level at the start while `run()` ran (Linux only, else None)."""
    try:
        with open("/proc/self/clear_refs", "w") as clear:
            clear.write("5")  # resets the high-water mark VmHWM to the current RSS
    except OSError:
        return None
    start = _status_kb("VmRSS")
    run()
    top = _status_kb("VmHWM")
    return None if start is None or top is None else max(top - start, 0) / 1024


def take_turns(turns: dict[str, Callable[[], int]], rounds: int) -> dict[str, tuple[float, float, float | None]]:
    """For each engine: median seconds per unit, median CPU seconds per unit (all threads of the process), and
    the peak MB of one turn. A turn returns how many units it ran."""
    memory = {name: peak_mb(turn) for name, turn in turns.items()}  # the warm-up turn, measured
    wall: dict[str, list[float]] = {name: [] for name in turns}
    cpu: dict[str, list[float]] = {name: [] for name in turns}
    for _ in range(rounds):
        for name, turn in turns.items():
            start, start_cpu = time.perf_counter(), time.process_time()
            units = turn()
            wall[name].append((time.perf_counter() - start) / units)
            cpu[name].append((time.process_time() - start_cpu) / units)
    return {name: (statistics.median(wall[name]), statistics.median(cpu[name]), memory[name]) for name in turns}


def report(title: str, unit: str, images_per_unit: int, results: dict, missing: list[str]) -> None:
    """One table: time per unit (wall clock, then CPU), images per second, peak memory, and each engine's wall
    time over PyTorch eager's."""
    print(f"\n{title}")
    ref = results.get("PyTorch eager", (None,))[0]
    print(f"  {'engine':<36}{unit:>11}{'CPU ms':>9}{'images/s':>11}{'peak MB':>9}{'/ PyTorch':>11}")
    for name, (seconds, cpu, memory) in results.items():
        mem = "n/a" if memory is None else f"{memory:.1f}"
        ratio = f"{seconds / ref:.2f}x" if ref else "n/a"
        print(
            f"  {name:<36}{seconds * 1e3:>11.2f}{cpu * 1e3:>9.2f}{images_per_unit / seconds:>11,.0f}{mem:>9}{ratio:>11}"
        )
    for name in missing:
        print(f"  {name:<36}{'not installed':>20}")


def load() -> str:
    try:
        return " / ".join(f"{v:.2f}" for v in os.getloadavg())
    except OSError:
        return "n/a"


# ---- (a) the CIFAR CNN ---------------------------------------------------------------------------
def cifar_data(n: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    return rng.random((n, 32, 32, 3), dtype=np.float32), rng.integers(0, 100, n).astype(np.int64)


def mt_cifar_layers() -> list:
    layers = mt.keras.layers
    return [
        layers.Conv2D(16, 3, activation="relu"),
        layers.MaxPool2D(2),
        layers.Conv2D(32, 3, activation="relu"),
        layers.MaxPool2D(2),
        layers.Flatten(),
        layers.Dense(256, activation="relu"),
        layers.Dense(100, activation="softmax"),
    ]


class CifarModel(mt.keras.Model):
    """The course's subclassed model with its own train_step (GradientTape, then apply_gradients)."""

    def __init__(self) -> None:
        super().__init__()
        self.stack = mt_cifar_layers()

    def call(self, x, training=False):
        for layer in self.stack:
            x = layer(x)
        return x

    def train_step(self, data):
        x, y = data
        with mt.GradientTape() as tape:
            loss = self.loss_fn(y, self(x, training=True))
        variables = self.trainable_variables
        self.optimizer.apply_gradients(zip(tape.gradient(loss, variables), variables))
        return {"loss": loss}


def mt_cifar_custom(x: np.ndarray, y: np.ndarray) -> Callable[[], int]:
    mt.random.set_seed(0)
    model = CifarModel()
    model.loss_fn = mt.keras.losses.SparseCategoricalCrossentropy()
    model.optimizer = mt.keras.optimizers.Adam()
    batches = [(x[i : i + CIFAR_BATCH], y[i : i + CIFAR_BATCH]) for i in range(0, STEPS * CIFAR_BATCH, CIFAR_BATCH)]

    def turn() -> int:
        for batch in batches:
            model.train_step(batch)
        return len(batches)

    return turn


def mt_cifar_fit(x: np.ndarray, y: np.ndarray) -> Callable[[], int]:
    mt.random.set_seed(0)
    model = mt.keras.Sequential(mt_cifar_layers())
    model.compile(optimizer=mt.keras.optimizers.Adam(), loss=mt.keras.losses.SparseCategoricalCrossentropy())
    xs, ys = x[: STEPS * CIFAR_BATCH], y[: STEPS * CIFAR_BATCH]

    def turn() -> int:
        model.fit(xs, ys, batch_size=CIFAR_BATCH, epochs=1, verbose=0)
        return STEPS

    return turn


def torch_cifar(x: np.ndarray, y: np.ndarray) -> Callable[[], int]:
    nn = torch.nn
    torch.manual_seed(0)
    model = nn.Sequential(
        nn.Conv2d(3, 16, 3), nn.ReLU(), nn.MaxPool2d(2), nn.Conv2d(16, 32, 3), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(32 * 6 * 6, 256), nn.ReLU(), nn.Linear(256, 100),
    )  # fmt: skip
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3, eps=1e-7)
    loss_fn = nn.CrossEntropyLoss()  # softmax and the cross-entropy in one, as Dense(softmax) + the Keras loss
    xt = torch.from_numpy(np.ascontiguousarray(x[: STEPS * CIFAR_BATCH].transpose(0, 3, 1, 2)))
    yt = torch.from_numpy(y[: STEPS * CIFAR_BATCH])

    def turn() -> int:
        for i in range(0, STEPS * CIFAR_BATCH, CIFAR_BATCH):
            optimizer.zero_grad()
            loss_fn(model(xt[i : i + CIFAR_BATCH]), yt[i : i + CIFAR_BATCH]).backward()
            optimizer.step()
        return STEPS

    return turn


def tf_cifar(x: np.ndarray, y: np.ndarray) -> dict[str, Callable[[], int]]:
    """TensorFlow's three ways: the same train_step eagerly, under tf.function, and Keras fit."""
    keras = tf.keras
    turns = {}
    for how in ("eager", "tf.function", "fit"):
        keras.utils.set_random_seed(0)
        model = keras.Sequential([keras.Input((32, 32, 3)), *_tf_layers(keras)])
        loss_fn, optimizer = keras.losses.SparseCategoricalCrossentropy(), keras.optimizers.Adam()
        xs, ys = x[: STEPS * CIFAR_BATCH], y[: STEPS * CIFAR_BATCH]
        if how == "fit":
            model.compile(optimizer=optimizer, loss=loss_fn)
            turns[f"TensorFlow {how}"] = _tf_fit_turn(model, xs, ys, CIFAR_BATCH, STEPS)
            continue
        turns[f"TensorFlow {how}"] = _tf_step_turn(model, loss_fn, optimizer, xs, ys, how == "tf.function")
    return turns


def _tf_layers(keras) -> list:
    layers = keras.layers
    return [
        layers.Conv2D(16, 3, activation="relu"), layers.MaxPool2D(2), layers.Conv2D(32, 3, activation="relu"),
        layers.MaxPool2D(2), layers.Flatten(), layers.Dense(256, activation="relu"),
        layers.Dense(100, activation="softmax"),
    ]  # fmt: skip


def _tf_fit_turn(model, xs, ys, batch: int, steps: int) -> Callable[[], int]:
    def turn() -> int:
        model.fit(xs, ys, batch_size=batch, epochs=1, verbose=0)
        return steps

    return turn


def _tf_step_turn(model, loss_fn, optimizer, xs, ys, compiled: bool) -> Callable[[], int]:
    def step(images, labels):
        with tf.GradientTape() as tape:
            loss = loss_fn(labels, model(images, training=True))
        optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))

    step = tf.function(step) if compiled else step
    batches = [(tf.constant(xs[i : i + CIFAR_BATCH]), tf.constant(ys[i : i + CIFAR_BATCH]))
               for i in range(0, len(xs), CIFAR_BATCH)]  # fmt: skip

    def turn() -> int:
        for images, labels in batches:
            step(images, labels)
        return len(batches)

    return turn


def run_cifar() -> None:
    x, y = cifar_data(STEPS * CIFAR_BATCH)
    turns = {"minitape custom train_step": mt_cifar_custom(x, y), "minitape fit": mt_cifar_fit(x, y)}
    missing = []
    if torch is not None:
        turns["PyTorch eager"] = torch_cifar(x, y)
    else:
        missing.append("PyTorch eager")
    if tf is not None:
        turns.update(tf_cifar(x, y))
    else:
        missing.append("TensorFlow (eager, tf.function, fit)")
    results = take_turns(turns, ARGS.rounds)
    report(f"(a) CIFAR CNN, batch {CIFAR_BATCH}, {STEPS} steps per turn", "ms/step", CIFAR_BATCH, results, missing)
    (custom, custom_cpu, _), (fit, fit_cpu, _) = results["minitape custom train_step"], results["minitape fit"]
    epochs = 5 * 1563 * custom / 60
    print(f"  the course's 5 epochs (7,815 steps) with the custom train_step: {epochs:.1f} minutes")
    if torch is not None:
        ratio, by_cpu = custom / results["PyTorch eager"][0], custom_cpu / results["PyTorch eager"][1]
        print(f"  target, custom train_step at most 1.2x PyTorch eager: {_verdict(ratio <= 1.2)} ({ratio:.2f}x; "
              f"CPU time {by_cpu:.2f}x)")  # fmt: skip
    print(f"  target, fit no slower than the custom loop: {_verdict(fit <= custom)} ({fit / custom:.2f}x; "
          f"CPU time {fit_cpu / custom_cpu:.2f}x)")  # fmt: skip


def _verdict(met: bool) -> str:
    return "met" if met else "not met"


# ---- (b) lesson 08's digits CNN ------------------------------------------------------------------
def mt_digits(x: np.ndarray, y: np.ndarray, use_fit: bool) -> Callable[[], int]:
    """One epoch per turn of lesson 08's `fit` cell (shuffle=False) or of its hand-written loop."""
    mt.keras.utils.set_random_seed(0)
    model = DigitsCNN()
    loss_fn = mt.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    optimizer = mt.keras.optimizers.Adam(learning_rate=0.01)
    model.compile(optimizer=optimizer, loss=loss_fn, metrics=["accuracy"])

    def loop_epoch() -> int:
        for start in range(0, len(x), DIGITS_BATCH):
            with mt.GradientTape() as tape:
                loss = loss_fn(y[start : start + DIGITS_BATCH], model(x[start : start + DIGITS_BATCH], training=True))
            gradients = tape.gradient(loss, model.trainable_variables)
            optimizer.apply_gradients(zip(gradients, model.trainable_variables))
            float(loss)
        return 1

    def fit_epoch() -> int:
        model.fit(x, y, batch_size=DIGITS_BATCH, epochs=1, shuffle=False, verbose=0)
        return 1

    return fit_epoch if use_fit else loop_epoch


def torch_digits(x: np.ndarray, y: np.ndarray) -> Callable[[], int]:
    nn = torch.nn
    torch.manual_seed(0)
    model = nn.Sequential(
        nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2), nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(),
        nn.MaxPool2d(2), nn.Flatten(), nn.Linear(16 * 2 * 2, 64), nn.ReLU(), nn.Linear(64, 10),
    )  # fmt: skip
    optimizer = torch.optim.Adam(model.parameters(), lr=0.01, eps=1e-7)
    loss_fn = nn.CrossEntropyLoss()
    xt, yt = torch.from_numpy(np.ascontiguousarray(x.transpose(0, 3, 1, 2))), torch.from_numpy(y.astype(np.int64))

    def epoch() -> int:
        for start in range(0, len(x), DIGITS_BATCH):
            optimizer.zero_grad()
            loss = loss_fn(model(xt[start : start + DIGITS_BATCH]), yt[start : start + DIGITS_BATCH])
            loss.backward()
            optimizer.step()
            loss.item()  # the lesson's loop reads each loss as a float
        return 1

    return epoch


def run_digits() -> None:
    (x, y), _ = mt.keras.datasets.digits.load_data()
    x = (x[..., None] / 16.0).astype(np.float32)
    if ARGS.quick:
        x, y = x[:256], y[:256]
    turns = {
        "minitape fit (lesson 08 cell)": mt_digits(x, y, use_fit=True),
        "minitape hand-written loop": mt_digits(x, y, use_fit=False),
    }
    missing = []
    if torch is not None:
        turns["PyTorch eager"] = torch_digits(x, y)
    else:
        missing.append("PyTorch eager")
    results = take_turns(turns, ARGS.rounds)
    report(f"(b) lesson 08's digits CNN, {len(x)} images, batch {DIGITS_BATCH}", "ms/epoch", len(x), results, missing)
    if torch is not None:
        ref, ref_cpu = results["PyTorch eager"][:2]
        for name in ("minitape fit (lesson 08 cell)", "minitape hand-written loop"):
            ratio, by_cpu = results[name][0] / ref, results[name][1] / ref_cpu
            print(f"  target, {name} at most PyTorch's time: {_verdict(ratio <= 1.0)} ({ratio:.2f}x; "
                  f"CPU time {by_cpu:.2f}x)")  # fmt: skip


# ---- (c) the MNIST-shaped input pipeline -----------------------------------------------------------
def pipeline_turn(make_batches: Callable[[], object], n_batches: int) -> Callable[[], int]:
    """One epoch of batches from a fresh iterator of the dataset made once (its shuffle buffer fills again)."""

    def turn() -> int:
        for _ in zip(range(n_batches), make_batches()):
            pass
        return 1

    return turn


def run_pipeline() -> None:
    n = 6_000 if ARGS.quick else 60_000
    rng = np.random.default_rng(0)
    x, y = rng.random((n, 784), dtype=np.float32), rng.integers(0, 10, n).astype(np.int64)
    n_batches = -(-n // PIPE_BATCH)

    pipeline = mt.data.Dataset.from_tensor_slices((x, y)).repeat().shuffle(5000).batch(PIPE_BATCH).prefetch(1)
    turns = {"minitape mt.data": pipeline_turn(lambda: iter(pipeline), n_batches)}
    missing = []
    if torch is not None:
        data = torch.utils.data.TensorDataset(torch.from_numpy(x), torch.from_numpy(y))
        loader = torch.utils.data.DataLoader(data, batch_size=PIPE_BATCH, shuffle=True)
        turns["PyTorch DataLoader (shuffle=True)"] = pipeline_turn(lambda: iter(loader), n_batches)
    else:
        missing.append("PyTorch DataLoader")
    if tf is not None:
        dataset = tf.data.Dataset.from_tensor_slices((x, y)).repeat().shuffle(5000).batch(PIPE_BATCH).prefetch(1)
        turns["TensorFlow tf.data"] = pipeline_turn(lambda: iter(dataset), n_batches)
    else:
        missing.append("TensorFlow tf.data")
    results = take_turns(turns, ARGS.rounds)
    title = f"(c) from_tensor_slices((x, y)).repeat().shuffle(5000).batch({PIPE_BATCH}), {n:,} x 784 float32"
    report(title, "ms/epoch", n, results, missing)


def main() -> None:
    if torch is not None:
        torch.set_num_threads(ARGS.threads)
    if tf is not None:
        tf.config.threading.set_intra_op_parallelism_threads(ARGS.threads)
        tf.config.threading.set_inter_op_parallelism_threads(ARGS.threads)
    versions = [f"numpy {np.__version__}"]
    versions += [f"torch {torch.__version__}"] if torch is not None else []
    versions += [f"tensorflow {tf.__version__}"] if tf is not None else []
    cpu = platform.processor() or platform.machine()
    print(f"machine: {cpu}, {os.cpu_count()} cores; {ARGS.threads} thread(s) for every engine; {', '.join(versions)}")
    print(f"load average before: {load()}; medians of {ARGS.rounds} rounds")
    sections = {"cifar": run_cifar, "digits": run_digits, "pipeline": run_pipeline}
    for name, run in sections.items():
        if ARGS.only in (None, name):
            run()
    print(f"\nload average after: {load()}")


if __name__ == "__main__":
    main()
