"""`mt.keras`: Keras-shaped layers, models, losses, optimizers and training, on minitape's GradientTape.

A Keras model-subclassing example runs after changing only the import:
`import minitape as tf` then `tf.keras.layers.Dense`, `tf.keras.Model`, `model.fit`.
"""

from minitape.keras import (
    activations,
    backend,
    callbacks,
    constraints,
    datasets,
    initializers,
    layers,
    losses,
    metrics,
    models,
    ops,
    optimizers,
    preprocessing,
    random,
    regularizers,
    saving,
    utils,
)
from minitape.keras.layers import Layer
from minitape.keras.models import Input, Model, Sequential
from minitape.keras.unsupported import missing

__all__ = [
    "Input",
    "Layer",
    "Model",
    "Sequential",
    "activations",
    "backend",
    "callbacks",
    "constraints",
    "datasets",
    "initializers",
    "layers",
    "losses",
    "metrics",
    "models",
    "ops",
    "optimizers",
    "preprocessing",
    "random",
    "regularizers",
    "saving",
    "utils",
]


def __getattr__(name: str) -> object:
    """Parts of Keras that minitape leaves out raise an error that says so and what to use instead."""
    raise missing("keras", name)
