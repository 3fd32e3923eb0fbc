"""Small tapes to show and to test the viewer with: fan-out, an MLP step, a long chain, a much-shared variable."""

from __future__ import annotations

from typing import Any

import numpy as np

import minitape as mt


def fan_out() -> tuple[Any, Any, list]:
    """f(w1, w2) = 3·w1² + 2·w1·w2 at (5, 3): w1 fans out, so its gradient is a sum (30 + 6 = 36)."""
    w1 = mt.Variable(5.0, name="w1")
    w2 = mt.Variable(3.0, name="w2")
    with mt.GradientTape(persistent=True) as tape:
        f = 3 * w1**2 + 2 * w1 * w2
    return tape, f, [w1, w2]


def mlp_step(batch: int = 8, features: int = 4, hidden: int = 16, classes: int = 3, seed: int = 0) -> tuple:
    """One training step's tape of a two-layer MLP, each layer in its own name scope (as Keras layers run)."""
    rng = np.random.default_rng(seed)
    x = mt.constant(rng.normal(size=(batch, features)))
    labels = mt.constant(rng.integers(0, classes, size=batch))
    w1 = mt.Variable(rng.normal(size=(features, hidden)) * 0.5, name="dense/kernel")
    b1 = mt.Variable(np.zeros(hidden), name="dense/bias")
    w2 = mt.Variable(rng.normal(size=(hidden, classes)) * 0.5, name="dense_1/kernel")
    b2 = mt.Variable(np.zeros(classes), name="dense_1/bias")
    with mt.GradientTape(persistent=True) as tape:
        with mt.name_scope("dense"):
            h = mt.nn.relu(mt.matmul(x, w1) + b1)
        with mt.name_scope("dense_1"):
            logits = mt.matmul(h, w2) + b2
        with mt.name_scope("loss"):
            loss = mt.reduce_mean(mt.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits))
    return tape, loss, [w1, b1, w2, b2]


def chain(n_ops: int = 300, seed: int = 0) -> tuple:
    """A tape of about `n_ops` elementwise ops on two watched vectors, grouped in blocks of ten: a large graph."""
    rng = np.random.default_rng(seed)
    a = mt.Variable(rng.normal(size=3), name="a")
    b = mt.Variable(rng.normal(size=3), name="b")
    steps = [mt.sin, mt.tanh, lambda t: t * b, lambda t: t + a, mt.square, lambda t: t * 0.5]
    with mt.GradientTape(persistent=True) as tape:
        t = a * b
        for i in range(n_ops - 1):
            with mt.name_scope(f"block_{i // 10}"):
                t = steps[i % len(steps)](t)
        y = mt.reduce_sum(t)
    return tape, y, [a, b]


def keras_mlp_step(batch: int = 8, seed: int = 0) -> tuple:
    """One training step's tape of a Keras-style Sequential MLP (minitape.keras): layers run in name scopes."""
    keras = mt.keras
    keras.backend.clear_session()  # layer names restart at dense, dense_1, whatever ran before
    keras.utils.set_random_seed(seed)  # the initial weights, so every run draws the same tape
    rng = np.random.default_rng(seed)
    model = keras.Sequential([keras.layers.Dense(16, activation="relu"), keras.layers.Dense(3)])
    x = rng.normal(size=(batch, 4)).astype("float32")
    labels = rng.integers(0, 3, size=batch)
    loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    with mt.GradientTape(persistent=True) as tape:
        loss = loss_fn(labels, model(x))
    return tape, loss, list(model.trainable_variables)


def shared_variable(uses: int = 500, seed: int = 0) -> tuple:
    """One variable `w` feeding `uses` ops (t = sin(t·w), repeated; 2·uses + 1 ops): fan-out that crowds a layout."""
    rng = np.random.default_rng(seed)
    w = mt.Variable(rng.normal(size=3), name="w")
    x = mt.Variable(rng.normal(size=3), name="x")
    with mt.GradientTape(persistent=True) as tape:
        t = x
        for _ in range(uses):
            t = mt.sin(w * t)
        y = mt.reduce_sum(t)
    return tape, y, [w, x]
