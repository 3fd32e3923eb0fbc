"""`mt.keras.datasets`: digits (bundled, offline); MNIST, Fashion-MNIST and CIFAR-10 (downloaded once, as Keras)."""

from typing import Any

from minitape.keras.datasets import cifar10, digits, fashion_mnist, mnist
from minitape.namespaces import missing

__all__ = ["cifar10", "digits", "fashion_mnist", "mnist"]


def __getattr__(name: str) -> Any:
    missing.raise_missing("tf.keras.datasets", name, missing.DATASETS)
