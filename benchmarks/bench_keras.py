"""Seconds per training epoch on the digits data: minitape.keras beside PyTorch, same run, same settings.

Both train the same MLP and CNN (the lesson's architecture) with Adam, batch size 32,
shuffling every epoch, on the same number of BLAS / intra-op threads. Prints the
median seconds per epoch and the ratio minitape / PyTorch (target: at most 2).

    python benchmarks/bench_keras.py [--threads 1] [--epochs 5]
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np
from threadpoolctl import threadpool_limits

import minitape as mt

BATCH = 32


def minitape_models():
    layers = mt.keras.layers

    def mlp():
        return mt.keras.Sequential([layers.Flatten(), layers.Dense(128, activation="relu"), layers.Dense(10)])

    def cnn():
        return mt.keras.Sequential(
            [
                layers.Conv2D(16, 3, padding="same", activation="relu"),
                layers.MaxPool2D(),
                layers.Conv2D(32, 3, padding="same", activation="relu"),
                layers.MaxPool2D(),
                layers.Flatten(),
                layers.Dense(256, activation="relu"),
                layers.Dense(10),
            ]
        )

    return {"MLP": mlp, "CNN": cnn}


def torch_models(torch):
    nn = torch.nn

    def mlp():
        return nn.Sequential(nn.Flatten(), nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 10))

    def cnn():
        return nn.Sequential(
            nn.Conv2d(1, 16, 3, padding=1),
            nn.ReLU(),
            nn.MaxPool2d(2),
            nn.Conv2d(16, 32, 3, padding=1),
            nn.ReLU(),
            nn.MaxPool2d(2),
            nn.Flatten(),
            nn.Linear(128, 256),
            nn.ReLU(),
            nn.Linear(256, 10),
        )

    return {"MLP": mlp, "CNN": cnn}


def time_minitape(make, x, y, epochs: int, custom_loop: bool) -> list[float]:
    mt.random.set_seed(0)
    model = make()
    loss_fn = mt.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    optimizer = mt.keras.optimizers.Adam()
    model.compile(optimizer=optimizer, loss=loss_fn, metrics=["accuracy"])
    accuracy = mt.keras.metrics.SparseCategoricalAccuracy()

    def epoch_by_hand():
        order = mt.random.generator().permutation(len(x))
        for start in range(0, len(x), BATCH):
            pick = order[start : start + BATCH]
            with mt.GradientTape() as tape:
                logits = model(x[pick], training=True)
                loss = loss_fn(y[pick], logits)
            grads = tape.gradient(loss, model.trainable_variables)
            optimizer.apply_gradients(zip(grads, model.trainable_variables))
            accuracy.update_state(y[pick], logits)

    times = []
    for _ in range(epochs + 1):  # the first epoch builds the layers: not timed
        start = time.perf_counter()
        if custom_loop:
            epoch_by_hand()
        else:
            model.fit(x, y, batch_size=BATCH, epochs=1, verbose=0)
        times.append(time.perf_counter() - start)
    return times[1:]


def time_torch(torch, make, x, y, epochs: int) -> list[float]:
    torch.manual_seed(0)
    model = make()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3, eps=1e-7)
    loss_fn = torch.nn.CrossEntropyLoss()
    xt, yt = torch.from_numpy(x), torch.from_numpy(y.astype(np.int64))
    rng = np.random.default_rng(0)
    times = []
    for _ in range(epochs + 1):
        start = time.perf_counter()
        order = torch.from_numpy(rng.permutation(len(x)))
        correct = 0
        for begin in range(0, len(x), BATCH):
            pick = order[begin : begin + BATCH]
            optimizer.zero_grad()
            logits = model(xt[pick])
            loss = loss_fn(logits, yt[pick])
            loss.backward()
            optimizer.step()
            correct += int((logits.argmax(1) == yt[pick]).sum())
        times.append(time.perf_counter() - start)
    return times[1:]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=1, help="BLAS / torch intra-op threads for both")
    parser.add_argument("--epochs", type=int, default=5, help="timed epochs (after one warm-up epoch)")
    args = parser.parse_args()

    import torch

    torch.set_num_threads(args.threads)
    (x_train, y_train), _ = mt.keras.datasets.digits.load_data()
    x = (x_train / 16.0).astype(np.float32)
    images = {"MLP": x, "CNN": x[..., None]}
    torch_images = {"MLP": x, "CNN": x[:, None]}  # PyTorch convolutions take NCHW

    print(f"digits: {len(x)} training images, batch {BATCH}, {args.threads} thread(s), median of {args.epochs} epochs")
    print(f"torch {torch.__version__}, numpy {np.__version__}")
    print(f"{'model':<6}{'minitape fit':>14}{'minitape loop':>15}{'PyTorch':>10}{'fit/PyTorch':>13}{'loop/PyTorch':>14}")
    with threadpool_limits(limits=args.threads):
        ours, theirs = minitape_models(), torch_models(torch)
        for name in ("MLP", "CNN"):
            fit = statistics.median(time_minitape(ours[name], images[name], y_train, args.epochs, custom_loop=False))
            loop = statistics.median(time_minitape(ours[name], images[name], y_train, args.epochs, custom_loop=True))
            ref = statistics.median(time_torch(torch, theirs[name], torch_images[name], y_train, args.epochs))
            print(f"{name:<6}{fit:>13.3f}s{loop:>14.3f}s{ref:>9.3f}s{fit / ref:>12.2f}x{loop / ref:>13.2f}x")


if __name__ == "__main__":
    main()
