"""Seconds per training epoch on the digits data: minitape.keras beside PyTorch, same run, same settings.

Both train the same MLP and CNN (lesson 08's layers, with 16 and 32 filters and 256 hidden
units) with Adam, batch size 32, shuffling every epoch, on the same number of BLAS / intra-op
threads. Prints the median seconds per epoch and the ratio minitape / PyTorch (issue 26's target
for the CNN: at most 1, `fit` and the loop alike).

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


def minitape_epochs(make, x, y, custom_loop: bool):
    """A function that trains one more epoch each call: with `fit`, or with a hand-written train_step."""
    mt.random.set_seed(0)
    model = make()
    loss_fn = mt.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    optimizer = mt.keras.optimizers.Adam()
    model.compile(optimizer=optimizer, loss=loss_fn, metrics=["accuracy"])
    accuracy = mt.keras.metrics.SparseCategoricalAccuracy()

    def train_step(images, labels):
        with mt.GradientTape() as tape:
            logits = model(images, training=True)
            loss = loss_fn(labels, logits)
        variables = model.trainable_variables
        optimizer.apply_gradients(zip(tape.gradient(loss, variables), variables))
        accuracy.update_state(labels, logits)

    def epoch():
        if not custom_loop:
            model.fit(x, y, batch_size=BATCH, epochs=1, verbose=0)
            return
        order = mt.random.generator().permutation(len(x))
        for start in range(0, len(x), BATCH):
            pick = order[start : start + BATCH]
            train_step(x[pick], y[pick])

    return epoch


def torch_epochs(torch, make, x, y):
    torch.manual_seed(0)
    model = make()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3, eps=1e-7)
    loss_fn = torch.nn.CrossEntropyLoss()
    xt, yt = torch.from_numpy(x), torch.from_numpy(y.astype(np.int64))
    rng = np.random.default_rng(0)

    def epoch():
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

    return epoch


def seconds_per_epoch(trainers: dict, epochs: int) -> dict:
    """Median epoch time of each trainer; epochs are interleaved so that all see the same machine load."""
    for epoch in trainers.values():
        epoch()  # warm-up: builds the layers
    times: dict = {name: [] for name in trainers}
    for _ in range(epochs):
        for name, epoch in trainers.items():
            start = time.perf_counter()
            epoch()
            times[name].append(time.perf_counter() - start)
    return {name: statistics.median(t) for name, t in times.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=1, help="BLAS / torch intra-op threads for both")
    parser.add_argument("--epochs", type=int, default=7, help="timed epochs (after one warm-up epoch)")
    args = parser.parse_args()

    import torch

    torch.set_num_threads(args.threads)
    (x_train, y_train), _ = mt.keras.datasets.digits.load_data()
    x = (x_train / 16.0).astype(np.float32)
    images = {"MLP": x, "CNN": x[..., None]}
    torch_images = {"MLP": x, "CNN": x[:, None]}  # PyTorch convolutions take NCHW

    print(f"digits: {len(x)} training images, batch {BATCH}, {args.threads} thread(s), median of {args.epochs} epochs")
    print(f"torch {torch.__version__}, numpy {np.__version__}")
    header = ("model", "minitape fit", "minitape loop", "PyTorch", "fit/PyTorch", "loop/PyTorch")
    print("".join(f"{h:>{w}}" if w > 0 else f"{h:<{-w}}" for h, w in zip(header, (-6, 14, 15, 10, 13, 14))))
    with threadpool_limits(limits=args.threads):
        ours, theirs = minitape_models(), torch_models(torch)
        for name in ("MLP", "CNN"):
            trainers = {
                "fit": minitape_epochs(ours[name], images[name], y_train, custom_loop=False),
                "loop": minitape_epochs(ours[name], images[name], y_train, custom_loop=True),
                "torch": torch_epochs(torch, theirs[name], torch_images[name], y_train),
            }
            t = seconds_per_epoch(trainers, args.epochs)
            fit, loop, ref = t["fit"], t["loop"], t["torch"]
            print(f"{name:<6}{fit:>13.3f}s{loop:>14.3f}s{ref:>9.3f}s{fit / ref:>12.2f}x{loop / ref:>13.2f}x")


if __name__ == "__main__":
    main()
